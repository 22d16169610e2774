//! Helpers shared by the integration tests of this crate: the golden fixtures
//! (`tests/golden/<id>.tsv`) and their escapes, the hostile catalogue's escapes, and the
//! corpus files. Each test binary uses a part of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/golden`.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Reverses the fixtures' escapes (`tests/golden.rs`, `escape`): `\\`, `\t`, `\n`, `\r`,
/// `\u{HEX}`; any other `\` sequence is an error.
pub fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err("\\u must be followed by {HEX}".into());
                }
                let mut hex = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(h) if h.is_ascii_hexdigit() && hex.len() < 6 => hex.push(h),
                        _ => return Err(format!("bad \\u{{...}} escape after {hex:?}")),
                    }
                }
                let v = u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?;
                out.push(char::from_u32(v).ok_or(format!("\\u{{{hex}}} is not a character"))?);
            }
            other => return Err(format!("unknown escape \\{}", other.unwrap_or(' '))),
        }
    }
    Ok(out)
}

/// The data lines of a fixture, unescaped: (input, expected), where expected is the key or
/// `!` and the error code.
pub fn golden_cases(id: &str) -> Vec<(String, String)> {
    let path = golden_dir().join(format!("{id}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let unescaped = |s: &str| unescape(s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (input, expected) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("{}: no TAB in {l:?}", path.display()));
            let expected = if expected.starts_with('!') {
                expected.to_string()
            } else {
                unescaped(expected)
            };
            (unescaped(input), expected)
        })
        .collect()
}

/// The inputs of every golden fixture, deduplicated and sorted.
pub fn golden_inputs() -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    for id in urlkey::internals::policy::builtin_variants() {
        out.extend(golden_cases(&id).into_iter().map(|(input, _)| input));
    }
    out.into_iter().collect()
}

/// The hostile catalogue's inputs (`tests/hostile/catalogue.txt`, `input:` lines):
/// [`expand`]ed bytes, in order.
pub fn hostile_inputs() -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/catalogue.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.strip_prefix("input:"))
        .map(|v| expand(v.strip_prefix(' ').unwrap_or(v)))
        .collect()
}

/// Expands the escapes and `\rep{N}{text}` of an input into bytes.
pub fn expand(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.extend_from_slice(&rest.as_bytes()[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix("rep{") {
            let (n, r) = r.split_once("}{").expect("\\rep{N}{text}");
            let n: usize = n.parse().expect("\\rep count");
            // The text ends at the first `}` not part of a `\u{..}`.
            let mut depth_end = None;
            let b = r.as_bytes();
            let mut j = 0;
            while j < b.len() {
                if b[j] == b'\\' && r[j..].starts_with("\\u{") {
                    j += r[j..].find('}').unwrap() + 1;
                    continue;
                }
                if b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if b[j] == b'}' {
                    depth_end = Some(j);
                    break;
                }
                j += 1;
            }
            let end = depth_end.expect("unclosed \\rep");
            let unit = expand(&r[..end]);
            out.reserve(unit.len() * n);
            for _ in 0..n {
                out.extend_from_slice(&unit);
            }
            rest = &r[end + 1..];
            continue;
        }
        let mut chars = rest.chars();
        match chars.next() {
            Some('t') => out.push(b'\t'),
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex = &rest[1..3];
                out.push(u8::from_str_radix(hex, 16).expect("\\xNN"));
                rest = &rest[3..];
                continue;
            }
            Some('u') => {
                let end = rest.find('}').expect("\\u{HEX}");
                let cp = u32::from_str_radix(&rest[2..end], 16).expect("\\u{HEX}");
                let c = char::from_u32(cp).expect("a character");
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                rest = &rest[end + 1..];
                continue;
            }
            other => panic!("unknown escape \\{other:?} in {s:?}"),
        }
        rest = chars.as_str();
    }
    out.extend_from_slice(rest.as_bytes());
    out
}

/// The corpus folder, `../shared/datasets/ada-url-various-datasets`, read at test time.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/ada-url-various-datasets")
}

/// Every non-empty line of every `*.txt` file under [`corpus_dir`], in file order, with
/// its file's path under the folder; a missing or empty folder fails the test that reads it.
pub fn corpus_lines() -> Vec<(String, String)> {
    let dir = corpus_dir();
    assert!(
        dir.is_dir(),
        "the corpus folder {} is missing: these tests read every *.txt file under it \
         (it is always present in CI at <repository>/../shared)",
        dir.display()
    );
    let mut files = Vec::new();
    collect_txt(&dir, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no *.txt file under {}", dir.display());
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let name = f.strip_prefix(&dir).unwrap_or(&f).display().to_string();
        for line in String::from_utf8_lossy(&bytes).split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if !line.is_empty() {
                out.push((name.clone(), line.to_string()));
            }
        }
    }
    out
}

/// Every `*.txt` file under `dir`, at any depth (the corpus folder).
pub fn collect_txt(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            collect_txt(&p, out);
        } else if p.extension().is_some_and(|e| e == "txt") {
            out.push(p);
        }
    }
}

//! Helpers shared by the integration tests of this crate: the golden fixtures
//! (`tests/golden/<id>.tsv`) and their escapes. Each test binary uses a part of them.
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
    for id in urlkey::policy::builtin_variants() {
        out.extend(golden_cases(&id).into_iter().map(|(input, _)| input));
    }
    out.into_iter().collect()
}

//! nginx: one `map $request_uri $urlkey_redirect` block (and its status map), included
//! inside `http {}`. Measured on nginx 1.22 (Debian): map keys are compared without ASCII
//! case, two keys that differ only in case stop nginx (`conflicting parameter`), a key's
//! `$` is literal but a value's `$` starts a variable, and there is no escape for it: a
//! value's `$` is written `${urlkey_dollar}`, a variable that the file defines as `$`.

use std::fmt::Write as _;

#[cfg(test)]
use super::Entry;
use super::{statuses, Rule};
use crate::check::limits;

/// The variable holding a literal `$` (nginx has no escape for one in a value).
const DOLLAR: &str = "${urlkey_dollar}";

pub(super) fn write(rules: &[Rule]) -> (String, Vec<String>) {
    let setup = setup_lines(rules);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# urlkey redirects compile: {} redirects for nginx.",
        rules.len()
    );
    t.push_str("# Include this file inside http {}; add to the server block of the old site:\n");
    for l in &setup {
        let _ = writeln!(t, "#     {l}");
    }
    t.push_str(
        "# Keys are the request's path and query as the browser sends them ($request_uri);\n\
         # nginx compares them without regard to ASCII case.\n",
    );
    let longest = rules
        .iter()
        .map(|r| r.source.path_query().len())
        .max()
        .unwrap_or(0);
    let bucket = bucket_size_for(longest);
    if bucket > 64 {
        let _ = writeln!(
            t,
            "# The longest key has {longest} bytes: nginx needs map_hash_bucket_size {bucket}; (or more) in http {{}}."
        );
    }
    t.push_str("\ngeo $urlkey_dollar { default \"$\"; }\n\nmap $request_uri $urlkey_redirect {\n");
    for r in rules {
        let _ = writeln!(
            t,
            "    {} {};",
            quote(&r.source.path_query()),
            quote(&r.target.replace('$', DOLLAR))
        );
    }
    t.push_str("}\n\nmap $request_uri $urlkey_redirect_status {\n    default 301;\n");
    for r in rules.iter().filter(|r| r.status != 301) {
        let _ = writeln!(t, "    {} {};", quote(&r.source.path_query()), r.status);
    }
    t.push_str("}\n");
    (t, setup)
}

/// The server block's lines: one per status other than 301 the map uses, then the
/// 301 line (the only one a map of 301s needs).
fn setup_lines(rules: &[Rule]) -> Vec<String> {
    let mut lines: Vec<String> = statuses(rules)
        .into_iter()
        .filter(|&s| s != 301)
        .map(|s| format!("if ($urlkey_redirect_status = {s}) {{ return {s} $urlkey_redirect; }}"))
        .collect();
    lines.push("if ($urlkey_redirect) { return 301 $urlkey_redirect; }".into());
    lines
}

/// The `map_hash_bucket_size` that a key of `len` bytes needs on a 64-bit nginx: a hash
/// element is a pointer, two bytes of length and the key aligned to a pointer, and a
/// bucket ends with one more pointer (ngx_hash.c); rounded up to a multiple of 64, as
/// check's finding names it ([`limits::nginx_bucket_size`]).
///
/// ```
/// use urlkey_redirects::compile::nginx_bucket_size_for;
/// assert_eq!(nginx_bucket_size_for(46), 64);
/// assert_eq!(nginx_bucket_size_for(47), 128);
/// ```
pub fn bucket_size_for(len: usize) -> usize {
    let need = limits::nginx_key_bucket_bytes(len as u64);
    limits::nginx_bucket_size(need) as usize
}

/// A double-quoted nginx string: `\` and `"` escaped (nginx's parser reads `\\` and `\"`).
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '\\' || c == '"' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

/// Reads the two maps back.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut block: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with("geo ") {
            continue;
        }
        if let Some(rest) = l.strip_prefix("map $request_uri ") {
            block = Some(rest.trim_end_matches(" {"));
            continue;
        }
        if l == "}" {
            block = None;
            continue;
        }
        let toks = tokens(l).ok_or_else(|| format!("line {}: not two strings and ;", n + 1))?;
        let [k, v] = &toks[..] else {
            return Err(format!("line {}: expected two tokens", n + 1));
        };
        match block {
            Some("$urlkey_redirect") => {
                index.insert(k.clone(), entries.len());
                entries.push(Entry {
                    source: k.clone(),
                    target: v.replace(DOLLAR, "$"),
                    status: 301,
                });
            }
            Some("$urlkey_redirect_status") if k == "default" => {}
            Some("$urlkey_redirect_status") => {
                let i = *index
                    .get(k)
                    .ok_or_else(|| format!("line {}: a status for no redirect", n + 1))?;
                entries[i].status = v.parse().map_err(|_| format!("line {}: status", n + 1))?;
            }
            _ => return Err(format!("line {}: outside the maps", n + 1)),
        }
    }
    Ok(entries)
}

#[cfg(test)]
/// The tokens of `a b;`, each bare or double-quoted with `\` escapes.
fn tokens(l: &str) -> Option<Vec<String>> {
    let body = l.strip_suffix(';')?;
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    loop {
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        let mut tok = String::new();
        if c == '"' {
            chars.next();
            loop {
                match chars.next()? {
                    '\\' => tok.push(chars.next()?),
                    '"' => break,
                    x => tok.push(x),
                }
            }
        } else {
            while let Some(&x) = chars.peek() {
                if x == ' ' {
                    break;
                }
                tok.push(x);
                chars.next();
            }
        }
        out.push(tok);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoted_strings_read_back_as_written() {
        for s in ["a\"b", "\\", "\\\"", "{;} $x '#", "\u{e9}"] {
            let line = format!("{} {};", super::quote(s), super::quote("v"));
            assert_eq!(super::tokens(&line).unwrap(), [s, "v"], "{line}");
        }
    }
}

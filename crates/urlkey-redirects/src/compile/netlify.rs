//! Netlify: a `_redirects` file, one rule a line: `from [key=value ...] to status!`.
//! Fields are separated by spaces, so sources and targets are percent-encoded first
//! ([`super::url`]). A source's query string becomes Netlify's query conditions
//! (`/store id=7 /new 301!`), which match whatever the parameters' order. `!` (force)
//! makes the rule redirect even when the new deploy has a file at that path: the map
//! says to redirect, so it does. A full-URL source stays a domain-level rule
//! (`https://old.example/path`); a path applies to every domain of the site.
//!
//! Refused: a source path holding `*` or a segment starting with `:` (Netlify reads them
//! as a splat and a placeholder, not as text), and a query Netlify's conditions cannot
//! state (a parameter without `=`, a key given twice, a value starting with `:`).

use std::fmt::Write as _;

#[cfg(test)]
use super::Entry;
use super::{ProblemKind, Rule};

pub(super) fn refuse(rule: &Rule) -> Option<(ProblemKind, String)> {
    let p = &rule.source.path;
    if p.contains('*') || p.split('/').any(|seg| seg.starts_with(':')) {
        return Some((
            ProblemKind::Pattern,
            "Netlify reads * and a segment starting with : as patterns, not text".into(),
        ));
    }
    if let Some(q) = &rule.source.query {
        if let Err(why) = conditions(q) {
            return Some((ProblemKind::Pattern, why));
        }
    }
    None
}

/// The query as Netlify conditions, sorted by key.
fn conditions(q: &str) -> Result<Vec<&str>, String> {
    let mut c: Vec<&str> = Vec::new();
    for pair in q.split('&') {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(format!(
                "Netlify matches a query as key=value pairs; {pair:?} has no ="
            ));
        };
        if k.is_empty() || v.starts_with(':') {
            return Err(format!(
                "Netlify cannot match the query pair {pair:?} literally"
            ));
        }
        if c.iter().any(|x| x.split_once('=').map(|p| p.0) == Some(k)) {
            return Err(format!(
                "Netlify matches each query key once; {k:?} is given twice"
            ));
        }
        c.push(pair);
    }
    c.sort_unstable();
    Ok(c)
}

/// The rule's source field: the path, or the full URL for a domain-level rule.
fn from(rule: &Rule) -> String {
    match (&rule.source.scheme, &rule.source.host) {
        (Some(s), Some(h)) => format!("{s}://{h}{}", rule.source.path),
        _ => rule.source.path.clone(),
    }
}

/// The source with its conditions: what Netlify matches.
pub(super) fn key(rule: &Rule) -> String {
    let mut k = from(rule);
    if let Some(q) = &rule.source.query {
        for c in conditions(q).unwrap_or_default() {
            k.push(' ');
            k.push_str(c);
        }
    }
    k
}

pub(super) fn write(rules: &[Rule]) -> (String, Vec<String>) {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# urlkey redirects compile: {} redirects for Netlify. Save as _redirects in the publish directory.",
        rules.len()
    );
    for r in rules {
        let _ = writeln!(t, "{} {} {}!", key(r), r.target, r.status);
    }
    let setup = vec!["save the file as _redirects in the site's publish directory".into()];
    (t, setup)
}

/// Reads the file back: the source with its conditions, as [`key`] gives it.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            return Err(format!("line {}: fewer than three fields", n + 1));
        }
        let status = f[f.len() - 1]
            .strip_suffix('!')
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("line {}: no forced status", n + 1))?;
        out.push(Entry {
            source: f[..f.len() - 2].join(" "),
            target: f[f.len() - 2].into(),
            status,
        });
    }
    Ok(out)
}

//! Apache httpd: a `RewriteMap` text file, `key value` per line, and the mod_rewrite lines
//! its header gives. The key is the request target as sent (path and query, from
//! `%{THE_REQUEST}`: `%{REQUEST_URI}` is decoded and has no query), compared exactly, case
//! included. The value is the status and the target run together (`301/new`): a text map
//! has one value per key, and a rule's `R=` status cannot come from a variable, so there is
//! one rule per status, each taking the values that start with it.
//!
//! A text map's fields cannot hold whitespace and have no escapes: sources and targets
//! are percent-encoded (spaces, controls, non-ASCII) before they get here ([`super::url`]).
//! Measured on Apache 2.4 (Debian): a target whose query came from a back-reference is
//! refused (`AH10508 Unsafe URL with %3f`) unless the rule has the `UnsafeAllow3F` flag
//! (Apache 2.4.60 and later); `NE` keeps mod_rewrite from escaping the target again and
//! `QSD` from appending the request's query to it.

use std::fmt::Write as _;

#[cfg(test)]
use super::Entry;
use super::{comment_safe, statuses, Options, Rule};

/// The map's name in the configuration lines.
const MAP: &str = "urlkey_redirects";

pub(super) fn write(rules: &[Rule], opts: &Options) -> (String, Vec<String>) {
    let file = opts
        .file
        .as_deref()
        .map(comment_safe)
        .unwrap_or_else(|| "/path/to/this/file".into());
    let setup = setup_lines(&file, &statuses(rules));
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# urlkey redirects compile: {} redirects for Apache httpd.",
        rules.len()
    );
    t.push_str(
        "# A RewriteMap text file: add these lines to the server configuration or the\n\
         # <VirtualHost> of the old site (RewriteMap is refused in .htaccess):\n",
    );
    for l in &setup {
        let _ = writeln!(t, "#     {l}");
    }
    t.push_str(
        "# Keys are the request's path and query as the browser sends them, compared\n\
         # exactly (case included). Each value is the status, then the target.\n",
    );
    for r in rules {
        let _ = writeln!(t, "{} {}{}", r.source.path_query(), r.status, r.target);
    }
    (t, setup)
}

/// The configuration lines: the map, then one rule per status the map uses.
pub fn setup_lines(file: &str, statuses: &[u16]) -> Vec<String> {
    let mut l = vec![
        "RewriteEngine On".to_string(),
        format!("RewriteMap {MAP} \"txt:{file}\""),
    ];
    for s in statuses {
        l.push("RewriteCond %{THE_REQUEST} \"^[A-Z]+ (/[^ ]*) HTTP/\"".into());
        l.push(format!("RewriteCond ${{{MAP}:%1}} ^{s}(.+)$"));
        l.push(format!("RewriteRule ^ %1 [R={s},NE,QSD,L,UnsafeAllow3F]"));
    }
    l
}

/// Reads the map file back.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split_whitespace();
        let (Some(key), Some(value), None) = (f.next(), f.next(), f.next()) else {
            return Err(format!("line {}: not two fields", n + 1));
        };
        let status = value
            .get(..3)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("line {}: no status", n + 1))?;
        out.push(Entry {
            source: key.into(),
            target: value[3..].into(),
            status,
        });
    }
    Ok(out)
}

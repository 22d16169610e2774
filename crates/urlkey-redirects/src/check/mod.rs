//! `urlkey redirects check`: a MAP read the way its server will read it. Two rows that the
//! server matches as one request are one source, whatever their spelling; a target that is
//! itself a source makes a chain; the server's limits are counted.

use serde::Serialize;

use crate::redirect_map::RedirectMap;
use crate::server::Server;

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A row whose target is its own source (under the server's matching).
    #[serde(rename = "self")]
    SelfRedirect,
    /// Two rows of one source with different targets.
    Conflict,
    /// Two rows that are one source under the server's matching.
    DuplicateSource,
    /// A row of the MAP file that is not a redirect (empty cell, bad status).
    BadRow,
}

impl FindingKind {
    /// The stable name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::SelfRedirect => "self",
            FindingKind::Conflict => "conflict",
            FindingKind::DuplicateSource => "duplicate-source",
            FindingKind::BadRow => "bad-row",
        }
    }
}

/// One problem, with the MAP lines it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Its kind.
    pub kind: FindingKind,
    /// The MAP file's lines it concerns, in file order.
    pub lines: Vec<u64>,
    /// What was found, for a person.
    pub detail: String,
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// The server the map was read for.
    pub server: &'static str,
    /// Data rows of the MAP file.
    pub rows: usize,
    /// Redirects in the map.
    pub entries: usize,
    /// The problems, by kind then line.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// True when the map has no problem: `compile` writes only such a map.
    pub fn passes(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Checks `map` for `server`.
///
/// ```
/// use urlkey_redirects::{check::check, RedirectMap, Server};
/// let map = RedirectMap::from_csv("m.csv", "source,target\n/a,/b\n/a,/c\n").unwrap();
/// let report = check(&map, Server::Netlify);
/// assert!(!report.passes());
/// assert_eq!(report.findings[0].kind.as_str(), "conflict");
/// ```
pub fn check(map: &RedirectMap, server: Server) -> CheckReport {
    let mut findings = Vec::new();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, e) in map.entries.iter().enumerate() {
        if e.source == e.target {
            findings.push(Finding {
                kind: FindingKind::SelfRedirect,
                lines: vec![e.line],
                detail: format!("{} redirects to itself", e.source),
            });
        }
        if let Some(&j) = seen.get(e.source.as_str()) {
            let first = &map.entries[j];
            let kind = if first.target == e.target {
                FindingKind::DuplicateSource
            } else {
                FindingKind::Conflict
            };
            findings.push(Finding {
                kind,
                lines: vec![first.line, e.line],
                detail: format!("{} is a source twice", e.source),
            });
        } else {
            seen.insert(&e.source, i);
        }
    }
    for s in map.set_aside.iter().filter(|s| s.reason.is_problem()) {
        findings.push(Finding {
            kind: FindingKind::BadRow,
            lines: vec![s.line],
            detail: s.reason.as_str().to_string(),
        });
    }
    findings.sort_by(|a, b| (a.kind, &a.lines).cmp(&(b.kind, &b.lines)));
    CheckReport {
        server: server.name(),
        rows: map.rows(),
        entries: map.entries.len(),
        findings,
    }
}

//! `urlkey redirects check`: a MAP read the way its server will read it. Two rows that the
//! server matches as one request are one source, whatever their spelling; a target that is
//! itself a source makes a chain; the server's limits are counted.
//!
//! The parts, each a pass over the map's rows with hash maps (linear in the rows; a
//! million-row map is checked in seconds): [`sources`] (one key per row under the
//! server's matching: duplicates, conflicts, sources the server cannot take, hosts it
//! cannot tell apart), [`graph`] (chains, loops, self-redirects), [`counts`]
//! (many-to-one, homepage dumps), [`inventory`] (targets absent from the new site),
//! [`limits`] (the table of each server's limits) and [`render`] (text and CSV).
//!
//! A finding is an [`Severity::Error`] (the map would not work as meant, or the server
//! refuses it: `compile` refuses the map) or a [`Severity::Warning`] (worth a look, or a
//! setting to raise: the map still compiles). [`FindingKind::severity`] says which.

pub mod counts;
pub mod graph;
pub mod inventory;
pub mod limits;
pub mod render;
pub mod sources;

use serde::Serialize;

use crate::redirect_map::RedirectMap;
use crate::server::Server;

pub use inventory::Inventory;
pub use limits::{Limit, LIMITS};

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A row whose target is its own source (under the server's matching).
    #[serde(rename = "self")]
    SelfRedirect,
    /// Rows whose targets lead back to the first (two rows or more).
    Loop,
    /// A row whose target is itself a source: two hops or more.
    Chain,
    /// Rows of one source (under the server's matching) with different targets.
    Conflict,
    /// Rows that are one source under the server's matching (case, trailing slash,
    /// query, host), with one target; or a row a first-match server never reaches.
    DuplicateSource,
    /// A source the server cannot take (not a path or full URL, a query the server does
    /// not match, a path where the server needs a full URL).
    UnsupportedSource,
    /// Sources naming several hosts for a server that matches the path alone.
    MixedHosts,
    /// A target that is neither a path starting with `/` nor a full http(s) URL.
    BadTarget,
    /// A target the new site's inventory does not have.
    MissingTarget,
    /// One of the server's limits ([`LIMITS`]).
    Limit,
    /// A target that many sources redirect to ([`counts::MANY_TO_ONE`]).
    ManyToOne,
    /// Pages redirected to the home page.
    HomepageDump,
    /// A row of the MAP file that is not a redirect (empty cell, bad status).
    BadRow,
}

impl FindingKind {
    /// Every kind, in report order.
    pub const ALL: [FindingKind; 13] = [
        FindingKind::SelfRedirect,
        FindingKind::Loop,
        FindingKind::Chain,
        FindingKind::Conflict,
        FindingKind::DuplicateSource,
        FindingKind::UnsupportedSource,
        FindingKind::MixedHosts,
        FindingKind::BadTarget,
        FindingKind::MissingTarget,
        FindingKind::Limit,
        FindingKind::ManyToOne,
        FindingKind::HomepageDump,
        FindingKind::BadRow,
    ];

    /// The stable name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::SelfRedirect => "self",
            FindingKind::Loop => "loop",
            FindingKind::Chain => "chain",
            FindingKind::Conflict => "conflict",
            FindingKind::DuplicateSource => "duplicate-source",
            FindingKind::UnsupportedSource => "unsupported-source",
            FindingKind::MixedHosts => "mixed-hosts",
            FindingKind::BadTarget => "bad-target",
            FindingKind::MissingTarget => "missing-target",
            FindingKind::Limit => "limit",
            FindingKind::ManyToOne => "many-to-one",
            FindingKind::HomepageDump => "homepage-dump",
            FindingKind::BadRow => "bad-row",
        }
    }

    /// The severity of this kind's findings; a [`FindingKind::Limit`] finding takes its
    /// limit's ([`Limit::severity`]).
    ///
    /// Errors: a redirect that loops, takes two hops, cannot be written for the server or
    /// is refused by it, lands on no page of the new site, or a row meant as a redirect
    /// that is none. Warnings: many-to-one and homepage dumps are choices a person may
    /// have made on purpose (counted, named, never refused).
    pub const fn severity(self) -> Severity {
        match self {
            FindingKind::ManyToOne | FindingKind::HomepageDump => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// Whether a finding stops the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The map fails the check: `compile` refuses it.
    Error,
    /// Worth a look; the map still passes.
    Warning,
}

impl Severity {
    /// The stable name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem, with the MAP lines it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Its kind.
    pub kind: FindingKind,
    /// Whether it fails the map.
    pub severity: Severity,
    /// For a [`FindingKind::Limit`]: the limit's id in [`LIMITS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<&'static str>,
    /// The MAP file's lines it concerns, in file order.
    pub lines: Vec<u64>,
    /// What was found, for a person.
    pub detail: String,
}

impl Finding {
    /// A finding of `kind` with that kind's severity.
    pub fn new(kind: FindingKind, mut lines: Vec<u64>, detail: String) -> Finding {
        lines.sort_unstable();
        lines.dedup();
        Finding {
            kind,
            severity: kind.severity(),
            limit: None,
            lines,
            detail,
        }
    }
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
    /// Rows set aside by the reader (a reviewer's `reject` included): `entries +
    /// set_aside = rows`.
    pub set_aside: usize,
    /// Findings that fail the map.
    pub errors: usize,
    /// Findings that do not.
    pub warnings: usize,
    /// With a new site's inventory: targets it holds exactly, and targets it holds only
    /// under the server's matching (another case, a trailing slash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<inventory::TargetCounts>,
    /// The problems, errors first, then by kind and first line.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// True when the map has no error (warnings allowed): `compile` writes only such a map.
    pub fn passes(&self) -> bool {
        self.errors == 0
    }

    /// The findings of one kind.
    pub fn of(&self, kind: FindingKind) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.kind == kind)
    }
}

/// What `check` reads besides the map.
#[derive(Debug, Default)]
pub struct CheckOptions {
    /// The new site's inventory: a target it lacks is a `missing-target` error.
    pub new: Option<Inventory>,
}

/// Checks `map` for `server`.
///
/// ```
/// use urlkey_redirects::{check::check, RedirectMap, Server};
/// let map = RedirectMap::from_csv("m.csv", "source,target\n/a,/b\n/a,/c\n").unwrap();
/// let report = check(&map, Server::Netlify);
/// assert!(!report.passes());
/// assert_eq!(report.findings[0].kind.as_str(), "conflict");
/// // One source for nginx (case-insensitive keys), two for Apache.
/// let map = RedirectMap::from_csv("m.csv", "source,target\n/About,/b\n/about,/b\n").unwrap();
/// assert!(!check(&map, Server::Nginx).passes());
/// assert!(check(&map, Server::Apache).passes());
/// ```
pub fn check(map: &RedirectMap, server: Server) -> CheckReport {
    check_with(map, server, &CheckOptions::default())
}

/// Checks `map` for `server` with `options` (a new site's inventory).
pub fn check_with(map: &RedirectMap, server: Server, options: &CheckOptions) -> CheckReport {
    let mut findings = Vec::new();
    let keyed = sources::Keyed::new(map, server);
    keyed.findings(&mut findings);
    graph::findings(&keyed, &mut findings);
    counts::findings(&keyed, &mut findings);
    limits::findings(map, server, &mut findings);
    let targets = options
        .new
        .as_ref()
        .map(|inv| inv.findings(map, &mut findings));
    for s in map.set_aside.iter().filter(|s| s.reason.is_problem()) {
        findings.push(Finding::new(
            FindingKind::BadRow,
            vec![s.line],
            format!(
                "{}: the row is not a redirect{}",
                s.reason.as_str(),
                if s.source.is_empty() {
                    String::new()
                } else {
                    format!(" (source {})", s.source)
                }
            ),
        ));
    }
    findings.sort_by(|a, b| {
        (a.severity, a.kind, a.lines.first()).cmp(&(b.severity, b.kind, b.lines.first()))
    });
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    CheckReport {
        server: server.name(),
        rows: map.rows(),
        entries: map.entries.len(),
        set_aside: map.set_aside.len(),
        errors,
        warnings: findings.len() - errors,
        targets,
        findings,
    }
}

/// Up to `n` items joined with ", ", and how many more.
pub(crate) fn some_of<T: std::fmt::Display>(
    items: impl IntoIterator<Item = T>,
    n: usize,
) -> String {
    let mut out = String::new();
    let mut more = 0usize;
    for (i, item) in items.into_iter().enumerate() {
        if i < n {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&item.to_string());
        } else {
            more += 1;
        }
    }
    if more > 0 {
        out.push_str(&format!(" and {more} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same map under each server: the kinds found, in report order.
    fn kinds(rows: &str, server: Server) -> Vec<&'static str> {
        let map = RedirectMap::from_csv("m.csv", &format!("source,target\n{rows}")).unwrap();
        let mut k: Vec<&'static str> = check(&map, server)
            .findings
            .iter()
            .map(|f| f.kind.as_str())
            .collect();
        k.dedup();
        k
    }

    #[test]
    fn one_map_read_by_each_server() {
        use Server::*;
        let cases: [(&str, [&[&str]; 6]); 4] = [
            // nginx, apache, netlify, cloudflare, vercel, iis
            (
                "https://a.com/About,https://a.com/team\nhttps://a.com/about,https://a.com/team\n",
                [
                    &["duplicate-source"],
                    &[],
                    &[],
                    &[],
                    &["duplicate-source"],
                    &["duplicate-source"],
                ],
            ),
            (
                "https://a.com/Team,https://a.com/team\n",
                [&["self"], &[], &[], &[], &["self"], &["self"]],
            ),
            (
                "https://a.com/team/,https://a.com/team\n",
                [&[], &[], &["self"], &[], &[], &[]],
            ),
            (
                "https://a.com/p?x=1,https://a.com/y\nhttps://a.com/p?x=2,https://a.com/z\n",
                [
                    &[],
                    &[],
                    &[],
                    &["conflict", "unsupported-source"],
                    &["conflict", "unsupported-source"],
                    &[],
                ],
            ),
        ];
        for (rows, want) in cases {
            for (server, want) in [Nginx, Apache, Netlify, Cloudflare, Vercel, Iis]
                .into_iter()
                .zip(want)
            {
                assert_eq!(kinds(rows, server), want, "{server} on {rows:?}");
            }
        }
        // Cloudflare needs full URLs: a path alone is a source it cannot take.
        assert_eq!(kinds("/a,/b\n", Cloudflare), ["unsupported-source"]);
    }

    #[test]
    fn counts_add_up_and_errors_decide() {
        let map = RedirectMap::from_csv(
            "m.csv",
            "source,target,decision\n/a,/,accept\n/b,/c,reject\n/d,,accept\n",
        )
        .unwrap();
        let r = check(&map, Server::Nginx);
        assert_eq!((r.rows, r.entries, r.set_aside), (3, 1, 2));
        assert_eq!((r.errors, r.warnings), (1, 1), "{:?}", r.findings);
        assert_eq!(r.findings[0].kind, FindingKind::BadRow, "errors first");
        assert!(!r.passes());
        for kind in FindingKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::from(kind.as_str())
            );
        }
    }
}

//! `urlkey redirects compile`: an approved map written in a server's own format
//! (docs/redirects.md, "Compile"). One module per server writes its file (and, for the tests,
//! reads it back to compare it with the MAP).
//!
//! A map is compiled only when [`check`] passes it for that server;
//! then every row is put in the form the browser sends ([`url`]) and refused here, with
//! its line, when the server's file cannot say it (a query string Vercel cannot match, a
//! source without a host for Cloudflare, two rows that the server reads as one key). So a
//! written file always loads and does what each row says.

mod apache;
mod cloudflare;
mod iis;
mod netlify;
mod nginx;
pub mod url;
mod vercel;

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde::Serialize;

use crate::check::{check, CheckReport};
use crate::redirect_map::RedirectMap;
use crate::server::Server;
use url::{SourceUrl, UrlProblem};

pub use nginx::bucket_size_for as nginx_bucket_size_for;

/// One redirect, its source and target in the form a browser sends and follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The MAP file's line.
    pub line: u64,
    /// Where from.
    pub source: SourceUrl,
    /// Where to.
    pub target: String,
    /// Its HTTP status.
    pub status: u16,
}

/// A redirect as a compiled file holds it (read back by the tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The source as the file writes it: the request target (nginx, Apache, Vercel,
    /// IIS), the rule's source with its query conditions (Netlify), the list's source
    /// URL (Cloudflare).
    pub source: String,
    /// The target.
    pub target: String,
    /// The status.
    pub status: u16,
}

/// Why a row cannot be written for the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// A source that is neither a path starting with `/` nor an `http(s)` URL.
    SourceNotAPath,
    /// A source with a `#fragment`, which browsers never send.
    SourceFragment,
    /// A target that is neither a path starting with `/` nor an `http(s)` URL.
    TargetNotAUrl,
    /// A source with a query string, which the server's redirects cannot match.
    SourceQuery,
    /// A path-only source for a server whose entries name their host.
    SourceNeedsHost,
    /// A source with a port, which the server's entries cannot name.
    SourcePort,
    /// A source path with a `%` not followed by two hex digits: the server answers
    /// 400 Bad Request before its map is read.
    SourceBadEscape,
    /// Sources on more than one host, for a file that matches paths only.
    ManyHosts,
    /// A source that the server's syntax would read as a pattern (`*`, `:name`) or a
    /// query it cannot state.
    Pattern,
    /// A status the server cannot send.
    Status,
    /// Two rows that the server reads as one key: its file would not load, or would
    /// ignore one.
    DuplicateKey,
}

impl ProblemKind {
    /// The stable name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProblemKind::SourceNotAPath => "source-not-a-path",
            ProblemKind::SourceFragment => "source-fragment",
            ProblemKind::TargetNotAUrl => "target-not-a-url",
            ProblemKind::SourceQuery => "source-query",
            ProblemKind::SourceNeedsHost => "source-needs-host",
            ProblemKind::SourcePort => "source-port",
            ProblemKind::SourceBadEscape => "source-bad-escape",
            ProblemKind::ManyHosts => "many-hosts",
            ProblemKind::Pattern => "pattern",
            ProblemKind::Status => "status",
            ProblemKind::DuplicateKey => "duplicate-key",
        }
    }
}

/// A row (or rows) that cannot be compiled, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Its kind.
    pub kind: ProblemKind,
    /// The MAP file's lines it concerns.
    pub lines: Vec<u64>,
    /// What, for a person.
    pub detail: String,
}

/// Why nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `check` found problems for this server.
    Check(CheckReport),
    /// Rows the server's file cannot say, in MAP order.
    Rows(Vec<Problem>),
}

/// A compiled map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// For which server.
    pub server: Server,
    /// The file's text.
    pub text: String,
    /// Redirects written.
    pub redirects: usize,
    /// The lines the server's configuration needs besides the file (the file's header
    /// says them too).
    pub setup: Vec<String>,
}

/// Settings of a compile.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Where the file will be (absolute, when known): named in the Apache `RewriteMap`
    /// line the header gives.
    pub file: Option<String>,
}

/// Compiles `map` for `server`: refused when `check` fails it, or when a row cannot be
/// written in the server's format.
///
/// ```
/// use urlkey_redirects::{compile, RedirectMap, Server};
/// let map = RedirectMap::from_csv("m.csv", "source,target\n/old page,/new\n").unwrap();
/// let c = compile::compile(&map, Server::Nginx, &compile::Options::default()).unwrap();
/// assert!(c.text.contains("\"/old%20page\" \"/new\";"));
/// assert_eq!(c.setup, ["if ($urlkey_redirect) { return 301 $urlkey_redirect; }"]);
/// ```
pub fn compile(map: &RedirectMap, server: Server, opts: &Options) -> Result<Compiled, Refusal> {
    let report = check(map, server);
    if !report.passes() {
        return Err(Refusal::Check(report));
    }
    let rules = rules(map, server).map_err(Refusal::Rows)?;
    Ok(render(server, &rules, opts))
}

/// The map's rows for `server`, or every row it cannot write (without running `check`).
pub fn rules(map: &RedirectMap, server: Server) -> Result<Vec<Rule>, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut rules = Vec::with_capacity(map.entries.len());
    for e in &map.entries {
        let problem = |kind, detail: String| Problem {
            kind,
            lines: vec![e.line],
            detail,
        };
        let source = match url::source(&e.source) {
            Ok(s) => s,
            Err(UrlProblem::Fragment) => {
                problems.push(problem(
                    ProblemKind::SourceFragment,
                    format!(
                        "{}: browsers never send the #fragment to the server: remove it",
                        e.source
                    ),
                ));
                continue;
            }
            Err(UrlProblem::NotAPath) => {
                problems.push(problem(
                    ProblemKind::SourceNotAPath,
                    format!(
                        "{}: a source is a path starting with / or an http(s) URL",
                        e.source
                    ),
                ));
                continue;
            }
        };
        let Ok(target) = url::target(&e.target) else {
            problems.push(problem(
                ProblemKind::TargetNotAUrl,
                format!(
                    "{}: a target is a path starting with / or an http(s) URL",
                    e.target
                ),
            ));
            continue;
        };
        let rule = Rule {
            line: e.line,
            source,
            target,
            status: e.status,
        };
        if let Some((kind, detail)) = refuse(server, &rule) {
            problems.push(problem(kind, format!("{}: {detail}", e.source)));
            continue;
        }
        rules.push(rule);
    }
    // Rows on two hosts may share a path: the hosts are the problem then, not the keys.
    match paths_only(server)
        .then(|| many_hosts(server, &rules))
        .flatten()
    {
        Some(p) => problems.push(p),
        None => problems.extend(duplicate_keys(server, &rules)),
    }
    if problems.is_empty() {
        Ok(rules)
    } else {
        problems.sort_by_key(|p| p.lines.first().copied());
        Err(problems)
    }
}

/// Writes `rules` in `server`'s format, as they are (no refusal: [`rules`] refuses).
pub fn render(server: Server, rules: &[Rule], opts: &Options) -> Compiled {
    let (text, setup) = match server {
        Server::Nginx => nginx::write(rules),
        Server::Apache => apache::write(rules, opts),
        Server::Netlify => netlify::write(rules),
        Server::Cloudflare => cloudflare::write(rules),
        Server::Vercel => vercel::write(rules),
        Server::Iis => iis::write(rules),
    };
    Compiled {
        server,
        text,
        redirects: rules.len(),
        setup,
    }
}

/// Reads back a file written for `server`: its redirects in file order (the tests'
/// check that each format says what the MAP says).
#[cfg(test)]
pub(crate) fn parse_back(server: Server, text: &str) -> Result<Vec<Entry>, String> {
    match server {
        Server::Nginx => nginx::parse(text),
        Server::Apache => apache::parse(text),
        Server::Netlify => netlify::parse(text),
        Server::Cloudflare => cloudflare::parse(text),
        Server::Vercel => vercel::parse(text),
        Server::Iis => iis::parse(text),
    }
}

/// A row the server's format cannot say.
fn refuse(server: Server, rule: &Rule) -> Option<(ProblemKind, String)> {
    match server {
        // Measured on both (tests/real_servers.rs): `/100%/x` gets 400 Bad Request.
        Server::Nginx | Server::Apache => bad_escape(&rule.source.path).then(|| {
            (
                ProblemKind::SourceBadEscape,
                format!(
                    "{} answers 400 Bad Request to a path with a % not followed by two hex digits: no redirect can match it (write % as %25 only if that is what the links send)",
                    server.name()
                ),
            )
        }),
        Server::Netlify => netlify::refuse(rule),
        Server::Cloudflare => cloudflare::refuse(rule),
        Server::Vercel => vercel::refuse(rule),
        Server::Iis => iis::refuse(rule),
    }
}

/// Whether `path` has a `%` that is not the start of a `%XX` escape.
fn bad_escape(path: &str) -> bool {
    let b = path.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

/// Whether the server's file holds paths only (it goes in one site's configuration).
fn paths_only(server: Server) -> bool {
    matches!(
        server,
        Server::Nginx | Server::Apache | Server::Vercel | Server::Iis
    )
}

/// The key under which the server looks a request up: two rules with one key are one
/// entry to it.
fn key(server: Server, rule: &Rule) -> String {
    match server {
        // nginx lowercases a map's string keys and lookups (measured: two keys that differ
        // only in case stop nginx with `conflicting parameter`); IIS's rewriteMap ignores
        // case unless told otherwise; Vercel's bulk redirects match without case by default.
        Server::Nginx | Server::Iis | Server::Vercel => {
            let pq = match server {
                Server::Vercel => rule.source.path.clone(),
                _ => rule.source.path_query(),
            };
            pq.to_ascii_lowercase()
        }
        Server::Apache => rule.source.path_query(),
        Server::Netlify => netlify::key(rule),
        Server::Cloudflare => cloudflare::source_url(rule),
    }
}

fn many_hosts(server: Server, rules: &[Rule]) -> Option<Problem> {
    let mut first: Vec<(&str, u64)> = Vec::new();
    for r in rules {
        if let Some(h) = r.source.host.as_deref() {
            if !first.iter().any(|(x, _)| *x == h) {
                first.push((h, r.line));
            }
        }
    }
    (first.len() > 1).then(|| Problem {
        kind: ProblemKind::ManyHosts,
        lines: first.iter().map(|(_, l)| *l).collect(),
        detail: format!(
            "the sources are on {} hosts ({}); a {} file holds paths for one site: compile one map per host",
            first.len(),
            first.iter().map(|(h, _)| *h).collect::<Vec<_>>().join(", "),
            server.name()
        ),
    })
}

fn duplicate_keys(server: Server, rules: &[Rule]) -> Vec<Problem> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    let shown = |r: &Rule| match &r.source.host {
        Some(h) => format!("{h}{}", r.source.path_query()),
        None => r.source.path_query(),
    };
    for (i, r) in rules.iter().enumerate() {
        let k = key(server, r);
        if let Some(&first) = seen.get(&k) {
            let f = &rules[first];
            out.push(Problem {
                kind: ProblemKind::DuplicateKey,
                lines: vec![f.line, r.line],
                detail: format!(
                    "{} reads {} and {} as one source: keep one",
                    server.name(),
                    shown(f),
                    shown(r)
                ),
            });
        } else {
            seen.insert(k, i);
        }
    }
    out
}

/// A comment's text without line ends or control characters (a file name in a header).
fn comment_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The statuses the rules use, in order.
fn statuses(rules: &[Rule]) -> Vec<u16> {
    let mut s: Vec<u16> = rules.iter().map(|r| r.status).collect();
    s.sort_unstable();
    s.dedup();
    s
}

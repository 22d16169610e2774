//! The new site's inventory (`--new NEW`), and the targets it does not hold
//! (`missing-target`).
//!
//! How a target is looked up: first as written (`https://new.com/a` in NEW); then its path
//! and query as written (a path target `/a` is held by NEW's `https://new.com/a`, whatever
//! NEW's host); then under the server's matching (another case where the server folds
//! case, another trailing slash where it ignores it). Held only the last way is a
//! warning naming NEW's spelling (the page may answer under one spelling only); not held at
//! all, an error. A full-URL target on a host NEW never names is another site's: not
//! looked up (counted as `external`).

use hashbrown::{HashMap, HashSet};
use serde::Serialize;
use urlkey_batch::input::{open_records, InputError, InputRecord, ReadOptions, Source};

use super::{Finding, FindingKind, Severity};
use crate::redirect_map::RedirectMap;
use crate::server::{host_of, push_as_sent, split, Case, Server, Split};

/// How the map's targets were found in the new site's inventory (one count per row).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TargetCounts {
    /// Held as written, or with the same path and query.
    pub held: usize,
    /// Held only under the server's matching (another case or trailing slash).
    pub held_otherwise: usize,
    /// Not held.
    pub missing: usize,
    /// On a host the inventory does not name (or not a URL): not looked up.
    pub external: usize,
}

/// The new site's URLs, indexed for lookups.
#[derive(Debug)]
pub struct Inventory {
    server: Server,
    exact: HashSet<String>,
    /// `host \u{1} path?query` as written (host lowercased), and `path?query` alone.
    raw: HashSet<String>,
    /// The same under the server's matching, with NEW's first spelling.
    folded: HashMap<String, String>,
    hosts: HashSet<String>,
    /// URLs read.
    pub urls: usize,
    /// Records the reader could not read as a URL (too long, bad bytes): not indexed.
    pub unreadable: usize,
}

enum Presence {
    Held,
    Otherwise(String),
    Missing,
    External,
}

impl Inventory {
    /// An empty inventory for `server`'s matching.
    pub fn new(server: Server) -> Inventory {
        Inventory {
            server,
            exact: HashSet::new(),
            raw: HashSet::new(),
            folded: HashMap::new(),
            hosts: HashSet::new(),
            urls: 0,
            unreadable: 0,
        }
    }

    /// Reads NEW (any input the readers take: lines, CSV/TSV with `opts.column`,
    /// spreadsheets) for `server`'s matching.
    pub fn read(src: &Source, opts: &ReadOptions, server: Server) -> Result<Inventory, InputError> {
        let mut inv = Inventory::new(server);
        let mut records = open_records(src, opts)?;
        let mut batch: Vec<InputRecord> = Vec::new();
        loop {
            batch.clear();
            let more = records.next_batch(&mut batch, 4096)?;
            for r in &batch {
                if r.problem.is_some() {
                    inv.unreadable += 1;
                } else {
                    inv.add(r.observed.trim());
                }
            }
            if !more {
                break;
            }
        }
        Ok(inv)
    }

    /// Adds one URL of the new site.
    pub fn add(&mut self, url: &str) {
        if url.is_empty() {
            return;
        }
        self.urls += 1;
        self.exact.insert(url.to_string());
        let Some(s) = split(url) else { return };
        let pq = path_query(&s);
        let folded = self.fold(&s);
        if let Some(h) = host_of(&s) {
            self.raw.insert(format!("{h}\u{1}{pq}"));
            self.folded
                .entry(format!("{h}\u{1}{folded}"))
                .or_insert_with(|| url.to_string());
            self.hosts.insert(h);
        }
        self.raw.insert(pq);
        self.folded.entry(folded).or_insert_with(|| url.to_string());
    }

    fn fold(&self, s: &Split<'_>) -> String {
        let m = self.server.matching();
        let mut path = s.path;
        if !m.trailing_slash_matters {
            path = path.trim_end_matches('/');
            if path.is_empty() {
                path = "/";
            }
        }
        let mut k = String::with_capacity(path.len() + 8);
        push_as_sent(&mut k, path);
        if let Some(q) = s.query {
            k.push('?');
            push_as_sent(&mut k, q);
        }
        if m.case == Case::Insensitive {
            k.make_ascii_lowercase();
        }
        k
    }

    fn find(&self, target: &str) -> Presence {
        if self.exact.contains(target) {
            return Presence::Held;
        }
        let Some(s) = split(target) else {
            return Presence::External;
        };
        let prefix = match host_of(&s) {
            Some(h) if self.hosts.contains(&h) => format!("{h}\u{1}"),
            Some(_) if !self.hosts.is_empty() => return Presence::External,
            _ => String::new(),
        };
        if self.raw.contains(&format!("{prefix}{}", path_query(&s))) {
            return Presence::Held;
        }
        match self.folded.get(&format!("{prefix}{}", self.fold(&s))) {
            Some(spelling) => Presence::Otherwise(spelling.clone()),
            None => Presence::Missing,
        }
    }

    /// Pushes a finding per target not held (with the rows that use it), and counts the
    /// rows by what was found for their target.
    pub fn findings(&self, map: &RedirectMap, out: &mut Vec<Finding>) -> TargetCounts {
        #[derive(Clone, Copy)]
        enum Seen {
            Held,
            External,
            Miss(usize),
        }
        let mut counts = TargetCounts::default();
        let mut seen: HashMap<&str, Seen> = HashMap::new();
        // The targets not held, in order of first use: rows, and NEW's other spelling.
        let mut misses: Vec<(&str, Vec<u64>, Option<String>)> = Vec::new();
        for e in &map.entries {
            let t = e.target.as_str();
            let st = match seen.get(t) {
                Some(s) => *s,
                None => {
                    let s = match self.find(t) {
                        Presence::Held => Seen::Held,
                        Presence::External => Seen::External,
                        Presence::Otherwise(sp) => {
                            misses.push((t, Vec::new(), Some(sp)));
                            Seen::Miss(misses.len() - 1)
                        }
                        Presence::Missing => {
                            misses.push((t, Vec::new(), None));
                            Seen::Miss(misses.len() - 1)
                        }
                    };
                    seen.insert(t, s);
                    s
                }
            };
            match st {
                Seen::Held => counts.held += 1,
                Seen::External => counts.external += 1,
                Seen::Miss(i) => {
                    misses[i].1.push(e.line);
                    match misses[i].2 {
                        Some(_) => counts.held_otherwise += 1,
                        None => counts.missing += 1,
                    }
                }
            }
        }
        for (t, lines, spelling) in misses {
            out.push(match spelling {
                Some(s) => {
                    let mut f = Finding::new(
                        FindingKind::MissingTarget,
                        lines,
                        format!(
                            "the new site has {t} only as {s} ({}'s matching): make the target its spelling",
                            self.server.name()
                        ),
                    );
                    f.severity = Severity::Warning;
                    f
                }
                None => Finding::new(
                    FindingKind::MissingTarget,
                    lines,
                    format!("the new site's inventory has no {t}: the redirect would land on no page"),
                ),
            });
        }
        counts
    }
}

fn path_query(s: &Split<'_>) -> String {
    match s.query {
        Some(q) => format!("{}?{q}", s.path),
        None => s.path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_with, CheckOptions};

    fn run(map: &str, new: &[&str], server: Server) -> crate::check::CheckReport {
        let map = RedirectMap::from_csv("m.csv", map).unwrap();
        let mut inv = Inventory::new(server);
        for u in new {
            inv.add(u);
        }
        check_with(&map, server, &CheckOptions { new: Some(inv) })
    }

    #[test]
    fn targets_held_exactly_by_path_otherwise_or_missing() {
        let map = "source,target\n/a,https://new.com/x\n/b,/x\n/c,/About\n/d,/gone\n/e,/gone\n/f,https://elsewhere.org/\n/g,/x\n";
        let new = ["https://new.com/x", "https://new.com/about"];
        let r = run(map, &new, Server::Nginx);
        let t = r.targets.unwrap();
        assert_eq!(
            (t.held, t.held_otherwise, t.missing, t.external),
            (3, 1, 2, 1),
            "{t:?}"
        );
        assert_eq!(
            t.held + t.held_otherwise + t.missing + t.external,
            r.entries
        );
        let f: Vec<(Severity, Vec<u64>)> = r
            .of(FindingKind::MissingTarget)
            .map(|f| (f.severity, f.lines.clone()))
            .collect();
        assert_eq!(
            f,
            vec![(Severity::Error, vec![5, 6]), (Severity::Warning, vec![4])]
        );
        assert!(!r.passes());
        // Apache does not fold case: /About is missing there.
        let r = run(map, &new, Server::Apache);
        assert_eq!(r.targets.unwrap().missing, 3);
    }

    #[test]
    fn a_percent_encoded_spelling_is_held_otherwise() {
        let r = run(
            "source,target\n/a,/café\n",
            &["https://new.com/caf%C3%A9"],
            Server::Apache,
        );
        assert_eq!(r.targets.unwrap().held_otherwise, 1);
    }

    #[test]
    fn netlify_finds_a_target_without_its_trailing_slash() {
        let r = run(
            "source,target\n/a,/docs/\n",
            &["https://new.com/docs"],
            Server::Netlify,
        );
        assert_eq!(r.targets.unwrap().held_otherwise, 1);
        assert!(r.passes());
        let r = run(
            "source,target\n/a,/docs/\n",
            &["https://new.com/docs"],
            Server::Nginx,
        );
        assert_eq!(r.targets.unwrap().missing, 1);
    }

    #[test]
    fn reads_new_from_a_csv_column() {
        let dir = std::env::temp_dir().join(format!("urlkey-inv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("new.csv");
        std::fs::write(
            &p,
            "\u{feff}Title;Address\r\nHome;https://new.com/\r\nX;https://new.com/x\r\n",
        )
        .unwrap();
        let opts = ReadOptions {
            format: urlkey_batch::input::InputFormat::Csv,
            column: Some("Address".into()),
            ..ReadOptions::default()
        };
        let inv = Inventory::read(&Source::File(p), &opts, Server::Nginx).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(inv.urls, 2);
        assert!(matches!(inv.find("/x"), Presence::Held));
        assert!(matches!(inv.find("/y"), Presence::Missing));
    }
}

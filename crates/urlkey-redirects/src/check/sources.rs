//! Each row's source as the server compares it ([`Server::match_key`]), and what that
//! finds: rows that are one source (`duplicate-source`, `conflict`), rows a first-match
//! server never reaches, sources it cannot take (`unsupported-source`) and hosts it cannot
//! tell apart (`mixed-hosts`).

use hashbrown::HashMap;

use super::{some_of, Finding, FindingKind};
use crate::redirect_map::{MapEntry, RedirectMap};
use crate::server::{HostRule, Server, SourceKey};

/// What `check` keeps of a row's [`SourceKey`] (the key itself lives once, in
/// [`Keyed::first`]).
pub struct RowKey {
    /// The first row (file order) of the row's key: the row itself when it is the first.
    pub first: usize,
    /// [`SourceKey::without_query`].
    pub without_query: Option<String>,
    /// [`SourceKey::host`], as its index in [`Keyed::host_names`] (one string per host,
    /// not per row).
    pub host: Option<u32>,
    /// [`SourceKey::unsupported`].
    pub unsupported: Option<&'static str>,
}

/// The map's rows with their keys under one server.
pub struct Keyed<'m> {
    /// The server.
    pub server: Server,
    /// The rows, in file order.
    pub entries: &'m [MapEntry],
    /// Each row's key (`None`: not a path or full URL).
    pub keys: Vec<Option<RowKey>>,
    /// Each key's first row (file order): the row the server uses.
    pub first: HashMap<String, usize>,
    /// The hosts the sources name (lowercased), with their index in `host_names`.
    pub hosts: HashMap<String, u32>,
    /// The hosts by index, with their row counts.
    pub host_names: Vec<(String, usize)>,
}

impl<'m> Keyed<'m> {
    /// Keys every row of `map` for `server`.
    pub fn new(map: &'m RedirectMap, server: Server) -> Keyed<'m> {
        let entries = map.entries.as_slice();
        let mut keys = Vec::with_capacity(entries.len());
        let mut first = HashMap::with_capacity(entries.len());
        let mut hosts: HashMap<String, u32> = HashMap::new();
        let mut host_names: Vec<(String, usize)> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let k = server.match_key(&e.source).map(|k: SourceKey| {
                let host = k.host.map(|h| {
                    let id = *hosts.entry(h).or_insert_with_key(|h| {
                        host_names.push((h.clone(), 0));
                        (host_names.len() - 1) as u32
                    });
                    host_names[id as usize].1 += 1;
                    id
                });
                RowKey {
                    first: *first.entry(k.key).or_insert(i),
                    without_query: k.without_query,
                    host,
                    unsupported: k.unsupported,
                }
            });
            keys.push(k);
        }
        Keyed {
            server,
            entries,
            keys,
            first,
            hosts,
            host_names,
        }
    }

    /// The row the server uses for `key`, if a source has it.
    pub fn row_of(&self, key: &str) -> Option<usize> {
        self.first.get(key).copied()
    }

    /// Pushes the findings about sources.
    pub fn findings(&self, out: &mut Vec<Finding>) {
        self.duplicates(out);
        self.unsupported(out);
        self.mixed_hosts(out);
    }

    fn duplicates(&self, out: &mut Vec<Finding>) {
        let name = self.server.name();
        // Rows after the first of their key, grouped by that first row (file order).
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, k) in self.keys.iter().enumerate() {
            if let Some(k) = k {
                if k.first != i {
                    groups.entry(k.first).or_default().push(i);
                }
            }
        }
        let mut firsts: Vec<usize> = groups.keys().copied().collect();
        firsts.sort_unstable();
        let first_wins = self.server.matching().first_match_wins;
        for f in firsts {
            let rest = &groups[&f];
            let rows: Vec<usize> = std::iter::once(f).chain(rest.iter().copied()).collect();
            let e = |i: usize| &self.entries[i];
            let same_target = rows.iter().all(|&i| e(i).target == e(f).target);
            let mut spellings: Vec<&str> = rows.iter().map(|&i| e(i).source.as_str()).collect();
            spellings.dedup();
            let one = if spellings.len() > 1 {
                format!(
                    "{} are one source under {name}'s matching",
                    some_of(spellings.iter(), 4)
                )
            } else {
                format!("{} is a source {} times", e(f).source, rows.len())
            };
            let outcome = if first_wins {
                format!(
                    "; {name} uses line {} and never reaches {}",
                    e(f).line,
                    some_of(rest.iter().map(|&i| e(i).line), 8)
                )
            } else {
                format!("; {}", one_line_per_source(self.server))
            };
            let (kind, targets) = if same_target {
                (FindingKind::DuplicateSource, String::new())
            } else {
                let mut t: Vec<&str> = rows.iter().map(|&i| e(i).target.as_str()).collect();
                t.sort_unstable();
                t.dedup();
                (
                    FindingKind::Conflict,
                    format!(", with targets {}", some_of(t, 4)),
                )
            };
            out.push(Finding::new(
                kind,
                rows.iter().map(|&i| e(i).line).collect(),
                format!("{one}{targets}{outcome}: keep one row"),
            ));
        }
        if first_wins {
            self.shadowed(out);
        }
    }

    /// A rule with query conditions after a rule for the same path without any: the
    /// earlier one matches every query first.
    fn shadowed(&self, out: &mut Vec<Finding>) {
        for (i, k) in self.keys.iter().enumerate() {
            let Some(wq) = k.as_ref().and_then(|k| k.without_query.as_ref()) else {
                continue;
            };
            if let Some(j) = self.row_of(wq).filter(|&j| j < i) {
                let (a, b) = (&self.entries[j], &self.entries[i]);
                out.push(Finding::new(
                    FindingKind::DuplicateSource,
                    vec![a.line, b.line],
                    format!(
                        "{} (line {}) has no query condition, so {} matches it first and never reaches {} (line {}): move the row with the query above it",
                        a.source,
                        a.line,
                        self.server.name(),
                        b.source,
                        b.line
                    ),
                ));
            }
        }
    }

    fn unsupported(&self, out: &mut Vec<Finding>) {
        let mut by_reason: Vec<(&'static str, Vec<u64>, Vec<&str>)> = Vec::new();
        let not_a_url = "a source is a path starting with / or a full http(s) URL";
        for (k, e) in self.keys.iter().zip(self.entries) {
            let reason = match k {
                None => not_a_url,
                Some(k) => match k.unsupported {
                    Some(r) => r,
                    None => continue,
                },
            };
            match by_reason.iter_mut().find(|(r, _, _)| *r == reason) {
                Some((_, lines, examples)) => {
                    lines.push(e.line);
                    examples.push(&e.source);
                }
                None => by_reason.push((reason, vec![e.line], vec![&e.source])),
            }
        }
        for (reason, lines, examples) in by_reason {
            out.push(Finding::new(
                FindingKind::UnsupportedSource,
                lines,
                format!("{reason}: {}", some_of(examples, 3)),
            ));
        }
    }

    fn mixed_hosts(&self, out: &mut Vec<Finding>) {
        if self.server.matching().host != HostRule::Ignored || self.hosts.len() < 2 {
            return;
        }
        let mut order: Vec<usize> = (0..self.host_names.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&self.host_names[a], &self.host_names[b]);
            b.1.cmp(&a.1).then(a.0.cmp(&b.0))
        });
        let main_id = order[0] as u32;
        let main = &self.host_names[order[0]].0;
        let lines = self
            .keys
            .iter()
            .zip(self.entries)
            .filter(|(k, _)| {
                k.as_ref()
                    .and_then(|k| k.host)
                    .is_some_and(|h| h != main_id)
            })
            .map(|(_, e)| e.line)
            .collect();
        let hosts: Vec<&(String, usize)> = order.iter().map(|&i| &self.host_names[i]).collect();
        out.push(Finding::new(
            FindingKind::MixedHosts,
            lines,
            format!(
                "the sources name {} hosts ({}); {} matches the path alone and cannot tell them apart: check and compile one host's rows at a time (the lines listed are those not on {main})",
                hosts.len(),
                some_of(hosts.iter().map(|(h, n)| format!("{h}: {n} rows")), 5),
                self.server.name(),
            ),
        ));
    }
}

/// What the server does with two lines of one source (when the first does not simply win).
fn one_line_per_source(server: Server) -> &'static str {
    match server {
        // Measured (tests/nginx_agrees.rs): `nginx -t` says "conflicting parameter".
        Server::Nginx => {
            "nginx refuses to start with two map lines of one key (\"conflicting parameter\")"
        }
        Server::Cloudflare => "Cloudflare refuses a list with two redirects of one source URL",
        Server::Apache => "a RewriteMap answers one value per key",
        Server::Iis => "a rewriteMap holds one value per key",
        Server::Vercel | Server::Netlify => "the server uses one redirect per source",
    }
}

#[cfg(test)]
mod tests {
    use crate::check::{check, FindingKind};
    use crate::{RedirectMap, Server};

    fn kinds(csv: &str, server: Server) -> Vec<(&'static str, Vec<u64>)> {
        let map = RedirectMap::from_csv("m.csv", csv).unwrap();
        check(&map, server)
            .findings
            .into_iter()
            .map(|f| (f.kind.as_str(), f.lines))
            .collect()
    }

    #[test]
    fn case_is_one_source_for_nginx_iis_vercel_two_for_the_others() {
        let csv = "source,target\n/About,/team\n/about,/team\n";
        for s in [Server::Nginx, Server::Iis, Server::Vercel] {
            assert_eq!(kinds(csv, s), vec![("duplicate-source", vec![2, 3])], "{s}");
        }
        for s in [Server::Apache, Server::Netlify] {
            assert_eq!(kinds(csv, s), vec![], "{s}");
        }
        let csv = "source,target\nhttps://a.com/About,/team\nhttps://a.com/about,/x\n";
        assert_eq!(kinds(csv, Server::Cloudflare), vec![]);
        assert_eq!(kinds(csv, Server::Nginx), vec![("conflict", vec![2, 3])]);
    }

    #[test]
    fn trailing_slash_and_query_under_each_server() {
        let csv = "source,target\n/a/,/x\n/a,/x\n";
        assert_eq!(
            kinds(csv, Server::Netlify),
            vec![("duplicate-source", vec![2, 3])]
        );
        assert_eq!(kinds(csv, Server::Nginx), vec![]);
        // Vercel matches the path alone: the query is unsupported and the rows are one.
        let csv = "source,target\n/p?id=1,/x\n/p?id=2,/y\n";
        let k = kinds(csv, Server::Vercel);
        assert!(k.contains(&("conflict", vec![2, 3])), "{k:?}");
        assert!(k.contains(&("unsupported-source", vec![2, 3])), "{k:?}");
        assert_eq!(kinds(csv, Server::Nginx), vec![]);
        assert_eq!(kinds(csv, Server::Iis), vec![]);
        // Netlify: parameter order does not matter; a rule without conditions hides later ones.
        let csv = "source,target\n/p?a=1&b=2,/x\n/p?b=2&a=1,/x\n";
        assert_eq!(
            kinds(csv, Server::Netlify),
            vec![("duplicate-source", vec![2, 3])]
        );
        assert_eq!(kinds(csv, Server::Nginx), vec![]);
        let csv = "source,target\n/p,/x\n/p?a=1,/y\n";
        assert_eq!(
            kinds(csv, Server::Netlify),
            vec![("duplicate-source", vec![2, 3])]
        );
        let csv = "source,target\n/p?a=1,/y\n/p,/x\n";
        assert_eq!(kinds(csv, Server::Netlify), vec![]);
    }

    #[test]
    fn hosts_are_told_apart_only_where_the_server_sees_them() {
        let csv = "source,target\nhttps://a.com/x,/n\nhttps://b.com/x,/m\nhttps://a.com/y,/n\n";
        let k = kinds(csv, Server::Nginx);
        assert!(k.contains(&("conflict", vec![2, 3])), "{k:?}");
        assert!(k.contains(&("mixed-hosts", vec![3])), "{k:?}");
        assert_eq!(kinds(csv, Server::Cloudflare), vec![]);
        assert_eq!(kinds(csv, Server::Netlify), vec![]);
        // One host named (and paths): nothing to tell apart.
        let csv = "source,target\nhttps://a.com/x,/n\n/y,/n\n";
        assert_eq!(kinds(csv, Server::Nginx), vec![]);
    }

    #[test]
    fn sources_the_server_cannot_take() {
        let csv = "source,target\nabout.html,/n\n/x,/n\nhttps://a.com/q?x=1,/n\n";
        let map = RedirectMap::from_csv("m.csv", csv).unwrap();
        let r = check(&map, Server::Cloudflare);
        let un: Vec<(Vec<u64>, &str)> = r
            .of(FindingKind::UnsupportedSource)
            .map(|f| (f.lines.clone(), f.detail.as_str()))
            .collect();
        assert_eq!(un.len(), 3, "{un:?}");
        assert_eq!(un[0].0, vec![2]);
        assert!(un[0].1.contains("path starting with /"), "{}", un[0].1);
        assert!(un
            .iter()
            .any(|(l, d)| l == &vec![3] && d.contains("full URL")));
        assert!(un.iter().any(|(l, d)| l == &vec![4] && d.contains("query")));
        assert!(!r.passes());
        assert_eq!(
            kinds(csv, Server::Nginx),
            vec![("unsupported-source", vec![2])]
        );
    }
}

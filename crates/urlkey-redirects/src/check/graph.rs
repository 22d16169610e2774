//! Where each row's target leads under the server's matching: to no source (one hop, as
//! meant), to another row's source (`chain`: two hops or more), back to its own source
//! (`self`) or round a cycle of rows (`loop`, any length).
//!
//! Each row points to at most one row (the first row of the key its target would be
//! requested as), so the rows form a functional graph: one walk with three colours finds
//! every cycle, and every row is visited a bounded number of times (linear in the rows).
//!
//! Which targets are on the map's own site: a path (`/new`) always; a full URL when its
//! host is one the sources name. A full URL on another host leaves the site (a domain
//! move): it ends the walk, whatever its path.

use super::{some_of, Finding, FindingKind};
use crate::check::sources::Keyed;
use crate::server::{host_of, split, HostRule};

/// The rows of a loop its finding's text shows.
const LOOP_SHOWN: usize = 6;

/// A target that is neither a path nor a full URL.
const NOT_A_URL: &str = "a target is a path starting with / or a full http(s) URL";

/// Pushes the chain, loop, self and bad-target findings.
pub fn findings(k: &Keyed<'_>, out: &mut Vec<Finding>) {
    let n = k.entries.len();
    let mut bad = Vec::new();
    let next: Vec<Option<usize>> = (0..n)
        .map(|i| {
            let r = next_of(k, i);
            if r.is_err() {
                bad.push(i);
            }
            r.ok().flatten()
        })
        .collect();
    if !bad.is_empty() {
        out.push(Finding::new(
            FindingKind::BadTarget,
            bad.iter().map(|&i| k.entries[i].line).collect(),
            format!(
                "{NOT_A_URL}: {}",
                some_of(bad.iter().map(|&i| k.entries[i].target.as_str()), 3)
            ),
        ));
    }
    let cycle_of = cycles(&next);
    let name = k.server.name();
    let e = |i: usize| &k.entries[i];
    // Each cycle once, from its first row in file order.
    let mut reported = vec![false; n];
    for &c in cycle_of.iter().flatten() {
        if reported[c] {
            continue;
        }
        reported[c] = true;
        let mut rows = vec![c];
        let mut j = next[c].unwrap_or(c);
        while j != c {
            rows.push(j);
            j = next[j].unwrap_or(c);
        }
        if rows.len() == 1 {
            let same = if e(c).source == e(c).target {
                String::new()
            } else {
                format!(" under {name}'s matching")
            };
            out.push(Finding::new(
                FindingKind::SelfRedirect,
                vec![e(c).line],
                format!(
                    "{} redirects to itself{same} ({}): a redirect loop",
                    e(c).source,
                    e(c).target
                ),
            ));
        } else {
            // The circle as it runs, shortened past a few rows (the lines list them all).
            let mut steps: Vec<String> = rows
                .iter()
                .take(LOOP_SHOWN)
                .map(|&r| format!("{} (line {})", e(r).source, e(r).line))
                .collect();
            if rows.len() > LOOP_SHOWN {
                steps.push(format!("... {} rows more", rows.len() - LOOP_SHOWN));
            }
            steps.push(e(c).source.clone());
            let path = steps.join(" -> ");
            out.push(Finding::new(
                FindingKind::Loop,
                rows.iter().map(|&r| e(r).line).collect(),
                format!("{} rows redirect in a circle: {path}", rows.len()),
            ));
        }
    }
    let end = ends(&next, &cycle_of);
    for i in 0..n {
        let Some(j) = next[i] else { continue };
        if cycle_of[i].is_some() {
            continue;
        }
        let fin = match end[i] {
            Some(f) => format!("point it to {}, where the chain ends", e(f).target),
            None => "it leads into a loop".to_string(),
        };
        out.push(Finding::new(
            FindingKind::Chain,
            vec![e(i).line, e(j).line],
            format!(
                "{} -> {} is itself a source (line {}, -> {}): two hops or more; {fin}",
                e(i).source,
                e(i).target,
                e(j).line,
                e(j).target
            ),
        ));
    }
}

/// The row a request for row `i`'s target meets: `Ok(None)` when none (or another site),
/// `Err` when the target is not a URL at all.
fn next_of(k: &Keyed<'_>, i: usize) -> Result<Option<usize>, ()> {
    let entry = &k.entries[i];
    let t = split(&entry.target).ok_or(())?;
    let target_host = host_of(&t);
    if let Some(h) = &target_host {
        if !k.hosts.contains_key(h.as_str()) {
            return Ok(None);
        }
    }
    let m = k.server.matching();
    // A path target stays on the host the request came to: for a server that matches
    // hosts, that is the source's.
    let source_host = k.keys[i]
        .as_ref()
        .and_then(|s| s.host)
        .map(|h| k.host_names[h as usize].0.as_str());
    let url = match (m.host, target_host.is_some(), source_host) {
        (HostRule::Ignored, _, _) | (_, true, _) | (_, false, None) => entry.target.clone(),
        (_, false, Some(h)) => format!("https://{h}{}", entry.target),
    };
    let Some((key, fallback)) = k.server.request_keys(&url) else {
        return Ok(None);
    };
    Ok(k.row_of(&key)
        .or_else(|| fallback.and_then(|f| k.row_of(&f))))
}

/// For each row on a cycle, the cycle's first row in file order (its name); `None` off
/// cycles.
fn cycles(next: &[Option<usize>]) -> Vec<Option<usize>> {
    const NEW: u8 = 0;
    const WALKING: u8 = 1;
    const DONE: u8 = 2;
    let n = next.len();
    let mut state = vec![NEW; n];
    let mut cycle_of = vec![None; n];
    let mut path = Vec::new();
    for start in 0..n {
        if state[start] != NEW {
            continue;
        }
        path.clear();
        let mut at = Some(start);
        while let Some(v) = at {
            match state[v] {
                NEW => {
                    state[v] = WALKING;
                    path.push(v);
                    at = next[v];
                }
                WALKING => {
                    // v is on this walk: the walk from v on is a cycle.
                    let from = path.iter().rposition(|&p| p == v).unwrap_or(0);
                    let name = path[from..].iter().copied().min().unwrap_or(v);
                    for &p in &path[from..] {
                        cycle_of[p] = Some(name);
                    }
                    at = None;
                }
                _ => at = None,
            }
        }
        for &p in &path {
            state[p] = DONE;
        }
    }
    cycle_of
}

/// For each row, the last row of its chain (`Some(i)` for a row pointing nowhere), or
/// `None` when the chain runs into a cycle.
fn ends(next: &[Option<usize>], cycle_of: &[Option<usize>]) -> Vec<Option<usize>> {
    let n = next.len();
    let mut end: Vec<Option<Option<usize>>> = vec![None; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut at = start;
        let result = loop {
            if let Some(r) = end[at] {
                break r;
            }
            if cycle_of[at].is_some() {
                break None;
            }
            path.push(at);
            match next[at] {
                Some(j) => at = j,
                None => break Some(at),
            }
        };
        for &p in &path {
            end[p] = Some(result);
        }
        end[start].get_or_insert(result);
    }
    end.into_iter().map(Option::flatten).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::{RedirectMap, Server};

    fn found(csv: &str, server: Server) -> Vec<(&'static str, Vec<u64>)> {
        let map = RedirectMap::from_csv("m.csv", csv).unwrap();
        check(&map, server)
            .findings
            .into_iter()
            .map(|f| (f.kind.as_str(), f.lines))
            .collect()
    }

    #[test]
    fn cycles_of_any_length_and_the_chains_into_them() {
        // 0 -> 1 -> 2 -> 0, 3 -> 0, 4 -> 4, 5 -> 6, 6 -> none
        let next = vec![Some(1), Some(2), Some(0), Some(0), Some(4), Some(6), None];
        let c = cycles(&next);
        assert_eq!(
            c,
            vec![Some(0), Some(0), Some(0), None, Some(4), None, None]
        );
        let e = ends(&next, &c);
        assert_eq!(e[3], None);
        assert_eq!(e[5], Some(6));
        assert_eq!(e[6], Some(6));
    }

    #[test]
    fn self_loop_and_chain_under_the_servers_matching() {
        // /About -> /about: a loop for nginx (one key), a plain redirect for Apache.
        let csv = "source,target\n/About,/about\n";
        assert_eq!(found(csv, Server::Nginx), vec![("self", vec![2])]);
        assert_eq!(found(csv, Server::Apache), vec![]);
        // Netlify: /a/ -> /a is the same path.
        assert_eq!(
            found("source,target\n/a/,/a\n", Server::Netlify),
            vec![("self", vec![2])]
        );
        let csv = "source,target\n/a,/b\n/b,/c\n/c,/a\n/d,/a\n/e,/f\n/f,/g\n";
        assert_eq!(
            found(csv, Server::Apache),
            vec![
                ("loop", vec![2, 3, 4]),
                ("chain", vec![2, 5]),
                ("chain", vec![6, 7])
            ]
        );
    }

    #[test]
    fn a_full_url_target_on_another_host_leaves_the_site() {
        // A domain move: same path, new host: not a loop.
        let csv = "source,target\nhttps://old.com/a,https://new.com/a\n";
        assert_eq!(found(csv, Server::Nginx), vec![]);
        // The same host: a loop.
        let csv = "source,target\nhttps://old.com/a,https://OLD.com/a\n";
        assert_eq!(found(csv, Server::Nginx), vec![("self", vec![2])]);
        // Cloudflare resolves a path target on the source's host.
        let csv = "source,target\nhttps://a.com/x,/y\nhttps://a.com/y,/z\n";
        assert_eq!(found(csv, Server::Cloudflare), vec![("chain", vec![2, 3])]);
        let csv = "source,target\n/x,www.new.com/x\n";
        assert_eq!(found(csv, Server::Nginx), vec![("bad-target", vec![2])]);
    }

    /// A chain through 100,000 rows: each row's end is found once (a walk per row would
    /// take 5 billion steps), and each row is told the final target.
    #[test]
    fn a_long_chain_is_linear() {
        let n = 100_000;
        let mut csv = String::from("source,target\n");
        for i in 0..n {
            csv.push_str(&format!("/p{i},/p{}\n", i + 1));
        }
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        let started = std::time::Instant::now();
        let r = check(&map, Server::Apache);
        let chains: Vec<_> = r.of(crate::check::FindingKind::Chain).collect();
        assert_eq!(chains.len(), n - 1);
        assert!(chains.iter().all(|f| f
            .detail
            .ends_with(&format!("point it to /p{n}, where the chain ends"))));
        // Generous for a debug build on a busy machine; quadratic would take hours.
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
        // Closing it makes one loop of n rows.
        let csv = csv.replace(&format!("/p{n}\n"), "/p0\n");
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        let r = check(&map, Server::Apache);
        let loops: Vec<_> = r.of(crate::check::FindingKind::Loop).collect();
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].lines.len(), n);
        assert!(loops[0]
            .detail
            .contains(&format!("... {} rows more -> /p0", n - LOOP_SHOWN)));
        assert_eq!(r.of(crate::check::FindingKind::Chain).count(), 0);
    }

    #[test]
    fn netlify_query_requests_meet_the_rule_without_conditions() {
        let csv = "source,target\n/a,/b?ref=x\n/b,/c\n";
        assert_eq!(found(csv, Server::Netlify), vec![("chain", vec![2, 3])]);
        // nginx matches the query as sent: /b?ref=x is not /b.
        assert_eq!(found(csv, Server::Nginx), vec![]);
    }
}

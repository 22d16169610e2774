//! Counts a reviewer should see, never refused (warnings): targets that many sources
//! redirect to (`many-to-one`), and pages redirected to the home page (`homepage-dump`),
//! which search engines may treat as pages that no longer exist (Google: "don't redirect
//! many old URLs to one irrelevant destination, such as the home page",
//! <https://developers.google.com/search/docs/crawling-indexing/site-move-with-url-changes>).

use hashbrown::HashMap;

use super::{some_of, Finding, FindingKind};
use crate::check::sources::Keyed;
use crate::server::split;

/// A target with this many sources or more is a `many-to-one` finding.
pub const MANY_TO_ONE: usize = 10;

/// Pushes the many-to-one and homepage-dump findings.
pub fn findings(k: &Keyed<'_>, out: &mut Vec<Finding>) {
    // Targets compared as the server would request them (another case of one path is
    // one target for nginx), within one host: counted first, lines kept for the many.
    let target_key = |target: &str| {
        let t = split(target)?;
        let (key, _) = k.server.request_keys(target)?;
        Some(format!(
            "{}\u{1}{key}",
            t.host.unwrap_or("").to_ascii_lowercase()
        ))
    };
    let mut count: HashMap<String, usize> = HashMap::new();
    let mut home = Vec::new();
    for (i, e) in k.entries.iter().enumerate() {
        let Some(t) = split(&e.target) else { continue };
        if let Some(key) = target_key(&e.target) {
            *count.entry(key).or_insert(0) += 1;
        }
        let source_home = split(&e.source).is_none_or(|s| s.path == "/" && s.query.is_none());
        if t.path == "/" && t.query.is_none() && !source_home {
            home.push(i);
        }
    }
    count.retain(|_, n| *n >= MANY_TO_ONE);
    if !count.is_empty() {
        let mut rows: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in k.entries.iter().enumerate() {
            if let Some(key) = target_key(&e.target).filter(|key| count.contains_key(key)) {
                rows.entry(key).or_default().push(i);
            }
        }
        let mut many: Vec<&Vec<usize>> = rows.values().collect();
        many.sort_by_key(|v| v[0]);
        for rows in many {
            out.push(Finding::new(
                FindingKind::ManyToOne,
                rows.iter().map(|&i| k.entries[i].line).collect(),
                format!(
                    "{} sources redirect to {} ({} or more is reported): check that the page covers them all",
                    rows.len(),
                    k.entries[rows[0]].target,
                    MANY_TO_ONE
                ),
            ));
        }
    }
    if !home.is_empty() {
        out.push(Finding::new(
            FindingKind::HomepageDump,
            home.iter().map(|&i| k.entries[i].line).collect(),
            format!(
                "{} of {} redirects send a page to the home page ({}): search engines may treat them as pages that no longer exist; a closer page, or a 410, says more",
                home.len(),
                k.entries.len(),
                some_of(home.iter().map(|&i| k.entries[i].source.as_str()), 3)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, Severity};
    use crate::{RedirectMap, Server};

    #[test]
    fn many_to_one_from_the_threshold_and_as_the_server_reads_targets() {
        let mut csv = String::from("source,target\n");
        for i in 0..MANY_TO_ONE - 1 {
            csv.push_str(&format!("/old{i},/New\n"));
        }
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        assert_eq!(
            check(&map, Server::Nginx)
                .of(FindingKind::ManyToOne)
                .count(),
            0
        );
        csv.push_str("/last,/new\n");
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        // nginx: /New and /new are one target; Apache: two.
        let r = check(&map, Server::Nginx);
        let f: Vec<_> = r.of(FindingKind::ManyToOne).collect();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].lines.len(), MANY_TO_ONE);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(r.passes(), "a warning does not fail the map");
        assert_eq!(
            check(&map, Server::Apache)
                .of(FindingKind::ManyToOne)
                .count(),
            0
        );
    }

    #[test]
    fn homepage_dump_counts_pages_sent_home_but_not_home_itself() {
        // The old home page to the new one is no dump.
        let csv = "source,target\n/a,https://new.com/\n/b,https://new.com\n/,https://new.com/\n/c,/?x=1\n/d,/d2\n";
        let map = RedirectMap::from_csv("m.csv", csv).unwrap();
        let r = check(&map, Server::Apache);
        let f: Vec<_> = r.of(FindingKind::HomepageDump).collect();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].lines, vec![2, 3]);
        assert!(
            f[0].detail.starts_with("2 of 5 redirects"),
            "{}",
            f[0].detail
        );
        assert!(r.passes(), "{:?}", r.findings);
    }
}

//! Which spellings of a key verify fetches, and whether the risky rules that merged them
//! were all compared (the seed document's "Verification after normalization": compare page
//! content before merging keys created by a risky transformation).
//!
//! A *spelling* is a distinct observed URL of a key as verify fetches it (no fragment, no
//! userinfo). A spelling is *behind* a risky rule when the rule changed one of its
//! observations (its `transformations` name the rule). A risky rule `R` of a key is
//! *compared* when the verification compared a spelling behind `R` with one not behind it
//! (when the key has such a spelling: if every spelling is behind `R`, one compared spelling
//! behind it is enough). A spelling is *compared* when its fetch got a finding: a response
//! whose status is not `unresolved` (a refused fetch, a timeout, a 503 or a challenge page
//! compare nothing).
//!
//! Choice of the spellings, at most `max` (`--max-variants`): the first observation's
//! first; then for each risky rule in order, when no chosen spelling is behind it, the
//! first spelling behind it, and when the key has spellings not behind it and none is
//! chosen, the first of those; then the first spellings in ingest order until `max`. They
//! are fetched in ingest order. A rule left out by `max` is not compared.

use std::collections::BTreeSet;

use super::fetch::{Status, Verification};

/// One distinct observed URL of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    /// The first observation with it.
    pub observation_id: String,
    /// Its observed URL, exactly as stored (of that observation).
    pub observed_url: String,
    /// The risky rules that changed one of its observations.
    pub risky_rules: BTreeSet<String>,
}

/// A risky rule that merged a key, and whether the key has a spelling not behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskyRule {
    /// The rule's name.
    pub name: String,
    /// True when some spelling of the key is not behind the rule (so comparing the rule
    /// needs one of each).
    pub has_other_side: bool,
}

/// The risky rules of a key's spellings, in order of first appearance; none for a key with
/// one spelling (nothing was merged).
pub fn risky_rules(spellings: &[Spelling]) -> Vec<RiskyRule> {
    if spellings.len() < 2 {
        return Vec::new();
    }
    let mut names: Vec<&String> = Vec::new();
    for s in spellings {
        for r in &s.risky_rules {
            if !names.contains(&r) {
                names.push(r);
            }
        }
    }
    names
        .into_iter()
        .map(|n| RiskyRule {
            name: n.clone(),
            has_other_side: spellings.iter().any(|s| !s.risky_rules.contains(n)),
        })
        .collect()
}

/// The indexes of the spellings to fetch (see the module's documentation), ascending.
pub fn choose(spellings: &[Spelling], rules: &[RiskyRule], max: usize) -> Vec<usize> {
    let max = max.max(1).min(spellings.len());
    if max == 0 {
        return Vec::new();
    }
    let mut chosen = vec![0usize];
    let take = |chosen: &mut Vec<usize>, want: &dyn Fn(&Spelling) -> bool| {
        if chosen.len() >= max || chosen.iter().any(|&i| want(&spellings[i])) {
            return;
        }
        if let Some(i) = (0..spellings.len()).find(|i| !chosen.contains(i) && want(&spellings[*i]))
        {
            chosen.push(i);
        }
    };
    for r in rules {
        take(&mut chosen, &|s: &Spelling| s.risky_rules.contains(&r.name));
        if r.has_other_side {
            take(&mut chosen, &|s: &Spelling| {
                !s.risky_rules.contains(&r.name)
            });
        }
    }
    for i in 0..spellings.len() {
        if chosen.len() >= max {
            break;
        }
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen
}

/// True when a fetch gave a finding to compare (see the module's documentation).
pub fn compared(v: &Verification) -> bool {
    v.status != Status::Unresolved
}

/// The risky rules of a key that the fetched spellings did not compare, each with why, in
/// one line per rule. `fetched[i]` are the risky rules behind the `i`th fetched spelling,
/// `vs[i]` its fetch; `max` is the variant limit (to say so when it left a rule out).
pub fn not_compared(
    rules: &[RiskyRule],
    fetched: &[BTreeSet<String>],
    vs: &[Verification],
    max: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in rules {
        let behind = |i: usize| fetched.get(i).is_some_and(|s| s.contains(&r.name));
        let side = |want: bool| -> Result<(), String> {
            let tried: Vec<usize> = (0..vs.len()).filter(|&i| behind(i) == want).collect();
            if tried.iter().any(|&i| compared(&vs[i])) {
                return Ok(());
            }
            let which = if want { "behind it" } else { "not behind it" };
            match tried.first() {
                None => Err(format!(
                    "no spelling {which} was fetched (the limit of {max} per key was reached)"
                )),
                Some(_) => Err(tried
                    .iter()
                    .map(|&i| {
                        format!(
                            "variant {i} ({}) {which} gave no finding: {}",
                            vs[i].requested_url, vs[i].reason
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")),
            }
        };
        let mut why = Vec::new();
        if let Err(e) = side(true) {
            why.push(e);
        }
        if r.has_other_side {
            if let Err(e) = side(false) {
                why.push(e);
            }
        }
        if !why.is_empty() {
            out.push(format!("{}: {}", r.name, why.join("; ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(id: &str, rules: &[&str]) -> Spelling {
        Spelling {
            observation_id: id.into(),
            observed_url: format!("http://a.test/{id}"),
            risky_rules: rules.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn each_risky_rule_gets_a_spelling_of_each_side_within_the_limit() {
        // The issue's example: six gclid spellings, the slash one last.
        let mut s: Vec<Spelling> = (0..6).map(|i| sp(&format!("g{i}"), &[])).collect();
        s.push(sp("slash", &["remove-trailing-slash"]));
        let rules = risky_rules(&s);
        assert_eq!(rules.len(), 1);
        assert!(rules[0].has_other_side);
        assert_eq!(choose(&s, &rules, 5), vec![0, 1, 2, 3, 6]);
        assert_eq!(choose(&s, &rules, 2), vec![0, 6]);
        assert_eq!(choose(&s, &rules, 1), vec![0]);
        assert_eq!(choose(&s, &rules, 50), (0..7).collect::<Vec<_>>());

        // The risky spelling first: its other side is the next one.
        let s = vec![
            sp("slash", &["remove-trailing-slash"]),
            sp("a", &[]),
            sp("b", &[]),
        ];
        assert_eq!(choose(&s, &risky_rules(&s), 2), vec![0, 1]);

        // Two rules, late in the order, limit 3.
        let s = vec![
            sp("a", &[]),
            sp("b", &[]),
            sp("c", &[]),
            sp("sorted", &["sort-query"]),
            sp("slash", &["remove-trailing-slash"]),
        ];
        let rules = risky_rules(&s);
        assert_eq!(
            rules.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["sort-query", "remove-trailing-slash"]
        );
        assert_eq!(choose(&s, &rules, 3), vec![0, 3, 4]);
        assert_eq!(choose(&s, &rules, 2), vec![0, 3]);

        // Every spelling behind the rule: one is enough.
        let s = vec![sp("x", &["strip-www"]), sp("y", &["strip-www"])];
        let rules = risky_rules(&s);
        assert!(!rules[0].has_other_side);
        assert_eq!(choose(&s, &rules, 1), vec![0]);
        // One spelling: no merge, no risky rule.
        assert!(risky_rules(&s[..1]).is_empty());
    }

    fn fetch(url: &str, status: Status, reason: &str) -> Verification {
        Verification {
            status,
            reason: reason.into(),
            ..Verification::begun(url.into(), String::new())
        }
    }

    #[test]
    fn a_rule_is_compared_only_with_a_finding_on_each_side() {
        let slash = || -> BTreeSet<String> { ["remove-trailing-slash".to_string()].into() };
        let rules = vec![RiskyRule {
            name: "remove-trailing-slash".into(),
            has_other_side: true,
        }];
        let ok = |u: &str| fetch(u, Status::Verified, "ok");
        // The risky spelling first: its other side timed out.
        let vs = [
            ok("http://a.test/r/"),
            fetch("http://a.test/r", Status::Unresolved, "timeout"),
        ];
        let got = not_compared(&rules, &[slash(), BTreeSet::new()], &vs, 5);
        assert_eq!(
            got,
            [
                "remove-trailing-slash: variant 1 (http://a.test/r) not behind it gave no \
              finding: timeout"
            ]
        );
        // A 404 beside a 200 is a finding: compared.
        let vs = [
            ok("http://a.test/r/"),
            fetch("http://a.test/r", Status::NotFound, "http-404"),
        ];
        assert!(not_compared(&rules, &[slash(), BTreeSet::new()], &vs, 5).is_empty());
        assert!(vs.iter().all(compared));
        // Left out by the limit.
        let vs = [ok("http://a.test/r?gclid=1")];
        let got = not_compared(&rules, &[BTreeSet::new()], &vs, 1);
        assert_eq!(
            got,
            [
                "remove-trailing-slash: no spelling behind it was fetched (the limit of 1 per \
              key was reached)"
            ]
        );
        // Every spelling behind the rule: one compared is enough.
        let alone = vec![RiskyRule {
            name: "remove-trailing-slash".into(),
            has_other_side: false,
        }];
        assert!(not_compared(&alone, &[slash()], &[ok("http://a.test/r/")], 1).is_empty());
    }
}

//! What normalization changed in a sample (seed 004: "counting every string as a unique
//! source can distort citation totals"): how many distinct observed URLs there are beside
//! the keys, how many keys merged several of them, and which rules made them meet. Also
//! where the sample's keys come from: the ingest, or a re-key ([`crate::rekey`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

/// The row name of the observed URLs of a merged key that no rule changed (the key's
/// spelling as observed).
pub const UNCHANGED: &str = "unchanged";

/// The rules that changed one observed URL and the parameters they removed, from the
/// stored `transformations` and `removed_params` (JSON arrays).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Distinct rule names, in order of first application.
    pub rules: Vec<String>,
    /// Distinct removed parameter names, sorted.
    pub removed_params: Vec<String>,
}

impl Changes {
    /// From the two stored columns; a cell that is not the expected JSON gives nothing
    /// (a figure cannot invent a rule).
    pub fn parse(transformations: &str, removed_params: &str) -> Changes {
        #[derive(serde::Deserialize)]
        struct Step {
            rule: String,
        }
        let mut rules: Vec<String> = Vec::new();
        for s in serde_json::from_str::<Vec<Step>>(transformations).unwrap_or_default() {
            if !rules.contains(&s.rule) {
                rules.push(s.rule);
            }
        }
        let params: BTreeSet<String> = serde_json::from_str::<Vec<String>>(removed_params)
            .unwrap_or_default()
            .into_iter()
            .collect();
        Changes {
            rules,
            removed_params: params.into_iter().collect(),
        }
    }
}

/// One valid or invalid observation as these figures need it.
pub struct Row<'a> {
    /// Its key under the report's policy (`None`: invalid under it).
    pub key: Option<&'a str>,
    /// The observed URL, exactly as stored.
    pub observed: &'a str,
    /// True when the key was made by a re-key, false when at ingest.
    pub rekeyed: bool,
}

/// What normalization changed, over the same observations as the measures beside it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NormalizationFigures {
    /// Distinct observed URL strings among the valid observations.
    pub observed_urls: u64,
    /// Keys that merged two or more distinct observed URLs.
    pub merged_keys: u64,
    /// `observed_urls - unique_keys`: distinct observed URLs counted under a key another
    /// observed URL also has (what counting strings would have added).
    pub observed_urls_merged: u64,
    /// Per rule: distinct observed URLs of merged keys that the rule changed (a URL counts
    /// under every rule that changed it; [`UNCHANGED`]: those no rule changed).
    pub merged_by_rule: BTreeMap<String, u64>,
    /// Per removed parameter name: distinct observed URLs of merged keys it was removed from.
    pub merged_by_removed_param: BTreeMap<String, u64>,
    /// Observations (valid or not) whose key under the report's policy was made when they
    /// were ingested.
    pub keyed_at_ingest: u64,
    /// Observations whose key under the report's policy was made by a re-key.
    pub rekeyed: u64,
}

/// The figures of a sample: `changes` gives what the policy did to each observed URL.
pub fn figures(rows: &[Row<'_>], changes: &HashMap<String, Changes>) -> NormalizationFigures {
    let mut by_key: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut f = NormalizationFigures::default();
    for r in rows {
        if r.rekeyed {
            f.rekeyed += 1;
        } else {
            f.keyed_at_ingest += 1;
        }
        if let Some(k) = r.key {
            by_key.entry(k).or_default().insert(r.observed);
        }
    }
    let observed: BTreeSet<&str> = by_key.values().flatten().copied().collect();
    f.observed_urls = observed.len() as u64;
    f.observed_urls_merged = f.observed_urls.saturating_sub(by_key.len() as u64);
    let none = Changes::default();
    for urls in by_key.values().filter(|u| u.len() > 1) {
        f.merged_keys += 1;
        for u in urls {
            let c = changes.get(*u).unwrap_or(&none);
            if c.rules.is_empty() {
                *f.merged_by_rule.entry(UNCHANGED.to_string()).or_default() += 1;
            }
            for rule in &c.rules {
                *f.merged_by_rule.entry(rule.clone()).or_default() += 1;
            }
            for p in &c.removed_params {
                *f.merged_by_removed_param.entry(p.clone()).or_default() += 1;
            }
        }
    }
    f
}

/// One figure as a row of a table: a count, or one value of a per-value count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureRow {
    /// A stable name: the measure's (`observed_urls`), or `rule=NAME`,
    /// `removed_param=NAME`.
    pub name: String,
    /// The same for people.
    pub label: String,
    /// The count.
    pub value: u64,
}

/// Every figure of `m` in the table's order ([`super::catalog::MEASURES`]); a per-value
/// count without values is one row saying `none`, valued 0.
pub fn rows(m: &super::Measures) -> Vec<FigureRow> {
    use super::catalog::{Group, Measure, Shown};
    let mut rows = Vec::new();
    for x in Measure::of(Group::Normalization) {
        match x.shown {
            Shown::PerValue { of, row } => {
                if of(m).is_empty() {
                    rows.push(FigureRow {
                        name: format!("{row}="),
                        label: format!("{}: none", x.label(m)),
                        value: 0,
                    });
                }
                for (v, n) in of(m) {
                    rows.push(FigureRow {
                        name: format!("{row}={v}"),
                        label: format!("{}: {v}", x.label(m)),
                        value: *n,
                    });
                }
            }
            Shown::Count(value) => rows.push(FigureRow {
                name: x.name.to_string(),
                label: x.label(m),
                value: value(m),
            }),
            Shown::Share { .. } | Shown::Index(_) | Shown::Section(_) => {}
        }
    }
    rows
}

/// The heading of the figures in every report for people.
pub const HEADING: &str = "What normalization changed";

/// What the figures are, in one sentence under the heading.
pub const EXPLAINED: &str = "Distinct observed URLs beside the URL keys they gave: a key \
     that merged several observed URLs counts them once. By rule: the observed URLs of those \
     keys each rule changed (a URL counts under every rule that changed it; unchanged: no rule \
     changed it).";

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 004's synthetic example (reserved placeholder domains, not observed AI
    /// citations), with one observation more of each of two URLs; counted by hand in
    /// docs/ledger.md, "What normalization changed".
    #[test]
    fn the_seed_example_counted_by_hand() {
        let t = |steps: &[&str]| {
            let v: Vec<_> = steps
                .iter()
                .map(
                    |r| serde_json::json!({"rule": r, "component": "x", "before": "", "after": ""}),
                )
                .collect();
            serde_json::to_string(&v).expect("json")
        };
        let observed = [
            (
                "https://docs.example.org/guide?utm_source=email#evidence",
                "https://docs.example.org/guide",
                t(&["remove-fragment", "remove-tracking-parameters"]),
                r#"["utm_source"]"#,
            ),
            (
                "https://docs.example.org/guide?utm_source=social",
                "https://docs.example.org/guide",
                t(&["remove-tracking-parameters"]),
                r#"["utm_source"]"#,
            ),
            (
                "https://docs.example.org/guide",
                "https://docs.example.org/guide",
                t(&[]),
                "[]",
            ),
            (
                "https://research.example.net/report/?gclid=example",
                "https://research.example.net/report",
                t(&["remove-tracking-parameters", "remove-trailing-slash"]),
                r#"["gclid"]"#,
            ),
            (
                "https://research.example.net/report/",
                "https://research.example.net/report",
                t(&["remove-trailing-slash"]),
                "[]",
            ),
            (
                "https://updates.example.com/story?edition=morning&utm_campaign=test",
                "https://updates.example.com/story?edition=morning",
                t(&["remove-tracking-parameters"]),
                r#"["utm_campaign"]"#,
            ),
        ];
        let changes: HashMap<String, Changes> = observed
            .iter()
            .map(|(u, _, t, p)| (u.to_string(), Changes::parse(t, p)))
            .collect();
        // 8 observations: the first URL and the report/ URL twice, one invalid one
        // re-keyed.
        let mut rows: Vec<Row> = observed
            .iter()
            .map(|(u, k, _, _)| Row {
                key: Some(k),
                observed: u,
                rekeyed: false,
            })
            .collect();
        rows.push(Row {
            key: Some(observed[0].1),
            observed: observed[0].0,
            rekeyed: false,
        });
        rows.push(Row {
            key: Some(observed[4].1),
            observed: observed[4].0,
            rekeyed: true,
        });
        rows.push(Row {
            key: None,
            observed: "notaurl",
            rekeyed: true,
        });
        let f = figures(&rows, &changes);
        assert_eq!(f.observed_urls, 6);
        assert_eq!(f.merged_keys, 2, "guide (3 URLs) and report (2 URLs)");
        assert_eq!(f.observed_urls_merged, 3, "6 observed URLs, 3 keys");
        assert_eq!(
            f.merged_by_rule,
            BTreeMap::from([
                ("remove-fragment".to_string(), 1),
                ("remove-tracking-parameters".to_string(), 3),
                ("remove-trailing-slash".to_string(), 2),
                (UNCHANGED.to_string(), 1),
            ]),
            "the story's utm_campaign merged nothing: its key has one URL"
        );
        assert_eq!(
            f.merged_by_removed_param,
            BTreeMap::from([("gclid".to_string(), 1), ("utm_source".to_string(), 2)])
        );
        assert_eq!((f.keyed_at_ingest, f.rekeyed), (7, 2));
    }

    #[test]
    fn unreadable_cells_give_no_rule() {
        assert_eq!(Changes::parse("not json", "{}"), Changes::default());
        let c = Changes::parse(
            r#"[{"rule":"a"},{"rule":"b"},{"rule":"a"}]"#,
            r#"["z","y","z"]"#,
        );
        assert_eq!(c.rules, ["a", "b"]);
        assert_eq!(c.removed_params, ["y", "z"]);
    }
}

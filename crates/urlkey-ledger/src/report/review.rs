//! The report's figures from what people decided and what verify compared:
//! valid observations by source role, by claim support, merges to review, and the unique
//! keys with `split` decisions applied. Each is counted over the same observations as the
//! measures beside it (the group, the window), so it is stated with the same sample.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::Connection;
use serde::Serialize;

use super::share::round_share;
use crate::error::Result;

/// The latest decisions and checks, by key and by observation.
#[derive(Debug, Default)]
pub(super) struct Decisions {
    /// key -> latest source role.
    pub role: HashMap<String, String>,
    /// key -> latest merge decision.
    pub merge: HashMap<String, String>,
    /// observation id -> latest claim support.
    pub claim: HashMap<String, String>,
    /// Merges to review by key (see `crate::review::merges`, the list `ledger merges`
    /// prints: the report reuses its rule rather than restating it).
    pub to_review: HashMap<String, crate::review::Merge>,
    /// The text directives' latest checks, by observation.
    pub fragments: super::fragments::States,
}

impl Decisions {
    /// Reads them for one policy (all policies when `None`).
    /// A ledger read read-only before schema 4 (`serve --ledger`) has no decisions.
    pub fn load(conn: &Connection, policy: Option<&str>) -> Result<Decisions> {
        let mut d = Decisions {
            fragments: super::fragments::States::load(conn)?,
            ..Decisions::default()
        };
        if crate::db::user_version(conn)? < 4 {
            return Ok(d);
        }
        let mut st = conn.prepare(
            "SELECT normalized_key, observation_id, source_role, claim_support, merge_decision \
             FROM reviews WHERE ?1 IS NULL OR normalization_policy_version = ?1 \
             ORDER BY review_id",
        )?;
        let mut rows = st.query([policy])?;
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let obs: Option<String> = r.get(1)?;
            if let Some(role) = r.get::<_, Option<String>>(2)? {
                d.role.insert(key.clone(), role);
            }
            if let (Some(o), Some(c)) = (obs, r.get::<_, Option<String>>(3)?) {
                d.claim.insert(o, c);
            }
            if let Some(m) = r.get::<_, Option<String>>(4)? {
                d.merge.insert(key, m);
            }
        }
        for m in crate::review::merges(conn)? {
            if m.to_review && policy.is_none_or(|p| p == m.policy) {
                d.to_review.insert(m.key.clone(), m);
            }
        }
        Ok(d)
    }
}

/// What the decisions say about one sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReviewFigures {
    /// Valid observations per source role of their key; `unclassified` when none.
    pub observations_by_source_role: BTreeMap<String, u64>,
    /// Valid observations per claim support; `unreviewed` when none.
    pub claim_support: BTreeMap<String, u64>,
    /// Keys of the sample that are merges to review (a risky rule merged them, their
    /// content check is not `same`, nobody decided).
    pub merges_to_review: u64,
    /// Keys of the sample a person split.
    pub split_keys: u64,
    /// Unique URL keys with every split key counted once per distinct observed URL (as
    /// verify fetches it: no fragment, no userinfo).
    pub unique_keys_with_splits: u64,
    /// Every merge to review of the sample, most observations first, ties by key.
    pub merges_to_review_list: Vec<MergeToReview>,
    /// The top keys with splits applied (a split key's variants ranked as separate keys);
    /// empty when no key of the sample was split.
    pub top_keys_with_splits: Vec<SplitTopKey>,
}

/// How many merges to review the table, Markdown and HTML reports list (JSON has every
/// one); [`ReviewFigures::more_line`] says how many more.
pub const LISTED: usize = 20;

/// How many observed spellings a listed merge shows (the count says how many there are).
pub const SPELLINGS_SHOWN: usize = 3;

/// One merge to review, counted over the sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeToReview {
    /// The key.
    pub key: String,
    /// Distinct observed URLs of the sample that gave it.
    pub variants: u64,
    /// The first [`SPELLINGS_SHOWN`] of them, sorted.
    pub spellings: Vec<String>,
    /// The risky rules that merged them.
    pub risky_rules: Vec<String>,
    /// The latest content check, `unverified` when verify never compared the variants.
    pub content_check: String,
    /// Valid observations of the sample with this key.
    pub observations: u64,
    /// The key's spellings in the whole ledger (distinct observed URLs as verify fetches
    /// them).
    pub spellings_total: u64,
    /// How many of them the latest verification compared; None when never verified (or
    /// verified before schema 4).
    pub spellings_compared: Option<u64>,
}

/// One entry of the top keys with splits applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitTopKey {
    /// The key, or for a split key one of its variants (as verify fetches it).
    pub key: String,
    /// The key a person split, when this is one of its variants.
    pub split_from: Option<String>,
    /// Valid observations.
    pub observations: u64,
    /// `observations / valid observations` of the sample, rounded to 4 places.
    pub share: f64,
}

/// One review figure as a row of a table or a CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureRow {
    /// A stable name: `source_role=ROLE`, `claim_support=VALUE`, `merges_to_review`,
    /// `split_keys`, `unique_keys_with_splits`.
    pub name: String,
    /// The same for people.
    pub label: String,
    /// The count.
    pub value: u64,
    /// True when it counts valid observations (so it has a share of them); false when it
    /// counts keys.
    pub of_observations: bool,
}

impl ReviewFigures {
    /// True when people decided something in the sample or a merge waits for them: the
    /// text formats and the HTML page show the figures only then (CSV and JSON always).
    pub fn has_any(&self) -> bool {
        self.observations_by_source_role
            .keys()
            .any(|k| k != "unclassified")
            || self.claim_support.keys().any(|k| k != "unreviewed")
            || self.split_keys > 0
            || self.merges_to_review > 0
    }
}

/// Every review figure of `m` in the table's order ([`super::catalog::MEASURES`]): one row
/// per value of the per-value counts (roles, claim support), then the key counts.
pub fn rows(m: &super::Measures) -> Vec<FigureRow> {
    use super::catalog::{Group, Measure, Shown};
    let mut rows = Vec::new();
    for x in Measure::of(Group::Review) {
        match x.shown {
            Shown::PerValue { of, row } => {
                for (v, n) in of(m) {
                    rows.push(FigureRow {
                        name: format!("{row}={v}"),
                        label: format!("{} {v}", x.label(m)),
                        value: *n,
                        of_observations: true,
                    });
                }
            }
            Shown::Count(value) => rows.push(FigureRow {
                name: x.name.to_string(),
                label: x.label(m),
                value: value(m),
                of_observations: false,
            }),
            Shown::Share { .. } | Shown::Index(_) | Shown::Section(_) => {}
        }
    }
    rows
}

impl ReviewFigures {
    /// How many merges to review the lists leave out, and where to see them all (none when
    /// every one is listed).
    pub fn more_line(&self) -> Option<String> {
        let all = self.merges_to_review_list.len();
        (all > LISTED).then(|| format!("{} more; the JSON report lists all", all - LISTED))
    }
}

impl MergeToReview {
    /// The content check with the spellings compared: `partial (1 of 7 spellings compared)`.
    pub fn check_text(&self) -> String {
        match self.spellings_compared {
            Some(c) => format!(
                "{} ({c} of {} spellings compared)",
                self.content_check, self.spellings_total
            ),
            None => self.content_check.clone(),
        }
    }

    /// The spellings shown, `, ...` when there are more variants.
    pub fn spellings_text(&self) -> String {
        let mut s = self.spellings.join(", ");
        if (self.spellings.len() as u64) < self.variants {
            s.push_str(", ...");
        }
        s
    }
}

impl SplitTopKey {
    /// `  (variant of split key K)` for a variant of a key a person split, else nothing.
    pub fn split_note(&self) -> String {
        self.split_from
            .as_deref()
            .map(|f| format!("  (variant of split key {f})"))
            .unwrap_or_default()
    }
}

/// A count map as `name n; name n` (the CSV's cell form).
pub fn counts_cell(map: &BTreeMap<String, u64>) -> String {
    map.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One observation as these figures need it: (observation id, key, observed URL).
pub(super) type Row<'a> = (&'a str, &'a str, &'a str);

/// Counts the figures over the valid observations `rows`; `top` is how many top keys
/// with splits to keep (0: all).
pub(super) fn figures(rows: &[Row<'_>], d: &Decisions, top: usize) -> ReviewFigures {
    let mut f = ReviewFigures::default();
    // key -> (observations, observed URLs, observations per fetched URL when split)
    type PerKey<'a> = (u64, BTreeSet<&'a str>, BTreeMap<String, u64>);
    let mut keys: BTreeMap<&str, PerKey> = BTreeMap::new();
    for (id, key, observed) in rows {
        let role = d.role.get(*key).map_or("unclassified", String::as_str);
        *f.observations_by_source_role
            .entry(role.to_string())
            .or_default() += 1;
        let claim = d.claim.get(*id).map_or("unreviewed", String::as_str);
        *f.claim_support.entry(claim.to_string()).or_default() += 1;
        let e = keys.entry(key).or_default();
        e.0 += 1;
        e.1.insert(observed);
        if is_split(d, key) {
            *e.2.entry(crate::spelling::as_fetched(observed))
                .or_default() += 1;
        }
    }
    let valid = rows.len() as u64;
    let mut ranked: Vec<SplitTopKey> = Vec::new();
    for (k, (n, observed, split_urls)) in &keys {
        if let Some(m) = d.to_review.get(*k) {
            f.merges_to_review += 1;
            f.merges_to_review_list.push(MergeToReview {
                key: k.to_string(),
                variants: observed.len() as u64,
                spellings: observed
                    .iter()
                    .take(SPELLINGS_SHOWN)
                    .map(|s| s.to_string())
                    .collect(),
                risky_rules: m.risky_rules.clone(),
                content_check: m
                    .content_check
                    .clone()
                    .unwrap_or_else(|| "unverified".to_string()),
                observations: *n,
                spellings_total: m.spellings as u64,
                spellings_compared: m.spellings_compared.map(|c| c as u64),
            });
        }
        if is_split(d, k) {
            f.split_keys += 1;
            f.unique_keys_with_splits += split_urls.len().max(1) as u64;
            for (url, c) in split_urls {
                ranked.push(SplitTopKey {
                    key: url.clone(),
                    split_from: Some(k.to_string()),
                    observations: *c,
                    share: round_share(*c, valid),
                });
            }
        } else {
            f.unique_keys_with_splits += 1;
            ranked.push(SplitTopKey {
                key: k.to_string(),
                split_from: None,
                observations: *n,
                share: round_share(*n, valid),
            });
        }
    }
    f.merges_to_review_list
        .sort_by(|a, b| b.observations.cmp(&a.observations).then(a.key.cmp(&b.key)));
    if f.split_keys > 0 {
        ranked.sort_by(|a, b| {
            b.observations
                .cmp(&a.observations)
                .then(a.key.cmp(&b.key))
                .then(a.split_from.cmp(&b.split_from))
        });
        if top > 0 {
            ranked.truncate(top);
        }
        f.top_keys_with_splits = ranked;
    }
    f
}

pub(super) fn is_split(d: &Decisions, key: &str) -> bool {
    d.merge.get(key).map(String::as_str) == Some("split")
}

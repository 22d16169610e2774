//! What a report holds: the measures of one group or sample, the groups, and the
//! comparison of two samples, each serialized as the documented JSON shape.

use std::collections::BTreeSet;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::publisher::PublisherUnit;
use super::review;
use super::share::round_share;
use super::GroupBy;

/// How concentrated the valid observations are on few publishers. Every share has the
/// group's valid observations as its denominator, stated beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Concentration {
    /// The top publisher's share (the seed document's `top_publisher_share`).
    pub top1_share: f64,
    /// The five top publishers' shares together.
    pub top5_share: f64,
    /// Herfindahl-Hirschman index: the sum of the squared shares of every publisher,
    /// 0..1 (1 = one publisher; 1/n = n equal publishers). Rounded to 4 places.
    pub hhi: f64,
    /// The denominator of the shares: the valid observations.
    pub valid_observations: u64,
    /// How many publishers the index is over.
    pub publishers: u64,
}

impl Concentration {
    /// From every publisher's valid observations, most first.
    pub fn of(counts: &[u64]) -> Concentration {
        let total: u64 = counts.iter().sum();
        let top5: u64 = counts.iter().take(5).sum();
        let hhi = if total == 0 {
            0.0
        } else {
            let sq: u128 = counts.iter().map(|&n| u128::from(n) * u128::from(n)).sum();
            ((sq as f64 / (total as f64 * total as f64)) * 10_000.0).round() / 10_000.0
        };
        Concentration {
            top1_share: round_share(counts.first().copied().unwrap_or(0), total),
            top5_share: round_share(top5, total),
            hhi,
            valid_observations: total,
            publishers: counts.len() as u64,
        }
    }
}

/// One publisher among the top ones. With `--publisher host` (the default) it is named by
/// `hostname`; with `--publisher registrable` by `registrable_domain`, with the hostnames
/// rolled up into it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopPublisher {
    /// The key's hostname (`--publisher host`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// The registrable domain of the key's hostname (`--publisher registrable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registrable_domain: Option<String>,
    /// The hostnames counted under the registrable domain, sorted (registrable only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hostnames: Vec<String>,
    /// Valid observations of this publisher.
    pub observations: u64,
    /// `observations / valid_observations`, rounded to 4 decimal places.
    pub share: f64,
}

impl TopPublisher {
    /// The publisher's name, whichever unit it is counted in.
    pub fn name(&self) -> &str {
        self.hostname
            .as_deref()
            .or(self.registrable_domain.as_deref())
            .unwrap_or("")
    }
}

/// One of the most observed URL keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopKey {
    /// The comparison key.
    pub key: String,
    /// Its publisher (hostname or registrable domain, as the report counts them).
    pub publisher: String,
    /// Valid observations with this key.
    pub observations: u64,
    /// `observations / valid_observations`, rounded to 4 places.
    pub share: f64,
    /// Distinct observed URL strings that gave this key.
    pub spellings: u64,
    /// Earliest run time (UTC) of an observation with this key.
    pub first_seen: String,
    /// Latest.
    pub last_seen: String,
}

/// How many elements of two sets are in both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetOverlap {
    /// In the first answer system's set.
    pub in_a: u64,
    /// In the second's.
    pub in_b: u64,
    /// In both.
    pub both: u64,
    /// In either (the union; the Jaccard denominator).
    pub either: u64,
    /// `both / either`, rounded to 4 places (0 when both sets are empty).
    pub jaccard: f64,
}

impl SetOverlap {
    pub(super) fn of(a: &BTreeSet<&str>, b: &BTreeSet<&str>) -> SetOverlap {
        let both = a.intersection(b).count() as u64;
        let either = (a.len() + b.len()) as u64 - both;
        SetOverlap {
            in_a: a.len() as u64,
            in_b: b.len() as u64,
            both,
            either,
            jaccard: round_share(both, either),
        }
    }
}

/// Publishers and keys cited by two answer systems of the sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overlap {
    /// The first answer system (by name).
    pub a: String,
    /// The second.
    pub b: String,
    /// The first one's valid observations (where its sets come from).
    pub a_valid_observations: u64,
    /// The second one's.
    pub b_valid_observations: u64,
    /// Distinct publishers.
    pub publishers: SetOverlap,
    /// Distinct URL keys.
    pub keys: SetOverlap,
    /// Distinct URL keys with `split` decisions applied (a key a person split counts each
    /// of its observed URLs, as fetched, as a key of its own); only when a key of the pair's
    /// observations was split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys_with_splits: Option<SetOverlap>,
}

/// The collection window: earliest and latest `run_timestamp` (UTC) of the sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Earliest, `YYYY-MM-DDTHH:MM:SSZ`; `null` for an empty sample.
    pub from: Option<String>,
    /// Latest.
    pub to: Option<String>,
}

/// What the figures describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Prompt-set versions in the sample, sorted.
    pub prompt_versions: Vec<String>,
    /// Answer systems, sorted.
    pub answer_systems: Vec<String>,
    /// Markets, sorted.
    pub markets: Vec<String>,
    /// The collection window.
    pub window: Window,
}

/// The measures for one sample (the whole ledger, or one group).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measures {
    /// Every observation, invalid URLs included.
    pub observations: u64,
    /// Observations with a key.
    pub valid_observations: u64,
    /// Observations without one (kept in the ledger with their error code).
    pub invalid_observations: u64,
    /// Distinct keys among the valid observations.
    pub unique_keys: u64,
    /// Distinct publishers among the valid observations (hostnames, or registrable
    /// domains with `--publisher registrable`).
    pub unique_publishers: u64,
    /// What a publisher is in this report: `host` or `registrable`.
    pub publisher_unit: PublisherUnit,
    /// The publishers with the most valid observations, most first, ties by name.
    pub top_publishers: Vec<TopPublisher>,
    /// Concentration over every publisher of the sample (not only the listed ones).
    pub concentration: Concentration,
    /// The keys with the most valid observations, most first, ties by key.
    pub top_keys: Vec<TopKey>,
    /// For each pair of answer systems in the sample (by name), what both cite.
    pub overlap: Vec<Overlap>,
    /// The sample the figures describe.
    pub sample: Sample,
    /// Source roles, claim support, merges to review and the unique keys with `split`
    /// decisions applied, over the same observations.
    pub review: review::ReviewFigures,
    /// What normalization changed (distinct observed URLs, merged keys, by rule) and where
    /// the keys come from (ingest or re-key), over the same observations.
    pub normalization: super::normalization::NormalizationFigures,
    /// Run-to-run stability, per answer system of the sample (sorted): how steady the keys
    /// and publishers cited for one prompt are from run to run ([`super::stability`]).
    pub stability: Vec<super::stability::Stability>,
    /// Observations with `#:~:text=` directives and what verify's latest check of each
    /// found, over the same observations (invalid URLs included), and per answer system.
    pub text_fragments: super::fragments::TextFragmentFigures,
    /// Every publisher's valid observations, most first (the concentration curve's
    /// points; not in the JSON, whose `concentration` sums them up).
    #[serde(skip)]
    pub publisher_counts: Vec<u64>,
}

/// A group's values, one per `--by` column, in the order given (a JSON object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values(pub Vec<(&'static str, Option<String>)>);

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One group of a `--by` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The group's value for one `--by` column (`null` for rows without one: only
    /// `collection` can be empty); for several columns, the values joined with ` / `.
    pub value: Option<String>,
    /// Column -> value, for every `--by` column (empty without `--by`).
    #[serde(skip_serializing_if = "is_empty_values")]
    pub values: Values,
    /// The measures.
    #[serde(flatten)]
    pub measures: Measures,
}

impl Group {
    /// The group's values in words: `answer_system = A, market = fr` (`(none)` for a row
    /// without the value).
    pub fn heading(&self) -> String {
        self.values
            .0
            .iter()
            .map(|(c, v)| format!("{c} = {}", v.as_deref().unwrap_or("(none)")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn is_empty_values(v: &Values) -> bool {
    v.0.is_empty()
}

/// The JSON report (`report --format json`, serve's `GET /api/ledger`), decided once:
/// a comparison; without `--by`, the whole ledger's measures (`{}` for an empty ledger);
/// with `--by`, the columns and the groups.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum JsonReport<'a> {
    /// `--compare A B` or two windows.
    Compare(&'a Comparison),
    /// The whole ledger.
    Measures(&'a Measures),
    /// An empty ledger without `--by`.
    Empty {},
    /// A `--by` report.
    Grouped {
        /// The columns grouped by, joined with `,` (as `--by` takes them).
        by: String,
        /// One entry per combination of values present, sorted (`null` first).
        groups: &'a [Group],
    },
}

impl<'a> JsonReport<'a> {
    /// The JSON shape of `report`, grouped by `by`.
    pub fn of(report: &'a super::Report, by: &[GroupBy]) -> JsonReport<'a> {
        match report {
            super::Report::Compare(_, c) => JsonReport::Compare(c),
            super::Report::Groups(c) if by.is_empty() => match c.groups.first() {
                Some(g) => JsonReport::Measures(&g.measures),
                None => JsonReport::Empty {},
            },
            super::Report::Groups(c) => JsonReport::Grouped {
                by: super::by_text(by),
                groups: &c.groups,
            },
        }
    }
}

/// One publisher or key in a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The publisher or the key.
    pub name: String,
    /// Valid observations in collection A.
    pub a: u64,
    /// In collection B.
    pub b: u64,
    /// `b - a`.
    pub change: i64,
    /// `a / A's valid observations`, rounded to 4 places.
    pub a_share: f64,
    /// `b / B's valid observations`.
    pub b_share: f64,
    /// `b_share - a_share`, rounded to 4 places.
    pub share_change: f64,
    /// `new` (only in B), `gone` (only in A) or `both`.
    pub status: &'static str,
}

/// How many publishers (or keys) are in A, B, both, new in B, gone from A.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    /// Distinct in A.
    pub in_a: u64,
    /// Distinct in B.
    pub in_b: u64,
    /// In both.
    pub both: u64,
    /// In B only.
    pub new: u64,
    /// In A only.
    pub gone: u64,
}

/// One side of a comparison: a collection (or a time window) and its measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The collection (`--compare A B`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    /// The time window (`--window FROM..TO --window FROM..TO`), as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The policy whose keys this side counts, when two policies are compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Its measures and sample.
    #[serde(flatten)]
    pub measures: Measures,
}

impl Side {
    /// `collection = A` or `window = FROM..TO`.
    pub fn label(&self) -> String {
        match (&self.policy, &self.collection, &self.window) {
            (Some(p), Some(c), _) => format!("policy = {p}, collection = {c}"),
            (Some(p), None, _) => format!("policy = {p}"),
            (None, Some(c), _) => format!("collection = {c}"),
            (None, None, Some(w)) => format!("window = {w}"),
            _ => String::new(),
        }
    }

    /// The policy, the collection or the window, alone.
    pub fn name(&self) -> &str {
        self.policy
            .as_deref()
            .or(self.collection.as_deref())
            .or(self.window.as_deref())
            .unwrap_or("")
    }
}

/// A time window of `run_timestamp`: `FROM..TO`, both ends included. Each end is an
/// instant (RFC 3339 / ISO 8601 with `Z` or an offset) or a date (`2026-11-01`); a date
/// as `TO` includes that whole day (UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeWindow {
    /// As given.
    pub text: String,
    /// The first instant included (`YYYY-MM-DDTHH:MM:SSZ`).
    lo: String,
    /// The last instant included, or (for a date) the first one excluded.
    hi: String,
    hi_included: bool,
}

impl TimeWindow {
    /// Parses `FROM..TO`.
    pub fn parse(text: &str) -> std::result::Result<TimeWindow, String> {
        let (from, to) = text.split_once("..").ok_or_else(|| {
            format!("{text:?}: give FROM..TO, e.g. 2026-11-01..2026-11-07 or two RFC 3339 instants")
        })?;
        let (from, to) = (from.trim(), to.trim());
        let lo = crate::timefmt::parse_run_timestamp(from).map_err(|e| format!("{text:?}: {e}"))?;
        let (hi, hi_included) = match jiff::civil::Date::strptime("%Y-%m-%d", to) {
            Ok(d) => {
                let next = d
                    .tomorrow()
                    .map_err(|e| format!("{text:?}: {e}"))?
                    .strftime("%Y-%m-%dT00:00:00Z")
                    .to_string();
                (next, false)
            }
            Err(_) => (
                crate::timefmt::parse_run_timestamp(to).map_err(|e| format!("{text:?}: {e}"))?,
                true,
            ),
        };
        if hi < lo || (hi == lo && !hi_included) {
            return Err(format!("{text:?}: the window ends before it starts"));
        }
        Ok(TimeWindow {
            text: text.to_string(),
            lo,
            hi,
            hi_included,
        })
    }

    /// Whether a run time (`YYYY-MM-DDTHH:MM:SSZ`) is in the window.
    pub fn contains(&self, run_at: &str) -> bool {
        run_at >= self.lo.as_str()
            && if self.hi_included {
                run_at <= self.hi.as_str()
            } else {
                run_at < self.hi.as_str()
            }
    }
}

/// `report --compare A B`: two collections side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Collection A with its measures and sample.
    pub a: Side,
    /// Collection B.
    pub b: Side,
    /// Publisher counts: distinct in each, both, new, gone.
    pub publishers_summary: ChangeSummary,
    /// Per publisher, the largest changes first (`--top` of them; 0 = all).
    pub publishers: Vec<Change>,
    /// Key counts.
    pub keys_summary: ChangeSummary,
    /// Per key, the largest changes first (`--top-keys` of them; 0 = all).
    pub keys: Vec<Change>,
    /// Per answer system of either side, each stability figure in A and B and the change.
    pub stability: Vec<super::stability::StabilityChange>,
}

/// A report's options.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Group by these columns (none: one report for the whole ledger).
    pub by: Vec<GroupBy>,
    /// How many top publishers to list (0 = all).
    pub top: usize,
    /// How many top keys to list (0 = all).
    pub top_keys: usize,
    /// Only observations keyed with this policy.
    pub policy: Option<String>,
    /// Hostnames, or registrable domains.
    pub publisher: PublisherUnit,
    /// Compare these two collections (A, B) instead of grouping.
    pub compare: Option<(String, String)>,
    /// One window: only observations run in it. Two (without `compare`): compare them.
    pub windows: Vec<TimeWindow>,
    /// Only observations of this collection.
    pub collection: Option<String>,
    /// Compare the same observations keyed under two policies (A, B) instead of grouping.
    pub compare_policies: Option<(String, String)>,
}

/// How many top publishers and top URL keys a report lists when not told.
pub const DEFAULT_TOP: usize = 5;

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            by: Vec::new(),
            top: DEFAULT_TOP,
            top_keys: DEFAULT_TOP,
            policy: None,
            publisher: PublisherUnit::Host,
            compare: None,
            windows: Vec::new(),
            collection: None,
            compare_policies: None,
        }
    }
}

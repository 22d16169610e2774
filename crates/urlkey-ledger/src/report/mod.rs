//! `ledger report`: the counting measures of seed 004, kept apart and never all called
//! "citations", each stated with its sample.
//!
//! - **observations**: rows in the ledger (one per observed citation in a dated answer),
//!   invalid URLs included;
//! - **valid observations**: observations whose URL produced a key;
//! - **unique URL keys**: distinct normalized keys among the valid observations;
//! - **unique publishers**: distinct publishers of those keys: hostnames by default (seed
//!   004), or registrable domains with `--publisher registrable` ([`publisher`]);
//! - **top publishers**: `share = publisher_observations / valid_observations`;
//! - **concentration**: top-1 and top-5 share, HHI, over every publisher;
//! - **top keys**: observations per key, distinct observed spellings, first and last seen;
//! - **overlap**: for each pair of answer systems, publishers and keys cited by both, and
//!   the Jaccard index ([`Overlap`]);
//! - **compare** (`--compare A B`): per publisher and per key, the valid observations in
//!   each of two collections, the change, new and gone ([`Comparison`]).
//!
//! Every share is printed with its denominator and the sample it describes. The rows are
//! read once (the observation's dimensions, run time, key, host and observed URL) and
//! every measure is computed from them in memory.

mod csv;
pub mod html;
mod markdown;
pub mod publisher;
pub mod review;
mod table;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::Path;

use rusqlite::{params_from_iter, Connection, OpenFlags};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::error::{LedgerError, Result};
pub use publisher::PublisherUnit;

/// A column to group the report by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupBy {
    /// The answer system (product surface).
    AnswerSystem,
    /// The market.
    Market,
    /// The prompt-set version.
    PromptVersion,
    /// The dated collection run.
    Collection,
}

impl crate::choice::Choice for GroupBy {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            GroupBy::AnswerSystem,
            "answer_system",
            "The answer system (product surface)",
        ),
        (GroupBy::Market, "market", "The market"),
        (
            GroupBy::PromptVersion,
            "prompt_version",
            "The prompt-set version",
        ),
        (
            GroupBy::Collection,
            "collection",
            "The dated collection run",
        ),
    ];
}

crate::choice::from_str_by_name!(GroupBy, ReportFormat);

impl GroupBy {
    /// The column name, as the JSON `by` field gives it.
    pub fn column(self) -> &'static str {
        match self {
            GroupBy::AnswerSystem => "answer_system",
            GroupBy::Market => "market",
            GroupBy::PromptVersion => "prompt_version",
            GroupBy::Collection => "collection",
        }
    }

    fn index(self) -> usize {
        match self {
            GroupBy::PromptVersion => 0,
            GroupBy::AnswerSystem => 1,
            GroupBy::Market => 2,
            GroupBy::Collection => 3,
        }
    }
}

/// The output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// For people.
    Table,
    /// The documented JSON shape, for scripts.
    Json,
    /// One row per group.
    Csv,
    /// Tables a person pastes into a document (GitHub-flavoured Markdown).
    Markdown,
    /// One self-contained HTML file (no network loads, no script) with SVG charts.
    Html,
}

impl crate::choice::Choice for ReportFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (ReportFormat::Table, "table", "For people"),
        (
            ReportFormat::Json,
            "json",
            "The documented JSON shape, for scripts",
        ),
        (ReportFormat::Csv, "csv", "One row per group"),
        (
            ReportFormat::Markdown,
            "markdown",
            "Tables a person pastes into a document (GitHub-flavoured Markdown)",
        ),
        (
            ReportFormat::Html,
            "html",
            "One self-contained HTML file (no network loads, no script) with SVG charts",
        ),
    ];
}

/// How concentrated the valid observations are on few publishers. Every share has the
/// group's valid observations as its denominator, stated beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Concentration {
    /// The top publisher's share (seed 004's `top_publisher_share`).
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
    fn of(a: &BTreeSet<&str>, b: &BTreeSet<&str>) -> SetOverlap {
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
    /// decisions applied (issue 16), over the same observations.
    pub review: review::ReviewFigures,
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

/// A `--by` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grouped {
    /// The columns grouped by, joined with `,` (as `--by` takes them).
    pub by: String,
    /// One entry per combination of values present, sorted (`null` first).
    pub groups: Vec<Group>,
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
    /// Its measures and sample.
    #[serde(flatten)]
    pub measures: Measures,
}

impl Side {
    /// `collection = A` or `window = FROM..TO`.
    pub fn label(&self) -> String {
        match (&self.collection, &self.window) {
            (Some(c), _) => format!("collection = {c}"),
            (None, Some(w)) => format!("window = {w}"),
            _ => String::new(),
        }
    }

    /// The collection or the window, alone.
    pub fn name(&self) -> &str {
        self.collection
            .as_deref()
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
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            by: Vec::new(),
            top: 5,
            top_keys: 5,
            policy: None,
            publisher: PublisherUnit::Host,
            compare: None,
            windows: Vec::new(),
        }
    }
}

/// Rounds a share to 4 decimal places.
pub fn round_share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    ((part as f64 / whole as f64) * 10_000.0).round() / 10_000.0
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Opens a ledger for reading only (`urlkey serve --ledger`): nothing is created,
/// migrated or written; a file that is not a ledger, or a ledger newer than this build,
/// is refused.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    if !path.is_file() {
        return Err(LedgerError::Database(format!(
            "there is no ledger at {}: pass the path of a ledger made by `urlkey ledger`",
            path.display()
        )));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| LedgerError::db(&format!("cannot open {} read-only", path.display()), e))?;
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    let v = crate::db::user_version(&conn).map_err(|e| {
        LedgerError::db(
            &format!("cannot read {} (is it an SQLite file?)", path.display()),
            e,
        )
    })?;
    if v == 0 {
        return Err(LedgerError::Database(format!(
            "{} is not a ledger (schema version 0): create one with `urlkey ledger init`",
            path.display()
        )));
    }
    if v > crate::db::SCHEMA_VERSION {
        return Err(LedgerError::Database(format!(
            "{} has schema version {v}, newer than this urlkey understands ({}): use a newer \
             urlkey",
            path.display(),
            crate::db::SCHEMA_VERSION
        )));
    }
    Ok(conn)
}

/// Picks the policy the report covers: the one asked for, or the only one in the ledger.
/// Keys made by different policies are not comparable, so a mixed ledger needs `--policy`.
pub fn resolve_policy(conn: &Connection, asked: Option<&str>) -> Result<Option<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT normalization_policy_version FROM observations ORDER BY 1")?;
    let policies: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    match asked {
        Some(p) => {
            if !policies.iter().any(|q| q == p) && !policies.is_empty() {
                return Err(LedgerError::Usage(format!(
                    "no observations keyed with {p}; the ledger has: {}",
                    policies.join(", ")
                )));
            }
            Ok(Some(p.to_string()))
        }
        None => match policies.len() {
            0 => Ok(None),
            1 => Ok(policies.into_iter().next()),
            _ => Err(LedgerError::Usage(format!(
                "the ledger holds observations keyed with several policies ({}); keys from \
                 different policies are not comparable: choose one with --policy",
                policies.join(", ")
            ))),
        },
    }
}

/// The collections in the ledger (of the policy the report would cover), sorted.
pub fn collections(conn: &Connection, policy: Option<&str>) -> Result<Vec<String>> {
    let policy = resolve_policy(conn, policy)?;
    let (sql, args): (&str, Vec<&str>) = match policy.as_deref() {
        Some(p) => (
            "SELECT DISTINCT collection FROM observations WHERE collection IS NOT NULL AND \
             normalization_policy_version = ?1 ORDER BY 1",
            vec![p],
        ),
        None => (
            "SELECT DISTINCT collection FROM observations WHERE collection IS NOT NULL ORDER BY 1",
            vec![],
        ),
    };
    let mut stmt = conn.prepare(sql)?;
    let v = stmt
        .query_map(params_from_iter(args.iter()), |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(v)
}

/// One observation, as the report needs it.
#[derive(Debug, Clone)]
struct Obs {
    /// prompt_version, answer_system, market, collection (see [`GroupBy::index`]).
    dims: [Option<String>; 4],
    run_at: String,
    key: Option<String>,
    /// The publisher in the report's unit; `None` when invalid.
    publisher: Option<String>,
    /// The key's hostname.
    host: Option<String>,
    observed: String,
    observation_id: String,
}

fn load(conn: &Connection, policy: Option<&str>, unit: PublisherUnit) -> Result<Vec<Obs>> {
    let filter = if policy.is_some() {
        "WHERE normalization_policy_version = ?1"
    } else {
        ""
    };
    let args: Vec<&str> = policy.into_iter().collect();
    // No ORDER BY: every measure is independent of the row order (first and last seen are
    // a min and a max; lists are sorted when built). Sorting 1M rows cost seconds.
    let sql = format!(
        "SELECT prompt_version, answer_system, market, collection, run_timestamp, normalized_key, \
         publisher_hostname, observed_url, observation_id FROM observations {filter}"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut out = Vec::new();
    let mut rolled: HashMap<String, String> = HashMap::new();
    while let Some(r) = rows.next()? {
        let key: Option<String> = r.get(5)?;
        let host: Option<String> = if key.is_some() { r.get(6)? } else { None };
        let publisher = match (&key, &host) {
            (Some(_), Some(h)) => Some(match unit {
                PublisherUnit::Host => h.clone(),
                PublisherUnit::Registrable => rolled
                    .entry(h.clone())
                    .or_insert_with(|| publisher::registrable(h))
                    .clone(),
            }),
            (Some(_), None) => Some(String::new()),
            _ => None,
        };
        out.push(Obs {
            dims: [Some(r.get(0)?), Some(r.get(1)?), Some(r.get(2)?), r.get(3)?],
            run_at: r.get(4)?,
            key,
            publisher,
            host,
            observed: r.get(7)?,
            observation_id: r.get(8)?,
        });
    }
    Ok(out)
}

struct KeyAgg<'a> {
    n: u64,
    publisher: &'a str,
    spellings: BTreeSet<&'a str>,
    first: &'a str,
    last: &'a str,
}

/// Valid observations per publisher, most first, ties by name; with each one's hosts.
fn publisher_counts<'a>(rows: &[&'a Obs]) -> Vec<(&'a str, u64, BTreeSet<&'a str>)> {
    let mut by: HashMap<&str, (u64, BTreeSet<&str>)> = HashMap::new();
    for o in rows {
        if let Some(p) = &o.publisher {
            let e = by.entry(p.as_str()).or_default();
            e.0 += 1;
            if let Some(h) = &o.host {
                e.1.insert(h.as_str());
            }
        }
    }
    let mut v: Vec<_> = by.into_iter().map(|(p, (n, h))| (p, n, h)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

fn key_aggs<'a>(rows: &[&'a Obs]) -> BTreeMap<&'a str, KeyAgg<'a>> {
    let mut keys: BTreeMap<&str, KeyAgg> = BTreeMap::new();
    for o in rows {
        let Some(k) = &o.key else { continue };
        let e = keys.entry(k.as_str()).or_insert_with(|| KeyAgg {
            n: 0,
            publisher: o.publisher.as_deref().unwrap_or(""),
            spellings: BTreeSet::new(),
            first: &o.run_at,
            last: &o.run_at,
        });
        e.n += 1;
        e.spellings.insert(&o.observed);
        if o.run_at.as_str() < e.first {
            e.first = &o.run_at;
        }
        if o.run_at.as_str() > e.last {
            e.last = &o.run_at;
        }
    }
    keys
}

fn distinct(rows: &[&Obs], i: usize) -> Vec<String> {
    let s: BTreeSet<&str> = rows.iter().filter_map(|o| o.dims[i].as_deref()).collect();
    s.into_iter().map(str::to_string).collect()
}

fn measures(rows: &[&Obs], opts: &ReportOptions, decisions: &review::Decisions) -> Measures {
    let observations = rows.len() as u64;
    let valid = rows.iter().filter(|o| o.key.is_some()).count() as u64;
    let pubs = publisher_counts(rows);
    let counts: Vec<u64> = pubs.iter().map(|p| p.1).collect();
    let take = |n: usize, len: usize| if n == 0 { len } else { n.min(len) };
    let top_publishers = pubs
        .iter()
        .take(take(opts.top, pubs.len()))
        .map(|(p, n, hosts)| match opts.publisher {
            PublisherUnit::Host => TopPublisher {
                hostname: Some(p.to_string()),
                registrable_domain: None,
                hostnames: Vec::new(),
                observations: *n,
                share: round_share(*n, valid),
            },
            PublisherUnit::Registrable => TopPublisher {
                hostname: None,
                registrable_domain: Some(p.to_string()),
                hostnames: hosts.iter().map(|h| h.to_string()).collect(),
                observations: *n,
                share: round_share(*n, valid),
            },
        })
        .collect();
    let keys = key_aggs(rows);
    let mut ranked: Vec<(&str, &KeyAgg)> = keys.iter().map(|(k, a)| (*k, a)).collect();
    ranked.sort_by(|a, b| b.1.n.cmp(&a.1.n).then(a.0.cmp(b.0)));
    let top_keys = ranked
        .iter()
        .take(take(opts.top_keys, ranked.len()))
        .map(|(k, a)| TopKey {
            key: k.to_string(),
            publisher: a.publisher.to_string(),
            observations: a.n,
            share: round_share(a.n, valid),
            spellings: a.spellings.len() as u64,
            first_seen: a.first.to_string(),
            last_seen: a.last.to_string(),
        })
        .collect();
    let window = Window {
        from: rows
            .iter()
            .map(|o| o.run_at.as_str())
            .min()
            .map(str::to_string),
        to: rows
            .iter()
            .map(|o| o.run_at.as_str())
            .max()
            .map(str::to_string),
    };
    Measures {
        observations,
        valid_observations: valid,
        invalid_observations: observations - valid,
        unique_keys: keys.len() as u64,
        unique_publishers: pubs.len() as u64,
        publisher_unit: opts.publisher,
        top_publishers,
        concentration: Concentration::of(&counts),
        top_keys,
        overlap: overlap(rows, decisions),
        sample: Sample {
            prompt_versions: distinct(rows, 0),
            answer_systems: distinct(rows, 1),
            markets: distinct(rows, 2),
            window,
        },
        review: review::figures(
            &rows
                .iter()
                .filter_map(|o| {
                    o.key
                        .as_deref()
                        .map(|k| (o.observation_id.as_str(), k, o.observed.as_str()))
                })
                .collect::<Vec<_>>(),
            decisions,
            opts.top_keys,
        ),
        publisher_counts: counts,
    }
}

/// For each pair of answer systems (by name), the publishers and keys both cite.
fn overlap(rows: &[&Obs], decisions: &review::Decisions) -> Vec<Overlap> {
    type Sets<'a> = (
        u64,
        BTreeSet<&'a str>,
        BTreeSet<&'a str>,
        BTreeSet<String>,
        bool,
    );
    let mut per: BTreeMap<&str, Sets> = BTreeMap::new();
    for o in rows {
        let system = o.dims[1].as_deref().unwrap_or("");
        let e = per.entry(system).or_default();
        if let (Some(k), Some(p)) = (&o.key, &o.publisher) {
            e.0 += 1;
            e.1.insert(p.as_str());
            e.2.insert(k.as_str());
            if review::is_split(decisions, k) {
                e.3.insert(crate::verify::fetch::as_fetched(&o.observed));
                e.4 = true;
            } else {
                e.3.insert(k.clone());
            }
        }
    }
    let systems: Vec<(&str, &Sets)> = per.iter().map(|(s, v)| (*s, v)).collect();
    let mut out = Vec::new();
    for i in 0..systems.len() {
        for j in i + 1..systems.len() {
            let (a, sa) = systems[i];
            let (b, sb) = systems[j];
            out.push(Overlap {
                a: a.to_string(),
                b: b.to_string(),
                a_valid_observations: sa.0,
                b_valid_observations: sb.0,
                publishers: SetOverlap::of(&sa.1, &sb.1),
                keys: SetOverlap::of(&sa.2, &sb.2),
                keys_with_splits: (sa.4 || sb.4)
                    .then(|| SetOverlap::of(&as_refs(&sa.3), &as_refs(&sb.3))),
            });
        }
    }
    out
}

fn as_refs(s: &BTreeSet<String>) -> BTreeSet<&str> {
    s.iter().map(String::as_str).collect()
}

/// What `compute` found: the policy, and the groups (one without `--by`).
pub struct Computed {
    /// The policy the keys were made with (`None`: the ledger is empty).
    pub policy: Option<String>,
    /// One group per combination of `--by` values; one group without `--by`.
    pub groups: Vec<Group>,
}

fn check_by(by: &[GroupBy]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for b in by {
        if !seen.insert(*b) {
            return Err(LedgerError::Usage(format!(
                "--by names {} twice: give each column once, e.g. --by answer_system,market",
                b.column()
            )));
        }
    }
    Ok(())
}

/// Computes the measures for the whole ledger (no `--by`) or for each group.
pub fn compute(conn: &Connection, opts: &ReportOptions) -> Result<Computed> {
    check_by(&opts.by)?;
    let policy = resolve_policy(conn, opts.policy.as_deref())?;
    let rows = filtered(load(conn, policy.as_deref(), opts.publisher)?, opts)?;
    let decisions = review::Decisions::load(conn, policy.as_deref())?;
    let mut groups: BTreeMap<Vec<Option<String>>, Vec<&Obs>> = BTreeMap::new();
    for o in &rows {
        let k: Vec<Option<String>> = opts.by.iter().map(|b| o.dims[b.index()].clone()).collect();
        groups.entry(k).or_default().push(o);
    }
    if groups.is_empty() && opts.by.is_empty() {
        groups.insert(Vec::new(), Vec::new());
    }
    let groups = groups
        .into_iter()
        .map(|(k, rows)| {
            let value = match k.len() {
                0 => None,
                1 => k[0].clone(),
                _ => Some(
                    k.iter()
                        .map(|v| v.as_deref().unwrap_or("(none)"))
                        .collect::<Vec<_>>()
                        .join(" / "),
                ),
            };
            Group {
                value,
                values: Values(opts.by.iter().map(|b| b.column()).zip(k).collect()),
                measures: measures(&rows, opts, &decisions),
            }
        })
        .collect();
    Ok(Computed { policy, groups })
}

/// Keeps the rows in the one `--window` (all of them without one).
fn filtered(rows: Vec<Obs>, opts: &ReportOptions) -> Result<Vec<Obs>> {
    match opts.windows.as_slice() {
        [] => Ok(rows),
        [w] => Ok(rows.into_iter().filter(|o| w.contains(&o.run_at)).collect()),
        [_, _] if opts.compare.is_none() => Ok(rows),
        _ => Err(LedgerError::Usage(
            "--window: give one (a filter) or two (compared with each other, without \
             --compare)"
                .into(),
        )),
    }
}

/// Which observations are a side of a comparison.
enum Selection<'a> {
    Collection(&'a str),
    Window(&'a TimeWindow),
}

impl Selection<'_> {
    fn contains(&self, o: &Obs) -> bool {
        match self {
            Selection::Collection(c) => o.dims[3].as_deref() == Some(*c),
            Selection::Window(w) => w.contains(&o.run_at),
        }
    }
}

/// Compares collections A and B (`--compare A B`), or two `--window`s.
pub fn compare(conn: &Connection, opts: &ReportOptions) -> Result<(Option<String>, Comparison)> {
    let (sa, sb) = match (&opts.compare, opts.windows.as_slice()) {
        (Some((a, b)), _) => {
            if a == b {
                return Err(LedgerError::Usage(format!(
                    "--compare {a} {b}: name two different collections"
                )));
            }
            (Selection::Collection(a), Selection::Collection(b))
        }
        (None, [a, b]) => (Selection::Window(a), Selection::Window(b)),
        _ => {
            return Err(LedgerError::Usage(
                "compare two collections (--compare A B) or two windows (--window FROM..TO \
                 --window FROM..TO)"
                    .into(),
            ))
        }
    };
    if !opts.by.is_empty() {
        return Err(LedgerError::Usage(
            "--compare and --by cannot be combined: compare two collections of the whole \
             ledger, or group one report"
                .into(),
        ));
    }
    let policy = resolve_policy(conn, opts.policy.as_deref())?;
    let rows = filtered(load(conn, policy.as_deref(), opts.publisher)?, opts)?;
    let decisions = review::Decisions::load(conn, policy.as_deref())?;
    let side = |s: &Selection| -> Vec<&Obs> { rows.iter().filter(|o| s.contains(o)).collect() };
    let (ra, rb) = (side(&sa), side(&sb));
    for (s, r) in [(&sa, &ra), (&sb, &rb)] {
        if let (Selection::Window(w), true) = (s, r.is_empty()) {
            return Err(LedgerError::Usage(format!(
                "--window {}: no observations run in it",
                w.text
            )));
        }
        if let (Selection::Collection(c), true) = (s, r.is_empty()) {
            let all: BTreeSet<&str> = rows.iter().filter_map(|o| o.dims[3].as_deref()).collect();
            return Err(LedgerError::Usage(format!(
                "--compare: no observations in collection {c:?}; the ledger's collections: {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.into_iter().collect::<Vec<_>>().join(", ")
                }
            )));
        }
    }
    let (ma, mb) = (
        measures(&ra, opts, &decisions),
        measures(&rb, opts, &decisions),
    );
    let count_a: BTreeMap<&str, u64> = publisher_counts(&ra)
        .into_iter()
        .map(|p| (p.0, p.1))
        .collect();
    let count_b: BTreeMap<&str, u64> = publisher_counts(&rb)
        .into_iter()
        .map(|p| (p.0, p.1))
        .collect();
    let keys_a: BTreeMap<&str, u64> = key_aggs(&ra).into_iter().map(|(k, a)| (k, a.n)).collect();
    let keys_b: BTreeMap<&str, u64> = key_aggs(&rb).into_iter().map(|(k, a)| (k, a.n)).collect();
    let (va, vb) = (ma.valid_observations, mb.valid_observations);
    let (ps, publishers) = changes(&count_a, &count_b, va, vb, opts.top);
    let (ks, keys) = changes(&keys_a, &keys_b, va, vb, opts.top_keys);
    let side_of = |s: &Selection, measures: Measures| match s {
        Selection::Collection(c) => Side {
            collection: Some(c.to_string()),
            window: None,
            measures,
        },
        Selection::Window(w) => Side {
            collection: None,
            window: Some(w.text.clone()),
            measures,
        },
    };
    Ok((
        policy,
        Comparison {
            a: side_of(&sa, ma),
            b: side_of(&sb, mb),
            publishers_summary: ps,
            publishers,
            keys_summary: ks,
            keys,
        },
    ))
}

fn changes(
    a: &BTreeMap<&str, u64>,
    b: &BTreeMap<&str, u64>,
    va: u64,
    vb: u64,
    limit: usize,
) -> (ChangeSummary, Vec<Change>) {
    let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    let mut out: Vec<Change> = names
        .into_iter()
        .map(|n| {
            let x = a.get(n).copied().unwrap_or(0);
            let y = b.get(n).copied().unwrap_or(0);
            let (sa, sb) = (round_share(x, va), round_share(y, vb));
            Change {
                name: n.to_string(),
                a: x,
                b: y,
                change: y as i64 - x as i64,
                a_share: sa,
                b_share: sb,
                share_change: round4(sb - sa),
                status: match (x, y) {
                    (0, _) => "new",
                    (_, 0) => "gone",
                    _ => "both",
                },
            }
        })
        .collect();
    let summary = ChangeSummary {
        in_a: a.len() as u64,
        in_b: b.len() as u64,
        both: out.iter().filter(|c| c.status == "both").count() as u64,
        new: out.iter().filter(|c| c.status == "new").count() as u64,
        gone: out.iter().filter(|c| c.status == "gone").count() as u64,
    };
    out.sort_by(|x, y| {
        y.change
            .unsigned_abs()
            .cmp(&x.change.unsigned_abs())
            .then(x.name.cmp(&y.name))
    });
    if limit > 0 {
        out.truncate(limit);
    }
    (summary, out)
}

/// Everything a report prints: a grouped report, or a comparison.
pub enum Report {
    /// The whole ledger, or one group per `--by` value.
    Groups(Computed),
    /// `--compare A B`.
    Compare(Option<String>, Box<Comparison>),
}

impl Report {
    /// The policy the report counts (none: the ledger is empty).
    pub fn policy(&self) -> Option<&str> {
        match self {
            Report::Groups(c) => c.policy.as_deref(),
            Report::Compare(p, _) => p.as_deref(),
        }
    }
}

/// The policy as the printed reports name it.
fn policy_text(policy: Option<&str>) -> &str {
    policy.unwrap_or("none: the ledger is empty")
}

/// Computes the report the options ask for.
pub fn build(conn: &Connection, opts: &ReportOptions) -> Result<Report> {
    if opts.compare.is_some() || opts.windows.len() == 2 {
        let (policy, c) = compare(conn, opts)?;
        Ok(Report::Compare(policy, Box::new(c)))
    } else {
        Ok(Report::Groups(compute(conn, opts)?))
    }
}

/// The `by` text: the columns joined with `,`.
pub fn by_text(by: &[GroupBy]) -> String {
    by.iter().map(|b| b.column()).collect::<Vec<_>>().join(",")
}

/// Writes the report.
pub fn write(
    conn: &Connection,
    opts: &ReportOptions,
    format: ReportFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let report = build(conn, opts)?;
    match format {
        ReportFormat::Json => {
            let text = match &report {
                Report::Compare(_, c) => serde_json::to_string_pretty(c),
                Report::Groups(c) if opts.by.is_empty() => match c.groups.first() {
                    Some(g) => serde_json::to_string_pretty(&g.measures),
                    None => Ok("{}".to_string()),
                },
                Report::Groups(c) => serde_json::to_string_pretty(&Grouped {
                    by: by_text(&opts.by),
                    groups: c.groups.clone(),
                }),
            }
            .map_err(|e| LedgerError::Output(format!("cannot write JSON: {e}")))?;
            writeln!(out, "{text}")?;
        }
        ReportFormat::Csv => csv::write_csv(opts, &report, out)?,
        ReportFormat::Table => table::write_table(opts, &report, out)?,
        ReportFormat::Markdown => markdown::write_markdown(opts, &report, out)?,
        ReportFormat::Html => {
            let page = html::page(opts, &report, &html::Style::Inline)?;
            out.write_all(page.as_bytes())?;
        }
    }
    Ok(())
}

/// The sample in one sentence: the observation count, the prompt-set versions, answer
/// systems, markets and the collection window.
pub fn sample_sentence(m: &Measures) -> String {
    let window = match (&m.sample.window.from, &m.sample.window.to) {
        (Some(f), Some(t)) => format!("{f} to {t}"),
        _ => "none".to_string(),
    };
    format!(
        "{} observations; prompt-set versions: {}; answer systems: {}; markets: {}; \
         collection window: {window}",
        m.observations,
        list(&m.sample.prompt_versions),
        list(&m.sample.answer_systems),
        list(&m.sample.markets),
    )
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// The one `--window` filter in words, if there is one.
pub fn filter_sentence(opts: &ReportOptions) -> Option<String> {
    match opts.windows.as_slice() {
        [w] => Some(format!(
            "Only observations run in the window {} (--window; both ends included).",
            w.text
        )),
        _ => None,
    }
}

/// The closing caveat of seed 004, printed under every report.
pub const CAVEAT: &str = "Publisher share describes only this sample. It is not market share, \
                          source quality, ranking strength or proof of influence.";

/// A compared measure's counts in one line.
fn summary_text(what: &str, s: &ChangeSummary) -> String {
    format!(
        "{what}: {} in A, {} in B, {} in both, {} new in B, {} gone from A",
        s.in_a, s.in_b, s.both, s.new, s.gone
    )
}

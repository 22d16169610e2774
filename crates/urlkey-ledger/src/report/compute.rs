//! The measures computed: the observations read once from the ledger, then counted per
//! group, per window, or per side of a comparison.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use std::path::Path;

use rusqlite::{params_from_iter, Connection, OpenFlags};

use super::measures::*;
use super::normalization::{self, Changes};
use super::publisher::{self, PublisherUnit};
use super::review;
use super::share::{round4, round_share};
use super::stability;
use super::GroupBy;
use crate::error::{ErrorKind, LedgerError, Result, Setting};

/// Opens a ledger for reading only (`urlkey serve --ledger`): nothing is created,
/// migrated or written; a file that is not a ledger, or a ledger newer than this build,
/// is refused.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    if !path.is_file() {
        return Err(LedgerError::database(format!(
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
        return Err(LedgerError::database(format!(
            "{} is not a ledger (schema version 0): create one with `urlkey ledger init`",
            path.display()
        )));
    }
    if v > crate::db::SCHEMA_VERSION {
        return Err(LedgerError::database(format!(
            "{} has schema version {v}, newer than this urlkey understands ({}): use a newer \
             urlkey",
            path.display(),
            crate::db::SCHEMA_VERSION
        )));
    }
    Ok(conn)
}

/// Picks the policy the report covers: the one asked for (the policy of an ingest or of a
/// re-key), or else the one the ledger's observations were ingested under. Keys made by
/// different policies are not comparable, so a ledger ingested under several needs
/// `--policy`; re-keyed keys are never the default (the original keys are).
pub fn resolve_policy(conn: &Connection, asked: Option<&str>) -> Result<Option<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT normalization_policy_version FROM observations ORDER BY 1")?;
    let policies: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    match asked {
        Some(p) => {
            let mut all: BTreeSet<String> = policies.iter().cloned().collect();
            all.extend(rekeyed_policies(conn)?);
            if !all.contains(p) && !all.is_empty() {
                return Err(LedgerError::usage(format!(
                    "no observations keyed with {p}; the ledger has: {}",
                    all.into_iter().collect::<Vec<_>>().join(", ")
                )));
            }
            Ok(Some(p.to_string()))
        }
        None => match policies.len() {
            0 => Ok(None),
            1 => Ok(policies.into_iter().next()),
            _ => Err(LedgerError::new(ErrorKind::SeveralPolicies {
                policies,
                key: None,
            })),
        },
    }
}

/// The policies of re-keyed keys (none in a ledger older than re-keys).
fn rekeyed_policies(conn: &Connection) -> Result<Vec<String>> {
    if !crate::rekey::has_rekeys(conn)? {
        return Ok(Vec::new());
    }
    let mut stmt = conn
        .prepare("SELECT DISTINCT normalization_policy_version FROM observation_keys ORDER BY 1")?;
    let v = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(v)
}

/// The collections in the ledger (of the policy the report would cover), sorted.
pub fn collections(conn: &Connection, policy: Option<&str>) -> Result<Vec<String>> {
    let policy = resolve_policy(conn, policy)?;
    let rekeyed = crate::rekey::has_rekeys(conn)?;
    let (sql, args): (&str, Vec<&str>) = match policy.as_deref() {
        Some(p) if rekeyed => (
            "SELECT DISTINCT o.collection FROM observations AS o WHERE o.collection IS NOT NULL \
             AND (o.normalization_policy_version = ?1 OR EXISTS (SELECT 1 FROM observation_keys \
             AS k WHERE k.observation_id = o.observation_id \
             AND k.normalization_policy_version = ?1)) ORDER BY 1",
            vec![p],
        ),
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
    /// The key was made by a re-key (false: at ingest).
    rekeyed: bool,
    /// The prompt (run-to-run stability measures the runs of one prompt).
    prompt: Option<String>,
}

/// The observations under one policy, and what the policy did to each observed URL.
struct Loaded {
    rows: Vec<Obs>,
    changes: HashMap<String, Changes>,
}

/// The observations keyed with `policy`: those ingested under it, and those a re-key keyed
/// under it (their dimensions and observed URL are the observation's, their key the
/// re-key's). An observation has one key per policy (a re-key skips those ingested under
/// it), so none is counted twice.
fn load(conn: &Connection, policy: Option<&str>, unit: PublisherUnit) -> Result<Loaded> {
    let filter = if policy.is_some() {
        "WHERE normalization_policy_version = ?1"
    } else {
        ""
    };
    let args: Vec<&str> = policy.into_iter().collect();
    let columns = "prompt_version, answer_system, market, collection, run_timestamp";
    let rekeyed = match policy {
        Some(_) if crate::rekey::has_rekeys(conn)? => format!(
            " UNION ALL SELECT o.{}, k.normalized_key, k.publisher_hostname, o.observed_url, \
             o.observation_id, k.transformations, k.removed_params, 1, o.prompt_id \
             FROM observation_keys AS k JOIN observations AS o USING (observation_id) \
             WHERE k.normalization_policy_version = ?1",
            columns.replace(", ", ", o.")
        ),
        _ => String::new(),
    };
    // No ORDER BY: every measure is independent of the row order (first and last seen are
    // a min and a max; lists are sorted when built). Sorting 1M rows cost seconds.
    let sql = format!(
        "SELECT {columns}, normalized_key, publisher_hostname, observed_url, observation_id, \
         transformations, removed_params, 0, prompt_id FROM observations {filter}{rekeyed}"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut out = Vec::new();
    let mut changes: HashMap<String, Changes> = HashMap::new();
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
        let observed: String = r.get(7)?;
        // One observed URL is changed the same way every time under one policy: its
        // transformations are read once.
        if key.is_some() && !changes.contains_key(&observed) {
            let text = |i: usize| -> rusqlite::Result<String> { r.get(i) };
            let c = Changes::parse(&text(9)?, &text(10)?);
            changes.insert(observed.clone(), c);
        }
        out.push(Obs {
            dims: [Some(r.get(0)?), Some(r.get(1)?), Some(r.get(2)?), r.get(3)?],
            run_at: r.get(4)?,
            key,
            publisher,
            host,
            observed,
            observation_id: r.get(8)?,
            rekeyed: r.get::<_, i64>(11)? == 1,
            prompt: r.get(12)?,
        });
    }
    Ok(Loaded { rows: out, changes })
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

fn measures(
    rows: &[&Obs],
    opts: &ReportOptions,
    decisions: &review::Decisions,
    changes: &HashMap<String, Changes>,
) -> Measures {
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
        normalization: normalization::figures(
            &rows
                .iter()
                .map(|o| normalization::Row {
                    key: o.key.as_deref(),
                    observed: &o.observed,
                    rekeyed: o.rekeyed,
                })
                .collect::<Vec<_>>(),
            changes,
        ),
        stability: stability::of(
            rows.iter().filter_map(|o| {
                let (key, publisher) = (o.key.as_deref()?, o.publisher.as_deref()?);
                Some(stability::Cited {
                    prompt: o.prompt.as_deref().filter(|p| !p.is_empty()),
                    prompt_version: o.dims[0].as_deref().unwrap_or(""),
                    answer_system: o.dims[1].as_deref().unwrap_or(""),
                    market: o.dims[2].as_deref().unwrap_or(""),
                    collection: o.dims[3].as_deref(),
                    run_at: &o.run_at,
                    key,
                    publisher,
                })
            }),
            opts.top_keys,
            opts.top,
        ),
        text_fragments: super::fragments::figures(
            &rows
                .iter()
                .map(|o| {
                    (
                        o.observation_id.as_str(),
                        o.dims[1].as_deref().unwrap_or(""),
                    )
                })
                .collect::<Vec<_>>(),
            &decisions.fragments,
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
                e.3.insert(crate::spelling::as_fetched(&o.observed));
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
            return Err(LedgerError::new(ErrorKind::ByTwice { column: b.column() }));
        }
    }
    Ok(())
}

/// Computes the measures for the whole ledger (no `--by`) or for each group.
pub fn compute(conn: &Connection, opts: &ReportOptions) -> Result<Computed> {
    check_by(&opts.by)?;
    let policy = resolve_policy(conn, opts.policy.as_deref())?;
    let loaded = load(conn, policy.as_deref(), opts.publisher)?;
    let rows = filtered(loaded.rows, opts)?;
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
                measures: measures(&rows, opts, &decisions, &loaded.changes),
            }
        })
        .collect();
    Ok(Computed { policy, groups })
}

/// Keeps the rows of the one collection asked for, in the one `--window` (all of them
/// without either).
fn filtered(mut rows: Vec<Obs>, opts: &ReportOptions) -> Result<Vec<Obs>> {
    if let Some(c) = &opts.collection {
        if !rows
            .iter()
            .any(|o| o.dims[3].as_deref() == Some(c.as_str()))
        {
            let all: BTreeSet<&str> = rows.iter().filter_map(|o| o.dims[3].as_deref()).collect();
            return Err(LedgerError::invalid(
                Setting::Collection,
                format!(
                    " {c}: no observations in it under this policy; its collections: {}",
                    if all.is_empty() {
                        "none".to_string()
                    } else {
                        all.into_iter().collect::<Vec<_>>().join(", ")
                    }
                ),
            ));
        }
        rows.retain(|o| o.dims[3].as_deref() == Some(c.as_str()));
    }
    match opts.windows.as_slice() {
        [] => Ok(rows),
        [w] => Ok(rows.into_iter().filter(|o| w.contains(&o.run_at)).collect()),
        [_, _] if opts.compare.is_none() => Ok(rows),
        _ => Err(LedgerError::new(ErrorKind::Conflict {
            settings: (Setting::Window, Setting::Compare),
            why: "give one window (a filter), or two compared with each other without a \
                  comparison of collections",
        })),
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

/// Compares collections A and B (`--compare A B`), two `--window`s, or the same
/// observations under two policies (`--compare-policies P Q`).
pub fn compare(conn: &Connection, opts: &ReportOptions) -> Result<(Option<String>, Comparison)> {
    if let Some((p, q)) = &opts.compare_policies {
        return compare_policies(conn, opts, p, q);
    }
    let (sa, sb) = match (&opts.compare, opts.windows.as_slice()) {
        (Some((a, b)), _) => {
            if a == b {
                return Err(LedgerError::invalid(
                    Setting::Compare,
                    format!(" {a} {b}: name two different collections"),
                ));
            }
            (Selection::Collection(a), Selection::Collection(b))
        }
        (None, [a, b]) => (Selection::Window(a), Selection::Window(b)),
        _ => return Err(LedgerError::new(ErrorKind::NothingToCompare)),
    };
    if !opts.by.is_empty() {
        return Err(LedgerError::new(ErrorKind::Conflict {
            settings: (Setting::Compare, Setting::By),
            why: "compare two collections of the whole ledger, or group one report",
        }));
    }
    let policy = resolve_policy(conn, opts.policy.as_deref())?;
    let loaded = load(conn, policy.as_deref(), opts.publisher)?;
    let rows = filtered(loaded.rows, opts)?;
    let decisions = review::Decisions::load(conn, policy.as_deref())?;
    let side = |s: &Selection| -> Vec<&Obs> { rows.iter().filter(|o| s.contains(o)).collect() };
    let (ra, rb) = (side(&sa), side(&sb));
    for (s, r) in [(&sa, &ra), (&sb, &rb)] {
        if let (Selection::Window(w), true) = (s, r.is_empty()) {
            return Err(LedgerError::invalid(
                Setting::Window,
                format!(" {}: no observations run in it", w.text),
            ));
        }
        if let (Selection::Collection(c), true) = (s, r.is_empty()) {
            let all: BTreeSet<&str> = rows.iter().filter_map(|o| o.dims[3].as_deref()).collect();
            return Err(LedgerError::invalid(
                Setting::Compare,
                format!(
                    ": no observations in collection {c:?}; the ledger's collections: {}",
                    if all.is_empty() {
                        "none".to_string()
                    } else {
                        all.into_iter().collect::<Vec<_>>().join(", ")
                    }
                ),
            ));
        }
    }
    let side_of = |s: &Selection, measures: Measures| match s {
        Selection::Collection(c) => Side {
            collection: Some(c.to_string()),
            window: None,
            policy: None,
            measures,
        },
        Selection::Window(w) => Side {
            collection: None,
            window: Some(w.text.clone()),
            policy: None,
            measures,
        },
    };
    let ma = measures(&ra, opts, &decisions, &loaded.changes);
    let mb = measures(&rb, opts, &decisions, &loaded.changes);
    let c = comparison(opts, (&ra, side_of(&sa, ma)), (&rb, side_of(&sb, mb)));
    Ok((policy, c))
}

/// The same observations (the `--collection`, the `--window`, or all) counted under policy
/// A and under policy B: what the change of policy changes.
fn compare_policies(
    conn: &Connection,
    opts: &ReportOptions,
    a: &str,
    b: &str,
) -> Result<(Option<String>, Comparison)> {
    if a == b {
        return Err(LedgerError::invalid(
            Setting::ComparePolicies,
            format!(" {a} {b}: name two different policies"),
        ));
    }
    let conflict = |other: Setting, why: &'static str| {
        Err(LedgerError::new(ErrorKind::Conflict {
            settings: (Setting::ComparePolicies, other),
            why,
        }))
    };
    if opts.compare.is_some() {
        return conflict(
            Setting::Compare,
            "compare two collections under one policy, or one sample under two policies",
        );
    }
    if opts.policy.is_some() {
        return conflict(
            Setting::Policy,
            "the two compared policies are the report's",
        );
    }
    if opts.windows.len() > 1 {
        return conflict(
            Setting::Window,
            "compare two windows under one policy, or one sample under two policies",
        );
    }
    if !opts.by.is_empty() {
        return conflict(
            Setting::By,
            "compare one sample under two policies, or group one report",
        );
    }
    let mut sides = Vec::new();
    for p in [a, b] {
        // An empty ledger has no policy to refuse: an empty side.
        let policy = resolve_policy(conn, Some(p))?;
        let loaded = load(conn, policy.as_deref(), opts.publisher)?;
        let rows = filtered(loaded.rows, opts)?;
        let decisions = review::Decisions::load(conn, policy.as_deref())?;
        sides.push((rows, loaded.changes, decisions));
    }
    let refs: Vec<Vec<&Obs>> = sides.iter().map(|s| s.0.iter().collect()).collect();
    let side = |i: usize, p: &str| Side {
        collection: opts.collection.clone(),
        window: None,
        policy: Some(p.to_string()),
        measures: measures(&refs[i], opts, &sides[i].2, &sides[i].1),
    };
    let c = comparison(opts, (&refs[0], side(0, a)), (&refs[1], side(1, b)));
    Ok((Some(format!("{a} (A) and {b} (B)")), c))
}

/// Two sides with their measures, and what changes per publisher and per key.
fn comparison(opts: &ReportOptions, a: (&[&Obs], Side), b: (&[&Obs], Side)) -> Comparison {
    let ((ra, sa), (rb, sb)) = (a, b);
    let count = |r: &[&Obs]| -> BTreeMap<String, u64> {
        publisher_counts(r)
            .into_iter()
            .map(|p| (p.0.to_string(), p.1))
            .collect()
    };
    let keys = |r: &[&Obs]| -> BTreeMap<String, u64> {
        key_aggs(r)
            .into_iter()
            .map(|(k, a)| (k.to_string(), a.n))
            .collect()
    };
    let (count_a, count_b, keys_a, keys_b) = (count(ra), count(rb), keys(ra), keys(rb));
    fn refs(m: &BTreeMap<String, u64>) -> BTreeMap<&str, u64> {
        m.iter().map(|(k, n)| (k.as_str(), *n)).collect()
    }
    let (va, vb) = (
        sa.measures.valid_observations,
        sb.measures.valid_observations,
    );
    let stability = stability::compare(&sa.measures.stability, &sb.measures.stability);
    let (ps, publishers) = changes(&refs(&count_a), &refs(&count_b), va, vb, opts.top);
    let (ks, keys) = changes(&refs(&keys_a), &refs(&keys_b), va, vb, opts.top_keys);
    Comparison {
        a: sa,
        b: sb,
        publishers_summary: ps,
        publishers,
        keys_summary: ks,
        keys,
        stability,
    }
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

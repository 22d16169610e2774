//! The measures computed: the observations read once from the ledger, then counted per
//! group, per window, or per side of a comparison.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use std::path::Path;

use rusqlite::{params_from_iter, Connection, OpenFlags};

use super::measures::*;
use super::publisher::{self, PublisherUnit};
use super::review;
use super::share::{round4, round_share};
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
                return Err(LedgerError::usage(format!(
                    "no observations keyed with {p}; the ledger has: {}",
                    policies.join(", ")
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

/// Compares collections A and B (`--compare A B`), or two `--window`s.
pub fn compare(conn: &Connection, opts: &ReportOptions) -> Result<(Option<String>, Comparison)> {
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
    let rows = filtered(load(conn, policy.as_deref(), opts.publisher)?, opts)?;
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

//! What people decide (a page's source role and whether it supports the claim, the seed
//! document's "Verification after normalization"), and the merges that need a decision.
//!
//! `ledger review add|import|list` append to and read the `reviews` table, which is never
//! updated nor deleted from (triggers refuse it): the latest decision is the current one,
//! and every earlier one stays as history. A decision carries any of three answers:
//!
//! * `source_role` (of the key, the page): definition, evidence, comparison,
//!   implementation, validation;
//! * `merge_decision` (of the key): confirm (its variants are one page) or split;
//! * `claim_support` (of an observation, its answer's claim): yes, partly, no, unclear.
//!
//! `ledger merges` lists the keys with more than one distinct observed URL, the rules
//! that merged them with their risk class ([`urlkey::risk`]), the latest content check and
//! decision, how many spellings the key has and how many the latest verification compared,
//! and whether the merge is still to review (a risky rule merged it, its content check is
//! not `same`, and nobody decided; a `partial` check, some risky spelling not compared, is
//! never `same`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};

use crate::error::{ErrorKind, LedgerError, Result, Setting};

/// Migration 4: the content comparison of a key's variants (columns of `verifications` and
/// the `verification_variants` table), the `reviews` table, and the audit view with
/// `content_check` and the latest decisions.
pub const MIGRATION_4: &str = concat!(
    r#"
ALTER TABLE verifications ADD COLUMN content_check TEXT
    CHECK (content_check IS NULL OR content_check IN ('same', 'similar', 'different', 'unresolved', 'single'));
ALTER TABLE verifications ADD COLUMN content_detail TEXT;
ALTER TABLE verifications ADD COLUMN variants_fetched INTEGER;  -- NULL before schema 4
ALTER TABLE verifications ADD COLUMN variants_total INTEGER;    -- distinct observed URLs of the key

-- Every distinct observed URL of a key fetched by one verification (variant 0 is the one
-- of the verification row itself).
CREATE TABLE IF NOT EXISTS verification_variants (
    verification_id              INTEGER NOT NULL
        REFERENCES verifications (verification_id) ON DELETE CASCADE,
    variant                      INTEGER NOT NULL,
    observation_id               TEXT NOT NULL REFERENCES observations (observation_id),
    requested_url                TEXT NOT NULL,  -- no fragment, no userinfo
    started_at                   TEXT NOT NULL,
    finished_at                  TEXT NOT NULL,
    verification_status          TEXT NOT NULL
        CHECK (verification_status IN ('verified', 'redirected', 'not-found', 'error', 'unresolved')),
    reason                       TEXT NOT NULL,
    detail                       TEXT,
    final_url                    TEXT,
    final_http_status            INTEGER,
    redirect_count               INTEGER NOT NULL,
    publisher_canonical          TEXT,
    content_type                 TEXT,
    body_bytes_read              INTEGER NOT NULL,
    body_truncated               INTEGER NOT NULL CHECK (body_truncated IN (0, 1)),
    body_sha256                  TEXT,           -- of the bytes read; NULL when no 2xx body
    title                        TEXT,
    text_sha256                  TEXT,           -- of the visible text (HTML)
    text_simhash                 TEXT,           -- 16 hex digits (HTML)
    text_words                   INTEGER,
    distance_to_first            INTEGER,        -- Hamming distance of text_simhash to variant 0's
    hops                         TEXT NOT NULL CHECK (json_valid(hops)),
    PRIMARY KEY (verification_id, variant)
) STRICT;

-- What people decide. Append-only: the latest row is the current decision.
CREATE TABLE IF NOT EXISTS reviews (
    review_id                    INTEGER PRIMARY KEY,
    normalization_policy_version TEXT NOT NULL,
    normalized_key               TEXT NOT NULL,
    observation_id               TEXT REFERENCES observations (observation_id),
    source_role                  TEXT CHECK (source_role IS NULL OR source_role IN
        ('definition', 'evidence', 'comparison', 'implementation', 'validation')),
    claim_support                TEXT CHECK (claim_support IS NULL OR claim_support IN
        ('yes', 'partly', 'no', 'unclear')),
    merge_decision               TEXT CHECK (merge_decision IS NULL OR merge_decision IN
        ('confirm', 'split')),
    reviewer                     TEXT NOT NULL CHECK (reviewer <> ''),
    note                         TEXT,
    reviewed_at                  TEXT NOT NULL,
    CHECK (claim_support IS NULL OR observation_id IS NOT NULL),
    CHECK (source_role IS NOT NULL OR claim_support IS NOT NULL OR merge_decision IS NOT NULL)
) STRICT;
CREATE INDEX IF NOT EXISTS reviews_by_key
    ON reviews (normalization_policy_version, normalized_key, review_id);
CREATE INDEX IF NOT EXISTS reviews_by_observation ON reviews (observation_id, review_id);
CREATE TRIGGER IF NOT EXISTS reviews_are_append_only_u BEFORE UPDATE ON reviews
BEGIN
    SELECT RAISE(ABORT, 'reviews are append-only: add a new decision instead');
END;
CREATE TRIGGER IF NOT EXISTS reviews_are_append_only_d BEFORE DELETE ON reviews
BEGIN
    SELECT RAISE(ABORT, 'reviews are append-only: add a new decision instead');
END;

"#,
    crate::db::view::audit_ledger_view!(4)
);

/// Allowed `--role` values.
pub const ROLES: [&str; 5] = [
    "definition",
    "evidence",
    "comparison",
    "implementation",
    "validation",
];
/// Allowed `--claim-support` values.
pub const CLAIM_SUPPORT: [&str; 4] = ["yes", "partly", "no", "unclear"];
/// Allowed `--merge` values.
pub const MERGE: [&str; 2] = ["confirm", "split"];

/// One decision as given (on the command line or in a CSV row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// The observation decided on (claim support; its key for role and merge).
    pub observation: Option<String>,
    /// The key decided on (role and merge).
    pub key: Option<String>,
    /// The policy of `key`, when the ledger holds it under several.
    pub policy: Option<String>,
    /// The page's source role.
    pub role: Option<String>,
    /// Whether the page supports the observation's claim.
    pub claim_support: Option<String>,
    /// confirm or split.
    pub merge: Option<String>,
    /// Who.
    pub reviewer: String,
    /// Why, in words.
    pub note: Option<String>,
}

fn check_value(what: Setting, v: &Option<String>, allowed: &[&str]) -> Result<Option<String>> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(x) => {
            let lower = x.to_ascii_lowercase();
            if allowed.contains(&lower.as_str()) {
                Ok(Some(lower))
            } else {
                Err(LedgerError::invalid(
                    what,
                    format!(" {x:?} is not allowed: use one of {}", allowed.join(", ")),
                ))
            }
        }
    }
}

/// Checks a decision and finds what it is about; returns the row to insert:
/// `(policy, key, observation, role, claim, merge)`.
type Resolved = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn resolve(conn: &Connection, d: &Decision) -> Result<Resolved> {
    let role = check_value(Setting::Role, &d.role, &ROLES)?;
    let claim = check_value(Setting::ClaimSupport, &d.claim_support, &CLAIM_SUPPORT)?;
    let merge = check_value(Setting::Merge, &d.merge, &MERGE)?;
    if d.reviewer.trim().is_empty() {
        return Err(LedgerError::new(ErrorKind::Needed {
            settings: &[Setting::Reviewer],
            why: "a reviewer is needed: every decision says who made it",
        }));
    }
    if role.is_none() && claim.is_none() && merge.is_none() {
        return Err(LedgerError::new(ErrorKind::Needed {
            settings: &[Setting::Role, Setting::ClaimSupport, Setting::Merge],
            why: "nothing decided",
        }));
    }
    let obs = d
        .observation
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let key = d.key.as_deref().map(str::trim).filter(|s| !s.is_empty());
    match (obs, key) {
        (Some(o), None) => {
            let found: Option<(String, Option<String>)> = conn
                .query_row(
                    "SELECT normalization_policy_version, normalized_key FROM observations \
                     WHERE observation_id = ?1",
                    [o],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((policy, key)) = found else {
                return Err(LedgerError::usage(format!(
                    "there is no observation {o:?} in the ledger"
                )));
            };
            let Some(key) = key else {
                return Err(LedgerError::usage(format!(
                    "observation {o:?} has an invalid URL and no key: nothing to review"
                )));
            };
            Ok((policy, key, Some(o.to_string()), role, claim, merge))
        }
        (None, Some(k)) => {
            if claim.is_some() {
                return Err(LedgerError::new(ErrorKind::Conflict {
                    settings: (Setting::ClaimSupport, Setting::Key),
                    why: "claim support belongs to an observation (its answer's claim): name \
                          the observation instead of the key",
                }));
            }
            let mut st = conn.prepare(
                "SELECT DISTINCT normalization_policy_version FROM observations \
                 WHERE normalized_key = ?1 ORDER BY 1",
            )?;
            let policies: Vec<String> = st
                .query_map([k], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let policy = match (&d.policy, policies.as_slice()) {
                (Some(p), ps) if ps.contains(p) => p.clone(),
                (Some(p), _) => {
                    return Err(LedgerError::usage(format!(
                        "no observation has the key {k:?} under the policy {p}"
                    )))
                }
                (None, [one]) => one.clone(),
                (None, []) => {
                    return Err(LedgerError::usage(format!(
                        "no observation has the key {k:?}"
                    )))
                }
                (None, many) => {
                    return Err(LedgerError::new(ErrorKind::SeveralPolicies {
                        policies: many.to_vec(),
                        key: Some(k.to_string()),
                    }))
                }
            };
            Ok((policy, k.to_string(), None, role, None, merge))
        }
        _ => Err(LedgerError::new(ErrorKind::Needed {
            settings: &[Setting::Observation, Setting::Key],
            why: "a decision is about exactly one observation or one key",
        })),
    }
}

fn insert(conn: &Connection, d: &Decision, r: Resolved, at: &str) -> Result<i64> {
    let (policy, key, obs, role, claim, merge) = r;
    conn.execute(
        "INSERT INTO reviews (normalization_policy_version, normalized_key, observation_id, \
         source_role, claim_support, merge_decision, reviewer, note, reviewed_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            policy,
            key,
            obs,
            role,
            claim,
            merge,
            d.reviewer.trim(),
            d.note.as_deref().filter(|n| !n.is_empty()),
            at
        ],
    )
    .map_err(|e| LedgerError::db("cannot store a review", e))?;
    Ok(conn.last_insert_rowid())
}

/// Adds one decision; returns its id.
pub fn add(conn: &Connection, d: &Decision) -> Result<i64> {
    let r = resolve(conn, d)?;
    insert(conn, d, r, &crate::timefmt::now_millis())
}

/// The columns of a review CSV (`review import`), as named in a header; `observation` or
/// `key` is needed, `reviewer` in every row.
pub const IMPORT_COLUMNS: [&str; 8] = [
    "observation",
    "key",
    "policy",
    "role",
    "claim_support",
    "merge",
    "reviewer",
    "note",
];

/// Imports a CSV of decisions in one transaction: every row is checked first, and one bad
/// row stores nothing (the message lists the bad rows by line). Returns the rows stored.
pub fn import(conn: &mut Connection, path: &Path) -> Result<usize> {
    use urlkey_batch::input::{InputFormat as B, KeepColumns, ReadOptions, Source};
    let shown = path.display().to_string();
    let ropts = ReadOptions {
        format: B::Csv,
        column: Some("1".to_string()),
        keep: KeepColumns::All,
        ..ReadOptions::default()
    };
    let mut src = urlkey_batch::input::open_records(&Source::File(path.to_path_buf()), &ropts)
        .map_err(|e| LedgerError::input(format!("{e}; nothing from {shown} was stored")))?;
    let header: Vec<String> = src
        .header()
        .iter()
        .map(|h| h.trim().to_ascii_lowercase().replace([' ', '-'], "_"))
        .collect();
    let aliases = |name: &str| -> &'static [&'static str] {
        match name {
            "observation" => &["observation", "observation_id"],
            "key" => &["key", "normalized_key"],
            "policy" => &["policy", "normalization_policy_version"],
            "role" => &["role", "source_role"],
            "claim_support" => &["claim_support"],
            "merge" => &["merge", "merge_decision"],
            "reviewer" => &["reviewer", "reviewed_by"],
            "note" => &["note"],
            _ => &[],
        }
    };
    let col = |name: &str| -> Option<usize> {
        let a = aliases(name);
        header.iter().position(|h| a.contains(&h.as_str()))
    };
    let known: BTreeSet<usize> = IMPORT_COLUMNS.iter().filter_map(|c| col(c)).collect();
    let unknown: Vec<&String> = header
        .iter()
        .enumerate()
        .filter(|(i, h)| !known.contains(i) && !h.is_empty())
        .map(|(_, h)| h)
        .collect();
    if !unknown.is_empty() || col("reviewer").is_none() {
        return Err(LedgerError::input(format!(
            "{shown}: the header must name the columns {} (reviewer needed; observation or \
             key in each row){}; nothing was stored",
            IMPORT_COLUMNS.join(", "),
            if unknown.is_empty() {
                String::new()
            } else {
                format!(
                    "; unknown: {}",
                    unknown
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )));
    }
    let mut recs = Vec::new();
    let mut rows: Vec<(u64, Decision)> = Vec::new();
    loop {
        let more = src
            .next_batch(&mut recs, 1024)
            .map_err(|e| LedgerError::input(format!("{e}; nothing from {shown} was stored")))?;
        for rec in recs.drain(..) {
            let mut cells = vec![rec.observed];
            cells.extend(rec.kept);
            let get = |name: &str| -> Option<String> {
                col(name)
                    .and_then(|i| cells.get(i))
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
            };
            rows.push((
                rec.line,
                Decision {
                    observation: get("observation"),
                    key: get("key"),
                    policy: get("policy"),
                    role: get("role"),
                    claim_support: get("claim_support"),
                    merge: get("merge"),
                    reviewer: get("reviewer").unwrap_or_default(),
                    note: get("note"),
                },
            ));
        }
        if !more {
            break;
        }
    }
    let tx = conn
        .transaction()
        .map_err(|e| LedgerError::db("cannot start a transaction", e))?;
    let at = crate::timefmt::now_millis();
    let mut problems = Vec::new();
    let mut resolved = Vec::new();
    for (line, d) in &rows {
        match resolve(&tx, d) {
            Ok(r) => resolved.push((d, r)),
            Err(e) => problems.push(format!("line {line}: {e}")),
        }
    }
    if !problems.is_empty() {
        return Err(LedgerError::input(format!(
            "{shown}: {} of {} rows refused, nothing was stored:\n  {}",
            problems.len(),
            rows.len(),
            problems.join("\n  ")
        )));
    }
    for (d, r) in resolved {
        insert(&tx, d, r, &at)?;
    }
    tx.commit()
        .map_err(|e| LedgerError::db("cannot commit the reviews", e))?;
    Ok(rows.len())
}

/// `review list` and `merges` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    /// Aligned columns.
    Table,
    /// One JSON array.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// A header, then one row per item.
    Csv,
}

impl crate::choice::Choice for ListFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (ListFormat::Table, "table", "Aligned columns"),
        (ListFormat::Json, "json", "One JSON array"),
        (ListFormat::Jsonl, "jsonl", "One JSON object per line"),
        (ListFormat::Csv, "csv", "A header, then one row per item"),
    ];
}

crate::choice::from_str_by_name!(ListFormat);

/// The columns of `review list`.
pub const LIST_COLUMNS: [&str; 11] = [
    "review_id",
    "reviewed_at",
    "reviewer",
    "normalization_policy_version",
    "normalized_key",
    "observation_id",
    "source_role",
    "claim_support",
    "merge_decision",
    "note",
    "current",
];

fn write_rows(
    out: &mut dyn Write,
    format: ListFormat,
    columns: &[&str],
    rows: Vec<Vec<Value>>,
) -> Result<()> {
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match format {
        ListFormat::Json | ListFormat::Jsonl => {
            let objs: Vec<Value> = rows
                .into_iter()
                .map(|r| {
                    let mut m = serde_json::Map::new();
                    for (c, v) in columns.iter().zip(r) {
                        m.insert((*c).to_string(), v);
                    }
                    Value::Object(m)
                })
                .collect();
            if format == ListFormat::Json {
                writeln!(out, "{}", Value::Array(objs))?;
            } else {
                for o in objs {
                    writeln!(out, "{o}")?;
                }
            }
        }
        ListFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(columns).map_err(LedgerError::from)?;
            for r in rows {
                let rec: Vec<String> = r
                    .iter()
                    .map(|v| crate::export::spreadsheet_safe(text(v)))
                    .collect();
                w.write_record(&rec).map_err(LedgerError::from)?;
            }
            w.flush()?;
        }
        ListFormat::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|v| text(v).replace(['\n', '\r', '\t'], " "))
                        .collect()
                })
                .collect();
            let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
            for r in &cells {
                for (i, c) in r.iter().enumerate() {
                    widths[i] = widths[i].max(c.chars().count());
                }
            }
            let line = |r: Vec<String>| {
                r.iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
            };
            writeln!(
                out,
                "{}",
                line(columns.iter().map(|c| c.to_string()).collect())
            )?;
            for r in cells {
                writeln!(out, "{}", line(r))?;
            }
        }
    }
    Ok(())
}

/// `review list`: every decision, oldest first, with `current` true for a decision whose
/// answers are still the latest of their kind for their key or observation.
pub fn list(conn: &Connection, format: ListFormat, out: &mut dyn Write) -> Result<usize> {
    let mut st = conn.prepare(
        "SELECT r.review_id, r.reviewed_at, r.reviewer, r.normalization_policy_version, \
         r.normalized_key, r.observation_id, r.source_role, r.claim_support, r.merge_decision, \
         r.note, \
         ((r.source_role IS NOT NULL AND NOT EXISTS (SELECT 1 FROM reviews AS q \
             WHERE q.review_id > r.review_id AND q.source_role IS NOT NULL \
               AND q.normalization_policy_version = r.normalization_policy_version \
               AND q.normalized_key = r.normalized_key)) \
          OR (r.merge_decision IS NOT NULL AND NOT EXISTS (SELECT 1 FROM reviews AS q \
             WHERE q.review_id > r.review_id AND q.merge_decision IS NOT NULL \
               AND q.normalization_policy_version = r.normalization_policy_version \
               AND q.normalized_key = r.normalized_key)) \
          OR (r.claim_support IS NOT NULL AND NOT EXISTS (SELECT 1 FROM reviews AS q \
             WHERE q.review_id > r.review_id AND q.claim_support IS NOT NULL \
               AND q.observation_id = r.observation_id))) \
         FROM reviews AS r ORDER BY r.review_id",
    )?;
    let rows: Vec<Vec<Value>> = st
        .query_map([], |r| {
            let mut v = Vec::with_capacity(LIST_COLUMNS.len());
            v.push(json!(r.get::<_, i64>(0)?));
            for i in 1..10 {
                v.push(match r.get::<_, Option<String>>(i)? {
                    Some(s) => Value::String(s),
                    None => Value::Null,
                });
            }
            v.push(json!(r.get::<_, bool>(10)?));
            Ok(v)
        })?
        .collect::<rusqlite::Result<_>>()?;
    let n = rows.len();
    write_rows(out, format, &LIST_COLUMNS, rows)?;
    Ok(n)
}

/// One merge: a key with more than one distinct observed URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    /// The policy.
    pub policy: String,
    /// The key.
    pub key: String,
    /// Its distinct observed URLs.
    pub observed_urls: usize,
    /// Its observations.
    pub observations: usize,
    /// The rules that changed its observations, each `name (class)`.
    pub rules: Vec<String>,
    /// The names of the risky ones among them (what makes it a merge to review).
    pub risky_rules: Vec<String>,
    /// True when one of them is risky.
    pub risky: bool,
    /// The latest verification's content check.
    pub content_check: Option<String>,
    /// The latest merge decision.
    pub merge_decision: Option<String>,
    /// Risky, not `same`, undecided.
    pub to_review: bool,
    /// Its spellings: distinct observed URLs as verify fetches them (no fragment, no
    /// userinfo).
    pub spellings: usize,
    /// The spellings the latest verification compared (see `verify::risky`); None when
    /// never verified, or verified before schema 4.
    pub spellings_compared: Option<usize>,
}

/// The columns of `merges` (new ones go last: a CSV reader's columns keep their places).
pub const MERGE_COLUMNS: [&str; 11] = [
    "normalization_policy_version",
    "normalized_key",
    "observed_urls",
    "observations",
    "rules",
    "risky",
    "content_check",
    "merge_decision",
    "to_review",
    "spellings",
    "spellings_compared",
];

/// Every key with more than one distinct observed URL, merges to review first.
pub fn merges(conn: &Connection) -> Result<Vec<Merge>> {
    // A ledger read read-only (`serve --ledger`) may predate the column.
    let compared = if crate::db::user_version(conn)? >= 6 {
        "v.variants_compared"
    } else {
        "NULL"
    };
    let mut st = conn.prepare(&format!(
        "SELECT o.normalization_policy_version, o.normalized_key, \
         count(DISTINCT o.observed_url), count(*), json_group_array(o.transformations), \
         (SELECT v.content_check FROM verifications AS v \
           WHERE v.normalization_policy_version = o.normalization_policy_version \
             AND v.normalized_key = o.normalized_key \
           ORDER BY v.verification_id DESC LIMIT 1), \
         (SELECT r.merge_decision FROM reviews AS r \
           WHERE r.normalization_policy_version = o.normalization_policy_version \
             AND r.normalized_key = o.normalized_key AND r.merge_decision IS NOT NULL \
           ORDER BY r.review_id DESC LIMIT 1), \
         min(o.rowid), json_group_array(o.observed_url), \
         (SELECT {compared} FROM verifications AS v \
           WHERE v.normalization_policy_version = o.normalization_policy_version \
             AND v.normalized_key = o.normalized_key \
           ORDER BY v.verification_id DESC LIMIT 1) \
         FROM observations AS o WHERE o.normalized_key IS NOT NULL \
         GROUP BY o.normalization_policy_version, o.normalized_key \
         HAVING count(DISTINCT o.observed_url) > 1 ORDER BY min(o.rowid)"
    ))?;
    let mut out: Vec<Merge> = st
        .query_map([], |r| {
            Ok((
                (
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                ),
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, String>(8)?,
                r.get::<_, Option<i64>>(9)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .map(
            |((policy, key, urls, obs), trans, check, decision, observed, compared)| {
                let names = rule_names(&trans);
                let risky_rules: Vec<String> = names
                    .iter()
                    .filter(|n| urlkey::risk::risk_of(n) == Some(urlkey::risk::RiskClass::Risky))
                    .cloned()
                    .collect();
                let risky = !risky_rules.is_empty();
                let rules = names
                    .iter()
                    .map(|n| {
                        let class = urlkey::risk::risk_of(n).map_or("unknown", |c| c.as_str());
                        format!("{n} ({class})")
                    })
                    .collect();
                let to_review = risky && check.as_deref() != Some("same") && decision.is_none();
                Merge {
                    policy,
                    key,
                    observed_urls: usize::try_from(urls).unwrap_or(0),
                    observations: usize::try_from(obs).unwrap_or(0),
                    rules,
                    risky_rules,
                    risky,
                    content_check: check,
                    merge_decision: decision,
                    to_review,
                    spellings: spelling_count(&observed),
                    spellings_compared: compared.and_then(|c| usize::try_from(c).ok()),
                }
            },
        )
        .collect();
    out.sort_by_key(|m| !m.to_review);
    Ok(out)
}

/// One variant of a merged key, as the review queue (`urlkey serve --ledger`) shows it:
/// what its latest verification found, and the claim of its observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The observation (the first one with this URL when never verified).
    pub observation: String,
    /// The observed URL (as fetched, when verified).
    pub url: String,
    /// The verification status of this variant.
    pub status: Option<String>,
    /// Its final HTTP status.
    pub http: Option<i64>,
    /// The page title.
    pub title: Option<String>,
    /// The URL of the last response.
    pub final_url: Option<String>,
    /// The publisher's canonical URL.
    pub canonical: Option<String>,
    /// Text distance to variant 0, in bits of 64.
    pub distance: Option<i64>,
    /// The observation's claim.
    pub claim: Option<String>,
    /// The observation's text directives, each with its latest check
    /// ([`crate::fragments::described`]).
    pub text_fragments: Vec<String>,
}

/// The variants of a key: those its latest verification fetched, or (never verified) one
/// observation per distinct observed URL.
pub fn variants(conn: &Connection, policy: &str, key: &str) -> Result<Vec<Variant>> {
    let mut st = conn.prepare(
        "SELECT vv.observation_id, vv.requested_url, vv.verification_status, \
         vv.final_http_status, vv.title, vv.final_url, vv.publisher_canonical, \
         vv.distance_to_first, o.claim \
         FROM verification_variants AS vv \
         JOIN observations AS o ON o.observation_id = vv.observation_id \
         WHERE vv.verification_id = (SELECT max(v.verification_id) FROM verifications AS v \
           WHERE v.normalization_policy_version = ?1 AND v.normalized_key = ?2) \
         ORDER BY vv.variant",
    )?;
    let got: Vec<Variant> = st
        .query_map([policy, key], |r| {
            Ok(Variant {
                observation: r.get(0)?,
                url: r.get(1)?,
                status: r.get(2)?,
                http: r.get(3)?,
                title: r.get(4)?,
                final_url: r.get(5)?,
                canonical: r.get(6)?,
                distance: r.get(7)?,
                claim: r.get(8)?,
                text_fragments: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if !got.is_empty() {
        return with_fragments(conn, got);
    }
    let mut st = conn.prepare(
        "SELECT observation_id, observed_url, claim FROM observations \
         WHERE normalization_policy_version = ?1 AND normalized_key = ?2 ORDER BY rowid",
    )?;
    let mut seen = std::collections::HashSet::new();
    let all = st
        .query_map([policy, key], |r| {
            Ok(Variant {
                observation: r.get(0)?,
                url: r.get(1)?,
                status: None,
                http: None,
                title: None,
                final_url: None,
                canonical: None,
                distance: None,
                claim: r.get(2)?,
                text_fragments: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    with_fragments(
        conn,
        all.into_iter()
            .filter(|v| seen.insert(v.url.clone()))
            .collect(),
    )
}

/// The variants with their observations' text directives.
fn with_fragments(conn: &Connection, mut vs: Vec<Variant>) -> Result<Vec<Variant>> {
    for v in &mut vs {
        v.text_fragments = crate::fragments::described(conn, &v.observation)?;
    }
    Ok(vs)
}

/// The distinct observed URLs as verify fetches them, in a JSON array of observed URLs.
fn spelling_count(json_urls: &str) -> usize {
    let urls: Vec<String> = serde_json::from_str(json_urls).unwrap_or_default();
    urls.iter()
        .map(|u| crate::spelling::as_fetched(u))
        .collect::<BTreeSet<_>>()
        .len()
}

/// The distinct rule names in a JSON array of transformations arrays, in order of first
/// appearance.
pub fn rule_names(json_arrays: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let Ok(Value::Array(all)) = serde_json::from_str::<Value>(json_arrays) else {
        return names;
    };
    for t in all {
        let list = match t {
            Value::String(s) => serde_json::from_str::<Value>(&s).unwrap_or(Value::Null),
            other => other,
        };
        if let Value::Array(items) = list {
            for it in items {
                if let Some(n) = it.get("rule").and_then(Value::as_str) {
                    if !names.iter().any(|m| m == n) {
                        names.push(n.to_string());
                    }
                }
            }
        }
    }
    names
}

/// `ledger merges`: writes the merges; returns how many are to review.
pub fn write_merges(conn: &Connection, format: ListFormat, out: &mut dyn Write) -> Result<usize> {
    let ms = merges(conn)?;
    let to_review = ms.iter().filter(|m| m.to_review).count();
    let rows: Vec<Vec<Value>> = ms
        .iter()
        .map(|m| {
            vec![
                json!(m.policy),
                json!(m.key),
                json!(m.observed_urls),
                json!(m.observations),
                if format == ListFormat::Table || format == ListFormat::Csv {
                    json!(m.rules.join("; "))
                } else {
                    json!(m.rules)
                },
                json!(m.risky),
                json!(m.content_check),
                json!(m.merge_decision),
                json!(m.to_review),
                json!(m.spellings),
                json!(m.spellings_compared),
            ]
        })
        .collect();
    let total = rows.len();
    write_rows(out, format, &MERGE_COLUMNS, rows)?;
    if format == ListFormat::Table {
        writeln!(
            out,
            "{total} merged keys (more than one distinct observed URL), {to_review} to review \
             (merged by a risky rule, content check not same, no merge decision; partial: a \
             risky spelling was not compared)"
        )?;
    }
    Ok(to_review)
}

//! `ledger rekey`: the observations of some collections keyed again under another policy,
//! the new keys stored **beside** the ones they were ingested with.
//!
//! An observation is never rewritten (a trigger refuses it): its observed URL is the
//! evidence, and its `normalized_key` stays the key of the policy it was ingested under.
//! A re-key adds one row per observation and policy to `observation_keys` (append-only as
//! well), so that a report can count the same observations under `citation@1` and under
//! another policy and say which keys it counts. Verify, merges, review and export work on
//! the original keys.
//!
//! The run is one transaction and idempotent: an observation that already has a key under
//! the policy (from its ingest, or from an earlier re-key) is left as it is, so a second
//! run adds nothing and records nothing.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use rusqlite::{params, Connection, TransactionBehavior};

use crate::error::{LedgerError, Result, Setting};
use crate::norm::{Normalized, Normalizer};

/// Migration 7: the keys of re-keyed observations (`observation_keys`) and the re-keys
/// that made them (`rekeys`), both append-only. Nothing else changes: the observations,
/// their keys and the audit view stay as they are.
pub const MIGRATION_7: &str = r#"
-- One row per `ledger rekey` run that added keys.
CREATE TABLE IF NOT EXISTS rekeys (
    rekey_id                     INTEGER PRIMARY KEY,
    normalization_policy_version TEXT NOT NULL,
    collections                  TEXT CHECK (collections IS NULL OR json_valid(collections)),  -- NULL: every observation
    rekeyed_at                   TEXT NOT NULL,
    tool_version                 TEXT NOT NULL,
    keys_added                   INTEGER NOT NULL
) STRICT;

-- An observation's key under a policy other than the one it was ingested under.
CREATE TABLE IF NOT EXISTS observation_keys (
    observation_id               TEXT NOT NULL REFERENCES observations (observation_id),
    normalization_policy_version TEXT NOT NULL,
    normalized_key               TEXT,           -- NULL when the URL is invalid under this policy
    canonical_form               TEXT,
    publisher_hostname           TEXT,
    transformations              TEXT NOT NULL,  -- JSON array of {rule, component, before, after}
    removed_params               TEXT NOT NULL,  -- JSON array of names
    error_code                   TEXT,
    error_message                TEXT,
    rekey_id                     INTEGER NOT NULL REFERENCES rekeys (rekey_id),
    PRIMARY KEY (observation_id, normalization_policy_version),
    CHECK ((normalized_key IS NULL) = (error_code IS NOT NULL))
) STRICT;

CREATE INDEX IF NOT EXISTS observation_keys_by_key
    ON observation_keys (normalization_policy_version, normalized_key);

CREATE TRIGGER IF NOT EXISTS observation_keys_are_immutable_u BEFORE UPDATE ON observation_keys
BEGIN
    SELECT RAISE(ABORT, 're-keyed keys are never rewritten: an observation keeps every key it was given');
END;
CREATE TRIGGER IF NOT EXISTS observation_keys_are_immutable_d BEFORE DELETE ON observation_keys
BEGIN
    SELECT RAISE(ABORT, 're-keyed keys are never rewritten: an observation keeps every key it was given');
END;
CREATE TRIGGER IF NOT EXISTS rekeys_are_append_only_u BEFORE UPDATE ON rekeys
BEGIN
    SELECT RAISE(ABORT, 'rekeys are append-only');
END;
CREATE TRIGGER IF NOT EXISTS rekeys_are_append_only_d BEFORE DELETE ON rekeys
BEGIN
    SELECT RAISE(ABORT, 'rekeys are append-only');
END;
"#;

/// The schema version that has `observation_keys` (a ledger opened read-only, as serve
/// opens it, may be older: it has no re-keyed keys).
pub fn has_rekeys(conn: &Connection) -> Result<bool> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'observation_keys'",
        [],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

/// `rekey`: which observations, under which policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RekeyOptions {
    /// The policy to key them under (any builtin policy id).
    pub policy: String,
    /// Only these collections (none: every observation of the ledger).
    pub collections: Vec<String>,
}

/// What a re-key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RekeySummary {
    /// The policy.
    pub policy: String,
    /// The collections asked for (empty: all).
    pub collections: Vec<String>,
    /// Observations of those collections.
    pub chosen: u64,
    /// Keys added now (one per observation).
    pub added: u64,
    /// Of them, URLs the policy refuses (stored with the error code).
    pub added_invalid: u64,
    /// Of them, keys other than the observation's original key.
    pub added_different: u64,
    /// Observations ingested under the policy: their key is the original one.
    pub at_ingest: u64,
    /// Observations an earlier re-key gave a key under the policy.
    pub earlier: u64,
    /// The `rekeys` row, when something was added.
    pub rekey_id: Option<i64>,
}

impl fmt::Display for RekeySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let which = if self.collections.is_empty() {
            "every observation".to_string()
        } else {
            format!("collections {}", self.collections.join(", "))
        };
        write!(
            f,
            "rekey under {} ({which}): {} observations; {} keys added ({} of them invalid \
             under {}, stored with the error code; {} differ from the key the observation was \
             ingested with), {} already keyed under it ({} at ingest, {} by an earlier rekey); \
             the original keys are kept",
            self.policy,
            self.chosen,
            self.added,
            self.added_invalid,
            self.policy,
            self.added_different,
            self.at_ingest + self.earlier,
            self.at_ingest,
            self.earlier
        )
    }
}

/// One observation to key.
struct Pending {
    id: String,
    observed: String,
    original_key: Option<String>,
}

/// Keys the chosen observations under `opts.policy`, in one transaction.
pub fn run(conn: &mut Connection, opts: &RekeyOptions) -> Result<RekeySummary> {
    let norm = Normalizer::new(&opts.policy).map_err(LedgerError::policy)?;
    let collections: Vec<String> = opts
        .collections
        .iter()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    conn.busy_timeout(crate::db::WRITE_LOCK_WAIT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| LedgerError::db("cannot start the rekey transaction", e))?;
    tx.busy_timeout(crate::db::BUSY_TIMEOUT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    check_collections(&tx, &collections)?;
    let in_chosen = "(?2 IS NULL OR o.collection IN (SELECT value FROM json_each(?2)))";
    let chosen_json = (!collections.is_empty())
        .then(|| serde_json::to_string(&collections).unwrap_or_else(|_| "[]".to_string()));
    let count = |sql: &str| -> Result<u64> {
        let n: i64 = tx.query_row(sql, params![norm.id(), chosen_json], |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let chosen = count(&format!(
        "SELECT count(*) FROM observations AS o WHERE ?1 = ?1 AND {in_chosen}"
    ))?;
    let at_ingest = count(&format!(
        "SELECT count(*) FROM observations AS o \
         WHERE o.normalization_policy_version = ?1 AND {in_chosen}"
    ))?;
    let earlier = count(&format!(
        "SELECT count(*) FROM observations AS o JOIN observation_keys AS k \
         ON k.observation_id = o.observation_id AND k.normalization_policy_version = ?1 \
         WHERE {in_chosen}"
    ))?;
    let pending = {
        let mut st = tx.prepare(&format!(
            "SELECT o.observation_id, o.observed_url, o.normalized_key FROM observations AS o \
             WHERE o.normalization_policy_version <> ?1 AND {in_chosen} \
             AND NOT EXISTS (SELECT 1 FROM observation_keys AS k \
                 WHERE k.observation_id = o.observation_id \
                   AND k.normalization_policy_version = ?1) \
             ORDER BY o.observation_id"
        ))?;
        let rows = st.query_map(params![norm.id(), chosen_json], |r| {
            Ok(Pending {
                id: r.get(0)?,
                observed: r.get(1)?,
                original_key: r.get(2)?,
            })
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    let mut summary = RekeySummary {
        policy: norm.id().to_string(),
        collections,
        chosen,
        added: pending.len() as u64,
        added_invalid: 0,
        added_different: 0,
        at_ingest,
        earlier,
        rekey_id: None,
    };
    if pending.is_empty() {
        // Idempotent: nothing to add, nothing recorded.
        return Ok(summary);
    }
    tx.execute(
        "INSERT INTO rekeys (normalization_policy_version, collections, rekeyed_at, \
         tool_version, keys_added) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            norm.id(),
            chosen_json,
            crate::timefmt::now_millis(),
            env!("CARGO_PKG_VERSION"),
            i64::try_from(summary.added).unwrap_or(i64::MAX),
        ],
    )
    .map_err(|e| LedgerError::db("cannot record the rekey", e))?;
    let rekey_id = tx.last_insert_rowid();
    {
        let mut insert = tx.prepare(
            "INSERT INTO observation_keys (observation_id, normalization_policy_version, \
             normalized_key, canonical_form, publisher_hostname, transformations, \
             removed_params, error_code, error_message, rekey_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        // One observed URL is keyed once however often it was observed.
        let mut keyed: HashMap<&str, Normalized> = HashMap::new();
        for p in &pending {
            let n = keyed
                .entry(p.observed.as_str())
                .or_insert_with(|| norm.normalize(&p.observed));
            if n.key.is_none() {
                summary.added_invalid += 1;
            }
            if n.key != p.original_key {
                summary.added_different += 1;
            }
            insert
                .execute(params![
                    p.id,
                    norm.id(),
                    n.key,
                    n.canonical,
                    n.host,
                    n.transformations_json,
                    n.removed_params_json,
                    n.error_code,
                    n.error_message,
                    rekey_id
                ])
                .map_err(|e| LedgerError::db("cannot store a re-keyed key", e))?;
        }
    }
    tx.commit()
        .map_err(|e| LedgerError::db("cannot commit the rekey", e))?;
    summary.rekey_id = Some(rekey_id);
    Ok(summary)
}

/// Every collection asked for has observations; else the error lists the ledger's.
fn check_collections(conn: &Connection, asked: &[String]) -> Result<()> {
    if asked.is_empty() {
        return Ok(());
    }
    let mut st = conn.prepare(
        "SELECT DISTINCT collection FROM observations WHERE collection IS NOT NULL ORDER BY 1",
    )?;
    let all: Vec<String> = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let missing: Vec<&str> = asked
        .iter()
        .filter(|c| !all.contains(c))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(LedgerError::invalid(
        Setting::Collection,
        format!(
            " {}: no observations in it; the ledger's collections: {}",
            missing.join(", "),
            if all.is_empty() {
                "none".to_string()
            } else {
                all.join(", ")
            }
        ),
    ))
}

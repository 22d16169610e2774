//! The SQLite store: connection settings, schema and migrations.
//!
//! The schema is versioned with `PRAGMA user_version`: migration N brings a database
//! from version N-1 to N inside one transaction. A database written by a newer urlkey
//! (a higher version than [`SCHEMA_VERSION`]) is refused rather than guessed at.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{LedgerError, Result};

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 5;

/// How long a statement waits for a lock another connection holds (SQLite's busy
/// timeout) before failing with "database is locked".
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an ingest waits in all for the write lock, which another writer (an ingest
/// of a large file, a verify run) may hold for longer than [`BUSY_TIMEOUT`].
pub const WRITE_LOCK_WAIT: Duration = Duration::from_secs(600);

/// Migration 1: observations, ingests, verifications, hops, and the audit view.
/// `IF NOT EXISTS` throughout: the migration runs under the write lock after the version
/// is read (see [`migrate`]), so it never meets its own tables; should it ever, it is
/// still a no-op rather than "table already exists".
const MIGRATION_1: &str = r#"
-- One row per ingested file that added something.
CREATE TABLE IF NOT EXISTS ingests (
    ingest_id                    INTEGER PRIMARY KEY,
    source_path                  TEXT NOT NULL,
    source_xxh3_128              TEXT NOT NULL,
    input_format                 TEXT NOT NULL CHECK (input_format IN ('csv', 'tsv', 'jsonl')),
    normalization_policy_version TEXT NOT NULL,
    ingested_at                  TEXT NOT NULL,
    tool_version                 TEXT NOT NULL,
    rows_read                    INTEGER NOT NULL,
    rows_added                   INTEGER NOT NULL,
    rows_unchanged               INTEGER NOT NULL
) STRICT;

-- One row per dated answer observation. Written once, never updated (see the trigger):
-- the observed URL is the evidence and the key is reproducible from it and the policy id.
CREATE TABLE IF NOT EXISTS observations (
    observation_id               TEXT PRIMARY KEY NOT NULL CHECK (observation_id <> ''),
    prompt_id                    TEXT,
    prompt_version               TEXT NOT NULL,
    answer_system                TEXT NOT NULL,
    market                       TEXT NOT NULL,
    collection                   TEXT,
    run_timestamp                TEXT NOT NULL,  -- as written in the input
    run_at                       TEXT NOT NULL,  -- the same instant, YYYY-MM-DDTHH:MM:SSZ (UTC)
    observed_url                 TEXT NOT NULL,  -- exactly as read, never modified
    normalization_policy_version TEXT NOT NULL,
    normalized_key               TEXT,           -- NULL when the URL is invalid
    canonical_form               TEXT,
    publisher_hostname           TEXT,
    transformations              TEXT NOT NULL,  -- JSON array of {rule, component, before, after}
    removed_params               TEXT NOT NULL,  -- JSON array of names
    error_code                   TEXT,           -- NULL when valid
    error_message                TEXT,
    ingest_id                    INTEGER NOT NULL REFERENCES ingests (ingest_id),
    source_line                  INTEGER NOT NULL,
    CHECK ((normalized_key IS NULL) = (error_code IS NOT NULL))
) STRICT;

CREATE INDEX IF NOT EXISTS observations_by_key
    ON observations (normalization_policy_version, normalized_key);

CREATE TRIGGER IF NOT EXISTS observations_are_immutable
BEFORE UPDATE ON observations
BEGIN
    SELECT RAISE(ABORT, 'observations are immutable: the observed URL and its key are never rewritten');
END;

-- One row per verification of a key (a key is verified many times over its life).
CREATE TABLE IF NOT EXISTS verifications (
    verification_id              INTEGER PRIMARY KEY,
    normalization_policy_version TEXT NOT NULL,
    normalized_key               TEXT NOT NULL,
    observation_id               TEXT NOT NULL REFERENCES observations (observation_id),
    requested_url                TEXT NOT NULL,  -- the observed URL as fetched: no fragment, no userinfo
    credentials_removed          INTEGER NOT NULL CHECK (credentials_removed IN (0, 1)),
    started_at                   TEXT NOT NULL,
    finished_at                  TEXT NOT NULL,
    verification_status          TEXT NOT NULL
        CHECK (verification_status IN ('verified', 'redirected', 'not-found', 'error', 'unresolved')),
    reason                       TEXT NOT NULL,
    detail                       TEXT,
    final_url                    TEXT,           -- the URL of the last response received
    final_http_status            INTEGER,
    redirect_count               INTEGER NOT NULL,
    canonical_html               TEXT,           -- <link rel=canonical> in the head, resolved
    canonical_link_header        TEXT,           -- Link: <...>; rel="canonical", resolved
    publisher_canonical          TEXT,           -- canonical_html, else canonical_link_header
    body_bytes_read              INTEGER NOT NULL,
    body_truncated               INTEGER NOT NULL CHECK (body_truncated IN (0, 1)),
    user_agent                   TEXT NOT NULL,
    network_scope                TEXT NOT NULL   -- public | public+loopback | any-private
) STRICT;

CREATE INDEX IF NOT EXISTS verifications_by_key
    ON verifications (normalization_policy_version, normalized_key, verification_id);

-- Every request of a verification, in order: the redirect chain hop by hop.
CREATE TABLE IF NOT EXISTS verification_hops (
    verification_id              INTEGER NOT NULL
        REFERENCES verifications (verification_id) ON DELETE CASCADE,
    hop                          INTEGER NOT NULL,  -- 0 = the observed URL
    url                          TEXT NOT NULL,
    started_at                   TEXT NOT NULL,
    elapsed_ms                   INTEGER,
    outcome                      TEXT NOT NULL,     -- response | refused | timeout | dns | connect | tls | error
    remote_addr                  TEXT,              -- the address actually connected to
    http_status                  INTEGER,
    location                     TEXT,              -- the Location header as sent
    next_url                     TEXT,              -- Location resolved against url
    retry_after                  TEXT,
    content_type                 TEXT,
    detail                       TEXT,
    PRIMARY KEY (verification_id, hop)
) STRICT;

-- The seed's minimum audit ledger, all of it, with the latest verification of each
-- observation's key.
CREATE VIEW IF NOT EXISTS audit_ledger AS
SELECT
    o.observation_id,
    o.prompt_id,
    o.prompt_version,
    o.answer_system,
    o.market,
    o.collection,
    o.run_timestamp,
    o.observed_url,
    o.normalization_policy_version,
    o.normalized_key,
    o.publisher_hostname,
    o.transformations,
    o.error_code,
    CASE
        WHEN o.normalized_key IS NULL THEN NULL
        WHEN v.verification_id IS NULL THEN 'unverified'
        ELSE v.verification_status
    END AS verification_status,
    v.final_url AS verified_final_url,
    v.publisher_canonical,
    v.final_http_status AS verification_http_status,
    v.reason AS verification_reason,
    v.finished_at AS verified_at,
    v.observation_id AS verified_via_observation_id
FROM observations AS o
LEFT JOIN verifications AS v
    ON v.verification_id = (
        SELECT max(v2.verification_id)
        FROM verifications AS v2
        WHERE v2.normalization_policy_version = o.normalization_policy_version
          AND v2.normalized_key = o.normalized_key
    );
"#;

/// The audit view of schema 2 (with `claim` and `extra`), created by migration 2 and again
/// by migration 3 (which rebuilds a table beside it).
macro_rules! audit_ledger_view_2 {
    () => {
        r#"
CREATE VIEW audit_ledger AS
SELECT
    o.observation_id,
    o.prompt_id,
    o.prompt_version,
    o.answer_system,
    o.market,
    o.collection,
    o.run_timestamp,
    o.observed_url,
    o.normalization_policy_version,
    o.normalized_key,
    o.publisher_hostname,
    o.transformations,
    o.error_code,
    CASE
        WHEN o.normalized_key IS NULL THEN NULL
        WHEN v.verification_id IS NULL THEN 'unverified'
        ELSE v.verification_status
    END AS verification_status,
    v.final_url AS verified_final_url,
    v.publisher_canonical,
    v.final_http_status AS verification_http_status,
    v.reason AS verification_reason,
    v.finished_at AS verified_at,
    v.observation_id AS verified_via_observation_id,
    o.claim,
    o.extra
FROM observations AS o
LEFT JOIN verifications AS v
    ON v.verification_id = (
        SELECT max(v2.verification_id)
        FROM verifications AS v2
        WHERE v2.normalization_policy_version = o.normalization_policy_version
          AND v2.normalized_key = o.normalized_key
    );
"#
    };
}

/// Migration 2 (issue 15): the answer text that cited the URL (`claim`) and every other
/// input column (`extra`, a JSON object; `{}` when there is none, NULL for rows stored
/// before this migration), and the audit view with both. Runs under the write lock after
/// the version is read again (see [`migrate`]), so two first writers never both add the
/// columns.
const MIGRATION_2: &str = concat!(
    r#"
ALTER TABLE observations ADD COLUMN claim TEXT;
ALTER TABLE observations ADD COLUMN extra TEXT CHECK (extra IS NULL OR json_valid(extra));
DROP VIEW IF EXISTS audit_ledger;
"#,
    audit_ledger_view_2!()
);

/// Migration 3 (issue 15): spreadsheets and compressed files. `ingests.input_format` also
/// takes `xlsx`, `xls` and `ods`, and two columns say how a file was read: `compression`
/// (`gzip`, `zstd`, or NULL) and `sheet` (the sheet read; NULL for text files).
///
/// SQLite cannot change a CHECK constraint in place, so `ingests` is rebuilt, as SQLite's
/// documentation prescribes (lang_altertable.html, "other kinds of table schema changes"):
/// with foreign keys off ([`migrate`] turns them off outside the transaction and back on
/// after it), create the new table, copy every row with its `ingest_id` (so that every
/// `observations.ingest_id` still finds its ingest), drop the old table, rename the new one,
/// recreate the view, and run `PRAGMA foreign_key_check` before the commit
/// ([`migrate_locked`]). All in the migration's one transaction: a failure leaves schema 2.
const MIGRATION_3: &str = concat!(
    r#"
CREATE TABLE ingests_v3 (
    ingest_id                    INTEGER PRIMARY KEY,
    source_path                  TEXT NOT NULL,
    source_xxh3_128              TEXT NOT NULL,  -- of the bytes as stored (compressed, for .gz/.zst)
    input_format                 TEXT NOT NULL
        CHECK (input_format IN ('csv', 'tsv', 'jsonl', 'xlsx', 'xls', 'ods')),
    normalization_policy_version TEXT NOT NULL,
    ingested_at                  TEXT NOT NULL,
    tool_version                 TEXT NOT NULL,
    rows_read                    INTEGER NOT NULL,
    rows_added                   INTEGER NOT NULL,
    rows_unchanged               INTEGER NOT NULL,
    compression                  TEXT CHECK (compression IS NULL OR compression IN ('gzip', 'zstd')),
    sheet                        TEXT
) STRICT;
INSERT INTO ingests_v3 (ingest_id, source_path, source_xxh3_128, input_format,
    normalization_policy_version, ingested_at, tool_version, rows_read, rows_added,
    rows_unchanged)
SELECT ingest_id, source_path, source_xxh3_128, input_format, normalization_policy_version,
    ingested_at, tool_version, rows_read, rows_added, rows_unchanged
FROM ingests;
DROP VIEW IF EXISTS audit_ledger;
DROP TABLE ingests;
ALTER TABLE ingests_v3 RENAME TO ingests;
"#,
    audit_ledger_view_2!()
);

/// Migration 4 (issue 16): the content comparison of a key's variants and what people
/// decide. Its SQL is in [`crate::review::MIGRATION_4`], beside the code that uses it.
const MIGRATION_4: &str = crate::review::MIGRATION_4;

/// The audit view of schema 5: `run_timestamp` is the UTC instant, and the text as written
/// comes last, after the columns of schema 4 (so an export's columns keep their places).
macro_rules! audit_ledger_view_5 {
    () => {
        r#"
DROP VIEW IF EXISTS audit_ledger;
CREATE VIEW audit_ledger AS
SELECT
    o.observation_id,
    o.prompt_id,
    o.prompt_version,
    o.answer_system,
    o.market,
    o.collection,
    o.run_timestamp,
    o.observed_url,
    o.normalization_policy_version,
    o.normalized_key,
    o.publisher_hostname,
    o.transformations,
    o.error_code,
    CASE
        WHEN o.normalized_key IS NULL THEN NULL
        WHEN v.verification_id IS NULL THEN 'unverified'
        ELSE v.verification_status
    END AS verification_status,
    v.final_url AS verified_final_url,
    v.publisher_canonical,
    v.final_http_status AS verification_http_status,
    v.reason AS verification_reason,
    v.finished_at AS verified_at,
    v.observation_id AS verified_via_observation_id,
    o.claim,
    o.extra,
    v.content_check,
    (SELECT r.source_role FROM reviews AS r
      WHERE r.normalization_policy_version = o.normalization_policy_version
        AND r.normalized_key = o.normalized_key AND r.source_role IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS source_role,
    (SELECT r.claim_support FROM reviews AS r
      WHERE r.observation_id = o.observation_id AND r.claim_support IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS claim_support,
    (SELECT r.merge_decision FROM reviews AS r
      WHERE r.normalization_policy_version = o.normalization_policy_version
        AND r.normalized_key = o.normalized_key AND r.merge_decision IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS merge_decision,
    (SELECT r.reviewer FROM reviews AS r
      WHERE r.observation_id = o.observation_id
         OR (r.normalization_policy_version = o.normalization_policy_version
             AND r.normalized_key = o.normalized_key
             AND (r.source_role IS NOT NULL OR r.merge_decision IS NOT NULL))
      ORDER BY r.review_id DESC LIMIT 1) AS reviewed_by,
    (SELECT r.reviewed_at FROM reviews AS r
      WHERE r.observation_id = o.observation_id
         OR (r.normalization_policy_version = o.normalization_policy_version
             AND r.normalized_key = o.normalized_key
             AND (r.source_role IS NOT NULL OR r.merge_decision IS NOT NULL))
      ORDER BY r.review_id DESC LIMIT 1) AS reviewed_at,
    o.run_timestamp_as_written
FROM observations AS o
LEFT JOIN verifications AS v
    ON v.verification_id = (
        SELECT max(v2.verification_id)
        FROM verifications AS v2
        WHERE v2.normalization_policy_version = o.normalization_policy_version
          AND v2.normalized_key = o.normalized_key
    );
"#
    };
}

/// Migration 5: the collection time is stored, exported and reported in UTC, and a fetch
/// that read no page has its own content check.
///
/// - `observations.run_timestamp` becomes the UTC instant (RFC 3339,
///   `YYYY-MM-DDTHH:MM:SSZ`): the column that held it, `run_at`, is renamed, and the text as
///   written in the input, which `run_timestamp` held, is kept as `run_timestamp_as_written`.
///   Renaming moves no value, so the trigger that keeps observations immutable stays in
///   force and no row is rewritten; the view names both columns.
/// - `verifications.content_check` also takes `not-fetched` (the fetch was refused, failed,
///   or got no 2xx page: nothing was compared). SQLite cannot change a CHECK in place, so the
///   table is rebuilt as migration 3 rebuilt `ingests` (same ids, so every hop and variant
///   still finds its verification; foreign keys checked before the commit). A `single` row
///   of an earlier release whose one fetch got no 2xx response read no page: it becomes
///   `not-fetched`, its detail saying so.
const MIGRATION_5: &str = concat!(
    r#"
DROP VIEW IF EXISTS audit_ledger;
ALTER TABLE observations RENAME COLUMN run_timestamp TO run_timestamp_as_written;
ALTER TABLE observations RENAME COLUMN run_at TO run_timestamp;

CREATE TABLE verifications_v5 (
    verification_id              INTEGER PRIMARY KEY,
    normalization_policy_version TEXT NOT NULL,
    normalized_key               TEXT NOT NULL,
    observation_id               TEXT NOT NULL REFERENCES observations (observation_id),
    requested_url                TEXT NOT NULL,  -- the observed URL as fetched: no fragment, no userinfo
    credentials_removed          INTEGER NOT NULL CHECK (credentials_removed IN (0, 1)),
    started_at                   TEXT NOT NULL,
    finished_at                  TEXT NOT NULL,
    verification_status          TEXT NOT NULL
        CHECK (verification_status IN ('verified', 'redirected', 'not-found', 'error', 'unresolved')),
    reason                       TEXT NOT NULL,
    detail                       TEXT,
    final_url                    TEXT,           -- the URL of the last response received
    final_http_status            INTEGER,
    redirect_count               INTEGER NOT NULL,
    canonical_html               TEXT,           -- <link rel=canonical> in the head, resolved
    canonical_link_header        TEXT,           -- Link: <...>; rel="canonical", resolved
    publisher_canonical          TEXT,           -- canonical_html, else canonical_link_header
    body_bytes_read              INTEGER NOT NULL,
    body_truncated               INTEGER NOT NULL CHECK (body_truncated IN (0, 1)),
    user_agent                   TEXT NOT NULL,
    network_scope                TEXT NOT NULL,  -- public | public+loopback | any-private
    content_check                TEXT
        CHECK (content_check IS NULL OR content_check IN
            ('same', 'similar', 'different', 'unresolved', 'single', 'not-fetched')),
    content_detail               TEXT,
    variants_fetched             INTEGER,        -- NULL before schema 4
    variants_total               INTEGER         -- distinct observed URLs of the key
) STRICT;
INSERT INTO verifications_v5 (verification_id, normalization_policy_version, normalized_key,
    observation_id, requested_url, credentials_removed, started_at, finished_at,
    verification_status, reason, detail, final_url, final_http_status, redirect_count,
    canonical_html, canonical_link_header, publisher_canonical, body_bytes_read,
    body_truncated, user_agent, network_scope, content_check, content_detail,
    variants_fetched, variants_total)
SELECT verification_id, normalization_policy_version, normalized_key, observation_id,
    requested_url, credentials_removed, started_at, finished_at, verification_status, reason,
    detail, final_url, final_http_status, redirect_count, canonical_html,
    canonical_link_header, publisher_canonical, body_bytes_read, body_truncated, user_agent,
    network_scope,
    CASE WHEN content_check = 'single'
          AND (final_http_status IS NULL OR final_http_status NOT BETWEEN 200 AND 299)
         THEN 'not-fetched' ELSE content_check END,
    CASE WHEN content_check = 'single'
          AND (final_http_status IS NULL OR final_http_status NOT BETWEEN 200 AND 299)
         THEN 'variant 0 (' || requested_url || ') was not fetched: ' || reason
              || coalesce(' (' || detail || ')', '')
         ELSE content_detail END,
    variants_fetched, variants_total
FROM verifications;
DROP TABLE verifications;
ALTER TABLE verifications_v5 RENAME TO verifications;
CREATE INDEX IF NOT EXISTS verifications_by_key
    ON verifications (normalization_policy_version, normalized_key, verification_id);
"#,
    audit_ledger_view_5!()
);

const MIGRATIONS: &[&str] = &[
    MIGRATION_1,
    MIGRATION_2,
    MIGRATION_3,
    MIGRATION_4,
    MIGRATION_5,
];

/// Opens (and with `create`, creates) the ledger at `path`, sets WAL mode, foreign keys
/// and a busy timeout, and brings the schema up to [`SCHEMA_VERSION`].
pub fn open(path: &Path, create: bool) -> Result<Connection> {
    if !create && !path.exists() {
        return Err(LedgerError::Database(format!(
            "there is no ledger at {}: create one with `urlkey ledger --db {} init`, or ingest \
             a file into it, or pass the right --db",
            path.display(),
            path.display()
        )));
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| LedgerError::db(&format!("cannot open {}", path.display()), e))?;
    configure(&conn).map_err(|e| {
        LedgerError::db(
            &format!("cannot set up {} (is it an SQLite file?)", path.display()),
            e,
        )
    })?;
    migrate(&conn, path)?;
    Ok(conn)
}

/// How long to wait between two tries of the WAL switch while another connection holds
/// the lock it needs.
const WAL_RETRY: Duration = Duration::from_millis(20);

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    switch_to_wal(conn)?;
    // FULL: in WAL mode, NORMAL may lose the last commits on power loss (SQLite's
    // documentation); an audit ledger must keep every acknowledged ingest. The cost is
    // one more fsync per commit (docs/ledger.md, "Durability").
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")?;
    Ok(())
}

/// Puts the database in WAL mode. Changing the journal mode of a new file needs an
/// exclusive lock, and SQLite does not call the busy handler for it: with a second
/// writer creating the same file at the same moment it fails at once with "database is
/// locked" (or leaves the mode unchanged). So it is retried, for up to [`BUSY_TIMEOUT`],
/// until the answer is `wal`.
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let start = std::time::Instant::now();
    loop {
        let answer: rusqlite::Result<String> =
            conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0));
        match answer {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) if start.elapsed() >= BUSY_TIMEOUT => {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                    Some(format!(
                        "the journal mode stayed {mode:?}: another connection held the database for {} s",
                        BUSY_TIMEOUT.as_secs()
                    )),
                ))
            }
            Err(e) if !is_busy(&e) || start.elapsed() >= BUSY_TIMEOUT => return Err(e),
            _ => std::thread::sleep(WAL_RETRY),
        }
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The schema version of an open database.
pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Brings the schema up to [`SCHEMA_VERSION`].
///
/// The version that decides whether to migrate is read inside a `BEGIN IMMEDIATE`
/// transaction, that is, with the write lock held: read before it, two first writers of a
/// new file would both see version 0 and both run migration 1 ("table ingests already
/// exists", "database is locked"). A database already at this version is recognized
/// without the lock, so readers do not queue behind a long ingest (the version only ever
/// grows, so a current answer cannot become stale).
fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    let read_version = |conn: &Connection| {
        user_version(conn).map_err(|e| {
            LedgerError::db(
                &format!("cannot read the schema version of {}", path.display()),
                e,
            )
        })
    };
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    let newer = |current: i64| {
        LedgerError::Database(format!(
            "{} has schema version {current}, newer than this urlkey understands ({known}): \
             use a newer urlkey",
            path.display()
        ))
    };
    let current = read_version(conn)?;
    if current == known {
        return Ok(());
    }
    if current > known {
        return Err(newer(current));
    }
    // A table rebuild (migration 3) must run with foreign keys off, and the pragma is a
    // no-op inside a transaction: off now, checked with foreign_key_check before the commit,
    // on again after it, whatever happened.
    conn.execute_batch("PRAGMA foreign_keys = OFF")
        .map_err(|e| LedgerError::db("cannot turn foreign keys off for the migration", e))?;
    let result = migrate_in_transaction(conn, path, known, &read_version, &newer);
    let on = conn.execute_batch("PRAGMA foreign_keys = ON");
    result?;
    on.map_err(|e| LedgerError::db("cannot turn foreign keys back on", e))
}

/// `BEGIN IMMEDIATE`, the migrations, and `COMMIT` (or `ROLLBACK` on failure).
fn migrate_in_transaction(
    conn: &Connection,
    path: &Path,
    known: i64,
    read_version: &dyn Fn(&Connection) -> Result<i64>,
    newer: &dyn Fn(i64) -> LedgerError,
) -> Result<()> {
    // Another writer (an ingest of a large file) may hold the lock for long: wait for it
    // as an ingest does, then go back to the usual timeout.
    conn.busy_timeout(WRITE_LOCK_WAIT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    let begun = conn.execute_batch("BEGIN IMMEDIATE");
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    begun.map_err(|e| {
        LedgerError::db(
            &format!(
                "cannot take the write lock of {} to set up its schema",
                path.display()
            ),
            e,
        )
    })?;
    let result = migrate_locked(conn, path, known, read_version, newer);
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    if let Err(e) = conn.execute_batch(end) {
        let _ = conn.execute_batch("ROLLBACK");
        if result.is_ok() {
            return Err(LedgerError::db(
                &format!("cannot commit the schema of {}", path.display()),
                e,
            ));
        }
    }
    result
}

/// The migrations, inside the caller's `BEGIN IMMEDIATE`.
fn migrate_locked(
    conn: &Connection,
    path: &Path,
    known: i64,
    read_version: &dyn Fn(&Connection) -> Result<i64>,
    newer: &dyn Fn(i64) -> LedgerError,
) -> Result<()> {
    let current = read_version(conn)?;
    if current > known {
        return Err(newer(current));
    }
    if current == 0 {
        // A version-0 file must be empty: refuse to add tables to someone else's database.
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| LedgerError::db("cannot inspect the database", e))?;
        if tables > 0 {
            return Err(LedgerError::Database(format!(
                "{} is an SQLite database but not a urlkey ledger (it has tables and no \
                 ledger schema version): choose another --db",
                path.display()
            )));
        }
    }
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(current).unwrap_or(0))
    {
        let version = i + 1;
        let batch = format!("{sql}\nPRAGMA user_version = {version};");
        conn.execute_batch(&batch).map_err(|e| {
            LedgerError::db(&format!("migration to schema version {version} failed"), e)
        })?;
    }
    // Foreign keys are off during the migrations: every reference must still hold.
    let broken: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .map_err(|e| LedgerError::db("cannot check the foreign keys after the migration", e))?;
    if broken > 0 {
        return Err(LedgerError::Database(format!(
            "{}: the migration would leave {broken} rows with a dangling reference; nothing              was changed (the ledger stays at schema version {current})",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_database_gets_the_schema_and_settings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("l.sqlite");
        let conn = open(&path, true).expect("open");
        assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .expect("fk");
        assert_eq!(fk, 1);
        // 2 = FULL: an acknowledged commit survives a power loss.
        let sync: i64 = conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .expect("synchronous");
        assert_eq!(sync, 2);
        drop(conn);
        // Reopening does not migrate twice.
        let conn = open(&path, false).expect("reopen");
        assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
    }

    #[test]
    fn a_version_1_ledger_is_migrated_and_keeps_its_rows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v1.sqlite");
        let c = Connection::open(&path).expect("raw");
        c.execute_batch(MIGRATION_1).expect("v1 schema");
        c.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO ingests VALUES (1, 'a.csv', 'h', 'csv', 'citation@1', 't', '0', 1, 1, 0);
             INSERT INTO observations (observation_id, prompt_version, answer_system, market,
               run_timestamp, run_at, observed_url, normalization_policy_version,
               normalized_key, transformations, removed_params, ingest_id, source_line)
             VALUES ('o1', 'v', 's', 'us', '2026-11-01', '2026-11-01T00:00:00Z',
               'https://a.example/', 'citation@1', 'https://a.example/', '[]', '[]', 1, 2);",
        )
        .expect("v1 row");
        drop(c);
        let conn = open(&path, false).expect("migrate");
        assert_eq!(
            user_version(&conn).expect("v"),
            SCHEMA_VERSION,
            "through 2 and 3 to 4"
        );
        let (id, claim, extra): (String, Option<String>, Option<String>) = conn
            .query_row(
                "SELECT observation_id, claim, extra FROM audit_ledger",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .expect("row");
        assert_eq!((id.as_str(), claim, extra), ("o1", None, None));
        // extra must be JSON.
        let bad = conn.execute(
            "INSERT INTO observations (observation_id, prompt_version, answer_system, market,
               run_timestamp_as_written, run_timestamp, observed_url, normalization_policy_version,
               normalized_key, transformations, removed_params, ingest_id, source_line, extra)
             VALUES ('o2', 'v', 's', 'us', '2026-11-01', '2026-11-01T00:00:00Z',
               'https://a.example/', 'citation@1', 'https://a.example/', '[]', '[]', 1, 3, '{')",
            [],
        );
        assert!(bad.is_err());
    }

    /// A schema-2 ledger as urlkey wrote it before migration 3: two ingests, three
    /// observations (one invalid), a verification with two hops.
    fn version_2_ledger(path: &Path) {
        let c = Connection::open(path).expect("raw");
        c.execute_batch(&format!(
            "{MIGRATION_1}\n{MIGRATION_2}\nPRAGMA user_version = 2;"
        ))
        .expect("v2 schema");
        c.execute_batch(
            "INSERT INTO ingests VALUES
               (1, 'a.csv', 'aaaa', 'csv', 'citation@1', '2026-11-01T00:00:00.000Z', '0.1.0', 2, 2, 0),
               (2, 'b.jsonl', 'bbbb', 'jsonl', 'citation@1', '2026-11-02T00:00:00.000Z', '0.1.0', 1, 1, 0);
             INSERT INTO observations (observation_id, prompt_version, answer_system, market,
               run_timestamp, run_at, observed_url, normalization_policy_version,
               normalized_key, canonical_form, publisher_hostname, transformations,
               removed_params, error_code, error_message, ingest_id, source_line, claim, extra)
             VALUES
               ('m1', 'v', 's', 'us', '2026-11-08T09:00:00Z', '2026-11-08T09:00:00Z',
                'https://docs.example.org/a', 'citation@1', 'https://docs.example.org/a',
                'https://docs.example.org/a', 'docs.example.org', '[]', '[]', NULL, NULL, 1, 2,
                NULL, '{}'),
               ('m2', 'v', 's', 'us', '2026-11-08T09:00:00Z', '2026-11-08T09:00:00Z',
                'not a url', 'citation@1', NULL, NULL, NULL, '[]', '[]', 'web.invalid-url',
                'relative', 1, 3, NULL, '{}'),
               ('m3', 'v', 's', 'us', '2026-11-08T09:00:00Z', '2026-11-08T09:00:00Z',
                'https://docs.example.org/c', 'citation@1', 'https://docs.example.org/c',
                'https://docs.example.org/c', 'docs.example.org', '[]', '[]', NULL, NULL, 2, 1,
                'a claim', '{\"note\":\"x\"}');
             INSERT INTO verifications (verification_id, normalization_policy_version,
               normalized_key, observation_id, requested_url, credentials_removed, started_at,
               finished_at, verification_status, reason, redirect_count, body_bytes_read,
               body_truncated, user_agent, network_scope)
             VALUES (1, 'citation@1', 'https://docs.example.org/a', 'm1',
               'https://docs.example.org/a', 0, 't0', 't1', 'redirected', 'moved', 1, 10, 0,
               'ua', 'public');
             INSERT INTO verification_hops (verification_id, hop, url, started_at, outcome)
             VALUES (1, 0, 'https://docs.example.org/a', 't0', 'response'),
                    (1, 1, 'https://docs.example.org/a2', 't0', 'response');",
        )
        .expect("v2 rows");
    }

    /// The columns of `verifications` and of the view in schemas 2 and 3.
    const V2_VERIFICATION_COLS: &str = "verification_id, normalization_policy_version, \
        normalized_key, observation_id, requested_url, credentials_removed, started_at, \
        finished_at, verification_status, reason, detail, final_url, final_http_status, \
        redirect_count, canonical_html, canonical_link_header, publisher_canonical, \
        body_bytes_read, body_truncated, user_agent, network_scope";
    const V2_VIEW_COLS: &str = "observation_id, prompt_id, prompt_version, answer_system, \
        market, collection, run_timestamp, observed_url, normalization_policy_version, \
        normalized_key, publisher_hostname, transformations, error_code, verification_status, \
        verified_final_url, publisher_canonical, verification_http_status, verification_reason, \
        verified_at, verified_via_observation_id, claim, extra";

    /// Every row of a table, as text, ordered by its first column.
    fn rows(c: &Connection, sql: &str) -> Vec<String> {
        let mut st = c.prepare(sql).expect("prepare");
        let n = st.column_count();
        st.query_map([], |r| {
            let mut line = String::new();
            for i in 0..n {
                let v: rusqlite::types::Value = r.get(i)?;
                line.push_str(&format!("{v:?}|"));
            }
            Ok(line)
        })
        .expect("query")
        .collect::<rusqlite::Result<_>>()
        .expect("rows")
    }

    #[test]
    fn a_version_2_ledger_is_rebuilt_to_3_with_every_row_and_reference_intact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v2.sqlite");
        version_2_ledger(&path);
        let old = Connection::open(&path).expect("raw");
        let ingest_cols = "SELECT ingest_id, source_path, source_xxh3_128, input_format, \
            normalization_policy_version, ingested_at, tool_version, rows_read, rows_added, \
            rows_unchanged FROM ingests ORDER BY 1";
        let before = [
            rows(&old, ingest_cols),
            rows(&old, "SELECT * FROM observations ORDER BY 1"),
            rows(&old, "SELECT * FROM verifications ORDER BY 1"),
            rows(&old, "SELECT * FROM verification_hops ORDER BY 1, 2"),
            rows(&old, "SELECT * FROM audit_ledger ORDER BY 1"),
        ];
        assert_eq!(before[1].len(), 3);
        drop(old);

        let conn = open(&path, false).expect("migrate");
        assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
        // Schema 4 adds columns to verifications and the view: the old ones are compared.
        let after = [
            rows(&conn, ingest_cols),
            rows(&conn, "SELECT * FROM observations ORDER BY 1"),
            rows(
                &conn,
                &format!("SELECT {V2_VERIFICATION_COLS} FROM verifications ORDER BY 1"),
            ),
            rows(&conn, "SELECT * FROM verification_hops ORDER BY 1, 2"),
            rows(
                &conn,
                &format!("SELECT {V2_VIEW_COLS} FROM audit_ledger ORDER BY 1"),
            ),
        ];
        assert_eq!(
            after, before,
            "every row of every table and of the view, unchanged"
        );
        let (compression, sheet): (Option<String>, Option<String>) = conn
            .query_row(
                "SELECT compression, sheet FROM ingests WHERE ingest_id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("new columns");
        assert_eq!((compression, sheet), (None, None));
        // Foreign keys are on again, and observations still reference ingests.
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .expect("fk");
        assert_eq!(fk, 1);
        let dangling = conn.execute(
            "INSERT INTO observations (observation_id, prompt_version, answer_system, market,
               run_timestamp_as_written, run_timestamp, observed_url, normalization_policy_version,
               normalized_key, transformations, removed_params, ingest_id, source_line)
             VALUES ('m9', 'v', 's', 'us', 't', 't', 'https://a.example/', 'citation@1',
               'https://a.example/', '[]', '[]', 99, 2)",
            [],
        );
        assert!(dangling.is_err(), "ingest 99 does not exist");
        let sql: String = conn
            .query_row(
                "SELECT sql FROM sqlite_schema WHERE name = 'observations'",
                [],
                |r| r.get(0),
            )
            .expect("schema");
        assert!(sql.contains("REFERENCES ingests (ingest_id)"), "{sql}");
        // The new CHECKs: spreadsheets and compression accepted, anything else refused.
        let add = |format: &str, compression: Option<&str>| {
            conn.execute(
                "INSERT INTO ingests (source_path, source_xxh3_128, input_format,
                   normalization_policy_version, ingested_at, tool_version, rows_read,
                   rows_added, rows_unchanged, compression, sheet)
                 VALUES ('x', 'h', ?1, 'citation@1', 't', 'v', 0, 0, 0, ?2, 'Sheet1')",
                rusqlite::params![format, compression],
            )
        };
        for f in ["xlsx", "xls", "ods", "csv"] {
            add(f, None).expect(f);
        }
        add("csv", Some("gzip")).expect("gzip");
        add("jsonl", Some("zstd")).expect("zstd");
        assert!(add("pdf", None).is_err());
        assert!(add("csv", Some("bzip2")).is_err());
        // No table left behind.
        let left: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'ingests_v3'",
                [],
                |r| r.get(0),
            )
            .expect("schema");
        assert_eq!(left, 0);
    }

    #[test]
    fn re_ingesting_a_file_after_migration_3_finds_its_rows_already_present() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v2.sqlite");
        version_2_ledger(&path);
        // The file that made ingest 1 (its rows m1 and m2, as stored above).
        let csv = dir.path().join("a.csv");
        std::fs::write(
            &csv,
            "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
             m1,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/a\n\
             m2,v,s,us,2026-11-08T09:00:00Z,not a url\n",
        )
        .expect("write");
        let mut conn = open(&path, false).expect("migrate");
        let norm = crate::norm::Normalizer::new("citation@1").expect("policy");
        let s = crate::ingest::ingest_file(&mut conn, &csv, None, &Default::default(), &norm)
            .expect("ingest");
        assert_eq!((s.rows_read, s.added, s.unchanged), (2, 0, 2));
        let n: i64 = conn
            .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 2, "nothing written");
    }

    #[test]
    fn a_migration_that_would_break_a_reference_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v2.sqlite");
        version_2_ledger(&path);
        // An observation whose ingest is gone (possible only with foreign keys off).
        let c = Connection::open(&path).expect("raw");
        c.execute_batch(
            "PRAGMA foreign_keys = OFF; UPDATE ingests SET ingest_id = 7 WHERE ingest_id = 2;",
        )
        .expect("break");
        drop(c);
        let err = open(&path, false).expect_err("refused");
        assert!(
            err.to_string().contains("1 rows with a dangling reference"),
            "{err}"
        );
        let c = Connection::open(&path).expect("raw");
        assert_eq!(user_version(&c).expect("v"), 2, "still schema 2");
        let sql: String = c
            .query_row(
                "SELECT sql FROM sqlite_schema WHERE name = 'ingests'",
                [],
                |r| r.get(0),
            )
            .expect("schema");
        assert!(!sql.contains("xlsx"), "the old table is back: {sql}");
    }

    #[test]
    fn a_version_3_ledger_is_migrated_to_4_with_its_rows_intact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v3.sqlite");
        version_2_ledger(&path);
        let c = Connection::open(&path).expect("raw");
        c.execute_batch(&format!(
            "PRAGMA foreign_keys = OFF;\n{MIGRATION_3}\nPRAGMA user_version = 3;"
        ))
        .expect("v3 schema");
        let before = [
            rows(&c, "SELECT * FROM ingests ORDER BY 1"),
            rows(&c, "SELECT * FROM observations ORDER BY 1"),
            rows(&c, "SELECT * FROM verifications ORDER BY 1"),
            rows(&c, "SELECT * FROM verification_hops ORDER BY 1, 2"),
            rows(&c, "SELECT * FROM audit_ledger ORDER BY 1"),
        ];
        drop(c);
        let conn = open(&path, false).expect("migrate");
        assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
        let after = [
            rows(&conn, "SELECT * FROM ingests ORDER BY 1"),
            rows(&conn, "SELECT * FROM observations ORDER BY 1"),
            rows(
                &conn,
                &format!("SELECT {V2_VERIFICATION_COLS} FROM verifications ORDER BY 1"),
            ),
            rows(&conn, "SELECT * FROM verification_hops ORDER BY 1, 2"),
            rows(
                &conn,
                &format!("SELECT {V2_VIEW_COLS} FROM audit_ledger ORDER BY 1"),
            ),
        ];
        assert_eq!(after, before);
        // The new columns: NULL for the old verification and rows, no reviews yet.
        let new: Vec<String> = rows(
            &conn,
            "SELECT content_check, source_role, claim_support, merge_decision, reviewed_by, \
             reviewed_at FROM audit_ledger ORDER BY 1",
        );
        assert_eq!(new.len(), 3);
        assert!(
            new.iter().all(|r| r == "Null|Null|Null|Null|Null|Null|"),
            "{new:?}"
        );
        let n: i64 = conn
            .query_row("SELECT count(*) FROM reviews", [], |r| r.get(0))
            .expect("reviews");
        assert_eq!(n, 0);
        // Reviews are append-only.
        conn.execute(
            "INSERT INTO reviews (normalization_policy_version, normalized_key, source_role, \
             reviewer, reviewed_at) VALUES ('citation@1', 'https://docs.example.org/a', \
             'evidence', 'ann', 't')",
            [],
        )
        .expect("insert");
        assert!(conn
            .execute("UPDATE reviews SET reviewer = 'bob'", [])
            .is_err());
        assert!(conn.execute("DELETE FROM reviews", []).is_err());
        let role: Option<String> = conn
            .query_row(
                "SELECT source_role FROM audit_ledger WHERE observation_id = 'm1'",
                [],
                |r| r.get(0),
            )
            .expect("view");
        assert_eq!(role.as_deref(), Some("evidence"));
    }

    /// A schema-4 ledger as the previous release wrote it (its migrations 1-4 as they
    /// stand): the rows of [`version_2_ledger`], an ingest whose run timestamps carry
    /// offsets, and three verifications of one URL each: one that read its page, one
    /// refused before connecting, one that got a 404 (both stored as `single`).
    fn version_4_ledger(path: &Path) {
        version_2_ledger(path);
        let c = Connection::open(path).expect("raw");
        c.execute_batch(&format!(
            "PRAGMA foreign_keys = OFF;\n{MIGRATION_3}\n{MIGRATION_4}\nPRAGMA user_version = 4;"
        ))
        .expect("v4 schema");
        c.execute_batch(
            "INSERT INTO ingests VALUES (3, 'c.csv', 'cccc', 'csv', 'citation@1',
               '2026-11-03T00:00:00.000Z', '0.1.0', 2, 2, 0, NULL, NULL);
             INSERT INTO observations (observation_id, prompt_version, answer_system, market,
               run_timestamp, run_at, observed_url, normalization_policy_version,
               normalized_key, canonical_form, publisher_hostname, transformations,
               removed_params, error_code, error_message, ingest_id, source_line, claim, extra)
             VALUES
               ('p1', 'v', 's', 'fr', '2026-11-08 09:00:00+01:00', '2026-11-08T08:00:00Z',
                'https://p.example/1', 'citation@1', 'https://p.example/1',
                'https://p.example/1', 'p.example', '[]', '[]', NULL, NULL, 3, 2, NULL, '{}'),
               ('p2', 'v', 's', 'in', '2026-11-08T09:00:00.750-05:30', '2026-11-08T14:30:00Z',
                'https://p.example/2', 'citation@1', 'https://p.example/2',
                'https://p.example/2', 'p.example', '[]', '[]', NULL, NULL, 3, 3, NULL, '{}');
             INSERT INTO verifications (verification_id, normalization_policy_version,
               normalized_key, observation_id, requested_url, credentials_removed, started_at,
               finished_at, verification_status, reason, detail, final_url, final_http_status,
               redirect_count, body_bytes_read, body_truncated, user_agent, network_scope,
               content_check, content_detail, variants_fetched, variants_total)
             VALUES
               (2, 'citation@1', 'https://docs.example.org/c', 'm3', 'https://docs.example.org/c',
                0, 't0', 't1', 'verified', 'ok', NULL, 'https://docs.example.org/c', 200, 0,
                10, 0, 'ua', 'public', 'single', 'one distinct observed URL', 1, 1),
               (3, 'citation@1', 'https://p.example/1', 'p1', 'https://p.example/1', 0, 't0',
                't1', 'unresolved', 'refused-private-address', '10.0.0.1 is private', NULL,
                NULL, 0, 0, 0, 'ua', 'public', 'single', 'one distinct observed URL', 1, 1),
               (4, 'citation@1', 'https://p.example/2', 'p2', 'https://p.example/2', 0, 't0',
                't1', 'not-found', 'http-404', NULL, 'https://p.example/2', 404, 0, 0, 0, 'ua',
                'public', 'single', 'one distinct observed URL', 1, 1);",
        )
        .expect("v4 rows");
    }

    #[test]
    fn a_version_4_ledger_gets_utc_run_timestamps_and_not_fetched_checks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v4.sqlite");
        version_4_ledger(&path);
        let old = Connection::open(&path).expect("raw");
        let hops_before = rows(&old, "SELECT * FROM verification_hops ORDER BY 1, 2");
        let verifications_before = rows(&old, "SELECT * FROM verifications ORDER BY 1");
        drop(old);

        let conn = open(&path, false).expect("migrate");
        assert_eq!(user_version(&conn).expect("v"), 5);
        let got: Vec<(String, String, String)> = conn
            .prepare(
                "SELECT observation_id, run_timestamp, run_timestamp_as_written \
                 FROM audit_ledger ORDER BY observation_id",
            )
            .expect("prepare")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows");
        let want = [
            ("m1", "2026-11-08T09:00:00Z", "2026-11-08T09:00:00Z"),
            ("m2", "2026-11-08T09:00:00Z", "2026-11-08T09:00:00Z"),
            ("m3", "2026-11-08T09:00:00Z", "2026-11-08T09:00:00Z"),
            ("p1", "2026-11-08T08:00:00Z", "2026-11-08 09:00:00+01:00"),
            (
                "p2",
                "2026-11-08T14:30:00Z",
                "2026-11-08T09:00:00.750-05:30",
            ),
        ];
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        assert_eq!(got, want);
        // Observations are still immutable, and no old column name is left.
        assert!(conn
            .execute("UPDATE observations SET market = 'x'", [])
            .is_err());
        assert!(conn.prepare("SELECT run_at FROM observations").is_err());
        // The two `single` rows that read no page are `not-fetched`; the one that did
        // stays `single`; every other value and every hop as it was.
        let checks = rows(
            &conn,
            "SELECT verification_id, content_check, content_detail FROM verifications ORDER BY 1",
        );
        assert_eq!(checks[0], "Integer(1)|Null|Null|");
        assert_eq!(
            checks[1],
            "Integer(2)|Text(\"single\")|Text(\"one distinct observed URL\")|"
        );
        assert_eq!(
            checks[2],
            "Integer(3)|Text(\"not-fetched\")|Text(\"variant 0 (https://p.example/1) was not \
             fetched: refused-private-address (10.0.0.1 is private)\")|"
        );
        assert_eq!(
            checks[3],
            "Integer(4)|Text(\"not-fetched\")|Text(\"variant 0 (https://p.example/2) was not \
             fetched: http-404\")|"
        );
        let after = rows(&conn, "SELECT * FROM verifications ORDER BY 1");
        for (i, (a, b)) in after.iter().zip(&verifications_before).enumerate() {
            if i < 2 {
                assert_eq!(a, b);
            } else {
                assert!(a.contains("not-fetched") && !b.contains("not-fetched"));
            }
        }
        assert_eq!(
            rows(&conn, "SELECT * FROM verification_hops ORDER BY 1, 2"),
            hops_before
        );
        // The rebuilt table takes the new check, and still refuses anything else.
        let set = |v: &str| {
            conn.execute(
                "INSERT INTO verifications (normalization_policy_version, normalized_key,
                   observation_id, requested_url, credentials_removed, started_at, finished_at,
                   verification_status, reason, redirect_count, body_bytes_read,
                   body_truncated, user_agent, network_scope, content_check)
                 VALUES ('citation@1', 'k', 'm1', 'u', 0, 't', 't', 'error', 'r', 0, 0, 0,
                   'ua', 'public', ?1)",
                [v],
            )
        };
        set("not-fetched").expect("not-fetched");
        assert!(set("maybe").is_err());
        let idx: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'verifications_by_key'",
                [],
                |r| r.get(0),
            )
            .expect("index");
        assert_eq!(idx, 1);
    }

    #[test]
    fn re_ingesting_a_file_after_migration_5_adds_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v4.sqlite");
        version_4_ledger(&path);
        // The file that made ingest 3, its timestamps written with offsets.
        let csv = dir.path().join("c.csv");
        std::fs::write(
            &csv,
            "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
             p1,v,s,fr,2026-11-08 09:00:00+01:00,https://p.example/1\n\
             p2,v,s,in,2026-11-08T09:00:00.750-05:30,https://p.example/2\n",
        )
        .expect("write");
        let mut conn = open(&path, false).expect("migrate");
        let norm = crate::norm::Normalizer::new("citation@1").expect("policy");
        let s = crate::ingest::ingest_file(&mut conn, &csv, None, &Default::default(), &norm)
            .expect("ingest");
        assert_eq!((s.rows_read, s.added, s.unchanged), (2, 0, 2));
        let n: i64 = conn
            .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 5, "no row added");
    }

    #[test]
    fn newer_schema_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("l.sqlite");
        drop(open(&path, true).expect("open"));
        let c = Connection::open(&path).expect("raw");
        c.execute_batch("PRAGMA user_version = 99").expect("set");
        drop(c);
        let err = open(&path, false).expect_err("refused");
        assert_eq!(err.exit_code(), 6);
        assert!(err.to_string().contains("newer"));
    }

    #[test]
    fn foreign_database_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("other.sqlite");
        let c = Connection::open(&path).expect("raw");
        c.execute_batch("CREATE TABLE t (x)").expect("create");
        drop(c);
        let err = open(&path, false).expect_err("refused");
        assert!(err.to_string().contains("not a urlkey ledger"));
    }

    #[test]
    fn missing_database_names_init() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = open(&dir.path().join("none.sqlite"), false).expect_err("missing");
        assert!(err.to_string().contains("init"));
    }
}

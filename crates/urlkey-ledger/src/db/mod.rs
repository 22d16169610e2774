//! The SQLite store: connection settings, schema and migrations.
//!
//! The schema is versioned with `PRAGMA user_version`: migration N brings a database
//! from version N-1 to N inside one transaction. A database written by a newer urlkey
//! (a higher version than [`SCHEMA_VERSION`]) is refused rather than guessed at.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{ErrorKind, LedgerError, Result};

pub(crate) mod view;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 8;

/// How long a statement waits for a lock another connection holds (SQLite's busy
/// timeout) before failing with "database is locked".
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an ingest waits in all for the write lock, which another writer (an ingest
/// of a large file, a verify run) may hold for longer than [`BUSY_TIMEOUT`].
pub const WRITE_LOCK_WAIT: Duration = Duration::from_secs(600);

/// Migration 1: observations, ingests, verifications, hops, and the audit view.
/// `IF NOT EXISTS` throughout: the migration runs under the write lock after the version
/// is read (see [`migrate`]), so it never meets its own tables; should it ever, it is
/// still a no-op rather than "table already exists" (the view is dropped and made again).
const MIGRATION_1: &str = concat!(
    r#"
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

"#,
    view::audit_ledger_view!()
);

/// Migration 2: the answer text that cited the URL (`claim`) and every other
/// input column (`extra`, a JSON object; `{}` when there is none, NULL for rows stored
/// before this migration), and the audit view with both. Runs under the write lock after
/// the version is read again (see [`migrate`]), so two first writers never both add the
/// columns.
const MIGRATION_2: &str = concat!(
    r#"
ALTER TABLE observations ADD COLUMN claim TEXT;
ALTER TABLE observations ADD COLUMN extra TEXT CHECK (extra IS NULL OR json_valid(extra));
"#,
    view::audit_ledger_view!(2)
);

/// Migration 3: spreadsheets and compressed files. `ingests.input_format` also
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
    view::audit_ledger_view!(2)
);

/// Migration 4: the content comparison of a key's variants and what people
/// decide. Its SQL is in [`crate::review::MIGRATION_4`], beside the code that uses it.
const MIGRATION_4: &str = crate::review::MIGRATION_4;

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
    view::audit_ledger_view!(5)
);

/// Migration 6: a key whose risky rules were not all compared has its own content check,
/// and a verification says how many spellings it compared.
///
/// - `verifications.content_check` also takes `partial` (a risky rule that merged the key
///   was not compared: see `verify::risky`); the table is rebuilt as in migration 5 (same
///   ids, foreign keys checked before the commit).
/// - `verifications.variants_compared`: the spellings whose fetch gave a finding. For an
///   earlier row it is counted from its `verification_variants` (those not `unresolved`);
///   NULL for a row of schema 3 or before, which kept no variants.
/// - An earlier `same` or `similar` that fetched fewer spellings than the key had was made
///   from the first spellings in ingest order, which may have left out every risky one: it
///   becomes `partial`, its detail keeping the old check and detail and saying to verify
///   again.
const MIGRATION_6: &str = concat!(
    r#"
DROP VIEW IF EXISTS audit_ledger;
CREATE TABLE verifications_v6 (
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
            ('same', 'similar', 'different', 'unresolved', 'single', 'not-fetched', 'partial')),
    content_detail               TEXT,
    variants_fetched             INTEGER,        -- NULL before schema 4
    variants_total               INTEGER,        -- distinct observed URLs of the key (as fetched)
    variants_compared            INTEGER         -- fetched spellings that gave a finding
) STRICT;
INSERT INTO verifications_v6 (verification_id, normalization_policy_version, normalized_key,
    observation_id, requested_url, credentials_removed, started_at, finished_at,
    verification_status, reason, detail, final_url, final_http_status, redirect_count,
    canonical_html, canonical_link_header, publisher_canonical, body_bytes_read,
    body_truncated, user_agent, network_scope, content_check, content_detail,
    variants_fetched, variants_total, variants_compared)
SELECT verification_id, normalization_policy_version, normalized_key, observation_id,
    requested_url, credentials_removed, started_at, finished_at, verification_status, reason,
    detail, final_url, final_http_status, redirect_count, canonical_html,
    canonical_link_header, publisher_canonical, body_bytes_read, body_truncated, user_agent,
    network_scope,
    CASE WHEN content_check IN ('same', 'similar') AND variants_fetched < variants_total
         THEN 'partial' ELSE content_check END,
    CASE WHEN content_check IN ('same', 'similar') AND variants_fetched < variants_total
         THEN 'verified before schema 6 with the first ' || variants_fetched || ' of '
              || variants_total || ' spellings, which may leave out the risky ones: was '
              || content_check || coalesce(' (' || content_detail || ')', '')
              || '; verify the key again to compare every risky spelling'
         ELSE content_detail END,
    variants_fetched, variants_total,
    CASE WHEN variants_fetched IS NULL THEN NULL
         ELSE (SELECT count(*) FROM verification_variants AS w
               WHERE w.verification_id = verifications.verification_id
                 AND w.verification_status <> 'unresolved') END
FROM verifications;
DROP TABLE verifications;
ALTER TABLE verifications_v6 RENAME TO verifications;
CREATE INDEX IF NOT EXISTS verifications_by_key
    ON verifications (normalization_policy_version, normalized_key, verification_id);
"#,
    view::audit_ledger_view!(5)
);

/// Migration 7: observations keyed again under another policy, beside their original
/// keys. Its SQL is in [`crate::rekey::MIGRATION_7`], beside the code that uses it.
const MIGRATION_7: &str = crate::rekey::MIGRATION_7;

pub(crate) const MIGRATIONS: &[&str] = &[
    MIGRATION_1,
    MIGRATION_2,
    MIGRATION_3,
    MIGRATION_4,
    MIGRATION_5,
    MIGRATION_6,
    MIGRATION_7,
    crate::fragments::MIGRATION,
];

/// Opens (and with `create`, creates) the ledger at `path`, sets WAL mode, foreign keys
/// and a busy timeout, and brings the schema up to [`SCHEMA_VERSION`].
pub fn open(path: &Path, create: bool) -> Result<Connection> {
    if !create && !path.exists() {
        return Err(LedgerError::new(ErrorKind::NoLedger {
            path: path.to_path_buf(),
        }));
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
        LedgerError::database(format!(
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
            return Err(LedgerError::new(ErrorKind::NotALedger {
                path: path.to_path_buf(),
            }));
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
        // The text fragments of the observations already stored: parsed in Rust, so
        // after the SQL, in the same transaction.
        if *sql == crate::fragments::MIGRATION {
            crate::fragments::backfill(conn)?;
        }
    }
    // Foreign keys are off during the migrations: every reference must still hold.
    let broken: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .map_err(|e| LedgerError::db("cannot check the foreign keys after the migration", e))?;
    if broken > 0 {
        return Err(LedgerError::database(format!(
            "{}: the migration would leave {broken} rows with a dangling reference; nothing              was changed (the ledger stays at schema version {current})",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

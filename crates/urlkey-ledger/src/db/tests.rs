//! The schema, its migrations and the open modes, on temporary databases.

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
    assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
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
    // (migration 6 then added variants_compared, last)
    let after = rows(
        &conn,
        &format!("SELECT {V5_VERIFICATION_COLS} FROM verifications ORDER BY 1"),
    );
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

/// The columns of `verifications` in schemas 4 and 5.
const V5_VERIFICATION_COLS: &str = "verification_id, normalization_policy_version, \
    normalized_key, observation_id, requested_url, credentials_removed, started_at, \
    finished_at, verification_status, reason, detail, final_url, final_http_status, \
    redirect_count, canonical_html, canonical_link_header, publisher_canonical, \
    body_bytes_read, body_truncated, user_agent, network_scope, content_check, \
    content_detail, variants_fetched, variants_total";

/// A schema-5 ledger as the previous release wrote it: [`version_4_ledger`] migrated by
/// migration 5, and three verifications of the key of m1 that fetched two spellings: a
/// `same` of 2 of 3 spellings (the first two, in ingest order), a `same` of 2 of 2, a
/// `different` of 2 of 3 whose second fetch was unresolved.
fn version_5_ledger(path: &Path) {
    version_4_ledger(path);
    let c = Connection::open(path).expect("raw");
    c.execute_batch(&format!(
        "PRAGMA foreign_keys = OFF;\n{MIGRATION_5}\nPRAGMA user_version = 5;"
    ))
    .expect("v5 schema");
    let mut rows = String::new();
    for (id, check, total, second) in [
        (5, "same", 3, "verified"),
        (6, "same", 2, "verified"),
        (7, "different", 3, "unresolved"),
    ] {
        rows.push_str(&format!(
            "INSERT INTO verifications (verification_id, normalization_policy_version,
               normalized_key, observation_id, requested_url, credentials_removed, started_at,
               finished_at, verification_status, reason, redirect_count, body_bytes_read,
               body_truncated, user_agent, network_scope, content_check, content_detail,
               variants_fetched, variants_total)
             VALUES ({id}, 'citation@1', 'https://docs.example.org/a', 'm1',
               'https://docs.example.org/a', 0, 't0', 't1', 'verified', 'ok', 0, 10, 0, 'ua',
               'public', '{check}', '2 variants with equal content', 2, {total});
             INSERT INTO verification_variants (verification_id, variant, observation_id,
               requested_url, started_at, finished_at, verification_status, reason,
               redirect_count, body_bytes_read, body_truncated, hops)
             VALUES ({id}, 0, 'm1', 'https://docs.example.org/a', 't0', 't1', 'verified', 'ok',
               0, 10, 0, '[]'),
               ({id}, 1, 'm1', 'https://docs.example.org/a/', 't0', 't1', '{second}', 'x', 0,
               10, 0, '[]');\n"
        ));
    }
    c.execute_batch(&rows).expect("v5 rows");
}

#[test]
fn a_version_5_ledger_gets_partial_checks_and_compared_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("v5.sqlite");
    version_5_ledger(&path);
    let old = Connection::open(&path).expect("raw");
    let before = rows(&old, "SELECT * FROM verifications ORDER BY 1");
    let variants_before = rows(&old, "SELECT * FROM verification_variants ORDER BY 1, 2");
    drop(old);

    let conn = open(&path, false).expect("migrate");
    assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
    let got = rows(
        &conn,
        "SELECT verification_id, content_check, variants_compared FROM verifications \
         ORDER BY 1",
    );
    assert_eq!(
        got,
        [
            "Integer(1)|Null|Null|",                   // schema 2: no variants kept
            "Integer(2)|Text(\"single\")|Integer(0)|", // schema 4, no variant rows
            "Integer(3)|Text(\"not-fetched\")|Integer(0)|",
            "Integer(4)|Text(\"not-fetched\")|Integer(0)|",
            "Integer(5)|Text(\"partial\")|Integer(2)|", // 2 of 3 spellings: maybe not the risky one
            "Integer(6)|Text(\"same\")|Integer(2)|",    // every spelling compared
            "Integer(7)|Text(\"different\")|Integer(1)|", // a finding stays
        ]
    );
    let detail: String = conn
        .query_row(
            "SELECT content_detail FROM verifications WHERE verification_id = 5",
            [],
            |r| r.get(0),
        )
        .expect("detail");
    assert_eq!(
        detail,
        "verified before schema 6 with the first 2 of 3 spellings, which may leave out the \
         risky ones: was same (2 variants with equal content); verify the key again to \
         compare every risky spelling"
    );
    // Every other value, every variant row and the view as they were.
    let after = rows(
        &conn,
        &format!("SELECT {V5_VERIFICATION_COLS} FROM verifications ORDER BY 1"),
    );
    for (i, (a, b)) in after.iter().zip(&before).enumerate() {
        if i == 4 {
            assert!(a.contains("partial") && b.contains("same"), "{a}");
        } else {
            assert_eq!(a, b);
        }
    }
    assert_eq!(
        rows(&conn, "SELECT * FROM verification_variants ORDER BY 1, 2"),
        variants_before
    );
    let check: Option<String> = conn
        .query_row(
            "SELECT content_check FROM audit_ledger WHERE observation_id = 'm1'",
            [],
            |r| r.get(0),
        )
        .expect("view");
    assert_eq!(
        check.as_deref(),
        Some("different"),
        "the latest verification"
    );
    // The rebuilt table takes `partial`, still refuses anything else, keeps its index.
    let set = |v: &str| {
        conn.execute(
            "INSERT INTO verifications (normalization_policy_version, normalized_key,
               observation_id, requested_url, credentials_removed, started_at, finished_at,
               verification_status, reason, redirect_count, body_bytes_read,
               body_truncated, user_agent, network_scope, content_check, variants_compared)
             VALUES ('citation@1', 'k', 'm1', 'u', 0, 't', 't', 'error', 'r', 0, 0, 0,
               'ua', 'public', ?1, 1)",
            [v],
        )
    };
    set("partial").expect("partial");
    assert!(set("maybe").is_err());
    let idx: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'verifications_by_key'",
            [],
            |r| r.get(0),
        )
        .expect("index");
    assert_eq!(idx, 1);
    // And `merges` reads the migrated ledger.
    assert!(crate::review::merges(&conn).expect("merges").is_empty());
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
fn missing_database_is_its_own_kind() {
    // The command line's advice (`urlkey ledger --db ... init`) is urlkey-cli's.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("none.sqlite");
    let err = open(&path, false).expect_err("missing");
    assert_eq!(
        err.kind(),
        &crate::error::ErrorKind::NoLedger { path: path.clone() }
    );
    assert!(err.to_string().contains("there is no ledger"), "{err}");
}

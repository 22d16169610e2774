//! Ingest stores the directives; an older ledger gets them from its migration.

use std::path::Path;

use rusqlite::Connection;

use crate::db::{open, user_version, MIGRATIONS, SCHEMA_VERSION};

/// Synthetic rows (reserved example domains): two directives, one malformed; a page
/// fragment without a directive; an invalid URL whose fragment still has one.
const CSV: &str = "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url,fixture\n\
    f1,v,ai-mode,us,2026-12-01T09:00:00Z,\"https://docs.example.org/a#intro:~:text=The%20guide-,explains,-setup&text=a,,b\",synthetic\n\
    f2,v,ai-mode,us,2026-12-01T09:00:00Z,https://docs.example.org/a#intro,synthetic\n\
    f3,v,gemini,us,2026-12-01T09:00:00Z,not a url#:~:text=caf%C3%A9,synthetic\n";

fn ingest(path: &Path, csv: &Path) -> crate::ingest::IngestSummary {
    let mut conn = open(path, true).expect("open");
    let norm = crate::norm::Normalizer::new("citation@1").expect("policy");
    crate::ingest::ingest_file(&mut conn, csv, None, &Default::default(), &norm).expect("ingest")
}

fn rows(c: &Connection, sql: &str) -> Vec<String> {
    let mut st = c.prepare(sql).expect("prepare");
    let n = st.column_count();
    st.query_map([], |r| {
        Ok((0..n)
            .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).expect("v")))
            .collect::<Vec<_>>()
            .join("|"))
    })
    .expect("query")
    .collect::<rusqlite::Result<Vec<_>>>()
    .expect("rows")
}

const FRAGMENTS: &str =
    "SELECT observation_id, n, directive, prefix, text_start, text_end, suffix, \
    malformed FROM text_fragments ORDER BY 1, 2";

#[test]
fn ingest_stores_each_directive_of_an_observed_url() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("c.csv");
    std::fs::write(&csv, CSV).expect("write");
    let path = dir.path().join("l.sqlite");
    let s = ingest(&path, &csv);
    assert_eq!((s.rows_read, s.added), (3, 3));
    let conn = open(&path, false).expect("open");
    assert_eq!(
        rows(&conn, FRAGMENTS),
        [
            "Text(\"f1\")|Integer(1)|Text(\"text=The%20guide-,explains,-setup\")|Text(\"The guide\")|Text(\"explains\")|Null|Text(\"setup\")|Null",
            "Text(\"f1\")|Integer(2)|Text(\"text=a,,b\")|Null|Null|Null|Null|Text(\"empty-term\")",
            "Text(\"f3\")|Integer(1)|Text(\"text=caf%C3%A9\")|Null|Text(\"café\")|Null|Null|Null",
        ]
    );
    // The export and the view carry them, as a JSON array.
    let got: String = conn
        .query_row(
            "SELECT text_fragments FROM audit_ledger WHERE observation_id = 'f1'",
            [],
            |r| r.get(0),
        )
        .expect("view");
    let v: serde_json::Value = serde_json::from_str(&got).expect("json");
    assert_eq!(v[0]["start"], "explains");
    assert_eq!(v[0]["check"], serde_json::Value::Null, "never verified");
    assert_eq!(v[1]["malformed"], "empty-term");
    let none: String = conn
        .query_row(
            "SELECT text_fragments FROM audit_ledger WHERE observation_id = 'f2'",
            [],
            |r| r.get(0),
        )
        .expect("view");
    assert_eq!(none, "[]");
    // Ingesting the file again adds nothing, twice over.
    drop(conn);
    let s = ingest(&path, &csv);
    assert_eq!((s.added, s.unchanged), (0, 3));
    let conn = open(&path, false).expect("open");
    assert_eq!(rows(&conn, FRAGMENTS).len(), 3);
}

#[test]
fn a_ledger_of_the_schema_before_gets_its_directives_from_the_migration() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("c.csv");
    std::fs::write(&csv, CSV).expect("write");
    // The rows as this urlkey ingests them...
    let current = dir.path().join("current.sqlite");
    ingest(&current, &csv);
    // ...in a ledger of the schema before the text fragments (its migrations as they
    // stand), as the previous release would have stored them.
    let mine = MIGRATIONS
        .iter()
        .position(|m| *m == super::MIGRATION)
        .expect("listed");
    let old = dir.path().join("old.sqlite");
    let c = Connection::open(&old).expect("raw");
    let schema: String = MIGRATIONS[..mine].join("\n");
    c.execute_batch(&format!(
        "PRAGMA foreign_keys = OFF;\n{schema}\nPRAGMA user_version = {mine};"
    ))
    .expect("old schema");
    c.execute("ATTACH ?1 AS cur", [current.to_str().expect("utf-8")])
        .expect("attach");
    c.execute_batch(
        "INSERT INTO ingests SELECT * FROM cur.ingests;
         INSERT INTO observations SELECT * FROM cur.observations;
         DETACH cur;",
    )
    .expect("copy");
    let before = rows(&c, "SELECT * FROM observations ORDER BY 1");
    drop(c);

    let conn = open(&old, false).expect("migrate");
    assert_eq!(user_version(&conn).expect("v"), SCHEMA_VERSION);
    let cur = open(&current, false).expect("current");
    assert_eq!(rows(&conn, FRAGMENTS), rows(&cur, FRAGMENTS));
    assert_eq!(rows(&conn, "SELECT * FROM observations ORDER BY 1"), before);
    drop(conn);
    // And the file re-ingests as already present.
    let s = ingest(&old, &csv);
    assert_eq!((s.added, s.unchanged), (0, 3));
}

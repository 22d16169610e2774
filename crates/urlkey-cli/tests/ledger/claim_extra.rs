//! The answer text (`claim`) and every other column (`extra`) are kept and exported.

use crate::common::{ledger, open};
use serde_json::{json, Value};

const CSV: &str = "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url,Claim,Position,Answer excerpt\n\
c1,s,v,us,2026-11-01T09:00:00Z,https://docs.example.org/a,\"Guides say, install first\",1,see the guide\n\
c2,s,v,us,2026-11-01T09:00:00Z,https://docs.example.org/b,,2,\n";

#[test]
fn claim_and_other_columns_are_stored_and_exported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("c.csv");
    std::fs::write(&f, CSV).expect("write");
    let fp = f.to_str().expect("p");
    let r = ledger(&db, &["ingest", fp]).ok();
    assert!(
        r.stderr.contains("kept in extra: Position, Answer excerpt"),
        "{}",
        r.stderr
    );
    let rows: Vec<(Option<String>, String)> = open(&db)
        .prepare("SELECT claim, extra FROM observations ORDER BY observation_id")
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(rows[0].0.as_deref(), Some("Guides say, install first"));
    assert_eq!(rows[1].0, None, "an empty claim is no claim");
    let extra: Value = serde_json::from_str(&rows[0].1).expect("json");
    assert_eq!(
        extra,
        json!({"Position": "1", "Answer excerpt": "see the guide"})
    );
    let extra: Value = serde_json::from_str(&rows[1].1).expect("json");
    assert_eq!(extra, json!({"Position": "2", "Answer excerpt": ""}));

    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let first: Value = serde_json::from_str(out.lines().next().expect("line")).expect("json");
    assert_eq!(first["claim"], "Guides say, install first");
    assert_eq!(
        first["extra"]["Answer excerpt"], "see the guide",
        "an object, not text"
    );
    let out = ledger(&db, &["export"]).ok().stdout;
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    let head = rd.headers().expect("header").clone();
    let at = |name: &str| head.iter().position(|h| h == name).expect(name);
    let rec = rd.records().next().expect("row").expect("row");
    assert_eq!(&rec[at("claim")], "Guides say, install first");
    let extra: Value = serde_json::from_str(&rec[at("extra")]).expect("json text");
    assert_eq!(extra["Position"], "1");

    // The same file again is present; other extra content is a conflict naming extra.
    let r = ledger(&db, &["ingest", fp]).ok();
    assert!(r.stdout.contains("nothing written"), "{}", r.stdout);
    let g = dir.path().join("g.csv");
    std::fs::write(&g, CSV.replace(",1,see the guide", ",1,another excerpt")).expect("write");
    let err = ledger(&db, &["ingest", g.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string().contains("line 2, column observation_id"),
        "{err}"
    );
    assert!(err.to_string().contains("extra: ledger has"), "{err}");
}

#[test]
fn jsonl_extra_keeps_json_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("c.jsonl");
    std::fs::write(
        &f,
        "{\"observation_id\":\"j1\",\"answer_system\":\"s\",\"prompt_version\":\"v\",\"market\":\"us\",\"run_timestamp\":\"2026-11-01\",\"observed_url\":\"https://x.example/\",\"claim\":\"X is best\",\"position\":3,\"tags\":[\"a\",\"b\"]}\n",
    )
    .expect("write");
    ledger(&db, &["ingest", f.to_str().expect("p")]).ok();
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let first: Value = serde_json::from_str(out.lines().next().expect("line")).expect("json");
    assert_eq!(first["claim"], "X is best");
    assert_eq!(first["extra"], json!({"position": 3, "tags": ["a", "b"]}));
}

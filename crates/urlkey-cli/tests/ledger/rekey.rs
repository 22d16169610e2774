//! `ledger rekey` and what normalization changed: the same observations keyed under a
//! second policy beside their original keys, reports under either policy, a comparison
//! of the two, and the merged-by-rule figures. Every expected figure is counted by hand
//! in the comments (docs/ledger.md, "What normalization changed", works the same example).
//!
//! The fixture is SYNTHETIC: seed 004's example rows on reserved placeholder domains,
//! not observed AI citations.

use std::path::{Path, PathBuf};

use crate::common::{dump, ledger, open};
use serde_json::{json, Value};

/// Collection c1 (9 observations, s-09 an invalid URL) and c2 (2), ingested under
/// citation@1. Their keys (citation@1 | clean@1, from `urlkey key`):
///
/// ```text
/// s-01 guide?utm_source=email#evidence  guide  (fragment, tracking)  | guide#evidence (tracking)
/// s-02 guide?utm_source=social          guide  (tracking)            | guide (tracking)
/// s-03 guide                            guide  ()                    | guide ()
/// s-04 report/?gclid=example            report (tracking, slash)     | report/ (tracking)
/// s-05 report                           report ()                    | report ()
/// s-06 story?edition=morning&utm_campaign=test  story?edition=morning (tracking) | the same
/// s-07 guide?b=2&a=1                    guide?a=1&b=2 (sort-query)   | guide?b=2&a=1 ()
/// s-08 guide?a=1&b=2                    guide?a=1&b=2 ()             | guide?a=1&b=2 ()
/// s-09 http://[                         invalid                      | invalid
/// s-10 guide?utm_medium=x  (c2)         guide  (tracking)            | guide (tracking)
/// s-11 about/              (c2)         about  (slash)               | about/ ()
/// ```
const SYNTHETIC: &str = "observation_id,observed_url,collection\n\
s-01,https://docs.example.org/guide?utm_source=email#evidence,c1\n\
s-02,https://docs.example.org/guide?utm_source=social,c1\n\
s-03,https://docs.example.org/guide,c1\n\
s-04,https://research.example.net/report/?gclid=example,c1\n\
s-05,https://research.example.net/report,c1\n\
s-06,https://updates.example.com/story?edition=morning&utm_campaign=test,c1\n\
s-07,https://docs.example.org/guide?b=2&a=1,c1\n\
s-08,https://docs.example.org/guide?a=1&b=2,c1\n\
s-09,http://[,c1\n\
s-10,https://docs.example.org/guide?utm_medium=x,c2\n\
s-11,https://docs.example.org/about/,c2\n";

fn ingested() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = dir.path().join("synthetic-rekey.csv");
    std::fs::write(&f, SYNTHETIC).expect("write");
    ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("path"),
            "--answer-system",
            "assistant-a",
            "--prompt-version",
            "ps-1",
            "--market",
            "us",
            "--run-timestamp",
            "2026-12-01T09:00:00Z",
        ],
    )
    .ok();
    (dir, db)
}

fn json_report(db: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["report", "--format", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&ledger(db, &args).ok().stdout).expect("report JSON")
}

fn table(db: &Path, name: &str) -> String {
    let c = open(db);
    let mut st = c
        .prepare(&format!("SELECT * FROM {name} ORDER BY 1, 2"))
        .expect("prepare");
    let n = st.column_count();
    let mut rows = st.query([]).expect("query");
    let mut out = String::new();
    while let Some(r) = rows.next().expect("row") {
        for i in 0..n {
            let v: rusqlite::types::Value = r.get(i).expect("value");
            out.push_str(&format!("{v:?}|"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn rekey_keeps_the_original_keys_and_a_second_run_changes_nothing() {
    let (_dir, db) = ingested();
    let before = dump(&db);
    let r = ledger(&db, &["rekey", "--policy", "clean@1", "--collection", "c1"]).ok();
    // 9 observations of c1, none under clean@1 yet. Different from citation@1's key:
    // s-01 (fragment kept), s-04 (slash kept), s-07 (order kept) = 3; s-09 is invalid
    // under both.
    assert_eq!(
        r.stdout.trim(),
        "rekey under clean@1 (collections c1): 9 observations; 9 keys added (1 of them \
         invalid under clean@1, stored with the error code; 3 differ from the key the \
         observation was ingested with), 0 already keyed under it (0 at ingest, 0 by an \
         earlier rekey); the original keys are kept"
    );
    assert_eq!(
        dump(&db),
        before,
        "observations and their keys are not rewritten"
    );
    let c = open(&db);
    let keys: Vec<(String, Option<String>)> = c
        .prepare(
            "SELECT observation_id, normalized_key FROM observation_keys \
             WHERE normalization_policy_version = 'clean@1' ORDER BY 1",
        )
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<rusqlite::Result<_>>()
        .expect("rows");
    assert_eq!(keys.len(), 9);
    assert_eq!(
        keys[0],
        (
            "s-01".to_string(),
            Some("https://docs.example.org/guide#evidence".to_string())
        )
    );
    assert_eq!(keys[8], ("s-09".to_string(), None));
    let original: String = c
        .query_row(
            "SELECT normalized_key || ' ' || normalization_policy_version FROM observations \
             WHERE observation_id = 's-01'",
            [],
            |r| r.get(0),
        )
        .expect("original");
    assert_eq!(original, "https://docs.example.org/guide citation@1");
    // Neither table can be rewritten.
    for sql in [
        "UPDATE observation_keys SET normalized_key = 'x'",
        "DELETE FROM observation_keys",
        "DELETE FROM rekeys",
    ] {
        let e = c.execute(sql, []).expect_err(sql);
        assert!(
            e.to_string().contains("never rewritten") || e.to_string().contains("append-only"),
            "{e}"
        );
    }
    drop(c);

    let (keys_before, rekeys_before) = (table(&db, "observation_keys"), table(&db, "rekeys"));
    let again = ledger(&db, &["rekey", "--policy", "clean@1", "--collection", "c1"]).ok();
    assert!(
        again.stdout.contains(
            "9 observations; 0 keys added (0 of them invalid under clean@1, stored with the \
             error code; 0 differ from the key the observation was ingested with), 9 already \
             keyed under it (0 at ingest, 9 by an earlier rekey)"
        ),
        "{}",
        again.stdout
    );
    assert_eq!(table(&db, "observation_keys"), keys_before);
    assert_eq!(table(&db, "rekeys"), rekeys_before, "no rekey recorded");
    assert_eq!(dump(&db), before);

    // The whole ledger: c2's 2 observations added, c1's 9 kept.
    let all = ledger(&db, &["rekey", "--policy", "clean@1"]).ok();
    assert!(
        all.stdout.starts_with(
            "rekey under clean@1 (every observation): 11 observations; 2 keys added (0 of \
             them invalid under clean@1, stored with the error code; 1 differ"
        ),
        "{}",
        all.stdout
    );
    // Under the policy they were ingested with there is nothing to add.
    let same = ledger(&db, &["rekey", "--policy", "citation@1"]).ok();
    assert!(
        same.stdout
            .contains("0 keys added (0 of them invalid under citation@1, stored with the error code; 0 differ from the key the observation was ingested with), 11 already keyed under it (11 at ingest, 0 by an earlier rekey)"),
        "{}",
        same.stdout
    );
    assert_eq!(dump(&db), before);
}

#[test]
fn rekey_refuses_an_unknown_policy_or_collection_and_writes_nothing() {
    let (_dir, db) = ingested();
    let e = ledger(&db, &["rekey", "--policy", "nosuch@9"]).err();
    assert_eq!(e.exit_code(), 5, "{e}");
    let e = ledger(&db, &["rekey", "--policy", "clean@1", "--collection", "c3"]).err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(
        e.to_string()
            .contains("--collection c3: no observations in it; the ledger's collections: c1, c2"),
        "{e}"
    );
    assert_eq!(table(&db, "observation_keys"), "");
    assert_eq!(table(&db, "rekeys"), "");
}

#[test]
fn a_rekey_that_fails_midway_stores_no_key() {
    let (_dir, db) = ingested();
    // A trigger of the test refuses the 5th key: the 4 before it must not stay.
    open(&db)
        .execute_batch(
            "CREATE TRIGGER test_refuses_s05 BEFORE INSERT ON observation_keys \
             WHEN NEW.observation_id = 's-05' \
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
        )
        .expect("trigger");
    let e = ledger(&db, &["rekey", "--policy", "clean@1"]).err();
    assert_eq!(e.exit_code(), 6, "{e}");
    assert!(e.to_string().contains("refused by the test"), "{e}");
    assert_eq!(table(&db, "observation_keys"), "");
    assert_eq!(table(&db, "rekeys"), "");
    open(&db)
        .execute_batch("DROP TRIGGER test_refuses_s05")
        .expect("drop");
    let r = ledger(&db, &["rekey", "--policy", "clean@1"]).ok();
    assert!(r.stdout.contains("11 keys added"), "{}", r.stdout);
}

/// c1 under citation@1 (the ingest's policy, the default): 9 observations, 8 valid,
/// 8 distinct observed URLs, 4 keys: guide (s-01, s-02, s-03), report (s-04, s-05),
/// story (s-06), guide?a=1&b=2 (s-07, s-08). 3 keys merged 2+ URLs; 8 - 4 = 4 URLs merged.
/// The 7 URLs of merged keys by rule: remove-fragment s-01; remove-tracking-parameters
/// s-01, s-02, s-04; remove-trailing-slash s-04; sort-query s-07; unchanged s-03, s-05,
/// s-08. Removed: utm_source s-01, s-02; gclid s-04 (s-06's utm_campaign merged nothing).
fn c1_under_citation() -> Value {
    json!({
        "observed_urls": 8,
        "merged_keys": 3,
        "observed_urls_merged": 4,
        "merged_by_rule": {
            "remove-fragment": 1,
            "remove-tracking-parameters": 3,
            "remove-trailing-slash": 1,
            "sort-query": 1,
            "unchanged": 3
        },
        "merged_by_removed_param": {"gclid": 1, "utm_source": 2},
        "keyed_at_ingest": 9,
        "rekeyed": 0
    })
}

/// c1 under clean@1 (re-keyed): 7 keys of 8 URLs; only guide merged s-02 (tracking)
/// with s-03 (unchanged).
fn c1_under_clean() -> Value {
    json!({
        "observed_urls": 8,
        "merged_keys": 1,
        "observed_urls_merged": 1,
        "merged_by_rule": {"remove-tracking-parameters": 1, "unchanged": 1},
        "merged_by_removed_param": {"utm_source": 1},
        "keyed_at_ingest": 0,
        "rekeyed": 9
    })
}

#[test]
fn the_report_says_what_normalization_merged_per_collection_under_each_policy() {
    let (_dir, db) = ingested();
    // Per collection (--by collection), under the ingest's policy. c2: guide?utm_medium
    // and about/ are 2 keys of 2 URLs: nothing merged.
    let by = json_report(&db, &["--by", "collection"]);
    let groups = by["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["value"], "c1");
    assert_eq!(groups[0]["normalization"], c1_under_citation());
    assert_eq!(groups[0]["unique_keys"], 4);
    assert_eq!(
        groups[1]["normalization"],
        json!({"observed_urls": 2, "merged_keys": 0, "observed_urls_merged": 0,
               "merged_by_rule": {}, "merged_by_removed_param": {},
               "keyed_at_ingest": 2, "rekeyed": 0})
    );
    // The whole ledger: guide gains s-10 (4 URLs), about is alone: 10 URLs, 5 keys.
    let all = json_report(&db, &[]);
    assert_eq!(all["normalization"]["observed_urls"], 10);
    assert_eq!(all["normalization"]["observed_urls_merged"], 5);
    assert_eq!(
        all["normalization"]["merged_by_rule"]["remove-tracking-parameters"],
        4
    );

    // A collection the policy has no observations of: refused, with those it has.
    let e = ledger(&db, &["report", "--collection", "c3"]).err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(
        e.to_string().contains(
            "--collection c3: no observations in it under this policy; its collections: c1, c2"
        ),
        "{e}"
    );
    // Not keyed under clean@1 yet: refused, with the policies the ledger has.
    let e = ledger(&db, &["report", "--policy", "clean@1"]).err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("the ledger has: citation@1"), "{e}");

    ledger(&db, &["rekey", "--policy", "clean@1", "--collection", "c1"]).ok();
    let e = ledger(
        &db,
        &["report", "--policy", "clean@1", "--collection", "c2"],
    )
    .err();
    assert!(e.to_string().contains("its collections: c1"), "{e}");
    // The default stays the policy the observations were ingested with.
    assert_eq!(
        json_report(&db, &["--collection", "c1"])["normalization"],
        c1_under_citation()
    );
    let clean = json_report(&db, &["--policy", "clean@1"]);
    assert_eq!(
        clean["normalization"],
        c1_under_clean(),
        "only c1 was re-keyed"
    );
    assert_eq!(clean["observations"], 9);
    assert_eq!(clean["valid_observations"], 8);
    assert_eq!(clean["unique_keys"], 7);

    // Every format for people names the policy and shows the figures.
    let text = ledger(&db, &["report", "--policy", "clean@1"]).ok().stdout;
    assert!(
        text.starts_with("Citation audit ledger report (normalization policy: clean@1)"),
        "{text}"
    );
    assert!(
        text.contains(
            "observed URLs of merged keys, by rule: remove-tracking-parameters 1, unchanged 1"
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("observations keyed by a rekey") && l.ends_with(" 9")),
        "{text}"
    );
    let md = ledger(
        &db,
        &["report", "--policy", "clean@1", "--format", "markdown"],
    )
    .ok()
    .stdout;
    assert!(
        md.contains("| observed URLs of merged keys, by removed parameter: utm_source | 1 |"),
        "{md}"
    );
    let html = ledger(&db, &["report", "--collection", "c1", "--format", "html"])
        .ok()
        .stdout;
    assert!(
        html.contains("<tr data-figure=\"rule=sort-query\"><td>observed URLs of merged keys, by rule: sort-query</td><td class=\"n\" data-measure=\"normalization\">1</td></tr>"),
        "{html}"
    );
    let csv = ledger(&db, &["report", "--collection", "c1", "--format", "csv"])
        .ok()
        .stdout;
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header = r.headers().expect("header").clone();
    let row = r.records().next().expect("row").expect("row");
    let cell = |c: &str| row[header.iter().position(|h| h == c).expect(c)].to_string();
    assert_eq!(cell("observed_urls"), "8");
    assert_eq!(cell("observed_urls_merged"), "4");
    assert_eq!(
        cell("merged_by_rule"),
        "remove-fragment 1; remove-tracking-parameters 3; remove-trailing-slash 1; \
         sort-query 1; unchanged 3"
    );
}

#[test]
fn one_collection_is_compared_under_two_policies() {
    let (_dir, db) = ingested();
    ledger(&db, &["rekey", "--policy", "clean@1"]).ok();
    let c = json_report(
        &db,
        &[
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--collection",
            "c1",
            "--top-keys",
            "0",
        ],
    );
    assert_eq!(c["a"]["policy"], "citation@1");
    assert_eq!(c["b"]["policy"], "clean@1");
    assert_eq!(c["a"]["collection"], "c1");
    assert_eq!(c["a"]["normalization"], c1_under_citation());
    assert_eq!(c["b"]["normalization"], c1_under_clean());
    // Keys: A's 4, B's 7; guide, report, story and guide?a=1&b=2 in both; guide#evidence,
    // report/ and guide?b=2&a=1 new in B.
    assert_eq!(
        c["keys_summary"],
        json!({"in_a": 4, "in_b": 7, "both": 4, "new": 3, "gone": 0})
    );
    let guide = c["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["name"] == "https://docs.example.org/guide")
        .expect("guide")
        .clone();
    assert_eq!(
        (guide["a"].clone(), guide["b"].clone()),
        (json!(3), json!(2))
    );

    let text = ledger(
        &db,
        &[
            "report",
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--collection",
            "c1",
        ],
    )
    .ok()
    .stdout;
    assert!(
        text.starts_with(
            "Citation audit ledger report (normalization policy: citation@1 (A) and clean@1 (B))"
        ),
        "{text}"
    );
    assert!(text.contains("policy = clean@1, collection = c1"), "{text}");
    let csv = ledger(
        &db,
        &[
            "report",
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--collection",
            "c1",
            "--format",
            "csv",
        ],
    )
    .ok()
    .stdout;
    assert!(
        csv.lines()
            .any(|l| l == "normalization,observed_urls_merged,citation@1,4,8,,clean@1,1,8,,-3,,"),
        "{csv}"
    );

    // Refused: one policy twice, with --policy, with --compare, with --by.
    for args in [
        &["--compare-policies", "clean@1", "clean@1"][..],
        &[
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--policy",
            "clean@1",
        ][..],
        &[
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--compare",
            "c1",
            "c2",
        ][..],
        &[
            "--compare-policies",
            "citation@1",
            "clean@1",
            "--by",
            "market",
        ][..],
        &["--compare-policies", "citation@1", "webkey@1"][..],
    ] {
        let mut argv = vec!["report"];
        argv.extend_from_slice(args);
        let e = ledger(&db, &argv).err();
        assert_eq!(e.exit_code(), 2, "{args:?}: {e}");
    }
}

#[test]
fn a_schema_6_ledger_migrates_and_can_be_rekeyed() {
    let (_dir, db) = ingested();
    // A schema-6 ledger: migration 7 only adds tables, so removing them (and its version)
    // gives the file an earlier urlkey wrote.
    {
        let c = open(&db);
        c.execute_batch("DROP TABLE observation_keys; DROP TABLE rekeys; PRAGMA user_version = 6;")
            .expect("downgrade");
    }
    let before = dump(&db);
    // Read-only (as `serve --ledger` reads it): no re-keyed keys, the same report.
    let ro = urlkey_ledger::report::open_read_only(&db).expect("read-only");
    let opts = urlkey_ledger::report::ReportOptions {
        collection: Some("c1".into()),
        ..Default::default()
    };
    match urlkey_ledger::report::build(&ro, &opts).expect("report") {
        urlkey_ledger::report::Report::Groups(g) => {
            let m = &g.groups[0].measures;
            assert_eq!(
                serde_json::to_value(&m.normalization).expect("json"),
                c1_under_citation()
            );
        }
        _ => panic!("a grouped report"),
    }
    drop(ro);
    // Any command that writes migrates it; nothing of it changes.
    ledger(
        &db,
        &["rekey", "--policy", "webkey@1", "--collection", "c2"],
    )
    .ok();
    let v: i64 = open(&db)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(v, urlkey_ledger::db::SCHEMA_VERSION);
    assert_eq!(dump(&db), before);
    // c2 under webkey@1: example.org/guide and example.org/about, both re-keyed.
    let w = json_report(&db, &["--policy", "webkey@1"]);
    assert_eq!(w["observations"], 2);
    assert_eq!(w["unique_keys"], 2);
    assert_eq!(w["normalization"]["rekeyed"], 2);
    assert_eq!(w["top_publishers"][0]["hostname"], "example.org");
}

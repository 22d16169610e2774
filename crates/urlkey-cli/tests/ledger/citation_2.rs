//! An analyst's comparison of `citation@1` and `citation@2` on one collection: ingested
//! under `citation@1` (the default), re-keyed under `citation@2`, compared in one report.
//! Every figure is counted by hand below.
//!
//! The fixture is SYNTHETIC: reserved placeholder domains and made-up click ids, not
//! observed AI citations.

use crate::common::ledger;
use serde_json::{json, Value};

/// Their keys (citation@1 | citation@2):
///
/// ```text
/// o-1 p?srsltid=AfmBOa     shop.example/p?srsltid=AfmBOa  | shop.example/p
/// o-2 p?srsltid=AfmBOb     shop.example/p?srsltid=AfmBOb  | shop.example/p
/// o-3 p/?SRSLTID=AfmBOc    shop.example/p?SRSLTID=AfmBOc  | shop.example/p
/// o-4 p                    shop.example/p                 | shop.example/p
/// o-5 story?gbraid=1&_gl=2 news.example/story?_gl=2&gbraid=1 | news.example/story
/// o-6 story?utm_source=x   news.example/story             | news.example/story
/// ```
///
/// citation@1: 6 keys of 1 observation each (p's three click-id keys, p, story's click-id
/// key, story). citation@2: 2 keys (p 4, story 2). In both: p and story; gone: the 4
/// click-id keys; new: none.
const SYNTHETIC: &str = "observation_id,observed_url,collection\n\
o-1,https://shop.example/p?srsltid=AfmBOa,c1\n\
o-2,https://shop.example/p?srsltid=AfmBOb,c1\n\
o-3,https://shop.example/p/?SRSLTID=AfmBOc,c1\n\
o-4,https://shop.example/p,c1\n\
o-5,https://news.example/story?gbraid=1&_gl=2,c1\n\
o-6,https://news.example/story?utm_source=x,c1\n";

#[test]
fn a_collection_is_compared_under_citation_1_and_citation_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = dir.path().join("synthetic-click-ids.csv");
    std::fs::write(&f, SYNTHETIC).expect("write");
    let path = f.to_str().expect("path");
    ledger(
        &db,
        &[
            "ingest",
            path,
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
    ledger(&db, &["rekey", "--policy", "citation@2"]).ok();
    let out = ledger(
        &db,
        &[
            "report",
            "--format",
            "json",
            "--compare-policies",
            "citation@1",
            "citation@2",
            "--collection",
            "c1",
            "--top-keys",
            "0",
        ],
    )
    .ok()
    .stdout;
    let c: Value = serde_json::from_str(&out).expect("report JSON");
    assert_eq!(c["a"]["policy"], "citation@1");
    assert_eq!(c["b"]["policy"], "citation@2");
    assert_eq!(
        c["keys_summary"],
        json!({"in_a": 6, "in_b": 2, "both": 2, "new": 0, "gone": 4}),
        "{out}"
    );
    let count = |name: &str| -> (Value, Value) {
        let k = c["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .find(|k| k["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {out}"))
            .clone();
        (k["a"].clone(), k["b"].clone())
    };
    assert_eq!(count("https://shop.example/p"), (json!(1), json!(4)));
    assert_eq!(count("https://news.example/story"), (json!(1), json!(2)));
    assert_eq!(
        count("https://shop.example/p?srsltid=AfmBOa"),
        (json!(1), json!(0))
    );
}

//! Run-to-run stability in `ledger report`, on the synthetic fixture
//! `synthetic-stability.csv` (docs/ledger.md's worked example), counted by hand there and
//! here; every format shows the same figures; `--compare` gives their change.

use crate::common::{fixture, ledger};
use serde_json::{json, Value};

fn ingested() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-stability.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    (dir, db)
}

fn json_report(db: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "report",
        "--format",
        "json",
        "--top",
        "0",
        "--top-keys",
        "0",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ledger(db, &args).ok().stdout).expect("json")
}

#[test]
fn the_fixture_s_stability_matches_the_hand_count() {
    let (_dir, db) = ingested();
    let v = json_report(&db, &[]);
    let s = &v["stability"];
    assert_eq!(s.as_array().map(Vec::len), Some(2), "{s}");
    let a = &s[0];
    assert_eq!(a["answer_system"], "assistant-a");
    // 18 observations of assistant-a, one invalid (st-07): 17 valid = 14 in p1..p3 + 2 of
    // p4 (asked once) + 1 without a prompt_id (st-18).
    assert_eq!(
        a["sample"],
        json!({"valid_observations": 17, "prompts": 3, "runs": 7, "pairs": 4,
               "observations": 14, "prompts_asked_once": 1, "observations_asked_once": 2,
               "observations_without_prompt_id": 1})
    );
    // Keys: p1 2/3 (mean of 2/3, 2/3), p2 1 (st-13's utm_source is dropped: same key),
    // p3 0: 5/9. 4 of 8 (prompt, key) pairs in every run.
    assert_eq!(
        a["keys"],
        json!({"mean_jaccard": 0.5556, "cited": 8, "in_every_run": 4, "in_every_run_share": 0.5,
               "come_and_go": 4, "come_and_go_distinct": 2, "top_come_and_go": [
                 {"name": "https://b.example.com/1", "prompts": 2, "runs_cited": 2, "runs": 5},
                 {"name": "https://c.example.net/1", "prompts": 2, "runs_cited": 2, "runs": 5}]})
    );
    // Hostnames: p1 1/2 (1/2, 1/2), p2 1, p3 0: 1/2; 3 of 7 in every run.
    assert_eq!(a["publishers"]["mean_jaccard"], 0.5);
    assert_eq!(a["publishers"]["in_every_run"], 3);
    assert_eq!(a["publishers"]["cited"], 7);
    assert_eq!(a["publishers"]["in_every_run_share"], 0.4286);
    let b = &s[1];
    assert_eq!(b["answer_system"], "assistant-b");
    assert_eq!(b["keys"]["mean_jaccard"], 1.0);
    assert_eq!(b["sample"]["pairs"], 1);
    // Registrable domains: p1 {com} {com} {com, net}: 1, 1/2; p2 1; p3 0: (3/4+1+0)/3 = 7/12.
    let r = json_report(&db, &["--publisher", "registrable"]);
    let p = &r["stability"][0]["publishers"];
    assert_eq!(p["mean_jaccard"], 0.5833);
    assert_eq!(
        (p["cited"].clone(), p["in_every_run"].clone()),
        (json!(6), json!(3))
    );
    assert_eq!(p["top_come_and_go"][0]["name"], "example.net");
    assert_eq!(p["top_come_and_go"][1]["name"], "example.com");
    // `--top-keys 1` lists one key that comes and goes, still counting both.
    let out = ledger(&db, &["report", "--format", "json", "--top-keys", "1"])
        .ok()
        .stdout;
    let t: Value = serde_json::from_str(&out).expect("json");
    let k = &t["stability"][0]["keys"];
    assert_eq!(k["top_come_and_go"].as_array().map(Vec::len), Some(1));
    assert_eq!(k["come_and_go_distinct"], 2);
}

#[test]
fn each_group_has_its_answer_systems_and_the_sample_adds_up() {
    let (_dir, db) = ingested();
    let g = json_report(&db, &["--by", "answer_system"]);
    let whole = json_report(&db, &[]);
    for (i, group) in g["groups"].as_array().expect("groups").iter().enumerate() {
        assert_eq!(group["stability"].as_array().map(Vec::len), Some(1));
        // Grouping by the answer system changes no prompt: the same figures.
        assert_eq!(group["stability"][0], whole["stability"][i]);
    }
    // On both fixtures and every grouping, each system's valid observations are the sum of
    // the measured, the asked-once and the prompt-less ones, and add up to the group's.
    let dir = tempfile::tempdir().expect("tempdir");
    let other = dir.path().join("citations.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&other, &["ingest", f.to_str().expect("path")]).ok();
    for db in [&db, &other] {
        for by in ["answer_system", "market", "collection", "prompt_version"] {
            let g = json_report(db, &["--by", by]);
            for group in g["groups"].as_array().expect("groups") {
                let mut sum = 0;
                for s in group["stability"].as_array().expect("stability") {
                    let x = &s["sample"];
                    let n = |k: &str| x[k].as_u64().expect("count");
                    assert_eq!(
                        n("valid_observations"),
                        n("observations")
                            + n("observations_asked_once")
                            + n("observations_without_prompt_id"),
                        "{x}"
                    );
                    assert_eq!(n("pairs"), n("runs") - n("prompts"));
                    sum += n("valid_observations");
                }
                assert_eq!(Some(sum), group["valid_observations"].as_u64());
            }
        }
    }
}

#[test]
fn every_format_shows_the_hand_counted_figures() {
    let (_dir, db) = ingested();
    for format in ["table", "markdown", "html", "csv"] {
        let out = ledger(&db, &["report", "--format", format]).ok().stdout;
        let sample = if format == "csv" {
            "assistant-a: prompts 3 runs 7 pairs 4 observations 14 asked_once 1 (2 obs) \
             without_prompt_id 1"
        } else {
            "3 prompts asked more than once, 7 runs, 4 pairs of consecutive runs, \
             14 valid observations; set apart: 1 prompts asked once (2 valid observations), 1 \
             valid observations without a prompt_id"
        };
        for figure in [
            "0.5556",
            "4 of 8 = 0.5000",
            "3 of 7 = 0.4286",
            "4 (2 distinct)",
            "https://b.example.com/1",
            "c.example.net",
            sample,
        ] {
            assert!(out.contains(figure), "{format} lacks {figure}:\n{out}");
        }
    }
}

const TWO_COLLECTIONS: &str =
    "observation_id,prompt_id,answer_system,collection,run_timestamp,observed_url,fixture
w1-1,p1,sys,w1,2026-12-01T09:00:00Z,https://a.example.com/1,synthetic
w1-2,p1,sys,w1,2026-12-01T09:00:00Z,https://a.example.com/2,synthetic
w1-3,p1,sys,w1,2026-12-02T09:00:00Z,https://a.example.com/1,synthetic
w2-1,p1,sys,w2,2026-12-08T09:00:00Z,https://a.example.com/1,synthetic
w2-2,p1,sys,w2,2026-12-09T09:00:00Z,https://a.example.com/1,synthetic
";

#[test]
fn compare_gives_the_change_of_each_figure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, csv) = (dir.path().join("l.sqlite"), dir.path().join("w.csv"));
    std::fs::write(&csv, TWO_COLLECTIONS).expect("write");
    ledger(
        &db,
        &[
            "ingest",
            csv.to_str().expect("path"),
            "--prompt-version",
            "v",
            "--market",
            "us",
        ],
    )
    .ok();
    // w1: {A1, A2} then {A1}: Jaccard 1/2, A1 in both runs (1 of 2); w2: {A1} twice: 1, 1 of 1.
    let v = json_report(&db, &["--compare", "w1", "w2"]);
    let row = |figure: &str| {
        v["stability"]
            .as_array()
            .expect("stability")
            .iter()
            .find(|r| r["figure"] == figure)
            .cloned()
            .unwrap_or_else(|| panic!("no {figure}: {v}"))
    };
    assert_eq!(
        row("keys.mean_jaccard"),
        json!({"answer_system": "sys", "figure": "keys.mean_jaccard", "a": 0.5, "b": 1.0, "change": 0.5})
    );
    assert_eq!(row("keys.in_every_run_share")["change"], 0.5);
    assert_eq!(row("keys.come_and_go")["change"], -1);
    assert_eq!(row("sample.runs")["a"], 2);
    // Each side's own figures are there too.
    assert_eq!(v["a"]["stability"][0]["keys"]["mean_jaccard"], 0.5);
    // The same in the CSV (a ratio in the share columns) and the formats for people.
    let out = ledger(&db, &["report", "--compare", "w1", "w2", "--format", "csv"])
        .ok()
        .stdout;
    assert!(
        out.lines()
            .any(|l| l == "stability,sys keys.mean_jaccard,w1,,,0.5000,w2,,,1.0000,,+0.5000,"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l == "stability,sys keys.come_and_go,w1,1,,,w2,0,,,-1,,"),
        "{out}"
    );
    for format in ["table", "markdown", "html"] {
        let out = ledger(
            &db,
            &["report", "--compare", "w1", "w2", "--format", format],
        )
        .ok()
        .stdout;
        assert!(
            out.lines().any(|l| l.contains("keys.mean_jaccard")
                && l.contains("0.5000")
                && l.contains("1.0000")
                && l.contains("+0.5000")),
            "{format}:\n{out}"
        );
    }
}

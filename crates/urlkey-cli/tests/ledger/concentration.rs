//! Concentration (top-1, top-5 share, HHI) for every report and group, Markdown reports
//! and `report -o`. Every figure is computed by hand below.

use crate::common::{fixture, ledger};
use serde_json::Value;
use urlkey_ledger::report::Concentration;

fn ingested() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    (dir, db)
}

#[test]
fn concentration_by_hand() {
    // One publisher: everything on it.
    let c = Concentration::of(&[5]);
    assert_eq!((c.top1_share, c.top5_share, c.hhi), (1.0, 1.0, 1.0));
    // Four equal publishers: HHI = 4 * (1/4)^2 = 0.25.
    let c = Concentration::of(&[3, 3, 3, 3]);
    assert_eq!((c.top1_share, c.top5_share, c.hhi), (0.25, 1.0, 0.25));
    // 6, 2 and eight publishers with 1 (16 in all): top1 6/16 = 0.375; top5 = 11/16 =
    // 0.6875; HHI = (36 + 4 + 8 * 1)/256 = 48/256 = 0.1875.
    let c = Concentration::of(&[6, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(c.valid_observations, 16);
    assert_eq!(c.publishers, 10);
    assert_eq!((c.top1_share, c.top5_share, c.hhi), (0.375, 0.6875, 0.1875));
    // Nothing: zeros, not NaN.
    let c = Concentration::of(&[]);
    assert_eq!((c.top1_share, c.top5_share, c.hhi), (0.0, 0.0, 0.0));
}

#[test]
fn the_fixture_s_concentration_matches_the_hand_computation() {
    let (_dir, db) = ingested();
    let out = ledger(&db, &["report", "--format", "json"]).ok().stdout;
    let v: Value = serde_json::from_str(&out).expect("json");
    // Valid observations per publisher (crates/urlkey-ledger/tests/fixtures/README.md): docs.example.org 7,
    // updates.example.com 4, shop.example.com 3, wiki.example.org 3, then 2, 2, 2, 1: 24.
    // top1 = 7/24 = 0.29166 -> 0.2917; top5 = (7+4+3+3+2)/24 = 19/24 = 0.79166 -> 0.7917;
    // HHI = (49+16+9+9+4+4+4+1)/576 = 96/576 = 0.16666 -> 0.1667.
    let c = &v["concentration"];
    assert_eq!(c["top1_share"], 0.2917);
    assert_eq!(c["top5_share"], 0.7917);
    assert_eq!(c["hhi"], 0.1667);
    assert_eq!(c["valid_observations"], 24);
    assert_eq!(c["publishers"], 8);
    // The top list does not limit the index: --top 1 gives the same concentration.
    let out = ledger(&db, &["report", "--format", "json", "--top", "1"])
        .ok()
        .stdout;
    let v1: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v1["concentration"], v["concentration"]);
    // Every group has its own.
    let out = ledger(&db, &["report", "--format", "json", "--by", "market"])
        .ok()
        .stdout;
    let g: Value = serde_json::from_str(&out).expect("json");
    for grp in g["groups"].as_array().expect("groups") {
        let c = &grp["concentration"];
        assert_eq!(c["valid_observations"], grp["valid_observations"]);
        let h = c["hhi"].as_f64().expect("hhi");
        assert!(h > 0.0 && h <= 1.0, "{grp}");
    }
    let t = ledger(&db, &["report"]).ok().stdout;
    assert!(
        t.contains("concentration over 8 publishers (shares of the 24 valid observations): top1 0.2917, top5 0.7917, HHI 0.1667"),
        "{t}"
    );
    let c = ledger(&db, &["report", "--format", "csv"]).ok().stdout;
    let mut r = csv::Reader::from_reader(c.as_bytes());
    let h = r.headers().expect("h").clone();
    let rec = r.records().next().expect("row").expect("row");
    let at = |n: &str| h.iter().position(|x| x == n).expect(n);
    assert_eq!(&rec[at("top5_share")], "0.7917");
    assert_eq!(&rec[at("hhi")], "0.1667");
}

#[test]
fn markdown_report_to_a_file() {
    let (dir, db) = ingested();
    let md = dir.path().join("report.md");
    let r = ledger(
        &db,
        &[
            "report",
            "--format",
            "markdown",
            "-o",
            md.to_str().expect("p"),
        ],
    )
    .ok();
    assert!(
        r.stdout.is_empty(),
        "the report went to the file: {}",
        r.stdout
    );
    let text = std::fs::read_to_string(&md).expect("report");
    assert!(
        text.starts_with("# Citation audit ledger report\n"),
        "{text}"
    );
    assert!(
        text.contains("**Sample:** 27 observations; prompt-set versions: ps-2026-10, ps-2026-11"),
        "{text}"
    );
    assert!(text.contains("| unique URL keys | 15 |"), "{text}");
    assert!(
        text.contains("| top-5 publishers share | 0.7917 (of 24) |"),
        "{text}"
    );
    assert!(
        text.contains("| HHI over 8 publishers | 0.1667 |"),
        "{text}"
    );
    assert!(
        text.contains("| docs.example.org | 7 | 0.2917 (7/24) |"),
        "{text}"
    );
    assert!(text.contains("not market share"), "{text}");
    // The ledger itself is never an output.
    let err = ledger(&db, &["report", "-o", db.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 2);
}

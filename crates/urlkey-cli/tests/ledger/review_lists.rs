//! The report lists the merges to review (not only counts them) and the top
//! keys with `split` decisions applied, in every format.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{ledger, TestServer};

/// Ingests `rows` (observation id, URL) as one more collection.
fn ingest(dir: &Path, db: &Path, name: &str, rows: &[(&str, String)]) {
    ingest_as(dir, db, name, "test", rows)
}

/// Ingests `rows` as one more collection of the answer system `system`.
fn ingest_as(dir: &Path, db: &Path, name: &str, system: &str, rows: &[(&str, String)]) {
    let mut csv = String::from("observation_id,observed_url\n");
    for (id, url) in rows {
        csv.push_str(&format!("{id},{url}\n"));
    }
    let f = dir.join(name);
    std::fs::write(&f, csv).expect("write");
    ledger(
        db,
        &[
            "ingest",
            f.to_str().expect("path"),
            "--answer-system",
            system,
            "--prompt-version",
            "v1",
            "--market",
            "local",
            "--run-timestamp",
            "2026-11-30T00:00:00Z",
        ],
    )
    .ok();
}

fn review(db: &Path, key: &str, merge: &str) {
    ledger(
        db,
        &[
            "review",
            "add",
            "--key",
            key,
            "--merge",
            merge,
            "--reviewer",
            "ann",
        ],
    )
    .ok();
}

fn report(db: &Path, args: &[&str]) -> String {
    let mut a = vec!["report", "--top-keys", "0"];
    a.extend_from_slice(args);
    ledger(db, &a).ok().stdout
}

/// A ledger with a risky (trailing-slash) merge in each state: /article `same`, /dated
/// `similar`, /report `different` (all three verified against the test server), /u1 never
/// verified, /c1 confirmed and /s1 split by a person.
fn ledger_in_every_state(s: &TestServer) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let u = |p: &str| s.url(p);
    ingest(
        dir.path(),
        &db,
        "checked.csv",
        &[
            ("a-1", u("/article")),
            ("a-2", u("/article/")),
            ("d-1", u("/dated")),
            ("d-2", u("/dated/")),
            ("r-1", u("/report")),
            ("r-2", u("/report/")),
            ("r-3", u("/report/")),
        ],
    );
    ledger(
        &db,
        &[
            "verify",
            "--allow-loopback",
            "--timeout",
            "30",
            "--per-host-delay",
            "0",
        ],
    )
    .ok();
    // Ingested after verify: never verified.
    ingest(
        dir.path(),
        &db,
        "later.csv",
        &[
            ("u-1", u("/u1")),
            ("u-2", u("/u1/")),
            ("c-1", u("/c1")),
            ("c-2", u("/c1/")),
            ("s-1", u("/s1")),
            ("s-2", u("/s1/")),
            ("s-3", u("/s1/")),
        ],
    );
    review(&db, &u("/c1"), "confirm");
    review(&db, &u("/s1"), "split");
    (dir, db)
}

#[test]
fn the_report_lists_each_merge_to_review_in_every_format() {
    let s = TestServer::start();
    let (_dir, db) = ledger_in_every_state(&s);
    let u = |p: &str| s.url(p);

    // JSON: every merge to review, most observations first, ties by key; /article (same),
    // /c1 (confirmed) and /s1 (split) are not listed.
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    assert_eq!(r["review"]["merges_to_review"], 3);
    assert_eq!(
        r["review"]["merges_to_review_list"],
        json!([
            {"key": u("/report"), "variants": 2, "spellings": [u("/report"), u("/report/")],
             "risky_rules": ["remove-trailing-slash"], "content_check": "different",
             "observations": 3, "spellings_total": 2, "spellings_compared": 2},
            {"key": u("/dated"), "variants": 2, "spellings": [u("/dated"), u("/dated/")],
             "risky_rules": ["remove-trailing-slash"], "content_check": "similar",
             "observations": 2, "spellings_total": 2, "spellings_compared": 2},
            {"key": u("/u1"), "variants": 2, "spellings": [u("/u1"), u("/u1/")],
             "risky_rules": ["remove-trailing-slash"], "content_check": "unverified",
             "observations": 2, "spellings_total": 2, "spellings_compared": null},
        ])
    );

    let table = report(&db, &[]);
    let lines: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("risky rules remove-trailing-slash"))
        .collect();
    assert_eq!(
        lines,
        [
            format!(
                "    {}  observations 3  variants 2 ({}, {})  risky rules remove-trailing-slash  \
                 content check different (2 of 2 spellings compared)",
                u("/report"),
                u("/report"),
                u("/report/")
            ),
            format!(
                "    {}  observations 2  variants 2 ({}, {})  risky rules remove-trailing-slash  \
                 content check similar (2 of 2 spellings compared)",
                u("/dated"),
                u("/dated"),
                u("/dated/")
            ),
            format!(
                "    {}  observations 2  variants 2 ({}, {})  risky rules remove-trailing-slash  \
                 content check unverified",
                u("/u1"),
                u("/u1"),
                u("/u1/")
            ),
        ],
        "{table}"
    );

    let md = report(&db, &["--format", "markdown"]);
    assert!(md.contains("### Merges to review"), "{md}");
    let md_rows: Vec<&str> = md
        .lines()
        .filter(|l| {
            l.ends_with("| remove-trailing-slash | different (2 of 2 spellings compared) |")
                || l.ends_with("| remove-trailing-slash | similar (2 of 2 spellings compared) |")
                || l.ends_with("| remove-trailing-slash | unverified |")
        })
        .collect();
    assert_eq!(md_rows.len(), 3, "{md}");
    assert_eq!(
        md_rows[0],
        format!(
            "| `{}` | 3 | 2 | {}, {} | remove-trailing-slash | different (2 of 2 spellings \
             compared) |",
            u("/report"),
            u("/report"),
            u("/report/")
        )
    );
    assert!(md_rows[2].contains(&format!("`{}`", u("/u1"))), "{md}");

    let html = report(&db, &["--format", "html"]);
    let merge_rows: Vec<&str> = html
        .lines()
        .filter(|l| l.starts_with("<tr data-merge="))
        .collect();
    assert_eq!(merge_rows.len(), 3, "{html}");
    assert_eq!(
        merge_rows[0],
        format!(
            "<tr data-merge=\"{k}\"><td><span class=\"url\">{k}</span></td><td class=\"n\">3</td>\
             <td class=\"n\">2</td><td><span class=\"url\">{k}</span><br><span class=\"url\">{k}/</span></td>\
             <td>remove-trailing-slash</td><td>different (2 of 2 spellings \
             compared)</td></tr>",
            k = u("/report")
        )
    );
    assert!(merge_rows[1].contains(&u("/dated")), "{html}");
    assert!(
        merge_rows[2].ends_with("<td>unverified</td></tr>"),
        "{html}"
    );
    for not_listed in ["/article", "/c1", "/s1"] {
        let k = u(not_listed);
        assert!(!html.contains(&format!("data-merge=\"{k}\"")), "{html}");
        assert!(
            !r["review"]["merges_to_review_list"]
                .to_string()
                .contains(&format!("\"{k}\"")),
            "{not_listed} is not to review"
        );
    }

    let csv = report(&db, &["--format", "csv"]);
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let h = rd.headers().expect("header").clone();
    let col = h
        .iter()
        .position(|c| c == "merges_to_review_list")
        .expect("column");
    let row = rd.records().next().expect("row").expect("row");
    assert_eq!(
        &row[col],
        format!(
            "{} 3 variants 2 rules remove-trailing-slash check different (2 of 2 spellings \
             compared); {} 2 variants 2 rules remove-trailing-slash check similar (2 of 2 \
             spellings compared); \
             {} 2 variants 2 rules remove-trailing-slash check unverified",
            u("/report"),
            u("/dated"),
            u("/u1")
        )
    );
}

#[test]
fn the_top_keys_are_recomputed_with_splits_applied() {
    let s = TestServer::start();
    let (_dir, db) = ledger_in_every_state(&s);
    let u = |p: &str| s.url(p);
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    // /s1 (3 observations) is one key in top_keys, two keys with splits: /s1/ 2, /s1 1.
    assert_eq!(r["top_keys"][1]["key"], u("/s1"));
    assert_eq!(r["top_keys"][1]["observations"], 3);
    let with_splits: Vec<(String, u64, Value)> = r["review"]["top_keys_with_splits"]
        .as_array()
        .expect("array")
        .iter()
        .map(|k| {
            (
                k["key"].as_str().expect("key").to_string(),
                k["observations"].as_u64().expect("n"),
                k["split_from"].clone(),
            )
        })
        .collect();
    assert_eq!(
        with_splits,
        vec![
            (u("/report"), 3, Value::Null),
            (u("/article"), 2, Value::Null),
            (u("/c1"), 2, Value::Null),
            (u("/dated"), 2, Value::Null),
            (u("/s1/"), 2, json!(u("/s1"))),
            (u("/u1"), 2, Value::Null),
            (u("/s1"), 1, json!(u("/s1"))),
        ]
    );
    // Shares of the same 14 valid observations as the other measures.
    assert_eq!(r["valid_observations"], 14);
    assert_eq!(r["review"]["top_keys_with_splits"][0]["share"], 0.2143);
    assert_eq!(r["review"]["unique_keys_with_splits"], 7);

    let table = report(&db, &[]);
    let recount = table
        .find("top URL keys with splits applied (shares of the 14 valid observations):")
        .expect("the recount");
    let top = table.find("  top URL keys (share").expect("the top keys");
    assert!(top < recount, "the recount follows the top keys: {table}");
    assert!(
        table.contains(&format!(
            "    {}  2  0.1429  (variant of split key {})",
            u("/s1/"),
            u("/s1")
        )),
        "{table}"
    );
    let md = report(&db, &["--format", "markdown"]);
    assert!(
        md.contains(&format!(
            "| `{}` | 1 | 0.0714 (1/14) | `{}` |",
            u("/s1"),
            u("/s1")
        )),
        "{md}"
    );
    let html = report(&db, &["--format", "html"]);
    assert_eq!(html.matches("<tr data-split-top=").count(), 7, "{html}");
    let csv = report(&db, &["--format", "csv"]);
    assert!(
        csv.contains(&format!("{} 2 0.1429 split from {}", u("/s1/"), u("/s1"))),
        "{csv}"
    );
}

#[test]
fn without_a_split_there_are_no_top_keys_with_splits() {
    let s = TestServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    ingest(
        dir.path(),
        &db,
        "one.csv",
        &[("a-1", s.url("/x")), ("a-2", s.url("/x/"))],
    );
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    assert_eq!(r["review"]["top_keys_with_splits"], json!([]));
    assert!(!report(&db, &[]).contains("with splits applied ("));
    assert!(!report(&db, &["--format", "markdown"]).contains("Top URL keys with splits"));
    assert!(!report(&db, &["--format", "html"]).contains("data-split-top"));
}

#[test]
fn the_text_formats_list_twenty_merges_and_say_how_many_more() {
    let s = TestServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let mut rows = Vec::new();
    for i in 0..23 {
        rows.push((format!("m{i:02}-a"), s.url(&format!("/m{i:02}"))));
        rows.push((format!("m{i:02}-b"), s.url(&format!("/m{i:02}/"))));
    }
    let rows: Vec<(&str, String)> = rows.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    ingest(dir.path(), &db, "many.csv", &rows);
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    let all = r["review"]["merges_to_review_list"].as_array().expect("a");
    assert_eq!(all.len(), 23, "JSON has all of them");
    assert_eq!(all[22]["key"], s.url("/m22"), "ties by key");
    let table = report(&db, &[]);
    assert_eq!(table.matches("content check unverified").count(), 20);
    assert!(
        table.contains("    3 more; the JSON report lists all"),
        "{table}"
    );
    let md = report(&db, &["--format", "markdown"]);
    assert_eq!(md.matches("| unverified |").count(), 20, "{md}");
    assert!(
        md.contains("\n3 more merges to review are not listed here.\n"),
        "{md}"
    );
    assert!(
        !md.contains("--format"),
        "a deliverable names no flag: {md}"
    );
    let html = report(&db, &["--format", "html"]);
    assert_eq!(html.matches("<tr data-merge=").count(), 20);
    assert!(html.contains("<p class=\"more\">3 more merges to review are not listed here.</p>"));
    assert!(
        !html.contains("--"),
        "no command-line wording in the HTML report"
    );
}

#[test]
fn a_comparison_csv_has_merge_to_review_rows_for_both_sides() {
    // The fixture: docs/guide (001, 002, 006 on 11-01; 023, 027 on 11-08), research/report
    // (003; 020) and shop/item (007, 008 on 11-01 only) are the merges to review.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = crate::common::fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    let csv = report(
        &db,
        &[
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--format",
            "csv",
        ],
    );
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("merge_to_review,"))
        .collect();
    assert_eq!(
        rows,
        [
            "merge_to_review,https://docs.example.org/guide,c-2026-11-01,3,14,0.2143,\
             c-2026-11-08,2,10,0.2000,-1,-0.0143,unverified",
            "merge_to_review,https://research.example.net/report,c-2026-11-01,1,14,0.0714,\
             c-2026-11-08,1,10,0.1000,0,+0.0286,unverified",
            "merge_to_review,https://shop.example.com/item?a=1&b=2,c-2026-11-01,2,14,0.1429,\
             c-2026-11-08,0,10,0.0000,-2,-0.1429,unverified",
        ],
        "{csv}"
    );
}

/// alpha cites /p and /q, beta /p/ and /q: one key each for /p under the ledger's policy,
/// so the keys overlap fully; a person splits /p, and with the split applied the two
/// systems share only /q.
#[test]
fn the_overlap_between_answer_systems_is_recomputed_with_splits_applied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let u = |p: &str| format!("https://example.com{p}");
    ingest_as(
        dir.path(),
        &db,
        "a.csv",
        "alpha",
        &[("a-1", u("/p")), ("a-2", u("/q"))],
    );
    ingest_as(
        dir.path(),
        &db,
        "b.csv",
        "beta",
        &[("b-1", u("/p/")), ("b-2", u("/q"))],
    );
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    let o = &r["overlap"][0];
    assert_eq!((&o["a"], &o["b"]), (&json!("alpha"), &json!("beta")), "{r}");
    assert_eq!(
        (&o["keys"]["both"], &o["keys"]["either"]),
        (&json!(2), &json!(2))
    );
    assert!(o.get("keys_with_splits").is_none(), "no split yet: {o}");

    review(&db, &u("/p"), "split");
    let r: Value = serde_json::from_str(&report(&db, &["--format", "json"])).expect("json");
    let o = &r["overlap"][0];
    assert_eq!(
        (&o["keys"]["both"], &o["keys"]["either"]),
        (&json!(2), &json!(2))
    );
    let k = &o["keys_with_splits"];
    assert_eq!(
        (
            &k["both"],
            &k["either"],
            &k["jaccard"],
            &k["in_a"],
            &k["in_b"]
        ),
        (&json!(1), &json!(3), &json!(0.3333), &json!(2), &json!(2)),
        "{o}"
    );
    let text = report(&db, &[]);
    assert!(
        text.contains("with split decisions applied: keys 1 of 3 = 0.3333 (2 and 2)"),
        "{text}"
    );
    let md = report(&db, &["--format", "markdown"]);
    assert!(md.contains("| alpha ~ beta | 1 / 3 | 0.3333 |"), "{md}");
    let html = report(&db, &["--format", "html"]);
    assert!(html.contains("data-splits=\"applied\""), "{html}");
    assert!(
        html.contains("data-measure=\"keys_jaccard\">0.3333<"),
        "{html}"
    );
    let csv = report(&db, &["--format", "csv"]);
    assert!(csv.contains("keys with splits 1/3 0.3333"), "{csv}");
}

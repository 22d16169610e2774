//! The report measures beyond the plain counts: several `--by` columns with `values`, the registrable
//! roll-up, top keys, overlap between answer systems (Jaccard) and `--compare`. Every
//! expected figure is worked out by hand in the comments, from crates/urlkey-ledger/tests/fixtures/README.md.

use crate::common::{fixture, ledger};
use serde_json::{json, Value};

fn ingested(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture(name);
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    (dir, db)
}

fn report_json(db: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["report", "--format", "json"];
    args.extend_from_slice(extra);
    let r = ledger(db, &args).ok();
    serde_json::from_str(&r.stdout).expect("report JSON")
}

#[test]
fn several_by_columns_carry_their_values() {
    let (_dir, db) = ingested("synthetic-citations.csv");
    let got = report_json(&db, &["--by", "answer_system,market", "--top", "3"]);
    assert_eq!(got["by"], "answer_system,market");
    let groups = got["groups"].as_array().expect("groups");
    // Odd rows are assistant-a, even assistant-b; rows 1-20 us, 21-27 de:
    // (a, de) = 21, 23, 25, 27; (a, us) = 1, 3, ..., 19 (015 and 017 invalid);
    // (b, de) = 22, 24, 26; (b, us) = 2, 4, ..., 20 (016 invalid). 4 + 10 + 3 + 10 = 27.
    let want = [
        ("assistant-a", "de", 4, 4),
        ("assistant-a", "us", 10, 8),
        ("assistant-b", "de", 3, 3),
        ("assistant-b", "us", 10, 9),
    ];
    assert_eq!(groups.len(), want.len());
    for (g, (a, m, n, v)) in groups.iter().zip(want) {
        assert_eq!(g["values"], json!({"answer_system": a, "market": m}), "{g}");
        assert_eq!(g["value"], format!("{a} / {m}"));
        assert_eq!(g["observations"], n, "{g}");
        assert_eq!(g["valid_observations"], v, "{g}");
        assert_eq!(g["sample"]["answer_systems"], json!([a]));
        assert_eq!(g["sample"]["markets"], json!([m]));
    }
    // (a, de): 021 xn--bcher-kva, 023 docs/guide, 025 updates/story, 027 docs/guide:
    // docs 2/4, then updates and xn-- 1/4 each (ties by name); 3 keys; HHI
    // (4 + 1 + 1)/16 = 0.375. One answer system: no overlap.
    let ade = &groups[0];
    assert_eq!(
        ade["top_publishers"],
        json!([
            {"hostname": "docs.example.org", "observations": 2, "share": 0.5},
            {"hostname": "updates.example.com", "observations": 1, "share": 0.25},
            {"hostname": "xn--bcher-kva.example", "observations": 1, "share": 0.25}
        ])
    );
    assert_eq!(ade["unique_keys"], 3);
    assert_eq!(ade["concentration"]["hhi"], 0.375);
    assert_eq!(ade["overlap"], json!([]));
    // (a, us): 8 valid: docs 2 (001, 005), shop 2 (007, 009), research, news, wiki, blog
    // 1 each: HHI (4 + 4 + 1 + 1 + 1 + 1)/64 = 12/64 = 0.1875.
    assert_eq!(groups[1]["unique_publishers"], 6);
    assert_eq!(groups[1]["concentration"]["hhi"], 0.1875);

    // One column keeps `value` and gains `values`.
    let one = report_json(&db, &["--by", "market"]);
    assert_eq!(one["by"], "market");
    assert_eq!(one["groups"][0]["value"], "de");
    assert_eq!(one["groups"][0]["values"], json!({"market": "de"}));

    // Table, CSV and Markdown show each column.
    let t = ledger(&db, &["report", "--by", "answer_system,market"])
        .ok()
        .stdout;
    assert!(
        t.contains("== answer_system = assistant-b, market = us\nSample: 10 observations"),
        "{t}"
    );
    let md = ledger(
        &db,
        &[
            "report",
            "--by",
            "answer_system,market",
            "--format",
            "markdown",
        ],
    )
    .ok()
    .stdout;
    assert!(
        md.contains("## answer_system = assistant-a, market = de\n\n**Sample:** 4 observations"),
        "{md}"
    );
    let c = ledger(
        &db,
        &["report", "--by", "answer_system,market", "--format", "csv"],
    )
    .ok()
    .stdout;
    let mut r = csv::Reader::from_reader(c.as_bytes());
    let h = r.headers().expect("h").clone();
    let at = |n: &str| h.iter().position(|x| x == n).expect(n);
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(&rows[2][at("by")], "answer_system,market");
    assert_eq!(&rows[2][at("answer_system")], "assistant-b");
    assert_eq!(&rows[2][at("market")], "de");
    assert_eq!(&rows[2][at("observations")], "3");

    // A column named twice is refused.
    let err = ledger(&db, &["report", "--by", "market,market"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("twice"), "{err}");
}

#[test]
fn registrable_domains_roll_hostnames_up() {
    let (_dir, db) = ingested("synthetic-citations.csv");
    let got = report_json(&db, &["--publisher", "registrable", "--top", "0"]);
    // docs.example.org 7 + wiki.example.org 3 = example.org 10; updates 4 + shop 3 +
    // news 2 = example.com 9; research 2 + blog 2 = example.net 4; xn--bcher-kva.example
    // is under the default `*` rule: itself, 1. 24 in all, 4 publishers.
    assert_eq!(got["publisher_unit"], "registrable");
    assert_eq!(got["unique_publishers"], 4);
    assert_eq!(
        got["top_publishers"],
        json!([
            {"registrable_domain": "example.org", "observations": 10, "share": 0.4167,
             "hostnames": ["docs.example.org", "wiki.example.org"]},
            {"registrable_domain": "example.com", "observations": 9, "share": 0.375,
             "hostnames": ["news.example.com", "shop.example.com", "updates.example.com"]},
            {"registrable_domain": "example.net", "observations": 4, "share": 0.1667,
             "hostnames": ["blog.example.net", "research.example.net"]},
            {"registrable_domain": "xn--bcher-kva.example", "observations": 1, "share": 0.0417,
             "hostnames": ["xn--bcher-kva.example"]}
        ])
    );
    // top1 10/24 = 0.41666 -> 0.4167; top5 = all = 1; HHI (100 + 81 + 16 + 1)/576 =
    // 198/576 = 0.34375 -> 0.3438.
    assert_eq!(
        got["concentration"],
        json!({"top1_share": 0.4167, "top5_share": 1.0, "hhi": 0.3438,
               "valid_observations": 24, "publishers": 4})
    );
    // Keys are not rolled up: still 15; a key's publisher is its registrable domain.
    assert_eq!(got["unique_keys"], 15);
    assert_eq!(got["top_keys"][0]["publisher"], "example.org");
    // Overlap in registrable domains: a cites all 4, b 3 of them: 3/4.
    assert_eq!(got["overlap"][0]["publishers"]["jaccard"], 0.75);
    // The default stays the hostname.
    assert_eq!(report_json(&db, &[])["publisher_unit"], "host");
    let t = ledger(&db, &["report", "--publisher", "registrable"])
        .ok()
        .stdout;
    assert!(t.contains("unique publisher registrable domains"), "{t}");
    assert!(
        t.contains("10  0.4167 (10/24)  [docs.example.org, wiki.example.org]"),
        "{t}"
    );
}

#[test]
fn overlap_between_three_answer_systems_and_an_ip_host() {
    let (_dir, db) = ingested("overlap-three-systems.csv");
    let got = report_json(&db, &["--top-keys", "0"]);
    assert_eq!(got["valid_observations"], 8);
    // Hosts: a.example.com 3 (ov-01, 02, 05), b.example.org 2, then 192.0.2.1,
    // c.example.net, d.example.com 1 each: HHI (9 + 4 + 1 + 1 + 1)/64 = 0.25.
    assert_eq!(got["concentration"]["hhi"], 0.25);
    let ov = got["overlap"].as_array().expect("overlap");
    assert_eq!(ov.len(), 3, "x~y, x~z, y~z");
    // x ~ y: hosts {a, b, ip} and {a, c, b}: 2 both, 4 either = 0.5; keys {a/1, a/2,
    // b/1, ip/p} and {a/1, c/1, b/1}: 2 both, 5 either = 0.4.
    assert_eq!(
        ov[0],
        json!({"a": "system-x", "b": "system-y",
               "a_valid_observations": 4, "b_valid_observations": 3,
               "publishers": {"in_a": 3, "in_b": 3, "both": 2, "either": 4, "jaccard": 0.5},
               "keys": {"in_a": 4, "in_b": 3, "both": 2, "either": 5, "jaccard": 0.4}})
    );
    // x ~ z and y ~ z: nothing in common.
    assert_eq!(
        (ov[1]["a"].as_str(), ov[1]["b"].as_str()),
        (Some("system-x"), Some("system-z"))
    );
    assert_eq!(ov[1]["publishers"]["both"], 0);
    assert_eq!(ov[1]["publishers"]["either"], 4);
    assert_eq!(ov[1]["publishers"]["jaccard"], 0.0);
    assert_eq!(ov[2]["keys"]["either"], 4);
    assert_eq!(ov[2]["keys"]["jaccard"], 0.0);

    // Top keys: a/1 (ov-01 and ov-05 spelled A.example.com) and b/1 (ov-03 and ov-07 with
    // utm_source) have 2 observations and 2 spellings; then 4 keys with 1, by key.
    let keys = got["top_keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 6);
    assert_eq!(
        keys[0],
        json!({"key": "https://a.example.com/1", "publisher": "a.example.com",
               "observations": 2, "share": 0.25, "spellings": 2,
               "first_seen": "2026-11-02T10:01:00Z", "last_seen": "2026-11-03T10:05:00Z"})
    );
    assert_eq!(keys[1]["key"], "https://b.example.org/1");
    assert_eq!(keys[1]["spellings"], 2);
    assert_eq!(keys[2]["key"], "http://192.0.2.1/p");
    assert_eq!(keys[2]["spellings"], 1);

    // Registrable: the IP host stays itself (never looked up in the list). x {example.com,
    // example.org, 192.0.2.1}, y {example.com, example.net, example.org}, z
    // {example.com}: x~y 2/4, x~z 1/3, y~z 1/3. example.com 4 of 8 valid (ov-01, 02, 05,
    // 08), example.org 2, example.net 1, 192.0.2.1 1: HHI (16 + 4 + 1 + 1)/64 = 0.34375.
    let reg = report_json(&db, &["--publisher", "registrable", "--top", "0"]);
    let names: Vec<&str> = reg["top_publishers"]
        .as_array()
        .expect("tops")
        .iter()
        .map(|t| t["registrable_domain"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        ["example.com", "example.org", "192.0.2.1", "example.net"]
    );
    assert_eq!(reg["concentration"]["hhi"], 0.3438);
    let jac: Vec<f64> = reg["overlap"]
        .as_array()
        .expect("overlap")
        .iter()
        .map(|o| o["publishers"]["jaccard"].as_f64().expect("j"))
        .collect();
    assert_eq!(jac, [0.5, 0.3333, 0.3333]);

    let md = ledger(&db, &["report", "--format", "markdown"]).ok().stdout;
    assert!(
        md.contains("| system-x ~ system-y | 4 and 3 | 2 / 4 | 0.5000 | 2 / 5 | 0.4000 |"),
        "{md}"
    );
}

#[test]
fn compare_two_collections() {
    let (_dir, db) = ingested("synthetic-citations.csv");
    let got = report_json(
        &db,
        &[
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--top",
            "0",
            "--top-keys",
            "0",
        ],
    );
    // A = rows 1-14, all valid: docs 4 (001, 002, 005, 006), shop 3, wiki 3, news 2,
    // research 1, updates 1 = 14. B = rows 15-27, 10 valid: docs 3 (022, 023, 027),
    // updates 3 (024-026), blog 2, research 1, xn--bcher-kva 1.
    assert_eq!(got["a"]["collection"], "c-2026-11-01");
    assert_eq!(got["a"]["observations"], 14);
    assert_eq!(got["a"]["valid_observations"], 14);
    assert_eq!(got["b"]["observations"], 13);
    assert_eq!(got["b"]["valid_observations"], 10);
    assert_eq!(got["a"]["sample"]["prompt_versions"], json!(["ps-2026-10"]));
    assert_eq!(got["b"]["sample"]["prompt_versions"], json!(["ps-2026-11"]));
    // Publishers: A 6, B 5; both = docs, research, updates; new = blog, xn--; gone = shop,
    // wiki, news.
    assert_eq!(
        got["publishers_summary"],
        json!({"in_a": 6, "in_b": 5, "both": 3, "new": 2, "gone": 3})
    );
    // Largest |change| first, ties by name: shop -3, wiki -3, blog +2, news -2, updates +2,
    // docs -1, xn-- +1, research 0.
    let names: Vec<&str> = got["publishers"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "shop.example.com",
            "wiki.example.org",
            "blog.example.net",
            "news.example.com",
            "updates.example.com",
            "docs.example.org",
            "xn--bcher-kva.example",
            "research.example.net"
        ]
    );
    // docs: 4/14 = 0.2857 to 3/10 = 0.3: -1 observation but +0.0143 of the share.
    assert_eq!(
        got["publishers"][5],
        json!({"name": "docs.example.org", "a": 4, "b": 3, "change": -1,
               "a_share": 0.2857, "b_share": 0.3, "share_change": 0.0143, "status": "both"})
    );
    assert_eq!(got["publishers"][0]["status"], "gone");
    assert_eq!(
        got["publishers"][2],
        json!({"name": "blog.example.net", "a": 0, "b": 2, "change": 2,
               "a_share": 0.0, "b_share": 0.2, "share_change": 0.2, "status": "new"})
    );
    // Keys: A 9 (docs/guide 3, shop/item 2, news/ 2, wiki/Caf%C3%A9 2, five with 1),
    // B 8; both: docs/guide (3 -> 2) and research/report (1 -> 1); 6 new, 7 gone.
    assert_eq!(
        got["keys_summary"],
        json!({"in_a": 9, "in_b": 8, "both": 2, "new": 6, "gone": 7})
    );
    let guide = got["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["name"] == "https://docs.example.org/guide")
        .expect("docs/guide");
    assert_eq!(
        (&guide["a"], &guide["b"], &guide["change"], &guide["status"]),
        (&json!(3), &json!(2), &json!(-1), &json!("both"))
    );

    // --top limits the list, not the summary.
    let top2 = report_json(
        &db,
        &["--compare", "c-2026-11-01", "c-2026-11-08", "--top", "2"],
    );
    assert_eq!(top2["publishers"].as_array().expect("rows").len(), 2);
    assert_eq!(top2["publishers_summary"]["gone"], 3);

    // Both samples are stated in every format.
    let md = ledger(
        &db,
        &[
            "report",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--format",
            "markdown",
        ],
    )
    .ok()
    .stdout;
    assert!(
        md.contains("## A: collection = c-2026-11-01\n\n**Sample:** 14 observations"),
        "{md}"
    );
    assert!(
        md.contains("## B: collection = c-2026-11-08\n\n**Sample:** 13 observations"),
        "{md}"
    );
    assert!(
        md.contains("- Publishers: 6 in A, 5 in B, 3 in both, 2 new in B, 3 gone from A."),
        "{md}"
    );
    assert!(
        md.contains("| shop.example.com | 3 | 0 | -3 | 0.2143 (3/14) | 0.0000 (0/10) | gone |"),
        "{md}"
    );
    let t = ledger(
        &db,
        &[
            "report",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--top",
            "0",
        ],
    )
    .ok()
    .stdout;
    assert!(
        t.contains(
            "docs.example.org  A 4 (0.2857 = 4/14)  B 3 (0.3000 = 3/10)  change -1 (+0.0143)  both"
        ),
        "{t}"
    );
    let c = ledger(
        &db,
        &[
            "report",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--format",
            "csv",
        ],
    )
    .ok()
    .stdout;
    assert!(
        c.contains("publisher,blog.example.net,c-2026-11-01,0,14,0.0000,c-2026-11-08,2,10,0.2000,2,+0.2000,new"),
        "{c}"
    );

    // Refusals: an unknown collection (naming the ones there are), the same one twice,
    // with --by.
    let err = ledger(&db, &["report", "--compare", "c-2026-11-01", "c-9"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(
        err.to_string().contains("c-2026-11-01, c-2026-11-08"),
        "{err}"
    );
    let err = ledger(
        &db,
        &["report", "--compare", "c-2026-11-01", "c-2026-11-01"],
    )
    .err();
    assert_eq!(err.exit_code(), 2);
    let err = ledger(
        &db,
        &[
            "report",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--by",
            "market",
        ],
    )
    .err();
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn windows_filter_and_compare() {
    let (_dir, db) = ingested("synthetic-citations.csv");
    // Rows 1-14 run on 2026-11-01 (09:01-09:14), rows 15-27 on 2026-11-08 (14:15-14:27,
    // and obs-026 at 15:26 UTC). A date as TO includes its whole day.
    let day1 = report_json(&db, &["--window", "2026-11-01..2026-11-01"]);
    assert_eq!(day1["observations"], 14);
    assert_eq!(
        day1["sample"]["window"],
        json!({"from": "2026-11-01T09:01:00Z", "to": "2026-11-01T09:14:00Z"})
    );
    // Instants are included at both ends: 14:20 (obs-020) to 15:26 (obs-026) = rows 20-27.
    let late = report_json(
        &db,
        &[
            "--window",
            "2026-11-08T14:20:00Z..2026-11-08T16:26:00+01:00",
        ],
    );
    assert_eq!(late["observations"], 8);
    let one = report_json(
        &db,
        &["--window", "2026-11-08T14:20:00Z..2026-11-08T14:20:00Z"],
    );
    assert_eq!(one["observations"], 1);
    // The filter is stated.
    let t = ledger(&db, &["report", "--window", "2026-11-01..2026-11-01"])
        .ok()
        .stdout;
    assert!(
        t.contains("Only observations run in the window 2026-11-01..2026-11-01"),
        "{t}"
    );

    // Two windows are compared as two collections are: the same figures as
    // --compare c-2026-11-01 c-2026-11-08 (compare_two_collections), sides named by window.
    let w = report_json(
        &db,
        &[
            "--window",
            "2026-11-01..2026-11-07",
            "--window",
            "2026-11-08..2026-11-08",
            "--top",
            "0",
        ],
    );
    let c = report_json(
        &db,
        &["--compare", "c-2026-11-01", "c-2026-11-08", "--top", "0"],
    );
    assert_eq!(w["a"]["window"], "2026-11-01..2026-11-07");
    assert_eq!(w["a"].get("collection"), None);
    assert_eq!(c["b"].get("window"), None);
    assert_eq!(w["publishers"], c["publishers"]);
    assert_eq!(w["publishers_summary"], c["publishers_summary"]);
    assert_eq!(w["keys_summary"], c["keys_summary"]);
    let md = ledger(
        &db,
        &[
            "report",
            "--window",
            "2026-11-01..2026-11-07",
            "--window",
            "2026-11-08..2026-11-08",
            "--format",
            "markdown",
        ],
    )
    .ok()
    .stdout;
    assert!(
        md.contains("## A: window = 2026-11-01..2026-11-07\n\n**Sample:** 14 observations"),
        "{md}"
    );

    // One window with --compare filters both collections: only obs-020..027 of B remain.
    let f = report_json(
        &db,
        &[
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--window",
            "2026-11-01T00:00:00Z..2026-11-08T14:19:59Z",
        ],
    );
    assert_eq!(f["a"]["observations"], 14);
    assert_eq!(f["b"]["observations"], 5, "obs-015..019");

    // Refusals (exit 2): backwards, not a window, three, an empty window compared.
    for args in [
        vec!["report", "--window", "2026-11-08..2026-11-01"],
        vec!["report", "--window", "2026-11-01"],
        vec![
            "report",
            "--window",
            "2026-11-01..2026-11-01",
            "--window",
            "2026-11-02..2026-11-02",
            "--window",
            "2026-11-03..2026-11-03",
        ],
        vec![
            "report",
            "--window",
            "2026-11-01..2026-11-01",
            "--window",
            "2026-12-01..2026-12-31",
        ],
        vec![
            "report",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--window",
            "2026-11-01..2026-11-01",
            "--window",
            "2026-11-08..2026-11-08",
        ],
    ] {
        let err = ledger(&db, &args).err();
        assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
    }
}

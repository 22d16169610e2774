//! Ingest, report and export on the synthetic fixture (crates/urlkey-ledger/tests/fixtures/README.md lists what
//! each row covers and the hand-computed figures checked here).

use crate::common::{dump, fixture, ledger, open};
use serde_json::{json, Value};

const CSV: &str = "synthetic-citations.csv";

fn ingested() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture(CSV);
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    (dir, db)
}

/// (observation_id, observed_url, expected key or None, expected host, error code prefix)
/// Expectations computed by hand from citation@1's rules.
const EXPECTED: &[(&str, Option<&str>, Option<&str>, &str)] = &[
    // analytics parameter and fragment removed (seed row 1)
    (
        "obs-001",
        Some("https://docs.example.org/guide"),
        Some("docs.example.org"),
        "",
    ),
    // one analytics parameter (seed row 2): same key, still its own observation
    (
        "obs-002",
        Some("https://docs.example.org/guide"),
        Some("docs.example.org"),
        "",
    ),
    // click id and non-root trailing slash removed (seed row 3)
    (
        "obs-003",
        Some("https://research.example.net/report"),
        Some("research.example.net"),
        "",
    ),
    // content parameter retained, analytics removed (seed row 4)
    (
        "obs-004",
        Some("https://updates.example.com/story?edition=morning"),
        Some("updates.example.com"),
        "",
    ),
    // hostname lowercased, path casing kept
    (
        "obs-005",
        Some("https://docs.example.org/Guide/Install"),
        Some("docs.example.org"),
        "",
    ),
    // several analytics fields (utm_*, fbclid, _hs*, mc_cid)
    (
        "obs-006",
        Some("https://docs.example.org/guide"),
        Some("docs.example.org"),
        "",
    ),
    // parameter order: sorted
    (
        "obs-007",
        Some("https://shop.example.com/item?a=1&b=2"),
        Some("shop.example.com"),
        "",
    ),
    // unchanged URL
    (
        "obs-008",
        Some("https://shop.example.com/item?a=1&b=2"),
        Some("shop.example.com"),
        "",
    ),
    // repeated keys kept, sorted by name then value
    (
        "obs-009",
        Some("https://shop.example.com/list?page=2&tag=a&tag=b"),
        Some("shop.example.com"),
        "",
    ),
    // root trailing slash stays
    (
        "obs-010",
        Some("https://news.example.com/"),
        Some("news.example.com"),
        "",
    ),
    // empty path serializes as the root
    (
        "obs-011",
        Some("https://news.example.com/"),
        Some("news.example.com"),
        "",
    ),
    // Unicode path: percent-encoded by the Standard, not decoded back
    (
        "obs-012",
        Some("https://wiki.example.org/wiki/Caf%C3%A9"),
        Some("wiki.example.org"),
        "",
    ),
    // percent-encoded path, unchanged
    (
        "obs-013",
        Some("https://wiki.example.org/wiki/Caf%C3%A9"),
        Some("wiki.example.org"),
        "",
    ),
    // lowercase escapes are not case-changed: another key
    (
        "obs-014",
        Some("https://wiki.example.org/wiki/Caf%c3%a9"),
        Some("wiki.example.org"),
        "",
    ),
    // relative input
    ("obs-015", None, None, "web.invalid-url"),
    // not http(s)
    ("obs-016", None, None, "citation.unsupported-scheme"),
    // invalid host
    ("obs-017", None, None, "web."),
    // referral parameter (ref) is not on the analytics list: retained
    (
        "obs-018",
        Some("https://blog.example.net/post?ref=newsletter"),
        Some("blog.example.net"),
        "",
    ),
    // unchanged URL
    (
        "obs-019",
        Some("https://blog.example.net/about"),
        Some("blog.example.net"),
        "",
    ),
    // unchanged, same key as obs-003
    (
        "obs-020",
        Some("https://research.example.net/report"),
        Some("research.example.net"),
        "",
    ),
    // internationalized host: lowercased and IDNA-encoded by the Standard
    (
        "obs-021",
        Some("https://xn--bcher-kva.example/katalog"),
        Some("xn--bcher-kva.example"),
        "",
    ),
    // content parameters id, lang, version retained and sorted
    (
        "obs-022",
        Some("https://docs.example.org/api?id=7&lang=en&version=2"),
        Some("docs.example.org"),
        "",
    ),
    // fragment only
    (
        "obs-023",
        Some("https://docs.example.org/guide"),
        Some("docs.example.org"),
        "",
    ),
    // query left empty disappears
    (
        "obs-024",
        Some("https://updates.example.com/story"),
        Some("updates.example.com"),
        "",
    ),
    // analytics names match ignoring ASCII case
    (
        "obs-025",
        Some("https://updates.example.com/story"),
        Some("updates.example.com"),
        "",
    ),
    // utmost is not utm_*: retained
    (
        "obs-026",
        Some("https://updates.example.com/story?utmost=1"),
        Some("updates.example.com"),
        "",
    ),
    // non-root trailing slash alone
    (
        "obs-027",
        Some("https://docs.example.org/guide"),
        Some("docs.example.org"),
        "",
    ),
];

#[test]
fn every_row_is_keyed_as_computed_by_hand_and_observed_urls_stay_exact() {
    let (_dir, db) = ingested();
    let c = open(&db);
    let raw = std::fs::read_to_string(fixture(CSV)).expect("fixture");
    let mut reader = csv::Reader::from_reader(raw.as_bytes());
    let observed: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.expect("record");
            (r[0].to_string(), r[7].to_string())
        })
        .collect();
    assert_eq!(observed.len(), EXPECTED.len());
    for ((id, key, host, code), (fid, furl)) in EXPECTED.iter().zip(&observed) {
        assert_eq!(id, fid);
        let (stored_url, k, h, e, policy, transformations): (
            String,
            Option<String>,
            Option<String>,
            Option<String>,
            String,
            String,
        ) = c
            .query_row(
                "SELECT observed_url, normalized_key, publisher_hostname, error_code, \
                 normalization_policy_version, transformations FROM observations \
                 WHERE observation_id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .expect(id);
        assert_eq!(
            &stored_url, furl,
            "{id}: the observed URL is stored exactly"
        );
        assert_eq!(k.as_deref(), *key, "{id} key");
        assert_eq!(h.as_deref(), *host, "{id} host");
        assert_eq!(policy, "citation@1");
        let t: Value = serde_json::from_str(&transformations).expect("json");
        assert!(t.is_array(), "{id} transformations");
        if key.is_some() {
            assert!(e.is_none(), "{id}");
            // A key that differs from the observed text was produced by logged rules.
            if Some(furl.as_str()) != *key {
                assert!(
                    !t.as_array().expect("array").is_empty(),
                    "{id}: a changed URL lists its transformations"
                );
            }
        } else {
            let e = e.expect("error code");
            assert!(e.starts_with(code), "{id}: {e} should start with {code}");
        }
    }
    // Unchanged URLs list no transformation.
    for id in ["obs-008", "obs-010", "obs-013", "obs-019", "obs-020"] {
        let t: String = c
            .query_row(
                "SELECT transformations FROM observations WHERE observation_id = ?1",
                [id],
                |r| r.get(0),
            )
            .expect(id);
        assert_eq!(t, "[]", "{id}");
    }
}

#[test]
fn observations_cannot_be_rewritten() {
    let (_dir, db) = ingested();
    let c = open(&db);
    let err = c
        .execute(
            "UPDATE observations SET observed_url = 'https://example.com/' WHERE observation_id = 'obs-001'",
            [],
        )
        .expect_err("the trigger refuses");
    assert!(err.to_string().contains("immutable"), "{err}");
}

fn report_json(db: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["report", "--format", "json"];
    args.extend_from_slice(extra);
    let r = ledger(db, &args).ok();
    serde_json::from_str(&r.stdout).expect("report JSON")
}

#[test]
fn report_figures_match_hand_computed_expectations() {
    let (_dir, db) = ingested();
    let got = report_json(&db, &[]);
    // 27 rows, 3 invalid; 15 keys; 8 hostnames. docs.example.org: obs-001, 002, 005, 006,
    // 022, 023, 027 = 7 of 24 valid = 0.2917. See crates/urlkey-ledger/tests/fixtures/README.md.
    let want = json!({
        "observations": 27,
        "valid_observations": 24,
        "invalid_observations": 3,
        "unique_keys": 15,
        "unique_publishers": 8,
        // Over all 8 publishers (7, 4, 3, 3, 2 and 5 more observations as 2, 2, 1): top 1
        // 7/24, top 5 19/24, HHI (49+16+9+9+4+4+4+1)/24² = 96/576.
        "concentration": {
            "valid_observations": 24, "publishers": 8,
            "top1_share": 0.2917, "top5_share": 0.7917, "hhi": 0.1667
        },
        "top_publishers": [
            {"hostname": "docs.example.org", "observations": 7, "share": 0.2917},
            {"hostname": "updates.example.com", "observations": 4, "share": 0.1667},
            {"hostname": "shop.example.com", "observations": 3, "share": 0.125},
            {"hostname": "wiki.example.org", "observations": 3, "share": 0.125},
            {"hostname": "blog.example.net", "observations": 2, "share": 0.0833}
        ],
        "publisher_unit": "host",
        // No decisions yet; three merges to review, the keys merged by a risky
        // rule (docs/guide and research/report by the trailing slash, shop/item by
        // sort-query), never verified so never `same`. news/ and wiki/Caf%C3%A9 were merged
        // by the parser (lossless), updates/story by tracking parameters (documented).
        "review": {
            "observations_by_source_role": {"unclassified": 24},
            "claim_support": {"unreviewed": 24},
            "merges_to_review": 3,
            "split_keys": 0,
            "unique_keys_with_splits": 15,
            // The three, most observations first (docs/guide 5: 001, 002, 006, 023, 027,
            // each spelled differently; the first three spellings in sort order), then the
            // two with 2 by key; no split, so no top keys with splits.
            "merges_to_review_list": [
                {"key": "https://docs.example.org/guide", "variants": 5,
                 "spellings": ["https://docs.example.org/guide#install",
                               "https://docs.example.org/guide/",
                               "https://docs.example.org/guide?utm_source=a&utm_medium=b&fbclid=XYZ&_hsenc=p2&mc_cid=1"],
                 "risky_rules": ["remove-trailing-slash"], "content_check": "unverified",
                 "observations": 5, "spellings_total": 5, "spellings_compared": null},
                {"key": "https://research.example.net/report", "variants": 2,
                 "spellings": ["https://research.example.net/report",
                               "https://research.example.net/report/?gclid=example"],
                 "risky_rules": ["remove-trailing-slash"], "content_check": "unverified",
                 "observations": 2, "spellings_total": 2, "spellings_compared": null},
                {"key": "https://shop.example.com/item?a=1&b=2", "variants": 2,
                 "spellings": ["https://shop.example.com/item?a=1&b=2",
                               "https://shop.example.com/item?b=2&a=1"],
                 "risky_rules": ["sort-query"], "content_check": "unverified",
                 "observations": 2, "spellings_total": 2, "spellings_compared": null}
            ],
            "top_keys_with_splits": []
        },
        // The fixture's fragments (`#evidence`, `#install`) have no text directive.
        "text_fragments": {
            "observations": 0, "directives": 0, "found": 0, "not_found": 0,
            "page_changed": 0, "not_checked": 0, "unverified": 0, "malformed": 0,
            "by_answer_system": {}
        },
        // By hand from crates/urlkey-ledger/tests/fixtures/README.md: docs/guide has 5 observations
        // (001, 002, 006, 023, 027), each spelled differently, 09:01 on 11-01 to 14:27 on
        // 11-08; then five keys with 2 (ties by key): news/ (010 with the slash, 011
        // without), research/report (003, 020), shop/item (007, 008), updates/story (024,
        // 025), wiki/Caf%C3%A9 (012, 013); the top 5 stop before wiki. Shares of 24.
        "top_keys": [
            {"key": "https://docs.example.org/guide", "publisher": "docs.example.org",
             "observations": 5, "share": 0.2083, "spellings": 5,
             "first_seen": "2026-11-01T09:01:00Z", "last_seen": "2026-11-08T14:27:00Z"},
            {"key": "https://news.example.com/", "publisher": "news.example.com",
             "observations": 2, "share": 0.0833, "spellings": 2,
             "first_seen": "2026-11-01T09:10:00Z", "last_seen": "2026-11-01T09:11:00Z"},
            {"key": "https://research.example.net/report", "publisher": "research.example.net",
             "observations": 2, "share": 0.0833, "spellings": 2,
             "first_seen": "2026-11-01T09:03:00Z", "last_seen": "2026-11-08T14:20:00Z"},
            {"key": "https://shop.example.com/item?a=1&b=2", "publisher": "shop.example.com",
             "observations": 2, "share": 0.0833, "spellings": 2,
             "first_seen": "2026-11-01T09:07:00Z", "last_seen": "2026-11-01T09:08:00Z"},
            {"key": "https://updates.example.com/story", "publisher": "updates.example.com",
             "observations": 2, "share": 0.0833, "spellings": 2,
             "first_seen": "2026-11-08T14:24:00Z", "last_seen": "2026-11-08T14:25:00Z"}
        ],
        // Odd rows (assistant-a) cite 8 publishers and 10 keys, even rows (assistant-b) 7
        // publishers, all also cited by a, and 11 keys; 6 keys in both (docs/guide,
        // shop/item, news/, wiki/Caf%C3%A9, research/report, updates/story): publishers
        // 7/8 = 0.875, keys 6/(10+11-6) = 6/15 = 0.4. See tests/it/report_measures.rs.
        "overlap": [
            {"a": "assistant-a", "b": "assistant-b",
             "a_valid_observations": 12, "b_valid_observations": 12,
             "publishers": {"in_a": 8, "in_b": 7, "both": 7, "either": 8, "jaccard": 0.875},
             "keys": {"in_a": 10, "in_b": 11, "both": 6, "either": 15, "jaccard": 0.4}}
        ],
        "sample": {
            "prompt_versions": ["ps-2026-10", "ps-2026-11"],
            "answer_systems": ["assistant-a", "assistant-b"],
            "markets": ["de", "us"],
            "window": {"from": "2026-11-01T09:01:00Z", "to": "2026-11-08T15:26:00Z"}
        },
        // 24 valid observations, 24 distinct observed URLs, 15 keys: 9 merged. Keys of 2+
        // URLs: guide (001, 002, 006, 023, 027), report (003, 020), item (007, 008), news
        // (010, 011), wiki Caf%C3%A9 (012, 013), story (024, 025): 15 URLs. By rule:
        // remove-fragment 001, 023; remove-tracking-parameters 001, 002, 006, 003, 024, 025;
        // remove-trailing-slash 027, 003; sort-query 007; whatwg-parse 011 (the path /),
        // 012 (é escaped); unchanged 020, 008, 010, 013. Removed parameters as written:
        // utm_source 001, 002, 006; utm_medium 006, 024; fbclid, _hsenc, mc_cid 006;
        // gclid 003; UTM_Source and GCLID 025.
        "normalization": {
            "observed_urls": 24,
            "merged_keys": 6,
            "observed_urls_merged": 9,
            "merged_by_rule": {
                "remove-fragment": 2, "remove-tracking-parameters": 6,
                "remove-trailing-slash": 2, "sort-query": 1, "unchanged": 4, "whatwg-parse": 2
            },
            "merged_by_removed_param": {
                "GCLID": 1, "UTM_Source": 1, "_hsenc": 1, "fbclid": 1, "gclid": 1,
                "mc_cid": 1, "utm_medium": 2, "utm_source": 3
            },
            "keyed_at_ingest": 27,
            "rekeyed": 0
        },
        // One row per (prompt, answer system): every prompt is asked once, so nothing is
        // measured and each system's 12 valid observations are counted apart.
        "stability": [asked_once("assistant-a"), asked_once("assistant-b")]
    });
    assert_eq!(got, want);

    // --top 0 lists every publisher; the shares of all of them add up to 1.
    let all = report_json(&db, &["--top", "0"]);
    let tops = all["top_publishers"].as_array().expect("array");
    assert_eq!(tops.len(), 8);
    let total: u64 = tops
        .iter()
        .map(|t| t["observations"].as_u64().expect("n"))
        .sum();
    assert_eq!(total, 24);
}

#[test]
fn report_by_answer_system_and_market() {
    let (_dir, db) = ingested();
    let got = report_json(&db, &["--by", "answer_system", "--top", "3"]);
    assert_eq!(got["by"], "answer_system");
    let groups = got["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 2);
    let a = &groups[0];
    assert_eq!(a["value"], "assistant-a");
    assert_eq!(
        (
            a["observations"].as_u64(),
            a["valid_observations"].as_u64(),
            a["invalid_observations"].as_u64()
        ),
        (Some(14), Some(12), Some(2))
    );
    assert_eq!(a["unique_keys"], 10);
    assert_eq!(a["unique_publishers"], 8);
    assert_eq!(
        a["top_publishers"],
        json!([
            {"hostname": "docs.example.org", "observations": 4, "share": 0.3333},
            {"hostname": "shop.example.com", "observations": 2, "share": 0.1667},
            {"hostname": "blog.example.net", "observations": 1, "share": 0.0833}
        ])
    );
    assert_eq!(
        a["sample"]["window"],
        json!({"from": "2026-11-01T09:01:00Z", "to": "2026-11-08T14:27:00Z"})
    );
    assert_eq!(a["sample"]["answer_systems"], json!(["assistant-a"]));
    let b = &groups[1];
    assert_eq!(b["value"], "assistant-b");
    assert_eq!(
        (
            b["observations"].as_u64(),
            b["valid_observations"].as_u64(),
            b["invalid_observations"].as_u64()
        ),
        (Some(13), Some(12), Some(1))
    );
    assert_eq!(b["unique_keys"], 11);
    assert_eq!(b["unique_publishers"], 7);
    assert_eq!(
        b["top_publishers"],
        json!([
            {"hostname": "docs.example.org", "observations": 3, "share": 0.25},
            {"hostname": "updates.example.com", "observations": 3, "share": 0.25},
            {"hostname": "wiki.example.org", "observations": 2, "share": 0.1667}
        ])
    );
    assert_eq!(
        b["sample"]["window"],
        json!({"from": "2026-11-01T09:02:00Z", "to": "2026-11-08T15:26:00Z"})
    );

    let got = report_json(&db, &["--by", "market"]);
    let groups = got["groups"].as_array().expect("groups");
    let de = &groups[0];
    assert_eq!(de["value"], "de");
    assert_eq!(de["observations"], 7);
    assert_eq!(de["valid_observations"], 7);
    assert_eq!(de["unique_keys"], 5);
    assert_eq!(de["unique_publishers"], 3);
    assert_eq!(
        de["top_publishers"],
        json!([
            {"hostname": "docs.example.org", "observations": 3, "share": 0.4286},
            {"hostname": "updates.example.com", "observations": 3, "share": 0.4286},
            {"hostname": "xn--bcher-kva.example", "observations": 1, "share": 0.1429}
        ])
    );
    assert_eq!(de["sample"]["prompt_versions"], json!(["ps-2026-11"]));
    let us = &groups[1];
    assert_eq!(us["value"], "us");
    assert_eq!(us["observations"], 20);
    assert_eq!(us["valid_observations"], 17);
    assert_eq!(us["invalid_observations"], 3);
    assert_eq!(us["unique_keys"], 11);
    assert_eq!(us["unique_publishers"], 7);
    assert_eq!(
        us["top_publishers"][0],
        json!({"hostname": "docs.example.org", "observations": 4, "share": 0.2353})
    );
    assert_eq!(
        us["top_publishers"][1],
        json!({"hostname": "shop.example.com", "observations": 3, "share": 0.1765})
    );

    let got = report_json(&db, &["--by", "collection"]);
    let groups = got["groups"].as_array().expect("groups");
    assert_eq!(groups[0]["value"], "c-2026-11-01");
    assert_eq!(groups[0]["observations"], 14);
    assert_eq!(groups[1]["value"], "c-2026-11-08");
    assert_eq!(groups[1]["invalid_observations"], 3);
    let got = report_json(&db, &["--by", "prompt_version"]);
    assert_eq!(got["groups"][1]["value"], "ps-2026-11");
    assert_eq!(got["groups"][1]["valid_observations"], 10);
}

#[test]
fn table_and_csv_state_the_sample_and_keep_the_measures_apart() {
    let (_dir, db) = ingested();
    let t = ledger(&db, &["report"]).ok().stdout;
    assert!(t.contains("Sample: 27 observations; prompt-set versions: ps-2026-10, ps-2026-11; answer systems: assistant-a, assistant-b; markets: de, us; collection window: 2026-11-01T09:01:00Z to 2026-11-08T15:26:00Z"), "{t}");
    assert!(t.contains("unique URL keys"), "{t}");
    assert!(t.contains("unique publisher hostnames"), "{t}");
    assert!(t.contains("0.2917 (7/24)"), "{t}");
    assert!(t.contains("not market share"), "{t}");
    assert!(
        !t.to_lowercase().contains("citations"),
        "the measures are never called citations:\n{t}"
    );

    let c = ledger(&db, &["report", "--format", "csv", "--by", "market"])
        .ok()
        .stdout;
    let mut r = csv::Reader::from_reader(c.as_bytes());
    let h = r.headers().expect("headers").clone();
    assert_eq!(&h[0], "by");
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[1][1], "us");
    assert_eq!(&rows[1][2], "20");
    assert_eq!(&rows[1][7], "docs.example.org");
    assert_eq!(&rows[1][9], "0.2353");
}

#[test]
fn empty_ledger_reports_zeros() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    ledger(&db, &["init"]).ok();
    let got = report_json(&db, &[]);
    assert_eq!(got["observations"], 0);
    assert_eq!(got["top_publishers"], json!([]));
    assert_eq!(got["sample"]["window"], json!({"from": null, "to": null}));
}

#[test]
fn reingesting_the_same_file_adds_nothing_and_says_so() {
    let (_dir, db) = ingested();
    let before = dump(&db);
    let f = fixture(CSV);
    let r = ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    assert!(r.stdout.contains("nothing written"), "{}", r.stdout);
    assert!(r.stdout.contains("27 rows read"), "{}", r.stdout);
    assert_eq!(dump(&db), before, "an identical re-ingest writes nothing");
}

#[test]
fn a_conflicting_reingest_is_refused_and_leaves_the_database_unchanged() {
    let (dir, db) = ingested();
    let before = dump(&db);
    // Same ids; one new row first (it must not be written either), then obs-005 with
    // another URL on line 4.
    let text = std::fs::read_to_string(fixture(CSV)).expect("fixture");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.insert(
        1,
        "obs-900,p-90,ps-2026-11,assistant-c,us,c-x,2026-11-09T10:00:00Z,https://new.example.org/,synthetic"
            .to_string(),
    );
    let i = lines
        .iter()
        .position(|l| l.starts_with("obs-005,"))
        .expect("row");
    lines[i] = lines[i].replace("/Guide/Install", "/Guide/Other");
    let changed = dir.path().join("changed.csv");
    std::fs::write(&changed, lines.join("\n")).expect("write");
    let err = ledger(&db, &["ingest", changed.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    assert!(msg.contains("line 7"), "names the line: {msg}");
    assert!(msg.contains("obs-005"), "names the observation: {msg}");
    assert!(msg.contains("observed_url"), "names the field: {msg}");
    assert!(msg.contains("nothing from"), "{msg}");
    assert_eq!(dump(&db), before, "nothing of the file was written");
}

#[test]
fn a_duplicate_id_inside_one_file_with_other_content_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("dup.csv");
    std::fs::write(
        &f,
        "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url\n\
         a1,sys,v1,us,2026-11-01,https://docs.example.org/a\n\
         a1,sys,v1,us,2026-11-01,https://docs.example.org/a\n\
         a1,sys,v1,us,2026-11-01,https://docs.example.org/b\n",
    )
    .expect("write");
    let err = ledger(&db, &["ingest", f.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("line 4"), "{err}");
    assert!(
        err.to_string()
            .contains("first seen at line 2 of this file"),
        "{err}"
    );
    let n: i64 = open(&db)
        .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
        .expect("count");
    assert_eq!(n, 0);
}

#[test]
fn jsonl_with_missing_columns_takes_the_flags_and_rejects_what_is_still_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = fixture("partial-columns.jsonl");
    let f = f.to_str().expect("path");
    // Without the flags: the first row has no answer_system.
    let err = ledger(&db, &["ingest", f]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("line 1"), "{err}");
    assert!(err.to_string().contains("--prompt-version"), "{err}");
    let r = ledger(
        &db,
        &[
            "ingest",
            f,
            "--answer-system",
            "assistant-c",
            "--prompt-version",
            "ps-2026-11",
            "--market",
            "gb",
            "--run-timestamp",
            "2026-11-14T08:00:00Z",
            "--collection",
            "c-2026-11-14",
        ],
    )
    .ok();
    assert!(
        r.stdout
            .contains("3 observations added (1 of them with an invalid URL"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("fixture"),
        "ignored columns are named: {}",
        r.stderr
    );
    let c = open(&db);
    let rows: Vec<(String, String, String, String, String, Option<String>)> = c
        .prepare(
            "SELECT observation_id, answer_system, market, run_timestamp_as_written, collection, \
             error_code FROM observations ORDER BY observation_id",
        )
        .expect("prepare")
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(rows[0].0, "103", "a numeric id is stored as text");
    assert_eq!(
        rows[0].3, "2026-11-15",
        "a value in the file wins over the flag"
    );
    assert_eq!(rows[0].5.as_deref(), Some("citation.unsupported-scheme"));
    assert_eq!(rows[1].0, "obs-101");
    assert_eq!(rows[1].1, "assistant-c");
    assert_eq!(rows[1].2, "gb");
    assert_eq!(rows[1].4, "c-2026-11-14");
    assert_eq!(rows[2].2, "fr");
}

#[test]
fn bad_inputs_are_input_errors_and_bad_policies_policy_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = fixture(CSV);
    let f = f.to_str().expect("path");
    // One exit-code table for every command: an unusable policy is 5, as in key and map.
    let err = ledger(&db, &["ingest", f, "--policy", "nonsense@9"]).err();
    assert_eq!(err.exit_code(), 5);
    assert!(err.to_string().contains("nonsense@9"), "{err}");

    let missing = dir.path().join("absent.csv");
    let err = ledger(&db, &["ingest", missing.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);

    let nourl = dir.path().join("nourl.csv");
    std::fs::write(&nourl, "observation_id,url\na,https://x.example/\n").expect("write");
    let err = ledger(&db, &["ingest", nourl.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("observed_url"), "{err}");

    let badts = dir.path().join("badts.csv");
    std::fs::write(
        &badts,
        "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url\n\
         a,s,v,us,last tuesday,https://x.example/\n",
    )
    .expect("write");
    let err = ledger(&db, &["ingest", badts.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("line 2"), "{err}");

    let ragged = dir.path().join("ragged.csv");
    std::fs::write(
        &ragged,
        "observation_id,observed_url\na,https://x.example/,extra\n",
    )
    .expect("write");
    let err = ledger(&db, &["ingest", ragged.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);

    let err = ledger(&dir.path().join("none.sqlite"), &["report"]).err();
    assert_eq!(err.exit_code(), 6);
    assert!(err.to_string().contains("init"), "{err}");
}

#[test]
fn a_ledger_with_two_policies_needs_a_choice() {
    let (_dir, db) = ingested();
    let f = fixture("partial-columns.jsonl");
    ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("path"),
            "--policy",
            "mapper@1",
            "--answer-system",
            "s",
            "--prompt-version",
            "v",
            "--market",
            "us",
            "--run-timestamp",
            "2026-11-14",
        ],
    )
    .ok();
    let err = ledger(&db, &["report"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("--policy"), "{err}");
    let got = report_json(&db, &["--policy", "citation@1"]);
    assert_eq!(got["observations"], 27);
    let got = report_json(&db, &["--policy", "mapper@1"]);
    assert_eq!(got["observations"], 3);
}

#[test]
fn export_lists_every_observation_with_the_seed_fields() {
    let (_dir, db) = ingested();
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let rows: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(rows.len(), 27);
    for field in [
        "observation_id",
        "prompt_id",
        "prompt_version",
        "answer_system",
        "run_timestamp",
        "observed_url",
        "normalization_policy_version",
        "normalized_key",
        "publisher_hostname",
        "transformations",
        "verification_status",
        "verified_final_url",
        "publisher_canonical",
        "market",
        "collection",
        "error_code",
    ] {
        assert!(rows[0].get(field).is_some(), "missing {field}");
    }
    assert_eq!(
        rows[0]["observed_url"],
        "https://docs.example.org/guide?utm_source=email#evidence"
    );
    assert_eq!(rows[0]["verification_status"], "unverified");
    assert!(rows[0]["transformations"].is_array());
    assert_eq!(rows[14]["observation_id"], "obs-015");
    assert_eq!(rows[14]["verification_status"], Value::Null);
    assert_eq!(rows[14]["error_code"], "web.invalid-url");

    let csv_out = ledger(&db, &["export"]).ok().stdout;
    let mut r = csv::Reader::from_reader(csv_out.as_bytes());
    assert_eq!(r.records().count(), 27);
}

#[test]
fn a_bom_and_tsv_are_read_and_jsonl_export_keeps_the_column_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let bom = dir.path().join("bom.csv");
    std::fs::write(
        &bom,
        "\u{feff}observation_id,answer_system,prompt_version,market,run_timestamp,observed_url\n\
         b1,s,v,us,2026-11-01,https://docs.example.org/a\n",
    )
    .expect("write");
    ledger(&db, &["ingest", bom.to_str().expect("path")]).ok();
    let tsv = dir.path().join("rows.data");
    std::fs::write(
        &tsv,
        "observation_id\tanswer_system\tprompt_version\tmarket\trun_timestamp\tobserved_url\n\
         t1\ts\tv\tus\t2026-11-01\thttps://docs.example.org/b?x=1,2\n",
    )
    .expect("write");
    let r = ledger(&db, &["ingest", tsv.to_str().expect("path")]).ok();
    assert!(r.stdout.contains("(tsv"), "sniffed as TSV: {}", r.stdout);
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let first = out.lines().next().expect("line");
    let mut last = 0;
    for c in urlkey_ledger::export::COLUMNS {
        let at = first
            .find(&format!("\"{c}\":"))
            .unwrap_or_else(|| panic!("{c} missing"));
        assert!(at >= last, "{c} out of order");
        last = at;
    }
    let second: Value = serde_json::from_str(out.lines().nth(1).expect("line")).expect("json");
    assert_eq!(second["observed_url"], "https://docs.example.org/b?x=1,2");
}

/// The stability figures of a system of the fixture: 12 prompts asked once, none measured.
fn asked_once(system: &str) -> serde_json::Value {
    let none = json!({"mean_jaccard": null, "cited": 0, "in_every_run": 0,
                      "in_every_run_share": null, "come_and_go": 0, "come_and_go_distinct": 0,
                      "top_come_and_go": []});
    json!({
        "answer_system": system,
        "sample": {"valid_observations": 12, "prompts": 0, "runs": 0, "pairs": 0,
                   "observations": 0, "prompts_asked_once": 12,
                   "observations_asked_once": 12, "observations_without_prompt_id": 0},
        "keys": none,
        "publishers": none,
    })
}

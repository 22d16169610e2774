//! Verify fetches every distinct observed URL of a key and compares their
//! content; merges to review; the 200 challenge page. Loopback only (127.0.0.1).

use std::path::Path;

use crate::common::{ledger, ledger_for, open, TestServer};

pub const FAST: &[&str] = &[
    "verify",
    "--allow-loopback",
    "--timeout",
    "2",
    "--per-host-delay",
    "0",
];

/// The latest verification of the key of `obs`: (status, reason, content_check,
/// content_detail, variants_fetched, variants_total).
fn check_of(db: &Path, obs: &str) -> (String, String, String, String, i64, i64) {
    open(db)
        .query_row(
            "SELECT v.verification_status, v.reason, v.content_check, v.content_detail, \
             v.variants_fetched, v.variants_total FROM verifications v JOIN observations o \
             ON o.normalized_key = v.normalized_key WHERE o.observation_id = ?1 \
             ORDER BY v.verification_id DESC LIMIT 1",
            [obs],
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
        .unwrap_or_else(|e| panic!("no verification for {obs}: {e}"))
}

/// The variant rows of the latest verification of the key of `obs`.
fn variants_of(db: &Path, obs: &str) -> Vec<(String, String, String, Option<i64>)> {
    let c = open(db);
    let mut st = c
        .prepare(
            "SELECT w.requested_url, w.verification_status, w.reason, w.distance_to_first \
             FROM verification_variants w WHERE w.verification_id = (SELECT max(v.verification_id) \
             FROM verifications v JOIN observations o ON o.normalized_key = v.normalized_key \
             WHERE o.observation_id = ?1) ORDER BY w.variant",
        )
        .expect("prepare");
    st.query_map([obs], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[test]
fn the_variants_of_each_key_are_fetched_and_compared() {
    let s = TestServer::start();
    let paths = [
        "/article",                      // v-000  same (with v-001, v-002)
        "/article/",                     // v-001
        "/article?utm_source=synthetic", // v-002
        "/dated",                        // v-003  similar
        "/dated/",                       // v-004
        "/report",                       // v-005  different
        "/report/",                      // v-006
        "/plain",                        // v-007  single
        "/plain#section",                // v-008  same URL as fetched: still single
        "/flaky",                        // v-009  partial: the slash spelling got a 503
        "/flaky/",                       // v-010
        "/missing",                      // v-011  single, not-found
    ];
    let (_dir, db) = ledger_for(&s, &paths);
    let r = ledger(&db, FAST).ok();
    assert!(r.stdout.contains("6 keys checked"), "{}", r.stdout);

    let (st, _, check, detail, fetched, total) = check_of(&db, "v-000");
    assert_eq!(
        (st.as_str(), check.as_str()),
        ("verified", "same"),
        "{detail}"
    );
    assert_eq!((fetched, total), (3, 3));
    assert_eq!(s.requests_for("/article").len(), 1);
    assert_eq!(s.requests_for("/article/").len(), 1);
    assert_eq!(s.requests_for("/article?utm_source=synthetic").len(), 1);
    let vs = variants_of(&db, "v-000");
    assert_eq!(vs.len(), 3);
    assert_eq!(vs[1].0, s.url("/article/"));
    assert_eq!(vs[1].3, Some(0));

    let (_, _, check, detail, _, _) = check_of(&db, "v-003");
    assert_eq!(check, "similar", "{detail}");
    let d = variants_of(&db, "v-003")[1].3.expect("distance");
    assert!(
        (1..=10).contains(&d),
        "the changed date line moves the fingerprint a little: {d}"
    );

    let (_, _, check, detail, _, _) = check_of(&db, "v-005");
    assert_eq!(check, "different", "{detail}");
    let d = variants_of(&db, "v-005")[1].3.expect("distance");
    assert!(d > 10, "two unrelated pages: {d} bits");

    let (_, _, check, _, fetched, total) = check_of(&db, "v-007");
    assert_eq!((check.as_str(), fetched, total), ("single", 1, 1));

    let (st, _, check, detail, _, _) = check_of(&db, "v-009");
    assert_eq!(st, "verified", "the first variant decides the status");
    assert_eq!(
        check, "partial",
        "a risky spelling with no finding compares nothing"
    );
    assert!(
        detail.contains("remove-trailing-slash: variant 1") && detail.contains("http-503"),
        "{detail}"
    );
    assert!(
        detail.contains("those give unresolved: variant 1 ("),
        "{detail}"
    );

    let (st, _, check, _, _, _) = check_of(&db, "v-011");
    assert_eq!((st.as_str(), check.as_str()), ("not-found", "not-fetched"));
    let (_, _, _, detail, _, _) = check_of(&db, "v-011");
    assert!(detail.ends_with("was not fetched: http-404"), "{detail}");
    assert!(
        r.stdout.contains("content: not-fetched (http-404)"),
        "{}",
        r.stdout
    );

    // What each fetch holds.
    let c = open(&db);
    let (sha, title, simhash, words, ctype, bytes): (String, String, String, i64, String, i64) = c
        .query_row(
            "SELECT body_sha256, title, text_simhash, text_words, content_type, body_bytes_read \
             FROM verification_variants WHERE requested_url = ?1",
            [s.url("/report/")],
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
        .expect("variant row");
    assert_eq!(sha.len(), 64);
    assert_eq!(title, "Programme figures");
    assert_eq!(simhash.len(), 16);
    assert!(words > 80, "{words}");
    assert!(ctype.starts_with("text/html"));
    assert!(bytes > 500);

    // Exported on every observation of the key.
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let check_for = |id: &str| {
        rows.iter()
            .find(|r| r["observation_id"] == id)
            .map(|r| r["content_check"].clone())
            .expect("row")
    };
    for (id, want) in [
        ("v-000", "same"),
        ("v-001", "same"),
        ("v-002", "same"),
        ("v-003", "similar"),
        ("v-004", "similar"),
        ("v-005", "different"),
        ("v-006", "different"),
        ("v-008", "single"),
        ("v-010", "partial"),
    ] {
        assert_eq!(check_for(id), want, "{id}");
    }
    for f in [
        "source_role",
        "claim_support",
        "merge_decision",
        "reviewed_by",
        "reviewed_at",
    ] {
        assert!(rows[0][f].is_null(), "{f}");
    }
}

#[test]
fn max_variants_1_fetches_the_first_observation_only() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(
        &s,
        &[
            "/report",
            "/report/",
            "/article",
            "/article?utm_source=synthetic",
        ],
    );
    let mut args = FAST.to_vec();
    args.extend(["--max-variants", "1"]);
    ledger(&db, &args).ok();
    // A risky merge left with one spelling compared nothing: partial, not single.
    let (_, _, check, detail, fetched, total) = check_of(&db, "v-000");
    assert_eq!(
        (check.as_str(), fetched, total),
        ("partial", 1, 2),
        "{detail}"
    );
    assert!(
        detail.contains("remove-trailing-slash: no spelling behind it was fetched (the limit of 1"),
        "{detail}"
    );
    assert!(s.requests_for("/report/").is_empty());
    // A merge by documented rules only is single, as before.
    let (_, _, check, _, fetched, total) = check_of(&db, "v-002");
    assert_eq!((check.as_str(), fetched, total), ("single", 1, 2));
    assert!(s.requests_for("/article?utm_source=synthetic").is_empty());
    let mut zero = FAST.to_vec();
    zero.extend(["--max-variants", "0", "--older-than", "0s"]);
    let e = ledger(&db, &zero).err();
    assert!(e.to_string().contains("--max-variants 0"), "{e}");
}

#[test]
fn a_variant_redirected_to_a_private_address_is_refused() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/inside", "/inside/"]);
    ledger(&db, FAST).ok();
    let (st, _, check, _, _, _) = check_of(&db, "v-000");
    // The refused spelling is the risky one: nothing confirms the merge.
    assert_eq!((st.as_str(), check.as_str()), ("verified", "partial"));
    let (_, _, _, detail, _, _) = check_of(&db, "v-000");
    assert!(
        detail.contains("remove-trailing-slash: variant 1 (")
            && detail.contains("refused-private-address")
            && detail.contains("those give not-fetched"),
        "{detail}"
    );
    let vs = variants_of(&db, "v-000");
    assert_eq!(
        (vs[1].1.as_str(), vs[1].2.as_str()),
        ("unresolved", "refused-private-address")
    );
    let hops: String = open(&db)
        .query_row(
            "SELECT hops FROM verification_variants WHERE variant = 1",
            [],
            |r| r.get(0),
        )
        .expect("hops");
    let hops: serde_json::Value = serde_json::from_str(&hops).expect("json");
    assert_eq!(hops[1]["url"], "http://10.0.0.1/inside");
    assert_eq!(hops[1]["outcome"], "refused");
    assert!(hops[1]["remote_addr"].is_null(), "never connected");
}

#[test]
fn a_200_challenge_page_is_unresolved_challenge_suspected() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/moment"]);
    let r = ledger(&db, FAST).ok();
    assert!(r.stdout.contains("challenge-suspected"), "{}", r.stdout);
    let (st, reason, _, _, _, _) = check_of(&db, "v-000");
    assert_eq!(
        (st.as_str(), reason.as_str()),
        ("unresolved", "challenge-suspected")
    );
    let detail: String = open(&db)
        .query_row("SELECT detail FROM verifications", [], |r| r.get(0))
        .expect("detail");
    assert!(detail.contains("just a moment"), "{detail}");
}

#[test]
fn risky_merges_are_verified_first_and_listed_until_same_or_decided() {
    let s = TestServer::start();
    // /plain first in ingest order, but the risky merges (trailing slash) go first.
    let (_dir, db) = ledger_for(
        &s,
        &["/plain", "/report", "/report/", "/article", "/article/"],
    );
    let dry = ledger(&db, &["verify", "--dry-run"]).ok().stdout;
    let first = dry.lines().next().expect("line");
    assert!(
        first.contains("/report") && first.contains("[risky merge]"),
        "{dry}"
    );
    assert!(
        dry.contains(&format!("and variant {}", s.url("/report/"))),
        "{dry}"
    );

    let before = ledger(&db, &["merges", "--format", "json"]).ok().stdout;
    let ms: serde_json::Value = serde_json::from_str(&before).expect("json");
    assert_eq!(ms.as_array().expect("array").len(), 2);
    assert!(ms
        .as_array()
        .expect("a")
        .iter()
        .all(|m| m["to_review"] == true));
    assert!(ms[0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .any(|r| r == "remove-trailing-slash (risky)"));

    let mut args = FAST.to_vec();
    args.extend(["--limit", "1"]);
    ledger(&db, &args).ok();
    let c = open(&db);
    let key: String = c
        .query_row("SELECT normalized_key FROM verifications", [], |r| r.get(0))
        .expect("one");
    assert!(key.ends_with("/report"), "the risky merge first: {key}");
    drop(c);
    ledger(&db, FAST).ok();

    // /article is `same`: no longer to review; /report is `different`: to review.
    let table = ledger(&db, &["merges"]).ok().stdout;
    assert!(table.contains("2 merged keys"), "{table}");
    assert!(table.contains("1 to review"), "{table}");
    let ms: serde_json::Value =
        serde_json::from_str(&ledger(&db, &["merges", "--format", "json"]).ok().stdout)
            .expect("json");
    assert_eq!(ms[0]["content_check"], "different");
    assert_eq!(ms[0]["to_review"], true);
    assert_eq!(ms[1]["content_check"], "same");
    assert_eq!(ms[1]["to_review"], false);

    // A person decides: split. The merge is decided, no longer to review.
    ledger(
        &db,
        &[
            "review",
            "add",
            "--observation",
            "v-002",
            "--merge",
            "split",
            "--reviewer",
            "ann",
        ],
    )
    .ok();
    let table = ledger(&db, &["merges"]).ok().stdout;
    assert!(table.contains("0 to review"), "{table}");
    assert!(table.contains("split"), "{table}");
}

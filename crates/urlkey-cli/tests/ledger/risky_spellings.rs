//! Issue 48, part 1: verify compares a spelling on each side of every risky rule that
//! merged a key, whatever the order and however many spellings there are; a key whose risky
//! rules were not all compared (the variant limit, a refusal, a timeout) is `partial` and
//! stays to review; verify's lines, `merges` (every format), the report and `--dry-run`
//! say how many spellings a key has and how many were compared. Loopback only (127.0.0.1).

use std::path::Path;

use serde_json::Value;

use crate::common::{ledger, ledger_for, open, TestServer};
use crate::variants::FAST;

/// (content_check, content_detail, variants_fetched, variants_total, variants_compared) of
/// the latest verification of the key of `obs`.
fn row_of(db: &Path, obs: &str) -> (String, String, i64, i64, i64) {
    open(db)
        .query_row(
            "SELECT v.content_check, v.content_detail, v.variants_fetched, v.variants_total, \
             v.variants_compared FROM verifications v JOIN observations o \
             ON o.normalized_key = v.normalized_key WHERE o.observation_id = ?1 \
             ORDER BY v.verification_id DESC LIMIT 1",
            [obs],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap_or_else(|e| panic!("no verification for {obs}: {e}"))
}

/// `merges --format json`, by key suffix.
fn merge_json(db: &Path, key_ends: &str) -> Value {
    let all: Value = serde_json::from_str(&ledger(db, &["merges", "--format", "json"]).ok().stdout)
        .expect("json");
    all.as_array()
        .expect("array")
        .iter()
        .find(|m| {
            m["normalized_key"]
                .as_str()
                .is_some_and(|k| k.ends_with(key_ends))
        })
        .cloned()
        .unwrap_or_else(|| panic!("no merge {key_ends}: {all}"))
}

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = FAST.to_vec();
    a.extend_from_slice(extra);
    a
}

/// The verify line of the key ending in `key_ends`.
fn line_of<'a>(stdout: &'a str, key_ends: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| {
            l.split_whitespace()
                .nth(2)
                .is_some_and(|k| k.ends_with(key_ends))
        })
        .unwrap_or_else(|| panic!("no line for {key_ends}:\n{stdout}"))
}

#[test]
fn the_issues_seven_spellings_compare_the_trailing_slash_one() {
    let s = TestServer::start();
    // Six spellings that differ by gclid only, then the trailing-slash one (another page).
    let mut paths: Vec<String> = (1..=6).map(|i| format!("/seven?gclid=g{i}")).collect();
    paths.push("/seven/".to_string());
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let (_dir, db) = ledger_for(&s, &refs);

    let before = merge_json(&db, "/seven");
    assert_eq!(before["spellings"], 7);
    assert!(before["spellings_compared"].is_null(), "{before}");
    assert_eq!(before["to_review"], true);

    let r = ledger(&db, FAST).ok();
    // Defaults (--max-variants 5): the first observation's, the slash one, three more.
    assert_eq!(
        s.requests_for("/seven/").len(),
        1,
        "the risky spelling is fetched"
    );
    for i in 1..=4 {
        assert_eq!(s.requests_for(&format!("/seven?gclid=g{i}")).len(), 1);
    }
    for i in 5..=6 {
        assert!(s.requests_for(&format!("/seven?gclid=g{i}")).is_empty());
    }
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "different", "{detail}");
    assert_eq!((fetched, total, compared), (5, 7, 5));
    let line = line_of(&r.stdout, "/seven");
    assert!(
        line.contains("content: different (5 of 7 spellings compared)"),
        "{line}"
    );

    let m = merge_json(&db, "/seven");
    assert_eq!(m["content_check"], "different");
    assert_eq!(m["to_review"], true);
    assert_eq!(
        (m["spellings"].clone(), m["spellings_compared"].clone()),
        (7.into(), 5.into())
    );
    let table = ledger(&db, &["merges"]).ok().stdout;
    assert!(table.contains("spellings_compared"), "{table}");
    assert!(table.contains("1 to review"), "{table}");
}

#[test]
fn a_risky_spelling_first_in_ingest_order_is_compared_with_the_other_side() {
    let s = TestServer::start();
    let mut paths = vec!["/seven/".to_string()];
    paths.extend((1..=6).map(|i| format!("/seven?gclid=g{i}")));
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let (_dir, db) = ledger_for(&s, &refs);
    ledger(&db, &with(&["--max-variants", "2"])).ok();
    assert_eq!(s.requests_for("/seven/").len(), 1);
    assert_eq!(s.requests_for("/seven?gclid=g1").len(), 1);
    assert!(s.requests_for("/seven?gclid=g2").is_empty());
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "different", "{detail}");
    assert_eq!((fetched, total, compared), (2, 7, 2));
}

#[test]
fn two_risky_rules_get_a_spelling_each_within_a_small_limit() {
    let s = TestServer::start();
    // Four gclid spellings first, then one behind remove-trailing-slash (the same page),
    // then one behind sort-query (another page).
    let paths = [
        "/two?a=1&b=2&gclid=g1",
        "/two?a=1&b=2&gclid=g2",
        "/two?a=1&b=2&gclid=g3",
        "/two?a=1&b=2&gclid=g4",
        "/two/?a=1&b=2",
        "/two?b=2&a=1",
    ];
    let (_dir, db) = ledger_for(&s, &paths);
    let dry = ledger(&db, &["verify", "--dry-run", "--max-variants", "3"])
        .ok()
        .stdout;
    assert!(
        dry.contains(&format!(
            "and variant {} (via v-004)  [remove-trailing-slash]",
            s.url("/two/?a=1&b=2")
        )),
        "{dry}"
    );
    assert!(
        dry.contains(&format!(
            "and variant {} (via v-005)  [sort-query]",
            s.url("/two?b=2&a=1")
        )),
        "{dry}"
    );
    assert!(dry.contains("(3 of 6 spellings would be fetched)"), "{dry}");

    // Limit 2: the first observation's and the first risky rule's; sort-query left out.
    ledger(&db, &with(&["--max-variants", "2"])).ok();
    assert_eq!(s.requests_for("/two/?a=1&b=2").len(), 1);
    assert!(s.requests_for("/two?b=2&a=1").is_empty());
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "partial", "{detail}");
    assert_eq!((fetched, total, compared), (2, 6, 2));
    assert!(
        detail.contains("sort-query: no spelling behind it was fetched (the limit of 2"),
        "{detail}"
    );
    assert!(!detail.contains("remove-trailing-slash:"), "{detail}");
    let m = merge_json(&db, "/two?a=1&b=2");
    assert_eq!(
        (m["content_check"].clone(), m["to_review"].clone()),
        ("partial".into(), true.into())
    );

    // Limit 3: both risky spellings, none of the later gclid ones; the unsorted one differs.
    let r = ledger(&db, &with(&["--max-variants", "3", "--older-than", "0s"])).ok();
    assert_eq!(s.requests_for("/two?b=2&a=1").len(), 1);
    assert_eq!(s.requests_for("/two?a=1&b=2&gclid=g2").len(), 0);
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "different", "{detail}");
    assert!(detail.starts_with("variant 2's visible text"), "{detail}");
    assert_eq!((fetched, total, compared), (3, 6, 3));
    assert!(
        line_of(&r.stdout, "/two?a=1&b=2")
            .contains("content: different (3 of 6 spellings compared)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_risky_spelling_that_times_out_or_is_refused_is_partial_and_to_review() {
    let s = TestServer::start();
    let paths = [
        "/lag?gclid=g1", // v-000
        "/lag?gclid=g2", // v-001
        "/lag/",         // v-002: times out
        "/inside",       // v-003
        "/inside/",      // v-004: redirected to 10.0.0.1, refused
    ];
    let (_dir, db) = ledger_for(&s, &paths);
    let args = [
        "verify",
        "--allow-loopback",
        "--timeout",
        "1",
        "--per-host-delay",
        "0",
        "--concurrency",
        "2",
    ];
    let r = ledger(&db, &args).ok();
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "partial", "{detail}");
    assert_eq!((fetched, total, compared), (3, 3, 2));
    assert!(
        detail.contains(&format!(
            "remove-trailing-slash: variant 2 ({}) behind it gave no finding: timeout",
            s.url("/lag/")
        )),
        "{detail}"
    );
    let line = line_of(&r.stdout, "/lag");
    assert!(
        line.contains(
            "content: partial (2 of 3 spellings compared)  not compared: remove-trailing-slash"
        ),
        "{line}"
    );

    let (check, detail, _, total, compared) = row_of(&db, "v-003");
    assert_eq!(check, "partial", "{detail}");
    assert_eq!((total, compared), (2, 1));
    assert!(detail.contains("refused-private-address"), "{detail}");

    for key in ["/lag", "/inside"] {
        let m = merge_json(&db, key);
        assert_eq!(m["content_check"], "partial", "{m}");
        assert_eq!(m["to_review"], true, "{m}");
    }
    // The report lists them with the counts, in every format.
    let j: Value = serde_json::from_str(&ledger(&db, &["report", "--format", "json"]).ok().stdout)
        .expect("json");
    let list = j["review"]["merges_to_review_list"]
        .as_array()
        .expect("list");
    let lag = list
        .iter()
        .find(|m| m["key"].as_str().is_some_and(|k| k.ends_with("/lag")))
        .expect("lag listed");
    assert_eq!(lag["content_check"], "partial");
    assert_eq!(
        (
            lag["spellings_total"].clone(),
            lag["spellings_compared"].clone()
        ),
        (3.into(), 2.into())
    );
    for format in ["table", "markdown", "csv"] {
        let out = ledger(&db, &["report", "--format", format]).ok().stdout;
        assert!(
            out.contains("partial (2 of 3 spellings compared)"),
            "{format}:\n{out}"
        );
    }
}

#[test]
fn every_risky_spelling_compared_and_alike_is_same_and_not_to_review() {
    let s = TestServer::start();
    let mut paths: Vec<String> = (1..=5).map(|i| format!("/alike?gclid=g{i}")).collect();
    paths.push("/alike/".to_string());
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let (_dir, db) = ledger_for(&s, &refs);
    let r = ledger(&db, &with(&["--max-variants", "3"])).ok();
    assert_eq!(s.requests_for("/alike/").len(), 1);
    let (check, detail, fetched, total, compared) = row_of(&db, "v-000");
    assert_eq!(check, "same", "{detail}");
    assert_eq!((fetched, total, compared), (3, 6, 3));
    assert!(
        line_of(&r.stdout, "/alike").contains("content: same (3 of 6 spellings compared)"),
        "{}",
        r.stdout
    );
    let m = merge_json(&db, "/alike");
    assert_eq!(m["to_review"], false);
    assert_eq!(
        (m["spellings"].clone(), m["spellings_compared"].clone()),
        (6.into(), 3.into())
    );
    let csv = ledger(&db, &["merges", "--format", "csv"]).ok().stdout;
    let header = csv.lines().next().expect("header");
    assert!(
        header.ends_with(",to_review,spellings,spellings_compared"),
        "{header}"
    );
    assert!(
        csv.lines().nth(1).expect("row").ends_with(",false,6,3"),
        "{csv}"
    );
    let jsonl = ledger(&db, &["merges", "--format", "jsonl"]).ok().stdout;
    let one: Value = serde_json::from_str(jsonl.lines().next().expect("line")).expect("json");
    assert_eq!(one["spellings_compared"], 3);
}

#[test]
fn dry_run_with_a_limit_says_how_many_keys_are_due_in_all() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/ok", "/plain", "/echo", "/seven", "/seven/"]);
    let r = ledger(&db, &["verify", "--dry-run", "--limit", "1"]).ok();
    assert!(
        r.stdout
            .contains("4 keys due for verification (1 listed: the limit)"),
        "{}",
        r.stdout
    );
    assert_eq!(r.stdout.matches("would verify").count(), 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("[risky merge]"),
        "the risky merge is listed first"
    );
    let r = ledger(&db, &["verify", "--dry-run", "--limit", "9"]).ok();
    assert!(
        r.stdout.ends_with("4 keys due for verification\n"),
        "{}",
        r.stdout
    );
    assert_eq!(s.connection_count(), 0);
}

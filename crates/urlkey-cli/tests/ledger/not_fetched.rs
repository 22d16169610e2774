//! A fetch that read no page (refused by the network scope or the scheme, timed out, could
//! not connect, failed TLS, got an HTTP error) has the content check `not-fetched`, never
//! `single`: in verify's lines, in the stored row, and in the export. Loopback only
//! (127.0.0.1); the closed port is one this test bound and released.

use std::path::Path;

use crate::common::{ledger, ledger_for_urls, open, TestServer};

/// (content_check, content_detail) of the key of `obs`.
fn check_of(db: &Path, obs: &str) -> (String, String) {
    open(db)
        .query_row(
            "SELECT v.content_check, v.content_detail FROM verifications v JOIN observations o \
             ON o.normalized_key = v.normalized_key WHERE o.observation_id = ?1 \
             ORDER BY v.verification_id DESC LIMIT 1",
            [obs],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap_or_else(|e| panic!("no verification for {obs}: {e}"))
}

#[test]
fn every_kind_of_failed_fetch_is_not_fetched_in_text_row_and_export() {
    let s = TestServer::start();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr")
    };
    let urls = [
        s.url("/ok"),                      // v-000 single
        s.url("/slow"),                    // v-001 timeout
        format!("http://{closed}/nobody"), // v-002 connect
        s.url("/missing"),                 // v-003 http-404
        s.url("/broken"),                  // v-004 http-500
        s.url("/to-ftp"),                  // v-005 unsupported-scheme (at a redirect)
        s.url("/to-private"),              // v-006 refused-private-address (at a redirect)
    ];
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let (_dir, db) = ledger_for_urls(&refs);
    let r = ledger(
        &db,
        &[
            "verify",
            "--allow-loopback",
            "--timeout",
            "1",
            "--per-host-delay",
            "0",
            "--concurrency",
            "4",
        ],
    )
    .ok();
    let want = [
        ("v-000", "single", None),
        ("v-001", "not-fetched", Some("timeout")),
        ("v-002", "not-fetched", Some("connect")),
        ("v-003", "not-fetched", Some("http-404")),
        ("v-004", "not-fetched", Some("http-500")),
        ("v-005", "not-fetched", Some("unsupported-scheme")),
        ("v-006", "not-fetched", Some("refused-private-address")),
    ];
    let export = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let rows: Vec<serde_json::Value> = export
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    for (i, (obs, check, reason)) in want.iter().enumerate() {
        let (stored, detail) = check_of(&db, obs);
        assert_eq!(stored, *check, "{obs}: {detail}");
        let line = r
            .stdout
            .lines()
            .find(|l| l.contains(&urls[i]))
            .unwrap_or_else(|| panic!("no line for {obs}:\n{}", r.stdout));
        match reason {
            Some(reason) => {
                assert!(detail.contains(reason), "{obs}: {detail}");
                assert!(
                    line.contains(&format!("content: not-fetched ({reason})")),
                    "{obs}: {line}"
                );
            }
            None => assert!(line.contains("content: single"), "{obs}: {line}"),
        }
        let row = rows
            .iter()
            .find(|r| r["observation_id"] == *obs)
            .expect("exported");
        assert_eq!(row["content_check"], *check, "{obs}");
    }
    assert_eq!(
        r.stdout.matches("content: single").count(),
        1,
        "{}",
        r.stdout
    );
}

#[test]
fn a_loopback_url_refused_by_the_scope_is_not_fetched() {
    let s = TestServer::start();
    let url = s.url("/ok");
    let (_dir, db) = ledger_for_urls(&[&url]);
    let r = ledger(&db, &["verify", "--timeout", "1", "--per-host-delay", "0"]).ok();
    assert!(
        r.stdout
            .contains("content: not-fetched (refused-private-address)"),
        "{}",
        r.stdout
    );
    let (check, detail) = check_of(&db, "v-000");
    assert_eq!(check, "not-fetched");
    assert!(detail.contains("--allow-loopback"), "{detail}");
    assert_eq!(s.connection_count(), 0, "refused before connecting");
}

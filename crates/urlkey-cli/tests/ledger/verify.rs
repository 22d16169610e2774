//! `ledger verify` against a local server on 127.0.0.1 (ephemeral port). Nothing here
//! sends traffic anywhere else: the private and link-local targets are refused before
//! any connection, which is what these tests check.

use std::path::Path;
use std::time::Duration;

use crate::common::{ledger, ledger_for, ledger_for_urls, open, TestServer};

const FAST: &[&str] = &[
    "verify",
    "--allow-loopback",
    "--timeout",
    "1",
    "--per-host-delay",
    "0",
    "--concurrency",
    "4",
];

#[derive(Debug)]
struct V {
    status: String,
    reason: String,
    final_url: Option<String>,
    final_http_status: Option<i64>,
    redirect_count: i64,
    publisher_canonical: Option<String>,
    canonical_html: Option<String>,
    canonical_link_header: Option<String>,
    body_bytes_read: i64,
    body_truncated: bool,
    detail: Option<String>,
    requested_url: String,
    credentials_removed: bool,
}

#[derive(Debug)]
struct H {
    url: String,
    outcome: String,
    http_status: Option<i64>,
    location: Option<String>,
    next_url: Option<String>,
    retry_after: Option<String>,
    remote_addr: Option<String>,
}

/// The latest verification of the key of `observation_id`, and its hops.
fn verification(db: &Path, observation_id: &str) -> (V, Vec<H>) {
    let c = open(db);
    let (id, v) = c
        .query_row(
            "SELECT v.verification_id, v.verification_status, v.reason, v.final_url, \
             v.final_http_status, v.redirect_count, v.publisher_canonical, v.canonical_html, \
             v.canonical_link_header, v.body_bytes_read, v.body_truncated, v.detail, \
             v.requested_url, v.credentials_removed \
             FROM verifications v JOIN observations o \
               ON o.normalization_policy_version = v.normalization_policy_version \
              AND o.normalized_key = v.normalized_key \
             WHERE o.observation_id = ?1 ORDER BY v.verification_id DESC LIMIT 1",
            [observation_id],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    V {
                        status: r.get(1)?,
                        reason: r.get(2)?,
                        final_url: r.get(3)?,
                        final_http_status: r.get(4)?,
                        redirect_count: r.get(5)?,
                        publisher_canonical: r.get(6)?,
                        canonical_html: r.get(7)?,
                        canonical_link_header: r.get(8)?,
                        body_bytes_read: r.get(9)?,
                        body_truncated: r.get(10)?,
                        detail: r.get(11)?,
                        requested_url: r.get(12)?,
                        credentials_removed: r.get(13)?,
                    },
                ))
            },
        )
        .unwrap_or_else(|e| panic!("no verification for {observation_id}: {e}"));
    let mut stmt = c
        .prepare(
            "SELECT url, outcome, http_status, location, next_url, retry_after, remote_addr \
             FROM verification_hops WHERE verification_id = ?1 ORDER BY hop",
        )
        .expect("prepare");
    let hops = stmt
        .query_map([id], |r| {
            Ok(H {
                url: r.get(0)?,
                outcome: r.get(1)?,
                http_status: r.get(2)?,
                location: r.get(3)?,
                next_url: r.get(4)?,
                retry_after: r.get(5)?,
                remote_addr: r.get(6)?,
            })
        })
        .expect("query")
        .collect::<Result<Vec<_>, _>>()
        .expect("hops");
    (v, hops)
}

#[test]
fn the_local_server_cases_are_classified_and_every_hop_recorded() {
    let s = TestServer::start();
    let paths = [
        "/ok",          // v-000
        "/chain/start", // v-001
        "/loop/a",      // v-002
        "/missing",     // v-003
        "/busy",        // v-004
        "/huge",        // v-005
        "/long/0",      // v-006
        "/gone",        // v-007
        "/broken",      // v-008
        "/forbidden",   // v-009
        "/challenge",   // v-010
        "/login",       // v-011
        "/pdf",         // v-012
        "/to-ftp",      // v-013
    ];
    let (_dir, db) = ledger_for(&s, &paths);
    let observed_before: Vec<(String, String)> = {
        let c = open(&db);
        let mut st = c
            .prepare(
                "SELECT observed_url, normalized_key FROM observations ORDER BY observation_id",
            )
            .expect("prepare");
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("q")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let mut args = FAST.to_vec();
    // A request timeout far above what any of these pages needs: none of them is about
    // timeouts (that case has its own test), and on two busy cores a hop of /long once
    // took over 0.5 s, so the chain ended as a timeout instead of too-many-redirects.
    args[3] = "30";
    let r = ledger(&db, &args).ok();
    assert!(r.stdout.contains("14 keys checked"), "{}", r.stdout);

    // 200 with a canonical link, resolved against the final URL.
    let (v, h) = verification(&db, "v-000");
    assert_eq!((v.status.as_str(), v.reason.as_str()), ("verified", "ok"));
    assert_eq!(v.final_http_status, Some(200));
    assert_eq!(v.publisher_canonical, Some(s.url("/canonical/ok")));
    assert_eq!(h.len(), 1);
    assert_eq!(
        h[0].remote_addr.as_deref(),
        Some(s.addr.to_string().as_str())
    );
    assert!(!v.body_truncated);

    // 301 -> 302 -> 200, every hop recorded; the fragment of a Location is never sent.
    let (v, h) = verification(&db, "v-001");
    assert_eq!(v.status, "redirected");
    assert_eq!(v.redirect_count, 2);
    assert_eq!(v.final_url, Some(s.url("/chain/end")));
    assert_eq!(
        v.canonical_html,
        Some(s.url("/chain/final")),
        "<base href> honoured"
    );
    let got: Vec<(Option<i64>, Option<String>, Option<String>)> = h
        .iter()
        .map(|x| (x.http_status, x.location.clone(), x.next_url.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                Some(301),
                Some("/chain/middle".into()),
                Some(s.url("/chain/middle"))
            ),
            (
                Some(302),
                Some(format!("http://{}/chain/end#section", s.addr)),
                Some(s.url("/chain/end"))
            ),
            (Some(200), None, None),
        ]
    );

    // A redirect loop is recorded as such.
    let (v, h) = verification(&db, "v-002");
    assert_eq!(
        (v.status.as_str(), v.reason.as_str()),
        ("unresolved", "redirect-loop")
    );
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].next_url, Some(s.url("/loop/a")));

    // 404.
    let (v, _) = verification(&db, "v-003");
    assert_eq!(
        (v.status.as_str(), v.reason.as_str()),
        ("not-found", "http-404")
    );

    // 503 with Retry-After: unresolved, the header kept.
    let (v, h) = verification(&db, "v-004");
    assert_eq!(
        (v.status.as_str(), v.reason.as_str()),
        ("unresolved", "http-503")
    );
    assert_eq!(h[0].retry_after.as_deref(), Some("120"));
    assert_eq!(v.detail.as_deref(), Some("Retry-After: 120"));

    // A huge body: at most 2 MiB read, no canonical past the cap, still verified.
    let (v, _) = verification(&db, "v-005");
    assert_eq!(v.status, "verified");
    assert_eq!(v.body_bytes_read, 2 * 1024 * 1024);
    assert!(v.body_truncated);
    assert_eq!(v.canonical_html, None);

    // More than 10 redirects.
    let (v, h) = verification(&db, "v-006");
    assert_eq!(
        (v.status.as_str(), v.reason.as_str()),
        ("unresolved", "too-many-redirects")
    );
    assert_eq!(v.redirect_count, 11);
    assert_eq!(h.len(), 11, "every hop up to the limit is recorded");
    assert_eq!(h[10].next_url, Some(s.url("/long/11")));

    let cases = [
        ("v-007", "not-found", "http-410"),
        ("v-008", "error", "http-500"),
        ("v-009", "unresolved", "http-403"),
        ("v-010", "unresolved", "challenge"),
        ("v-011", "unresolved", "auth-wall"),
        ("v-013", "unresolved", "unsupported-scheme"),
    ];
    for (id, status, reason) in cases {
        let (v, _) = verification(&db, id);
        assert_eq!(
            (v.status.as_str(), v.reason.as_str()),
            (status, reason),
            "{id}"
        );
    }
    // A Link header canonical on a non-HTML response.
    let (v, _) = verification(&db, "v-012");
    assert_eq!(v.status, "verified");
    assert_eq!(v.canonical_link_header, Some(s.url("/canonical/paper.pdf")));
    assert_eq!(v.publisher_canonical, Some(s.url("/canonical/paper.pdf")));
    // A non-HTML 2xx body is read too (up to the cap), for its SHA-256.
    assert_eq!(v.body_bytes_read, "%PDF-1.4 synthetic".len() as i64);

    // The observed URL and key are untouched; the export carries the latest verification.
    let observed_after: Vec<(String, String)> = {
        let c = open(&db);
        let mut st = c
            .prepare(
                "SELECT observed_url, normalized_key FROM observations ORDER BY observation_id",
            )
            .expect("prepare");
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("q")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    assert_eq!(observed_before, observed_after);
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let first: serde_json::Value =
        serde_json::from_str(out.lines().next().expect("line")).expect("json");
    assert_eq!(first["verification_status"], "verified");
    assert_eq!(first["publisher_canonical"], s.url("/canonical/ok"));
    assert_eq!(first["observed_url"], s.url("/ok"));

    // Verified keys are not fetched again unless stale.
    let r = ledger(&db, FAST).ok();
    assert!(r.stdout.contains("nothing to verify"), "{}", r.stdout);
}

#[test]
fn a_page_slower_than_the_timeout_is_unresolved_not_an_error() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/slow"]);
    // /slow answers after 5 s: a 1 s timeout fires first however busy the machine is
    // (load can only make the answer later).
    let r = ledger(&db, FAST).ok();
    assert!(r.stdout.contains("1 keys checked"), "{}", r.stdout);
    let (v, h) = verification(&db, "v-000");
    assert_eq!(
        (v.status.as_str(), v.reason.as_str()),
        ("unresolved", "timeout")
    );
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].outcome, "timeout");
    assert_eq!(h[0].http_status, None);
    assert_eq!(v.final_http_status, None);
}

#[test]
fn redirects_to_private_addresses_are_refused_before_connecting() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/to-private", "/to-metadata", "/to-mapped"]);
    ledger(&db, FAST).ok();
    for (id, target) in [
        ("v-000", "http://10.0.0.1/admin"),
        ("v-001", "http://169.254.169.254/latest/meta-data/"),
        ("v-002", "http://[::ffff:a00:1]/"),
    ] {
        let (v, h) = verification(&db, id);
        assert_eq!(
            (v.status.as_str(), v.reason.as_str()),
            ("unresolved", "refused-private-address"),
            "{id}"
        );
        assert_eq!(h.len(), 2, "{id}");
        assert_eq!(h[0].http_status, Some(302));
        assert_eq!(h[1].url, target, "{id}");
        assert_eq!(h[1].outcome, "refused", "{id}");
        assert_eq!(h[1].remote_addr, None, "{id}: no connection was made");
        assert_eq!(h[1].http_status, None);
        assert!(
            v.detail
                .as_deref()
                .is_some_and(|d| d.contains("--allow-private-network")),
            "{:?}",
            v.detail
        );
    }
    // Only the three first hops reached a server: the loopback one.
    assert_eq!(s.connection_count(), 3);
}

#[test]
fn loopback_itself_is_refused_without_a_flag_by_address_and_by_name() {
    let s = TestServer::start();
    let by_name = format!("http://localhost:{}/ok", s.addr.port());
    let (_dir, db) = ledger_for_urls(&[&s.url("/ok"), &by_name]);
    let r = ledger(&db, &["verify", "--timeout", "2", "--per-host-delay", "0"]).ok();
    assert!(r.stdout.contains("2 unresolved"), "{}", r.stdout);
    let (v, h) = verification(&db, "v-000");
    assert_eq!(v.reason, "refused-private-address");
    assert_eq!(h[0].outcome, "refused");
    // The name resolves to loopback only: the guarded resolver leaves the client nothing
    // to connect to.
    let (v, h) = verification(&db, "v-001");
    assert_eq!(v.reason, "refused-private-address", "{:?}", v.detail);
    assert_eq!(h[0].outcome, "refused");
    assert_eq!(h[0].remote_addr, None);
    assert_eq!(s.connection_count(), 0, "nothing reached the server");

    // --allow-private-network lifts it (both keys are re-verified with --older-than 0s).
    let r = ledger(
        &db,
        &[
            "verify",
            "--allow-private-network",
            "--older-than",
            "0s",
            "--per-host-delay",
            "0",
        ],
    )
    .ok();
    assert!(r.stdout.contains("2 verified"), "{}", r.stdout);
    let (v, _) = verification(&db, "v-001");
    assert_eq!(v.status, "verified");
    // Two verifications of each key are kept.
    let n: i64 = open(&db)
        .query_row("SELECT count(*) FROM verifications", [], |r| r.get(0))
        .expect("count");
    assert_eq!(n, 4);
}

#[test]
fn a_redirect_to_a_loopback_name_works_with_allow_loopback() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/to-localhost"]);
    ledger(&db, FAST).ok();
    let (v, h) = verification(&db, "v-000");
    assert_eq!(v.status, "redirected", "{v:?}");
    assert_eq!(h.len(), 2);
    assert!(h[1].url.starts_with("http://localhost:"));
    assert!(h[1]
        .remote_addr
        .as_deref()
        .is_some_and(|a| a.starts_with("127.") || a.starts_with("[::1]")));
}

#[test]
fn the_client_is_isolated_no_cookies_no_credentials_fixed_user_agent() {
    let s = TestServer::start();
    let with_userinfo = format!("http://user:secret@{}/echo#part", s.addr);
    let (_dir, db) = ledger_for_urls(&[&s.url("/set-cookie"), &with_userinfo]);
    ledger(&db, FAST).ok();
    let after = s.requests_for("/after-cookie");
    assert_eq!(after.len(), 1);
    let head = after[0].head.to_ascii_lowercase();
    assert!(
        !head.contains("\ncookie:"),
        "no cookie is kept or sent:\n{head}"
    );
    let ua = format!(
        "user-agent: urlkey/{} (+citation verification)",
        env!("CARGO_PKG_VERSION")
    );
    assert!(head.contains(&ua), "{head}");
    assert!(!head.contains("referer"), "{head}");

    let echo = s.requests_for("/echo");
    assert_eq!(echo.len(), 1);
    let head = echo[0].head.to_ascii_lowercase();
    assert!(
        !head.contains("authorization"),
        "credentials are never sent:\n{head}"
    );
    assert!(!head.contains("secret"), "{head}");
    let (v, _) = verification(&db, "v-001");
    assert!(v.credentials_removed);
    assert_eq!(v.requested_url, s.url("/echo"));
    // The observed URL keeps its userinfo and fragment: it is evidence.
    let observed: String = open(&db)
        .query_row(
            "SELECT observed_url FROM observations WHERE observation_id = 'v-001'",
            [],
            |r| r.get(0),
        )
        .expect("row");
    assert_eq!(observed, with_userinfo);
}

#[test]
fn requests_to_one_host_are_spaced_by_the_per_host_delay() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/ok", "/plain", "/echo"]);
    ledger(
        &db,
        &[
            "verify",
            "--allow-loopback",
            "--per-host-delay",
            "300",
            "--concurrency",
            "3",
        ],
    )
    .ok();
    let mut times: Vec<std::time::Instant> = ["/ok", "/plain", "/echo"]
        .iter()
        .map(|p| s.requests_for(p)[0].at)
        .collect();
    times.sort();
    for w in times.windows(2) {
        assert!(
            w[1].duration_since(w[0]) >= Duration::from_millis(250),
            "{:?}",
            w[1].duration_since(w[0])
        );
    }
}

#[test]
fn limit_and_dry_run() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/ok", "/plain", "/echo"]);
    let r = ledger(&db, &["verify", "--dry-run"]).ok();
    assert!(r.stdout.contains("3 keys due"), "{}", r.stdout);
    assert_eq!(s.connection_count(), 0);
    let mut args = FAST.to_vec();
    args.extend(["--limit", "2"]);
    let r = ledger(&db, &args).ok();
    assert!(r.stdout.contains("2 keys checked"), "{}", r.stdout);
    let r = ledger(&db, &["verify", "--dry-run"]).ok();
    assert!(r.stdout.contains("1 keys due"), "{}", r.stdout);
    let err = ledger(&db, &["verify", "--timeout", "0"]).err();
    assert_eq!(err.exit_code(), 2);
    let err = ledger(&db, &["verify", "--older-than", "soon"]).err();
    assert_eq!(err.exit_code(), 2);
}

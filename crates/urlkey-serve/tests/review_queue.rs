//! The review queue of `urlkey serve --ledger DB`: the Host check (421 for a
//! name that is not this server's), the per-run token and loopback-only writes (403), and
//! a decision recorded through `POST /api/ledger/review` read back with the ledger crate's
//! `review list`. The browser side is in e2e/e2e.mjs.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::Value;
use urlkey_ledger::command::{IngestCommand, LedgerCommand, ReviewCommand, VerifyCommand};
use urlkey_ledger::review::ListFormat;
use urlkey_serve::{AppState, Config};

use common::Resp;

/// Runs a ledger command (`urlkey ledger --db DB ...`); what it printed.
fn ledger_cmd(db: &Path, command: LedgerCommand) -> String {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    urlkey_ledger::run(command, db, &mut out, &mut err).expect("ledger command");
    String::from_utf8(out).expect("utf-8")
}

/// A fresh ledger from the ledger tests' synthetic fixture, in its own directory.
fn new_ledger() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../urlkey-ledger/tests/fixtures/synthetic-citations.csv");
    ledger_cmd(
        &db,
        LedgerCommand::Ingest(IngestCommand {
            files: vec![csv],
            ..IngestCommand::default()
        }),
    );
    (dir, db)
}

fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    host: &str,
    extra: &str,
    body: &str,
) -> Resp {
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    common::send(addr, head.as_bytes(), body.as_bytes())
}

fn host(addr: SocketAddr) -> String {
    format!("127.0.0.1:{}", addr.port())
}

fn page(addr: SocketAddr) -> String {
    let r = request(addr, "GET", "/ledger", &host(addr), "", "");
    assert_eq!(r.status, 200);
    r.text()
}

/// The token the page carries (`data-token="..."` on the queue).
fn token_of(page: &str) -> Option<String> {
    let (_, rest) = page.split_once("data-token=\"")?;
    Some(rest.split('"').next()?.to_string())
}

fn post_review(addr: SocketAddr, token: Option<&str>, body: &Value) -> Resp {
    let mut extra = String::from("Content-Type: application/json\r\n");
    if let Some(t) = token {
        extra.push_str(&format!("X-Urlkey-Token: {t}\r\n"));
    }
    request(
        addr,
        "POST",
        "/api/ledger/review",
        &host(addr),
        &extra,
        &body.to_string(),
    )
}

#[test]
fn a_foreign_host_gets_421_on_every_path() {
    let (_dir, db) = new_ledger();
    let addr = urlkey_serve::spawn_with_ledger(Config::default(), Some(db)).expect("server");
    let port = addr.port();
    for path in [
        "/",
        "/app.js",
        "/api/policies",
        "/ledger",
        "/api/ledger",
        "/nope",
    ] {
        for bad in [
            format!("evil.example:{port}"),
            format!("127.0.0.1.evil.example:{port}"),
            format!("127.0.0.1:{}", port.wrapping_add(1)),
            "localhost".to_string(),
            String::new(),
        ] {
            let r = request(addr, "GET", path, &bad, "", "");
            assert_eq!(r.status, 421, "{path} with Host {bad:?}");
            assert_eq!(r.error_code(), "request.misdirected");
            assert!(r.header("content-security-policy").is_some());
        }
        for good in [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("LocalHost:{port}"),
            format!("[::1]:{port}"),
        ] {
            let r = request(addr, "GET", path, &good, "", "");
            assert_ne!(r.status, 421, "{path} with Host {good:?}");
        }
    }
    // A write with a foreign Host is refused before the token is even looked at.
    let r = request(
        addr,
        "POST",
        "/api/ledger/review",
        &format!("evil.example:{port}"),
        "Content-Type: application/json\r\n",
        "{}",
    );
    assert_eq!(r.status, 421);
}

#[test]
fn a_decision_needs_the_run_token_and_is_stored_through_the_review_api() {
    let (_dir, db) = new_ledger();
    let addr =
        urlkey_serve::spawn_with_ledger(Config::default(), Some(db.clone())).expect("server");
    let p = page(addr);
    // The queue: merges to review first, the variants side by side, a form per merge.
    assert!(p.contains("<h2>Review queue</h2>"), "{p}");
    assert!(p.contains("3 to review"), "{p}");
    let first = p.find("<article class=\"merge").expect("an article");
    assert!(p[first..].starts_with("<article class=\"merge to-review\""));
    for want in [
        "variant 1",
        "variant 2",
        "observed URL",
        "final URL",
        "canonical",
        "claim",
        "content check",
    ] {
        assert!(p.contains(want), "{want}");
    }
    assert!(p.contains("<form class=\"review-form\""));
    assert!(p.contains("<script src=\"/ledger.js\" defer></script>"));
    let token = token_of(&p).expect("a token in the page");
    assert_eq!(token.len(), 32);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    // A second server has another token.
    let (_dir2, db2) = new_ledger();
    let other = urlkey_serve::spawn_with_ledger(Config::default(), Some(db2)).expect("server");
    assert_ne!(token_of(&page(other)).expect("token"), token);

    let key = "https://docs.example.org/guide";
    let decision = serde_json::json!({
        "key": key, "merge": "split", "role": "definition", "reviewer": "ana", "note": "two pages"
    });
    let before = std::fs::read(&db).expect("db");
    for bad in [
        None,
        Some(""),
        Some("0".repeat(32).as_str()),
        Some(&token[..31]),
    ] {
        let r = post_review(addr, bad, &decision);
        assert_eq!(r.status, 403, "token {bad:?}");
        assert_eq!(r.error_code(), "review.bad-token");
    }
    // A value outside the allowed ones: the ledger's own refusal, listing them.
    let r = post_review(
        addr,
        Some(&token),
        &serde_json::json!({"key": key, "merge": "maybe", "reviewer": "ana"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "request.invalid-option");
    assert!(r.text().contains("confirm, split"), "{}", r.text());
    let r = post_review(
        addr,
        Some(&token),
        &serde_json::json!({"key": key, "bogus": 1, "reviewer": "a"}),
    );
    assert_eq!(r.error_code(), "request.invalid-field");
    assert_eq!(
        std::fs::read(&db).expect("db"),
        before,
        "nothing written yet"
    );

    let r = post_review(addr, Some(&token), &decision);
    assert_eq!(r.status, 200, "{}", r.text());
    let id = r.json()["review_id"].as_i64().expect("review_id");
    // Read back as `urlkey ledger review list --format json` shows it.
    let list: Value = serde_json::from_str(&ledger_cmd(
        &db,
        LedgerCommand::Review(ReviewCommand::List {
            format: ListFormat::Json,
        }),
    ))
    .expect("json");
    let rows = list.as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{list}");
    let row = &rows[0];
    assert_eq!(row["review_id"], id);
    assert_eq!(row["normalized_key"], key);
    assert_eq!(row["merge_decision"], "split");
    assert_eq!(row["source_role"], "definition");
    assert_eq!(row["reviewer"], "ana");
    assert_eq!(row["note"], "two pages");
    assert!(
        row["reviewed_at"]
            .as_str()
            .is_some_and(|t| t.starts_with("20")),
        "{row}"
    );
    // The queue now shows the decision, and one merge fewer to review.
    let p = page(addr);
    assert!(p.contains("2 to review"), "{p}");
}

#[test]
fn a_server_not_bound_to_loopback_refuses_writes() {
    let (_dir, db) = new_ledger();
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let state = AppState::with_ledger(Config::default(), Some(db.clone())).expect("state");
    // As if bound to a LAN address (192.0.2.0/24 is for documentation): the test still
    // talks to 127.0.0.1 only.
    state.set_bound(SocketAddr::from(([192, 0, 2, 10], port)));
    assert!(!state.writes_allowed());
    let addr = urlkey_serve::spawn_state(listener, state).expect("server");
    let p = page(addr);
    assert!(p.contains("<h2>Review queue</h2>"));
    assert!(token_of(&p).is_none(), "no token in the page");
    assert!(!p.contains("<form"), "no form");
    assert!(p.contains("cannot be recorded here"));
    let before = std::fs::read(&db).expect("db");
    let r = post_review(
        addr,
        Some("0123456789abcdef0123456789abcdef"),
        &serde_json::json!({"key": "https://docs.example.org/guide", "merge": "confirm", "reviewer": "x"}),
    );
    assert_eq!(r.status, 403);
    assert_eq!(r.error_code(), "review.writes-refused");
    assert_eq!(std::fs::read(&db).expect("db"), before, "nothing written");
    // Its own address is an allowed Host too.
    let r = request(
        addr,
        "GET",
        "/api/policies",
        &format!("192.0.2.10:{port}"),
        "",
        "",
    );
    assert_eq!(r.status, 200);
}

/// A page server on 127.0.0.1 for verify (std threads, one connection each): the same
/// article under /article and /article/ (with a canonical link), and under /report and
/// /report/ two different pages, the second reached through a redirect.
fn page_server() -> SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let page = |title: &str, body: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title>\
             <link rel=\"canonical\" href=\"/canonical{}\"></head><body><p>{body}</p></body></html>",
            if title.starts_with("Programme") { "/figures" } else { "/article" }
        )
    };
    let article = "Comparison keys let an audit count one page once even when answers cite it \
                   with analytics parameters, fragments or a trailing slash; the observed URL \
                   is kept as evidence beside the key and a later verification records what \
                   the server answered for every variant of the key.";
    let figures = "Quarterly figures for the synthetic research programme: forty two sites \
                   were sampled across three regions, with rainfall, soil temperature and crop \
                   height measured every morning at each of the stations listed below.";
    let article_page = page("Synthetic article", article);
    let figures_page = page("Programme figures", figures);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let (article_page, figures_page) = (article_page.clone(), figures_page.clone());
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf);
                let path = head.split(' ').nth(1).unwrap_or("/");
                let (status, extra, body) = match path {
                    "/article" | "/article/" | "/report" => ("200 OK", "", article_page),
                    "/report/" => ("302 Found", "Location: /figures\r\n", String::new()),
                    "/figures" => ("200 OK", "", figures_page),
                    _ => ("404 Not Found", "", String::new()),
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n{extra}\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    addr
}

/// The `<article>` of `key` in the page, up to its end.
fn merge_of<'a>(page: &'a str, key: &str) -> &'a str {
    let start = page
        .find(&format!("data-key=\"{key}\">"))
        .unwrap_or_else(|| panic!("no merge {key} in\n{page}"));
    let end = page[start..].find("</article>").expect("end") + start;
    &page[start..end]
}

#[test]
fn the_queue_shows_what_verify_found_for_each_variant() {
    let pages = page_server();
    let url = |p: &str| format!("http://{pages}{p}");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("verified.csv");
    let mut text = String::from("observation_id,observed_url,claim\n");
    for (i, p) in ["/article", "/article/", "/report", "/report/"]
        .iter()
        .enumerate()
    {
        text.push_str(&format!("v-{i:03},{},claim number {i}\n", url(p)));
    }
    std::fs::write(&csv, text).expect("write");
    ledger_cmd(
        &db,
        LedgerCommand::Ingest(IngestCommand {
            files: vec![csv.clone()],
            answer_system: Some("test".into()),
            prompt_version: Some("v1".into()),
            market: Some("local".into()),
            run_timestamp: Some("2026-11-30T00:00:00Z".into()),
            ..IngestCommand::default()
        }),
    );
    let out = ledger_cmd(
        &db,
        LedgerCommand::Verify(VerifyCommand {
            allow_loopback: true,
            timeout: 30.0,
            per_host_delay: 0,
            ..VerifyCommand::default()
        }),
    );
    assert!(out.contains("2 keys checked"), "{out}");

    let addr = urlkey_serve::spawn_with_ledger(Config::default(), Some(db)).expect("server");
    let p = page(addr);
    assert!(p.contains("2 merged keys, 1 to review"), "{p}");
    // The different pages: first (to review), each variant's own findings side by side.
    let first = p.find("<article class=\"merge").expect("an article");
    assert!(p[first..].starts_with(&format!(
        "<article class=\"merge to-review\" data-key=\"{}\">",
        url("/report")
    )));
    let report = merge_of(&p, &url("/report"));
    for row in [
        "content check: <b class=\"check\">different</b>".to_string(),
        format!(
            "<tr><th>observed URL</th><td>{}</td><td>{}</td></tr>",
            url("/report"),
            url("/report/")
        ),
        "<tr><th>status</th><td>verified</td><td>redirected</td></tr>".to_string(),
        "<tr><th>HTTP</th><td>200</td><td>200</td></tr>".to_string(),
        "<tr><th>title</th><td>Synthetic article</td><td>Programme figures</td></tr>".to_string(),
        format!(
            "<tr><th>final URL</th><td>{}</td><td>{}</td></tr>",
            url("/report"),
            url("/figures")
        ),
        format!(
            "<tr><th>canonical</th><td>{}</td><td>{}</td></tr>",
            url("/canonical/article"),
            url("/canonical/figures")
        ),
        "<tr><th>claim</th><td>claim number 2</td><td>claim number 3</td></tr>".to_string(),
    ] {
        assert!(report.contains(&row), "{row}\n{report}");
    }
    // Text distance: 0 for the first variant, a number (not `—`) past the `similar` bound
    // for the other.
    let distance = report
        .split("<tr><th>text distance to variant 1 (bits of 64)</th>")
        .nth(1)
        .expect("distance row");
    let cells: Vec<&str> = distance
        .split("</tr>")
        .next()
        .expect("row")
        .split("<td>")
        .skip(1)
        .map(|c| c.trim_end_matches("</td>"))
        .collect();
    assert_eq!(cells.len(), 2, "{distance}");
    assert_eq!(cells[0], "0");
    let bits: u32 = cells[1].parse().expect("a number of bits");
    assert!(bits > 10, "{bits}");

    // The same page under two paths: `same`, not to review, both fetched.
    let article = merge_of(&p, &url("/article"));
    assert!(
        article.contains("content check: <b class=\"check\">same</b>"),
        "{article}"
    );
    assert!(
        article.contains("<tr><th>status</th><td>verified</td><td>verified</td></tr>"),
        "{article}"
    );
    assert!(
        article.contains(
            "<tr><th>title</th><td>Synthetic article</td><td>Synthetic article</td></tr>"
        ),
        "{article}"
    );
    assert!(
        !p.contains("<td>—</td>"),
        "every variant has findings:\n{p}"
    );
}

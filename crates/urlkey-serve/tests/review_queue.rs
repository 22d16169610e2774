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
    // The queue: merges to review first, each key's spellings as rows, a form per merge.
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
        .find(&format!("data-key=\"{key}\" data-spellings="))
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
            defaults: urlkey_ledger::ingest::Defaults {
                answer_system: Some("test".into()),
                prompt_version: Some("v1".into()),
                market: Some("local".into()),
                run_timestamp: Some("2026-11-30T00:00:00Z".into()),
                ..Default::default()
            },
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
    // The different pages: first (to review), each variant's own findings in its row.
    let first = p.find("<article class=\"merge").expect("an article");
    assert!(p[first..].starts_with(&format!(
        "<article class=\"merge to-review\" id=\"k-1\" data-key=\"{}\" data-spellings=\"2\">",
        url("/report")
    )));
    let report = merge_of(&p, &url("/report"));
    assert!(report.contains("content check: <b class=\"check\">different</b>"));
    let head = "<tr><th scope=\"col\">spelling</th><th scope=\"col\">observed URL</th>\
                <th scope=\"col\">status</th><th scope=\"col\">HTTP</th><th scope=\"col\">title</th>\
                <th scope=\"col\">final URL</th><th scope=\"col\">canonical</th>";
    assert!(report.contains(head), "{report}");
    let one = format!(
        "<tr data-observation=\"v-002\"><th>variant 1 <small>v-002</small></th><td>{}</td>\
         <td>verified</td><td>200</td><td>Synthetic article</td><td>{}</td><td>{}</td><td>0</td>\
         <td>claim number 2</td></tr>",
        url("/report"),
        url("/report"),
        url("/canonical/article"),
    );
    assert!(report.contains(&one), "{one}\n{report}");
    // Text distance: a number (not `—`) past the `similar` bound for the other variant.
    let two = format!(
        "<tr data-observation=\"v-003\"><th>variant 2 <small>v-003</small></th><td>{}</td>\
         <td>redirected</td><td>200</td><td>Programme figures</td><td>{}</td><td>{}</td><td>",
        url("/report/"),
        url("/figures"),
        url("/canonical/figures"),
    );
    let rest = report
        .split(&two)
        .nth(1)
        .unwrap_or_else(|| panic!("{two}\n{report}"));
    let (bits, rest) = rest.split_once("</td>").expect("distance cell");
    let bits: u32 = bits.parse().expect("a number of bits");
    assert!(bits > 10, "{bits}");
    assert!(rest.starts_with("<td>claim number 3</td></tr>"), "{rest}");

    // The same page under two paths: `same`, not to review, both fetched.
    let article = merge_of(&p, &url("/article"));
    assert!(
        article.contains("content check: <b class=\"check\">same</b>"),
        "{article}"
    );
    for (i, obs) in [(1, "v-000"), (2, "v-001")] {
        let row =
            format!("<tr data-observation=\"{obs}\"><th>variant {i} <small>{obs}</small></th>");
        let cells = article
            .split(&row)
            .nth(1)
            .unwrap_or_else(|| panic!("{row}\n{article}"));
        assert!(
            cells.contains("</td><td>verified</td><td>200</td><td>Synthetic article</td>"),
            "{article}"
        );
    }
    assert!(
        !p.contains("<td>—</td>"),
        "every variant has findings:\n{p}"
    );
}

/// A ledger of 121 merged keys: first one with 60 spellings, then 120 with two each (a
/// trailing slash: a risky merge, so every one is to review).
fn many_merges_ledger() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("many.csv");
    let mut text = String::from(
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n",
    );
    let mut n = 0;
    let mut row = |url: String| {
        n += 1;
        text.push_str(&format!("o{n},ps,a,us,2026-11-01T00:00:00Z,{url}\n"));
    };
    row("https://big.example.com/page/".to_string());
    for j in 1..60 {
        row(format!("https://big.example.com/page?utm_source=s{j}"));
    }
    for i in 0..120 {
        row(format!("https://k.example.com/k{i}"));
        row(format!("https://k.example.com/k{i}/"));
    }
    std::fs::write(&csv, text).expect("write csv");
    ledger_cmd(
        &db,
        LedgerCommand::Ingest(IngestCommand {
            files: vec![csv],
            ..IngestCommand::default()
        }),
    );
    (dir, db)
}

fn get_page(addr: SocketAddr, path: &str) -> Resp {
    request(addr, "GET", path, &host(addr), "", "")
}

/// The `<article>` of `key` in a page.
fn article_of<'a>(page: &'a str, key: &str) -> &'a str {
    let at = page
        .find(&format!("data-key=\"{key}\" data-spellings="))
        .unwrap_or_else(|| panic!("{key} on the page"));
    let end = page[at..].find("</article>").expect("article end");
    &page[at..at + end]
}

#[test]
fn the_queue_pages_keys_and_folds_spellings() {
    let (_dir, db) = many_merges_ledger();
    let addr = urlkey_serve::spawn_with_ledger(Config::default(), Some(db)).expect("server");
    let big = "https://big.example.com/page";

    let p = page(addr);
    // The report first, then the queue.
    let lead = p.find("id=\"lead\"").expect("the report's headline");
    let queue = p.find("id=\"review-queue\"").expect("the queue");
    assert!(lead < queue, "the report leads, the queue follows");
    assert!(p.contains("121 merged keys, 121 to review"), "{p}");
    assert!(p.contains("data-page=\"1\" data-pages=\"3\" data-total=\"121\""));
    assert!(p.contains("Keys 1–50 of 121 · page 1 of 3"));
    assert_eq!(p.matches("<article class=\"merge").count(), 50);
    assert!(p.contains("href=\"/ledger?queue_page=2#review-queue\" rel=\"next\""));
    assert!(!p.contains("rel=\"prev\""), "no previous page on the first");

    // The 60 spellings: 5 rows, then "show all" (closed) with the first 50 of them.
    let a = article_of(&p, big);
    assert!(a.contains("data-spellings=\"60\""));
    let (first, all) = a.split_once("<details").expect("a fold");
    assert_eq!(first.matches("<tr data-observation=").count(), 5, "{first}");
    assert!(all.starts_with(" class=\"all-spellings\"><summary>show all 60 spellings</summary>"));
    assert_eq!(all.matches("<tr data-observation=").count(), 50);
    assert!(all.contains("spellings 1–50 of 60"));
    let next = "/ledger?queue_page=1&amp;open=https%3A%2F%2Fbig.example.com%2Fpage&amp;spellings_page=2#k-1";
    assert!(
        all.contains(&format!("<a href=\"{next}\">next spellings</a>")),
        "{all}"
    );
    // A key with two spellings has no fold.
    let small = article_of(&p, "https://k.example.com/k0");
    assert!(!small.contains("<details"));
    assert_eq!(small.matches("<tr data-observation=").count(), 2);

    // The link's page: that key's list open on spellings 51-60.
    let r = get_page(addr, &next.replace("&amp;", "&"));
    assert_eq!(r.status, 200);
    let p2 = r.text();
    let all = article_of(&p2, big).split_once("<details").expect("fold").1;
    assert!(all.starts_with(" class=\"all-spellings\" open>"), "{all}");
    assert_eq!(all.matches("<tr data-observation=").count(), 10);
    assert!(all.contains("<th>variant 51 <small>"));
    assert!(all.contains("spellings 51–60 of 60"));
    assert!(all.contains(">previous spellings</a>"));
    assert!(!all.contains(">next spellings</a>"));

    // The last page, and a page past the end shows the last one.
    for path in ["/ledger?queue_page=3", "/ledger?queue_page=99"] {
        let t = get_page(addr, path).text();
        assert!(t.contains("Keys 101–121 of 121 · page 3 of 3"), "{path}");
        assert_eq!(t.matches("<article class=\"merge").count(), 21, "{path}");
        assert!(t.contains("href=\"/ledger?queue_page=2#review-queue\" rel=\"prev\""));
        assert!(!t.contains("rel=\"next\""));
    }
    // The report's options stay in the queue's links.
    let t = get_page(addr, "/ledger?by=market&queue_page=2").text();
    assert!(
        t.contains("href=\"/ledger?by=market&amp;queue_page=3#review-queue\""),
        "{t}"
    );
    // A page that is not a number from 1 is refused, as any bad option.
    for bad in ["queue_page=0", "queue_page=x", "spellings_page=-1"] {
        let r = get_page(addr, &format!("/ledger?{bad}"));
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.error_code(), "request.invalid-option", "{bad}");
    }
    // The JSON report takes no queue options.
    assert_eq!(get_page(addr, "/api/ledger?queue_page=2").status, 400);
}

#[test]
fn the_queue_shows_each_variants_text_fragment_beside_its_url() {
    // Synthetic: one key merged by a risky rule (the trailing slash), one spelling cited
    // with a text directive, one with a malformed one.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("synthetic-fragments.csv");
    std::fs::write(
        &csv,
        "observation_id,observed_url,fixture\n\
         q1,https://docs.example.org/guide#:~:text=The%20guide-%2Cexplains%20%3Cb%3E,synthetic\n\
         q2,\"https://docs.example.org/guide/#:~:text=a,,b\",synthetic\n",
    )
    .expect("write");
    ledger_cmd(
        &db,
        LedgerCommand::Ingest(IngestCommand {
            files: vec![csv],
            defaults: urlkey_ledger::ingest::Defaults {
                answer_system: Some("ai-mode".into()),
                prompt_version: Some("v1".into()),
                market: Some("us".into()),
                run_timestamp: Some("2026-12-01T09:00:00Z".into()),
                ..Default::default()
            },
            ..IngestCommand::default()
        }),
    );
    let addr = urlkey_serve::spawn_with_ledger(Config::default(), Some(db)).expect("server");
    let p = page(addr);
    // Decoded, escaped (the page builds no markup from data), with its state.
    assert!(
        p.contains(
            "<small data-text-fragment>text: &quot;The guide-,explains &lt;b&gt;&quot; not verified</small>"
        ),
        "{p}"
    );
    assert!(
        p.contains("<small data-text-fragment>text: text=a,,b malformed (empty-term)</small>"),
        "{p}"
    );
}

//! `POST /api/redirects/propose` (the Redirects view), against a real server on an
//! ephemeral 127.0.0.1 port: one proposal per OLD record in input order, the engine's own
//! answer for each, counts that add up, invalid rows with their error, refusals with their
//! codes, the body limit and the map worker.

use std::net::SocketAddr;
use std::sync::OnceLock;

mod common;

use common::Resp;
use serde_json::{json, Value};
use urlkey_redirects::propose::{NewSite, Page};
use urlkey_serve::Config;

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    // Two threads: OLD is cut into batches that finish out of order.
    *ADDR.get_or_init(|| {
        urlkey_serve::spawn(Config {
            threads: 2,
            ..Config::default()
        })
        .expect("server starts")
    })
}

fn post_bytes(addr: SocketAddr, path: &str, content_type: &str, body: &[u8]) -> Resp {
    common::send(
        addr,
        format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
        body,
    )
}

fn post(addr: SocketAddr, body: &Value) -> Resp {
    post_bytes(
        addr,
        "/api/redirects/propose",
        "application/json",
        body.to_string().as_bytes(),
    )
}

const POLICY: &str = "webkey@1";

/// A crawl export of the old site: BOM, CRLF, a title column, a quoted cell with a comma
/// and quotes, a blank line, an invalid row.
const OLD: &str = "\u{feff}Address,Title\r\nhttp://www.example.com/About.html,About us\r\nhttps://example.com/a,A\r\n/relative/path,No scheme\r\n\r\nhttps://example.com/retired-page,Retired\r\n\"http://www.example.com/Shop/Blue,Widget?ref=\"\"x\"\"\",Blue widget\r\nhttp://www.example.com/Contact,Contact";

const NEW: &str = "https://example.com/about.html\nhttps://example.com/a\nhttps://example.com/shop/blue,widget?ref=\"x\"\nhttps://example.com/contact\n# a comment\nhttps://example.com/new-only";

fn request(old: &str, new: &str) -> Value {
    json!({
        "policy": POLICY,
        "old": {"text": old, "input_format": "csv", "column": "Address", "title_column": "Title"},
        "new": {"text": new},
    })
}

fn ok(r: &Resp) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// The counts by status add up to the OLD records and to the rows.
fn assert_counts_add_up(v: &Value) {
    let rows = v["proposals"].as_array().expect("proposals");
    let counts = v["counts"].as_object().expect("counts");
    for s in ["served", "same-key", "candidate", "none", "invalid"] {
        assert!(counts.contains_key(s), "{s} listed, 0 included: {counts:?}");
    }
    let sum: u64 = counts.values().map(|n| n.as_u64().expect("a count")).sum();
    assert_eq!(sum, rows.len() as u64, "{counts:?}");
    assert_eq!(v["old"]["records"].as_u64(), Some(rows.len() as u64));
    for (name, n) in counts {
        let have = rows.iter().filter(|r| r["status"] == *name).count() as u64;
        assert_eq!(n.as_u64(), Some(have), "{name}");
    }
}

#[test]
fn one_proposal_per_old_record_in_order_as_the_engine_says() {
    let v = ok(&post(server(), &request(OLD, NEW)));
    assert_eq!(v["policy"], POLICY);
    assert_eq!(v["review"], "MANUAL REVIEW REQUIRED");
    let rows = v["proposals"].as_array().expect("proposals");
    let lines: Vec<u64> = rows.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    // The header is line 1; line 5 is blank.
    assert_eq!(lines, vec![2, 3, 4, 6, 7, 8]);
    let sources: Vec<&str> = rows.iter().map(|r| r["source"].as_str().unwrap()).collect();
    assert_eq!(
        sources,
        vec![
            "http://www.example.com/About.html",
            "https://example.com/a",
            "/relative/path",
            "https://example.com/retired-page",
            "http://www.example.com/Shop/Blue,Widget?ref=\"x\"",
            "http://www.example.com/Contact",
        ]
    );
    assert_eq!(rows[0]["title"], "About us");
    // (The CSV reader, as `urlkey map`'s, passes over a blank row without counting it;
    // plain lines count theirs: see the next test.)
    assert_eq!(v["new"]["records"], 5);
    assert_eq!(v["new"]["skipped"]["comment"], 1);
    assert_counts_add_up(&v);

    // Each row is what the engine answers for that page, evidence by its kind's name.
    let policy = urlkey::PolicySet::builtin().get(POLICY).unwrap();
    let mut site = NewSite::new(policy);
    for url in NEW.lines().filter(|l| !l.starts_with('#')) {
        site.add(Page {
            url: url.into(),
            title: None,
        });
    }
    let titles = [
        "About us",
        "A",
        "No scheme",
        "Retired",
        "Blue widget",
        "Contact",
    ];
    for (row, title) in rows.iter().zip(titles) {
        let p = site.propose(&Page {
            url: row["source"].as_str().unwrap().into(),
            title: Some(title.into()),
        });
        assert_eq!(row["status"], p.status.as_str(), "{row}");
        assert_eq!(row["target"].as_str(), p.target.as_deref(), "{row}");
        assert_eq!(row["score"].as_f64(), Some(p.score), "{row}");
        assert_eq!(row["runner_up"].as_str(), p.runner_up.as_deref(), "{row}");
        assert_eq!(row["runner_up_score"].as_f64(), p.runner_up_score, "{row}");
        assert_eq!(row["ambiguous"], p.ambiguous, "{row}");
        assert_eq!(row["error_code"].as_str(), p.error_code, "{row}");
        let evidence: Vec<(&str, &str)> = row["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["kind"].as_str().unwrap(), e["detail"].as_str().unwrap()))
            .collect();
        let want: Vec<(&str, &str)> = p
            .evidence
            .iter()
            .map(|e| (e.kind.name(), e.detail.as_str()))
            .collect();
        assert_eq!(evidence, want, "{row}");
    }
    // What no engine may change: the exact URL is served, another spelling of the same
    // key is same-key, a relative URL has no key under webkey@1.
    let status: Vec<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status[0], "same-key");
    assert_eq!(rows[0]["target"], "https://example.com/about.html");
    assert_eq!(status[1], "served");
    assert_eq!(status[2], "invalid");
    assert_eq!(
        rows[4]["target"],
        "https://example.com/shop/blue,widget?ref=\"x\""
    );
}

#[test]
fn invalid_rows_keep_their_error_and_unreadable_ones_are_counted() {
    let long = format!("http://example.com/{}", "x".repeat(200));
    let old = format!(
        "{long}\n/relative\n\n# note\nhttp://example.com/\u{0}\u{1}junk\nhttps://example.com/ok"
    );
    let new = format!(
        "https://example.com/{}\nhttps://example.com/ok\n",
        "y".repeat(200)
    );
    let v = ok(&post(
        server(),
        &json!({
            "policy": POLICY,
            "old": {"text": old},
            "new": {"text": new},
            "max_line_bytes": 100,
        }),
    ));
    let rows = v["proposals"].as_array().unwrap();
    let lines: Vec<u64> = rows.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![1, 2, 5, 6]);
    assert_eq!(rows[0]["status"], "invalid");
    assert_eq!(rows[0]["error_code"], "input.too-long");
    assert_eq!(rows[1]["status"], "invalid");
    assert_eq!(rows[1]["error_code"], "web.invalid-url");
    assert!(
        rows[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no scheme")),
        "the policy's words: {}",
        rows[1]
    );
    assert_eq!(rows[3]["status"], "served");
    assert_eq!(v["old"]["unreadable"], 1);
    assert_eq!(v["old"]["skipped"]["blank"], 1);
    assert_eq!(v["old"]["skipped"]["comment"], 1);
    // NEW's over-long line is counted, and is no target.
    assert_eq!(v["new"]["records"], 2);
    assert_eq!(v["new"]["unreadable"], 1);
    assert_counts_add_up(&v);
}

#[test]
fn semicolon_csv_jsonl_titles_and_empty_inputs() {
    let v = ok(&post(
        server(),
        &json!({
            "policy": POLICY,
            "old": {"text": "Address;Title\nhttp://www.example.com/X;Old X\n", "input_format": "csv", "column": "Address", "title_column": "Title"},
            "new": {"text": "{\"u\": \"https://example.com/x\", \"t\": \"New X\"}\n", "input_format": "jsonl", "field": "u", "title_column": "t"},
        }),
    ));
    let rows = v["proposals"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["title"], "Old X");
    assert_eq!(rows[0]["status"], "same-key");
    assert_eq!(rows[0]["target"], "https://example.com/x");
    // Nothing in: nothing out, and the counts still add up.
    let v = ok(&post(
        server(),
        &json!({"policy": POLICY, "old": {"text": ""}, "new": {"text": ""}}),
    ));
    assert_eq!(v["proposals"], json!([]));
    assert_counts_add_up(&v);
}

#[test]
fn order_is_kept_at_50000_rows_across_batches_and_threads() {
    let mut old = String::new();
    let mut new = String::new();
    for i in 0..50_000 {
        old.push_str(&format!("http://www.example.com/Page-{i}.html\n"));
        if i % 10 != 3 {
            new.push_str(&format!("https://example.com/page-{i}.html\n"));
        }
    }
    let v = ok(&post(
        server(),
        &json!({"policy": POLICY, "old": {"text": old}, "new": {"text": new}}),
    ));
    let rows = v["proposals"].as_array().unwrap();
    assert_eq!(rows.len(), 50_000);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["line"].as_u64(), Some(i as u64 + 1));
        let want = format!("http://www.example.com/Page-{i}.html");
        assert_eq!(r["source"].as_str(), Some(want.as_str()));
        if i % 10 != 3 {
            assert_eq!(r["status"], "same-key", "{r}");
            let target = format!("https://example.com/page-{i}.html");
            assert_eq!(r["target"].as_str(), Some(target.as_str()));
        }
    }
    assert_eq!(v["counts"]["same-key"], 45_000);
    assert_counts_add_up(&v);
}

#[test]
fn refusals_have_their_codes_and_name_the_side() {
    let addr = server();
    let side = json!({"text": "https://example.com/a"});
    let cases = [
        (
            json!({"old": side, "new": side}),
            "request.invalid-field",
            "policy",
        ),
        (
            json!({"policy": "nope@1", "old": side, "new": side}),
            urlkey::ErrorCode::PolicyUnknown.as_str(),
            "nope@1",
        ),
        (
            json!({"policy": POLICY, "old": side, "new": side, "extra": 1}),
            "request.invalid-field",
            "extra",
        ),
        (
            json!({"policy": POLICY, "old": {"text": "a", "input_format": "xml"}, "new": side}),
            "request.invalid-option",
            "OLD: input_format",
        ),
        (
            json!({"policy": POLICY, "old": side, "new": {"text": "a", "input_format": "csv"}}),
            "request.invalid-option",
            "NEW: ",
        ),
        (
            json!({"policy": POLICY, "old": side, "new": {"text": "a", "title_column": "Title"}}),
            "request.invalid-option",
            "title_column",
        ),
        (
            json!({"policy": POLICY, "old": {"text": "Address\na", "input_format": "csv", "column": "URL"}, "new": side}),
            "input.unreadable",
            "OLD: ",
        ),
        (
            json!({"policy": POLICY, "old": side, "new": {"text": "Address\na", "input_format": "csv", "column": "Address", "title_column": "Title"}}),
            "input.unreadable",
            "NEW: ",
        ),
    ];
    for (body, code, says) in cases {
        let r = post(addr, &body);
        assert_eq!(r.error_code(), code, "{body}: {}", r.text());
        assert_eq!(r.status, 400, "{body}");
        let message = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains(says), "{body}: {message}");
    }
    let r = post_bytes(addr, "/api/redirects/propose", "text/csv", b"a,b");
    assert_eq!(r.error_code(), "request.unsupported-media-type");
    let r = post_bytes(
        addr,
        "/api/redirects/propose",
        "application/json",
        b"{\"policy\": ",
    );
    assert_eq!(r.error_code(), "request.invalid-json");
    let get = common::send(
        addr,
        format!("GET /api/redirects/propose HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
        b"",
    );
    assert_eq!(get.error_code(), "request.method-not-allowed");
}

#[test]
fn the_body_limit_holds() {
    let addr = urlkey_serve::spawn(Config {
        max_body_bytes: 1024,
        threads: 1,
        ..Config::default()
    })
    .expect("server starts");
    let big = "https://example.com/p\n".repeat(100);
    let r = post(
        addr,
        &json!({"policy": POLICY, "old": {"text": big}, "new": {"text": "x"}}),
    );
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.error_code(), "request.too-large");
    // Under the limit, the same server answers.
    let v = ok(&post(
        addr,
        &json!({"policy": POLICY, "old": {"text": "https://example.com/p"}, "new": {"text": "https://example.com/p"}}),
    ));
    assert_eq!(v["counts"]["served"], 1);
}

/// Propose takes the map worker: while it is held, a valid request waits and then says
/// `queue.waited`; a malformed one is answered at once meanwhile.
#[test]
fn propose_takes_the_map_worker_and_says_when_it_waited() {
    let state = urlkey_serve::AppState::new(Config {
        threads: 1,
        ..Config::default()
    })
    .expect("state");
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let addr = urlkey_serve::spawn_state(listener, state.clone()).expect("server starts");
    let held = state.hold_map_worker().expect("the worker is free");
    let queued = std::thread::spawn(move || post(addr, &request(OLD, NEW)));
    let refused = post(addr, &json!({"policy": POLICY}));
    assert_eq!(refused.error_code(), "request.invalid-field");
    // Not a wait for a result: time for the valid request to arrive and queue.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    assert!(
        !queued.is_finished(),
        "answered while the map worker was held"
    );
    drop(held);
    let v = ok(&queued.join().expect("request"));
    assert_eq!(v["queue"]["waited"], json!(true));
    let v = ok(&post(addr, &request(OLD, NEW)));
    assert_eq!(v["queue"]["waited"], json!(false));
}

#[test]
fn the_page_has_the_view_and_its_script() {
    let addr = server();
    let get = |path: &str| {
        common::send(
            addr,
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
            b"",
        )
    };
    let html = get("/").text();
    for id in [
        "view-redirects",
        "redirects-view",
        "rd-old-file",
        "rd-new-text",
        "rd-export",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(html.contains("<script src=\"/redirects.js\" defer></script>"));
    assert!(html.contains("MANUAL REVIEW REQUIRED"));
    let js = get("/redirects.js");
    assert_eq!(js.status, 200);
    assert!(js
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/javascript")));
    assert_eq!(
        js.header("content-security-policy"),
        Some(urlkey_serve::CONTENT_SECURITY_POLICY)
    );
    assert_eq!(js.text(), urlkey_serve::REDIRECTS_JS);
}

//! The JSON API and the page, against a real server on an ephemeral 127.0.0.1 port,
//! spoken to over plain HTTP/1.1 (a few lines of client below: no client dependency).

use std::io::Cursor;
use std::net::SocketAddr;
use std::sync::OnceLock;

mod common;

use common::Resp;
use serde_json::{json, Value};
use urlkey_batch::input::{records_from, ReadOptions, RecordSource};
use urlkey_batch::map::MapRun;
use urlkey_batch::pipeline::Pipeline;
use urlkey_batch::rows::{OutputFormat, RecordWriter};
use urlkey_serve::{Config, CONTENT_SECURITY_POLICY};

const SAMPLE: &str = "HTTP://Example.com:80/a//b?utm_source=x&id=7\n/main/scripts.html?script=One\n/main/scripts.html?script=Two\n/x?a=1&b=2\n/x?b=2&a=1\njavascript:alert(1)\n";

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| urlkey_serve::spawn_for_tests().expect("server starts"))
}

/// A server with a 1 KiB body cap.
fn small_server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        urlkey_serve::spawn(Config {
            max_body_bytes: 1024,
            threads: 1,
            ..Config::default()
        })
        .expect("server starts")
    })
}

/// One request on a fresh connection (`Connection: close`), the whole response read.
fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> Resp {
    common::send(addr, head.as_bytes(), body)
}

fn get(addr: SocketAddr, path: &str) -> Resp {
    raw(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        b"",
    )
}

fn post_bytes(addr: SocketAddr, path: &str, content_type: &str, body: &[u8]) -> Resp {
    raw(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        ),
        body,
    )
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> Resp {
    post_bytes(addr, path, "application/json", body.to_string().as_bytes())
}

/// What `urlkey map --format csv` writes for `text` (the same code path as the CLI).
fn cli_csv(text: &str, policy: &str) -> Vec<u8> {
    let set = urlkey::PolicySet::builtin().with_max_input_bytes(64 * 1024);
    let policy = set.get(policy).unwrap();
    let pipeline = Pipeline::new(1).unwrap();
    let bytes = text.as_bytes().to_vec();
    let open = || -> Result<Box<dyn RecordSource>, urlkey_batch::input::InputError> {
        records_from(
            Box::new(Cursor::new(bytes.clone())),
            "-".into(),
            &ReadOptions::default(),
        )
    };
    let mut w = RecordWriter::new(OutputFormat::Csv, Vec::new());
    MapRun {
        policy: &policy,
        pipeline: &pipeline,
        verify_fingerprints: false,
        groups: false,
        progress: None,
        notice: None,
        sources: &[],
        spill: false,
    }
    .run(&open, &mut w)
    .unwrap();
    w.finish().unwrap()
}

#[test]
fn page_is_served_with_strict_headers() {
    let addr = server();
    let r = get(addr, "/");
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert_eq!(
        r.header("content-security-policy"),
        Some(CONTENT_SECURITY_POLICY)
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let html = r.text();
    assert!(html.contains("No URL is fetched. Every row requires manual review."));
    assert!(html.contains("Load sample") && html.contains("Export CSV"));
    // Nothing external: every src/href is local (or the empty data: favicon).
    for attr in ["src=\"", "href=\""] {
        for part in html.split(attr).skip(1) {
            let v = &part[..part.find('"').unwrap()];
            assert!(
                v.starts_with('/') || v.starts_with('#') || v == "data:,",
                "external reference {v:?}"
            );
        }
    }
    assert!(!html.contains("<script>"), "no inline script");
    assert!(!html.contains("style=\""), "no inline style");
    let js = get(addr, "/app.js");
    assert_eq!(js.status, 200);
    assert!(js
        .header("content-type")
        .unwrap()
        .starts_with("text/javascript"));
    let css = get(addr, "/app.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert_eq!(
        css.header("content-security-policy"),
        Some(CONTENT_SECURITY_POLICY)
    );
}

#[test]
fn the_page_never_builds_markup_from_data() {
    for (name, js) in [
        ("app.js", urlkey_serve::APP_JS),
        ("redirects.js", urlkey_serve::REDIRECTS_JS),
    ] {
        for bad in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "http://",
            "https://",
        ] {
            assert!(!js.contains(bad), "{name} uses {bad}");
        }
        assert!(js.contains("textContent"), "{name}");
    }
    for bad in ["http://", "https://", "@import", "url("] {
        assert!(
            !urlkey_serve::APP_CSS.contains(bad),
            "app.css references {bad}"
        );
    }
}

#[test]
fn unknown_paths_and_traversal_get_json_404_without_touching_files() {
    let addr = server();
    for path in [
        "/nope",
        "/../Cargo.toml",
        "/static/app.js",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/app.js/..%2f..%2fCargo.toml",
        "/api",
        "/api/",
    ] {
        let r = get(addr, path);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.error_code(), "request.not-found", "{path}");
        assert_eq!(
            r.header("content-security-policy"),
            Some(CONTENT_SECURITY_POLICY)
        );
    }
    let r = get(addr, "/api/map");
    assert_eq!(r.status, 405);
    assert_eq!(r.error_code(), "request.method-not-allowed");
    let r = post(addr, "/api/policies", &json!({}));
    assert_eq!(r.status, 405);
}

#[test]
fn policies_lists_every_policy_with_its_description() {
    let r = get(server(), "/api/policies");
    assert_eq!(r.status, 200);
    let v = r.json();
    let ids: Vec<&str> = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = urlkey::PolicySet::builtin()
        .list()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, expected);
    assert!(ids.contains(&"mapper@1"));
    assert!(v["policies"][0]["description"].as_str().unwrap().len() > 10);
    assert_eq!(v["defaults"]["map"], "mapper@1");
    // The Compare view and the policy pair start there (the page reads these).
    assert_eq!(v["defaults"]["explain"], "citation@1");
    assert_eq!(
        (&v["defaults"]["diff_from"], &v["defaults"]["diff_to"]),
        (&json!("mapper@1"), &json!("webkey@1"))
    );
    assert!(v["psl"].as_str().is_some());
}

/// The page's defaults (`GET /api/policies`) and every request's default policy are
/// `urlkey::policy::defaults`, the constants the command line's flags and the Python
/// package read too.
#[test]
fn default_policies_are_the_shared_constants() {
    use urlkey::policy::defaults;
    let addr = server();
    let v = get(addr, "/api/policies").json();
    let page = v["defaults"].as_object().expect("defaults");
    assert!(page.len() >= 6, "{page:?}");
    for (name, id) in page {
        let want = defaults::ALL.iter().find(|(n, _)| n == name);
        assert_eq!(want.map(|(_, id)| *id), id.as_str(), "defaults.{name}");
    }
    let url = "https://a.example/";
    for (path, body, want) in [
        ("/api/key", json!({ "input": url }), defaults::KEY),
        ("/api/inspect", json!({ "input": url }), defaults::INSPECT),
        ("/api/map", json!({ "text": url }), defaults::MAP),
        (
            "/api/explain",
            json!({ "inputs": [url, url] }),
            defaults::EXPLAIN,
        ),
    ] {
        let r = post(addr, path, &body);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.json()["policy"], want, "{path}");
    }
}

#[test]
fn map_sample_gives_seed_000_classifications() {
    let r = post(server(), "/api/map", &json!({ "text": SAMPLE }));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let s = &v["summary"];
    assert_eq!(s["records"], 6);
    assert_eq!(s["valid"], 5);
    assert_eq!(s["invalid"], 1);
    assert_eq!(s["duplicate_groups"], 1);
    assert_eq!(s["review_groups"], 1);
    assert_eq!(v["policy"], "mapper@1");
    assert_eq!(v["review"], "MANUAL REVIEW REQUIRED");
    assert_eq!(
        v["classifications"],
        json!({"duplicate": 2, "invalid": 1, "review": 2, "unique": 1})
    );
    let items = v["rows"]["items"].as_array().unwrap();
    let got: Vec<(u64, &str)> = items
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["classification"].as_str().unwrap(),
            )
        })
        .collect();
    // Grouped: by group id, then line; invalid rows last.
    assert_eq!(
        got,
        [
            (1, "unique"),
            (2, "review"),
            (3, "review"),
            (4, "duplicate"),
            (5, "duplicate"),
            (6, "invalid")
        ]
    );
    assert_eq!(items[0]["key"], "http://example.com/a/b?id=7");
    assert_eq!(items[4]["duplicate_of"], 4);
    // The removed tracking parameter, located in the observed URL (UTF-16 offsets).
    let h = &items[0]["highlights"][0];
    let observed: Vec<u16> = items[0]["observed"]
        .as_str()
        .unwrap()
        .encode_utf16()
        .collect();
    let (a, b) = (
        h["start"].as_u64().unwrap() as usize,
        h["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(String::from_utf16(&observed[a..b]).unwrap(), "utm_source=x");
    assert_eq!(h["name"], "utm_source");
    let rules: Vec<&str> = items[0]["transformations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"remove-tracking-parameters"));
    assert!(rules.contains(&"collapse-slashes"));
    let inv = &v["invalid"];
    assert_eq!(inv["total"], 1);
    assert_eq!(inv["items"][0]["error_code"], "mapper.unsupported-scheme");
    assert_eq!(inv["items"][0]["observed"], "javascript:alert(1)");
}

#[test]
fn highlights_use_utf16_offsets() {
    let text = "https://ex.com/é?ñ=1&utm_medium=😀&x=2\n";
    let r = post(server(), "/api/map", &json!({ "text": text }));
    let v = r.json();
    let row = &v["rows"]["items"][0];
    let observed: Vec<u16> = row["observed"].as_str().unwrap().encode_utf16().collect();
    let h = &row["highlights"][0];
    let (a, b) = (
        h["start"].as_u64().unwrap() as usize,
        h["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        String::from_utf16(&observed[a..b]).unwrap(),
        "utm_medium=😀"
    );
}

#[test]
fn map_paginates_and_filters_from_the_cache() {
    // Its own server: the cache holds the last result, and other tests run in parallel.
    let addr = urlkey_serve::spawn(Config::default()).unwrap();
    let mut text = String::new();
    for i in 0..2500 {
        text.push_str(&format!("https://example.com/p{}?id={}\n", i % 1000, i % 7));
    }
    text.push_str("ftp://x/\n");
    let first = post(addr, "/api/map", &json!({"text": text, "page_size": 10}));
    assert_eq!(first.status, 200);
    let v = first.json();
    assert_eq!(v["summary"]["records"], 2501);
    assert_eq!(v["rows"]["pages"], 251);
    assert_eq!(v["rows"]["items"].as_array().unwrap().len(), 10);
    // Group order: group ids ascend, lines ascend within a group.
    let items = v["rows"]["items"].as_array().unwrap();
    let keys: Vec<(u64, u64)> = items
        .iter()
        .map(|r| (r["group"].as_u64().unwrap(), r["line"].as_u64().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(keys[0], (1, 1));
    assert_eq!(keys[1], (1, 1001));
    let again = post(
        addr,
        "/api/map",
        &json!({"text": text, "page_size": 10, "page": 3, "classification": "review"}),
    );
    let w = again.json();
    assert_eq!(w["cached"], true);
    assert_eq!(w["rows"]["page"], 3);
    assert_eq!(w["rows"]["classification"], "review");
    assert!(w["rows"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["classification"] == "review"));
    let inv = post(
        addr,
        "/api/map",
        &json!({"text": text, "classification": "invalid", "page": 99}),
    )
    .json();
    assert_eq!(inv["rows"]["total"], 1);
    assert_eq!(inv["rows"]["page"], 1, "a page past the end is clamped");
    // Another policy is another result.
    let other = post(
        addr,
        "/api/map",
        &json!({"text": text, "policy": "citation@1"}),
    )
    .json();
    assert_eq!(other["cached"], false);
    assert_eq!(other["policy"], "citation@1");
}

#[test]
fn csv_export_is_byte_identical_to_map() {
    let addr = server();
    let mut text = SAMPLE.to_string();
    text.push_str(
        "# comment\n\n=HYPERLINK(\"x\")\nhttps://a.example/?fbclid=1&q=\"quoted\",comma\n",
    );
    for path in ["/api/map.csv", "/api/map?format=csv"] {
        let r = post(addr, path, &json!({ "text": text }));
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.header("content-type").unwrap().starts_with("text/csv"));
        assert!(r
            .header("content-disposition")
            .unwrap()
            .contains("urlkey-map.csv"));
        assert_eq!(r.body, cli_csv(&text, "mapper@1"), "{path}");
    }
    let r = post(
        addr,
        "/api/map.csv",
        &json!({ "text": text, "policy": "webkey@1" }),
    );
    assert_eq!(r.body, cli_csv(&text, "webkey@1"));
}

#[test]
fn csv_and_jsonl_input_shapes() {
    let addr = server();
    let csv = "id,link\n1,https://a.example/?utm_source=z\n2,\n3,/x\n";
    let v = post(
        addr,
        "/api/map",
        &json!({"text": csv, "input_format": "csv", "column": "link"}),
    )
    .json();
    assert_eq!(v["summary"]["records"], 3);
    assert_eq!(v["summary"]["invalid_by_code"]["input.missing-field"], 1);
    let r = post(
        addr,
        "/api/map",
        &json!({"text": csv, "input_format": "csv", "column": "nope"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "input.unreadable");
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"link\""));
    let r = post(
        addr,
        "/api/map",
        &json!({"text": csv, "input_format": "csv"}),
    );
    assert_eq!(r.error_code(), "request.invalid-option");
    let jsonl = "{\"u\":\"https://a.example/\"}\n{\"u\":1}\nnot json\n";
    let v = post(
        addr,
        "/api/map",
        &json!({"text": jsonl, "input_format": "jsonl", "field": "u"}),
    )
    .json();
    assert_eq!(v["summary"]["valid"], 1);
    assert_eq!(v["summary"]["invalid"], 2);
    let r = post(
        addr,
        "/api/map",
        &json!({"text": "", "input_format": "xml"}),
    );
    assert_eq!(r.error_code(), "request.invalid-option");
}

#[test]
fn key_and_inspect() {
    let addr = server();
    let r = post(
        addr,
        "/api/key",
        &json!({"input": "HTTP://Example.com:80/a//b?utm_source=x&id=7", "policy": "mapper@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["key"], "http://example.com/a/b?id=7");
    assert_eq!(v["status"], "ok");
    assert_eq!(v["removed_params"], json!(["utm_source"]));
    let v = post(
        addr,
        "/api/key",
        &json!({"url": "javascript:alert(1)", "policy": "mapper@1"}),
    )
    .json();
    assert_eq!(v["status"], "invalid");
    assert_eq!(v["error"]["code"], "mapper.unsupported-scheme");
    // Default policy: citation@1, as `urlkey key`.
    assert_eq!(
        post(addr, "/api/key", &json!({"input": "https://a.example/"})).json()["policy"],
        "citation@1"
    );
    let r = post(addr, "/api/key", &json!({"input": "x", "policy": "nope@9"}));
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "policy.unknown");
    let r = post(
        addr,
        "/api/key",
        &json!({"input": "x", "policy": "mapper@1+keep-trailing-slash"}),
    );
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (400, "policy.unknown-option")
    );
    let r = post(
        addr,
        "/api/key",
        &json!({"input": "x", "base": "https://a/", "policy": "mapper@1"}),
    );
    assert_eq!(r.error_code(), "request.invalid-option");

    let r = post(
        addr,
        "/api/inspect",
        &json!({"input": "https://github.com/rust-lang?utm_source=x", "policy": "mapper@1"}),
    );
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["profile"]["handle"], "rust-lang");
    assert_eq!(v["policy"], "mapper@1");
    assert!(v["offsets"]["params"][0]["span"]["utf16"]["start"].is_u64());
    assert_eq!(v["query_pairs"][0], json!(["utm_source", "x"]));
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), urlkey::PolicySet::builtin().list().len());
}

#[test]
fn markup_in_urls_comes_back_json_escaped() {
    let addr = server();
    let evil = "https://a.example/<script>alert(1)</script>?q=<img src=x onerror=alert(1)>";
    for (path, body) in [
        ("/api/map", json!({ "text": evil })),
        ("/api/key", json!({ "input": evil })),
        ("/api/inspect", json!({ "input": evil })),
    ] {
        let r = post(addr, path, &body);
        assert_eq!(r.status, 200, "{path}");
        assert!(r
            .header("content-type")
            .unwrap()
            .starts_with("application/json"));
        let text = r.text();
        // No byte of the response can be read as markup: `<`, `>`, `&` are \u escapes.
        assert!(!text.contains('<') && !text.contains('>'), "{path}: {text}");
        assert!(text.contains("\\u003cscript\\u003e"), "{path}");
        let v = r.json();
        let found = match path {
            "/api/map" => v["rows"]["items"][0]["observed"]
                .as_str()
                .map(str::to_string),
            _ => v["input"].as_str().map(str::to_string),
        };
        assert_eq!(found.as_deref(), Some(evil), "{path}");
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
}

#[test]
fn malformed_bodies_get_json_errors_never_a_panic() {
    let addr = server();
    let cases: [(&str, &[u8], &str); 9] = [
        ("/api/map", b"", "request.invalid-json"),
        ("/api/map", b"{", "request.invalid-json"),
        ("/api/map", b"\xff\xfe{}", "request.invalid-json"),
        ("/api/map", b"[1,2]", "request.invalid-field"),
        ("/api/map", b"{\"text\": 5}", "request.invalid-field"),
        ("/api/map", b"{\"txt\": \"a\"}", "request.invalid-field"),
        (
            "/api/map",
            b"{\"text\": \"a\", \"page\": -1}",
            "request.invalid-field",
        ),
        ("/api/key", b"null", "request.invalid-field"),
        (
            "/api/inspect",
            b"{\"input\": [[[[[[[[[[]]]]]]]]]]}",
            "request.invalid-field",
        ),
    ];
    for (path, body, code) in cases {
        let r = post_bytes(addr, path, "application/json", body);
        assert_eq!(r.status, 400, "{path} {:?}", String::from_utf8_lossy(body));
        assert_eq!(
            r.error_code(),
            code,
            "{path} {:?}",
            String::from_utf8_lossy(body)
        );
        assert!(r.json()["error"]["message"].as_str().unwrap().len() > 3);
    }
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let r = post_bytes(addr, "/api/map", "application/json", deep.as_bytes());
    assert_eq!(r.status, 400);
    for (body, code) in [
        (json!({"text": "a", "page": 0}), "request.invalid-option"),
        (
            json!({"text": "a", "page_size": 0}),
            "request.invalid-option",
        ),
        (
            json!({"text": "a", "page_size": 100000}),
            "request.invalid-option",
        ),
        (
            json!({"text": "a", "classification": "x"}),
            "request.invalid-option",
        ),
        (
            json!({"text": "a", "max_line_bytes": 0}),
            "request.invalid-option",
        ),
        (json!({"text": "a", "policy": "nope@1"}), "policy.unknown"),
        // Each policy error under its own code (urlkey::PolicyError::code).
        (
            json!({"text": "a", "policy": "citation@1+nope"}),
            "policy.unknown-option",
        ),
    ] {
        let r = post(addr, "/api/map", &body);
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{body}");
    }
    let r = post_bytes(addr, "/api/map", "text/plain", b"{\"text\":\"a\"}");
    assert_eq!(r.status, 415);
    assert_eq!(r.error_code(), "request.unsupported-media-type");
    let r = post(addr, "/api/map?format=xml", &json!({"text": "a"}));
    assert_eq!(r.error_code(), "request.invalid-option");
    // The server is still there.
    assert_eq!(get(addr, "/api/policies").status, 200);
}

#[test]
fn bodies_over_the_cap_get_413() {
    let addr = small_server();
    let big = json!({ "text": "x".repeat(2000) }).to_string();
    for path in ["/api/map", "/api/map.csv", "/api/key", "/api/inspect"] {
        let r = post_bytes(addr, path, "application/json", big.as_bytes());
        assert_eq!(r.status, 413, "{path}");
        assert_eq!(r.error_code(), "request.too-large");
    }
    // Chunked, with no length announced: cut off by reading, not by the header.
    let chunk = big.as_bytes();
    let mut body = Vec::new();
    for part in chunk.chunks(300) {
        body.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        body.extend_from_slice(part);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"0\r\n\r\n");
    let r = raw(
        addr,
        &format!("POST /api/map HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"),
        &body,
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "request.too-large");
    // Under the cap it works.
    let r = post(addr, "/api/map", &json!({"text": SAMPLE}));
    assert_eq!(r.status, 200);
}

#[test]
fn default_cap_refuses_an_announced_huge_body_at_once() {
    let addr = server();
    let r = raw(
        addr,
        &format!(
            "POST /api/map HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            urlkey_serve::DEFAULT_MAX_BODY_BYTES + 1
        ),
        b"{\"text\":\"",
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "request.too-large");
}

#[test]
fn every_error_code_is_documented_with_its_status() {
    let codes: Vec<&str> = urlkey_serve::error::CODES.iter().map(|c| c.0).collect();
    let mut dedup = codes.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), codes.len());
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md"))
        .unwrap_or_default();
    if doc.contains("## serve and its JSON API") {
        for c in codes {
            assert!(doc.contains(c), "docs/cli.md does not document {c}");
        }
    }
}

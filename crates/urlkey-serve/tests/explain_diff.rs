//! `POST /api/explain` (the Compare view) and `POST /api/diff` (the Mapper's policy pair)
//! against a real server on an ephemeral 127.0.0.1 port: their answers are the library's
//! `explain` and `PolicyDiff` reports, and bad requests get the API's error codes.

use std::io::Cursor;
use std::net::SocketAddr;
use std::sync::OnceLock;

mod common;

use common::Resp;
use serde_json::{json, Value};
use urlkey::PolicySet;
use urlkey_batch::diff::PolicyDiff;
use urlkey_batch::input::{records_from, InputFormat, InputRecord, ReadOptions};
use urlkey_serve::Config;

/// citation@1 keeps `www.` and the path's case; webkey@1 drops both (registrable domain,
/// lowercase path). So citation@1 -> webkey@1 merges lines 1-2 and 3-4, and the reverse
/// splits them. Line 5 only changes its key; line 6 is invalid under citation@1 only
/// (`unsupported scheme`), webkey@1 keys it.
const LIST: &str = "https://www.example.com/A\nhttps://example.com/a\nhttps://example.com/Docs?utm_source=x\nhttps://www.example.com/docs\nhttps://example.org/same\njavascript:alert(1)\n";

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

fn post_bytes(addr: SocketAddr, path: &str, content_type: &str, body: &[u8]) -> Resp {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    common::send(addr, head.as_bytes(), body)
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> Resp {
    post_bytes(addr, path, "application/json", body.to_string().as_bytes())
}

/// The answer without `queue` (the one field the server adds to the library's report),
/// after checking that `queue` is a `{waited, ms}` pair. (Whether it waited depends on the
/// other tests running beside it on the same server.)
fn without_queue(mut v: Value) -> Value {
    let q = v
        .as_object_mut()
        .and_then(|o| o.remove("queue"))
        .expect("a queue field");
    assert!(q["waited"].is_boolean() && q["ms"].is_number(), "{q}");
    v
}

fn explain_lib(inputs: &[&str], policy: &str) -> Value {
    let set = PolicySet::builtin();
    let p = set.get(policy).unwrap();
    let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    serde_json::to_value(urlkey::explain::explain(&inputs, &set, &p)).unwrap()
}

/// The report `urlkey diff --from FROM --to TO` makes of `text` read as standard input.
fn diff_lib(text: &str, from: &str, to: &str, opts: &ReadOptions) -> Value {
    let set = PolicySet::builtin().with_max_input_bytes(opts.max_line_bytes);
    let (f, t) = (set.get(from).unwrap(), set.get(to).unwrap());
    let mut src = records_from(
        Box::new(Cursor::new(text.as_bytes().to_vec())),
        "-".into(),
        opts,
    )
    .unwrap();
    let mut diff = PolicyDiff::new(&f, &t);
    let mut batch: Vec<InputRecord> = Vec::new();
    loop {
        batch.clear();
        let more = src.next_batch(&mut batch, 100).unwrap();
        for r in batch.drain(..) {
            diff.add(r);
        }
        if !more {
            break;
        }
    }
    serde_json::to_value(diff.finish(&["-".to_string()])).unwrap()
}

fn keys_of(groups: &Value) -> Vec<(String, Vec<String>, u64)> {
    groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["key"].as_str().unwrap().to_string(),
                g["keys"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap().to_string())
                    .collect(),
                g["records"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn explain_a_pair_that_meets_names_the_rules_with_each_before_and_after() {
    let inputs = [
        "https://Example.com/a?utm_source=x",
        "https://example.com/a",
    ];
    let r = post(
        server(),
        "/api/explain",
        &json!({"inputs": inputs, "policy": "citation@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    assert_eq!(v, explain_lib(&inputs, "citation@1"));
    assert_eq!(v["same_key"], true);
    assert_eq!(
        v["keys"],
        json!(["https://example.com/a", "https://example.com/a"])
    );
    let rules: Vec<&str> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(rules.contains(&"remove-tracking-parameters"), "{rules:?}");
    // The first input's tracking parameter went; the second had nothing to remove.
    let removed: Vec<&Value> = v["transformations"][0]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["rule"] == "remove-tracking-parameters")
        .collect();
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0]["before"], "?utm_source=x");
    assert_eq!(removed[0]["after"], "");
    assert!(!v["transformations"][1]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["rule"] == "remove-tracking-parameters"));
    assert_eq!(v["differs_in"], Value::Null);
    assert_eq!(v["differing_values"], Value::Null);
}

#[test]
fn explain_a_pair_that_does_not_meet_says_where_and_under_which_policies() {
    let inputs = ["https://www.example.com/A", "http://example.com/a"];
    // `urls` is an alias of `inputs`; the policy defaults to citation@1, as the command's.
    let r = post(server(), "/api/explain", &json!({ "urls": inputs }));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    assert_eq!(v, explain_lib(&inputs, "citation@1"));
    assert_eq!(v["policy"], "citation@1");
    assert_eq!(v["same_key"], false);
    // The component's name, as `urlkey explain --format json` and docs/cli.md give it,
    // and each input's value of it beside.
    assert_eq!(v["differs_in"], "scheme");
    assert_eq!(v["differing_values"], json!(["https", "http"]));
    assert_eq!(v["same_key_under"], json!(["webkey@1"]));
}

#[test]
fn explain_an_invalid_input_shares_no_key_and_gives_its_error() {
    let inputs = [
        "javascript:alert(1)",
        "javascript:alert(1)",
        "https://a.example/",
    ];
    let r = post(
        server(),
        "/api/explain",
        &json!({"inputs": inputs, "policy": "mapper@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    assert_eq!(v, explain_lib(&inputs, "mapper@1"));
    assert_eq!(v["same_key"], false);
    assert_eq!(v["keys"][0], Value::Null);
    assert_eq!(v["errors"][0]["code"], "mapper.unsupported-scheme");
    assert_eq!(v["differs_in"], Value::Null);
    assert_eq!(v["differing_values"], Value::Null);
}

#[test]
fn explain_refuses_bad_requests_with_their_codes() {
    let addr = server();
    let many: Vec<String> = (0..=urlkey_serve::MAX_EXPLAIN_INPUTS)
        .map(|i| format!("https://a.example/{i}"))
        .collect();
    for (body, status, code) in [
        (
            json!({"inputs": ["a", "b"], "policy": "nope@1"}),
            400,
            "policy.unknown",
        ),
        (
            json!({"inputs": ["a", "b"], "policy": "citation@1+nope"}),
            400,
            "policy.unknown-option",
        ),
        (json!({"inputs": ["a"]}), 400, "request.invalid-option"),
        (json!({"inputs": []}), 400, "request.invalid-option"),
        (json!({ "inputs": many }), 400, "request.invalid-option"),
        (json!({"inputs": "a b"}), 400, "request.invalid-field"),
        (json!({"inputs": [1, 2]}), 400, "request.invalid-field"),
        (
            json!({"policy": "citation@1"}),
            400,
            "request.invalid-field",
        ),
        (
            json!({"inputs": ["a", "b"], "extra": 1}),
            400,
            "request.invalid-field",
        ),
    ] {
        let r = post(addr, "/api/explain", &body);
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (status, code),
            "{body}"
        );
        assert!(r.json()["error"]["message"].as_str().unwrap().len() > 3);
    }
    for bad in [&b""[..], b"{", b"\xff{}", b"{\"inputs\": [\"a\","] {
        let r = post_bytes(addr, "/api/explain", "application/json", bad);
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (400, "request.invalid-json"),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    let r = post_bytes(
        addr,
        "/api/explain",
        "text/plain",
        b"{\"inputs\":[\"a\",\"b\"]}",
    );
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (415, "request.unsupported-media-type")
    );
    let r = common::send(
        addr,
        format!("GET /api/explain HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
        b"",
    );
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (405, "request.method-not-allowed")
    );
}

#[test]
fn diff_citation_to_webkey_merges_www_and_path_case() {
    let r = post(
        server(),
        "/api/diff",
        &json!({"text": LIST, "from": "citation@1", "to": "webkey@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    assert_eq!(
        v,
        diff_lib(LIST, "citation@1", "webkey@1", &ReadOptions::default())
    );
    assert_eq!(
        (v["from"].as_str(), v["to"].as_str()),
        (Some("citation@1"), Some("webkey@1"))
    );
    assert_eq!(v["records"], 6);
    assert_eq!(
        (v["keys_from"].as_u64(), v["keys_to"].as_u64()),
        (Some(5), Some(4))
    );
    // The page lists every group: no limit, and the counts are the lists'.
    assert_eq!(v["limit"], Value::Null);
    assert_eq!(
        (v["merge_groups"].as_u64(), v["split_groups"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(
        keys_of(&v["merges"]),
        vec![
            (
                "example.com/a".to_string(),
                vec![
                    "https://www.example.com/A".to_string(),
                    "https://example.com/a".to_string()
                ],
                2
            ),
            (
                "example.com/docs".to_string(),
                vec![
                    "https://example.com/Docs".to_string(),
                    "https://www.example.com/docs".to_string()
                ],
                2
            ),
        ]
    );
    assert_eq!(v["splits"], json!([]));
    let rules = v["merges"][0]["rules"].as_array().unwrap();
    assert!(
        rules.contains(&json!("lowercase-path")) && rules.contains(&json!("registrable-domain")),
        "{rules:?}"
    );
    let ex = &v["merges"][0]["examples"][0];
    assert_eq!(
        (
            ex["source"].as_str(),
            ex["line"].as_u64(),
            ex["observed"].as_str()
        ),
        (Some("-"), Some(1), Some("https://www.example.com/A"))
    );
    assert_eq!(v["changed"]["records"], 1);
    assert_eq!(v["changed"]["examples"][0]["line"], 5);
    assert_eq!(v["invalid_from_only"]["records"], 1);
    assert_eq!(v["invalid_from_only"]["examples"][0]["line"], 6);
    assert_eq!(v["invalid_to_only"]["records"], 0);
    assert_eq!(v["invalid_both"], 0);
}

#[test]
fn diff_webkey_to_citation_splits_them_again() {
    let r = post(
        server(),
        "/api/diff",
        &json!({"text": LIST, "from": "webkey@1", "to": "citation@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    assert_eq!(
        v,
        diff_lib(LIST, "webkey@1", "citation@1", &ReadOptions::default())
    );
    assert_eq!(v["merges"], json!([]));
    let splits = keys_of(&v["splits"]);
    assert_eq!(splits.len(), 2, "{splits:?}");
    assert_eq!(splits[0].0, "example.com/a");
    assert_eq!(splits[1].0, "example.com/docs");
    assert!(splits.iter().all(|s| s.1.len() == 2 && s.2 == 2));
}

#[test]
fn diff_reads_csv_as_the_command_does_and_counts_one_sided_invalids() {
    // mapper@1 refuses `javascript:`; webkey@1 keys it (one-sided invalid), and the
    // CSV row numbers are physical lines (the header is line 1).
    let text =
        "id,url\n1,https://www.example.com/A\n2,https://example.com/a\n3,javascript:alert(1)\n";
    let r = post(
        server(),
        "/api/diff",
        &json!({"text": text, "from": "mapper@1", "to": "webkey@1", "input_format": "csv", "column": "url"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = without_queue(r.json());
    let opts = ReadOptions {
        format: InputFormat::Csv,
        column: Some("url".into()),
        ..ReadOptions::default()
    };
    assert_eq!(v, diff_lib(text, "mapper@1", "webkey@1", &opts));
    assert_eq!(v["records"], 3);
    assert_eq!(v["merges"][0]["examples"][0]["line"], 2);
    let one_sided = v["invalid_from_only"]["records"].as_u64().unwrap()
        + v["invalid_to_only"]["records"].as_u64().unwrap();
    assert_eq!(one_sided, 1, "{v}");
}

#[test]
fn diff_refuses_bad_requests_with_their_codes() {
    let addr = server();
    for (body, code) in [
        (
            json!({"text": LIST, "from": "nope@1", "to": "webkey@1"}),
            "policy.unknown",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "nope@1"}),
            "policy.unknown",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1+nope"}),
            "policy.unknown-option",
        ),
        (
            json!({"text": LIST, "from": "citation@1"}),
            "request.invalid-field",
        ),
        (
            json!({"from": "citation@1", "to": "webkey@1"}),
            "request.invalid-field",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1", "policy": "x"}),
            "request.invalid-field",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1", "input_format": "xml"}),
            "request.invalid-option",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1", "input_format": "csv"}),
            "request.invalid-option",
        ),
        (
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1", "max_line_bytes": 0}),
            "request.invalid-option",
        ),
        (
            json!({"text": "a,b\n1,2\n", "from": "citation@1", "to": "webkey@1", "input_format": "csv", "column": "url"}),
            "input.unreadable",
        ),
    ] {
        let r = post(addr, "/api/diff", &body);
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{body}");
    }
    for bad in [&b""[..], b"{", b"[", b"{\"text\": \"a\", \"from\": "] {
        let r = post_bytes(addr, "/api/diff", "application/json", bad);
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (400, "request.invalid-json"),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    let r = post_bytes(addr, "/api/diff", "text/csv", LIST.as_bytes());
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (415, "request.unsupported-media-type")
    );
}

#[test]
fn bodies_over_the_cap_get_413_on_both() {
    let addr = small_server();
    let big_diff = json!({"text": "x".repeat(2000), "from": "citation@1", "to": "webkey@1"});
    let big_explain = json!({"inputs": ["x".repeat(1000), "y".repeat(1000)]});
    for (path, body) in [("/api/diff", &big_diff), ("/api/explain", &big_explain)] {
        let r = post(addr, path, body);
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (413, "request.too-large"),
            "{path}"
        );
        // Chunked, no length announced: cut off while reading.
        let bytes = body.to_string().into_bytes();
        let mut chunked = Vec::new();
        for part in bytes.chunks(300) {
            chunked.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            chunked.extend_from_slice(part);
            chunked.extend_from_slice(b"\r\n");
        }
        chunked.extend_from_slice(b"0\r\n\r\n");
        let head = format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        let r = common::send(addr, head.as_bytes(), &chunked);
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (413, "request.too-large"),
            "{path} chunked"
        );
    }
    // Under the cap both work.
    let r = post(
        addr,
        "/api/diff",
        &json!({"text": LIST, "from": "citation@1", "to": "webkey@1"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = post(addr, "/api/explain", &json!({"inputs": ["a", "b"]}));
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn markup_in_urls_comes_back_json_escaped_from_both() {
    let evil = "https://a.example/<img src=x onerror=alert(1)>?q=<script>x</script>&b=1";
    for (path, body) in [
        (
            "/api/explain",
            json!({"inputs": [evil, "https://a.example/x"]}),
        ),
        (
            "/api/diff",
            json!({"text": format!("{evil}\nhttps://A.example/x\n"), "from": "citation@1", "to": "webkey@1"}),
        ),
    ] {
        let r = post(server(), path, &body);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        let text = r.text();
        assert!(
            !text.contains('<') && !text.contains('>') && !text.contains('&'),
            "{path}: {text}"
        );
        assert!(text.contains("\\u003cimg src=x"), "{path}");
        let v = r.json();
        let echoed = match path {
            "/api/explain" => v["inputs"][0].as_str().map(str::to_string),
            _ => Some(v.to_string()),
        };
        assert!(echoed.is_some_and(|e| e.contains(evil)), "{path}: {v}");
    }
}

/// Diff and explain take the map worker: while it is held (as a running map holds it),
/// a valid request waits and then says `queue.waited`; malformed ones are answered at
/// once meanwhile, before the worker.
#[test]
fn explain_and_diff_take_the_map_worker_and_say_when_they_waited() {
    let state = urlkey_serve::AppState::new(Config {
        threads: 1,
        ..Config::default()
    })
    .expect("state");
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let addr = urlkey_serve::spawn_state(listener, state.clone()).expect("server starts");
    let requests = [
        (
            "/api/diff",
            json!({"text": LIST, "from": "citation@1", "to": "webkey@1"}),
            &b"{\"text\": "[..],
            "request.invalid-json",
        ),
        (
            "/api/explain",
            json!({"inputs": ["a", "b"]}),
            &b"{\"inputs\": [\"a\"]}"[..],
            "request.invalid-option",
        ),
    ];
    for (path, body, bad, bad_code) in requests {
        let held = state.hold_map_worker().expect("the worker is free");
        let queued = std::thread::spawn(move || post(addr, path, &body));
        // Answered while the worker is held: checking comes before the queue.
        let refused = post_bytes(addr, path, "application/json", bad);
        assert_eq!(refused.error_code(), bad_code, "{path}");
        // Not a wait for a result: time for the valid request to arrive and queue.
        std::thread::sleep(std::time::Duration::from_millis(1000));
        assert!(
            !queued.is_finished(),
            "{path} was answered while the map worker was held"
        );
        drop(held);
        let r = queued.join().expect("request");
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.json()["queue"]["waited"], json!(true), "{path}");
    }
    // With the worker free, nothing waits.
    let r = post(addr, "/api/explain", &json!({"inputs": ["a", "b"]}));
    assert_eq!(r.json()["queue"]["waited"], json!(false));
}

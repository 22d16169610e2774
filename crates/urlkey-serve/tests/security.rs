//! The security properties of `urlkey serve`: loopback by default, nothing but the three
//! embedded files ever served whatever the path, no reflected markup anywhere (errors
//! included), no CORS, no inline script in the page. `tests/api.rs` covers the body caps,
//! the JSON escaping of map/key/inspect results and the page's use of `textContent`.
//!
//! A real server on an ephemeral 127.0.0.1 port, spoken to over raw HTTP/1.1 so that
//! request targets reach the server exactly as written (no client normalizes them).

use std::net::SocketAddr;
use std::sync::OnceLock;

mod common;

use common::Resp;

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| urlkey_serve::spawn_for_tests().expect("server starts"))
}

/// Sends `request` as is on a fresh connection and reads the whole response.
fn send(request: &[u8]) -> Resp {
    common::send(server(), request, b"")
}

fn get(target: &str) -> Resp {
    send(
        format!(
            "GET {target} HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n\r\n",
            server().port()
        )
        .as_bytes(),
    )
}

fn post(target: &str, body: &str) -> Resp {
    send(
        format!(
            "POST {target} HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nOrigin: http://evil.example\r\n\
             Content-Length: {}\r\n\r\n{body}",
            server().port(),
            body.len()
        )
        .as_bytes(),
    )
}

/// `urlkey serve` with no flag listens on loopback only (its flags' defaults are
/// `ServeOptions::default()`, checked in urlkey-cli's `flags/serve.rs`), and the test
/// server does too.
#[test]
fn the_default_address_is_loopback() {
    let options = urlkey_serve::ServeOptions::default();
    let addr = urlkey_serve::resolve_addr(&options.addr).unwrap();
    assert!(addr.ip().is_loopback(), "{addr}");
    assert_eq!(addr.to_string(), "127.0.0.1:8080");
    assert!(server().ip().is_loopback());
}

/// Traversal in every spelling: nothing but the three embedded files is ever served
/// (the server has no file-system route at all), and what comes back is a JSON 404 or
/// hyper's 400 for a target it cannot parse, never a file's bytes.
#[test]
fn no_path_reaches_a_file() {
    let embedded = [
        urlkey_serve::INDEX_HTML,
        urlkey_serve::APP_JS,
        urlkey_serve::APP_CSS,
    ];
    for target in [
        "/../../etc/passwd",
        "/../../../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E/%2E%2E/etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/.%2e/.%2e/etc/passwd",
        "/%252e%252e/%252e%252e/etc/passwd",
        "//etc/passwd",
        "/static/../../Cargo.toml",
        "/index.html/../../../etc/passwd",
        "/app.js/../../Cargo.toml",
        "/app.js%00.html",
        "/api/../../../etc/passwd",
        "/..\\..\\etc\\passwd",
        "/%5c..%5c..%5cetc%5cpasswd",
        "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
        "/static/app.js",
        "/src/lib.rs",
        "/Cargo.toml",
        "/.git/config",
        "http://localhost/../../etc/passwd",
        "*",
    ] {
        let r = get(target);
        let text = r.text();
        println!("{target} -> {}", r.status);
        assert!(
            !text.contains("root:") && !text.contains("[package]") && !text.contains("[core]"),
            "{target}: a file came back"
        );
        match r.status {
            200 => assert!(
                embedded.contains(&text.as_str()),
                "{target}: 200 with something that is not an embedded file"
            ),
            400 | 404 => {}
            s => panic!("{target}: status {s}"),
        }
        if r.status == 404 {
            assert_eq!(
                r.header("content-type"),
                Some("application/json; charset=utf-8"),
                "{target}"
            );
        }
    }
}

/// Markup in any input comes back only as `\u003c`-escaped JSON, errors included (an
/// unknown path, an unknown policy, an unknown field, a bad option), and the CSV export
/// is an attachment with formulas neutralized.
#[test]
fn markup_is_never_reflected_raw() {
    let evil = "<script>alert(1)</script>";
    let cases = [
        get(&format!("/{evil}")),
        get("/%3Cscript%3Ealert(1)%3C/script%3E"),
        post("/api/key", &format!(r#"{{"input":"x","policy":"{evil}"}}"#)),
        post("/api/inspect", &format!(r#"{{"input":"x","{evil}":1}}"#)),
        post(
            "/api/map",
            &format!(r#"{{"text":"x","classification":"{evil}"}}"#),
        ),
        post(&format!("/api/map?format={evil}"), r#"{"text":"x"}"#),
        post(
            "/api/key",
            &format!(r#"{{"input":"https://a.example/{evil}"}}"#),
        ),
        post(
            "/api/key",
            &format!(r#"{{"input":"x","policy":"whatwg@1","base":"{evil}"}}"#),
        ),
    ];
    for (i, r) in cases.iter().enumerate() {
        let text = r.text();
        assert!(
            !text.contains('<') && !text.contains('>'),
            "case {i}: raw markup in {text}"
        );
        if r.status != 400 || r.header("content-type").is_some() {
            assert_eq!(
                r.header("x-content-type-options"),
                Some("nosniff"),
                "case {i}"
            );
        }
        // No CORS: another origin's page cannot read any answer.
        assert_eq!(r.header("access-control-allow-origin"), None, "case {i}");
    }
    let csv = post(
        "/api/map.csv",
        r#"{"text":"=HYPERLINK(\"http://evil.example\")\nhttps://a.example/<script>\n@SUM(1)"}"#,
    );
    assert_eq!(csv.status, 200);
    assert!(csv
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/csv")));
    assert!(csv
        .header("content-disposition")
        .is_some_and(|c| c.starts_with("attachment")));
    let text = csv.text();
    assert!(text.contains("'=HYPERLINK"), "{text}");
    assert!(text.contains("'@SUM(1)"), "{text}");
    // A preflight from another origin is not granted.
    let r = send(
        format!(
            "OPTIONS /api/key HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n\
             Origin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n\r\n",
            server().port()
        )
        .as_bytes(),
    );
    assert_ne!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

/// The page itself: no inline script or handler (the CSP allows only `script-src 'self'`),
/// no external resource.
#[test]
fn the_page_has_no_inline_script() {
    let html = urlkey_serve::INDEX_HTML.to_ascii_lowercase();
    for (i, _) in html.match_indices("<script") {
        let tag_end = html[i..].find('>').unwrap() + i;
        assert!(
            html[i..tag_end].contains("src="),
            "an inline <script> at {i}"
        );
    }
    for attr in [
        " onclick=",
        " onload=",
        " onerror=",
        " oninput=",
        " onchange=",
        " onsubmit=",
        "javascript:",
        "http://",
        "https://",
    ] {
        assert!(!html.contains(attr), "index.html has {attr}");
    }
    let csp = urlkey_serve::CONTENT_SECURITY_POLICY;
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
    let r = get("/");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-security-policy"), Some(csp));
}

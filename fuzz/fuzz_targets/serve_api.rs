//! The web API of `urlkey serve`, called in-process (`tower::ServiceExt::oneshot` on the
//! router, no socket). Byte 0 picks the endpoint (`/api/key`, `/api/inspect`, `/api/map`,
//! `/api/map.csv`, `/api/map?format=csv`, `GET /api/policies`, `/api/explain`, `/api/diff`,
//! `/api/redirects/propose`) and, with its top bit, a
//! wrong Content-Type; the rest is the request body.
//!
//! Properties: never a panic, and never a 500 (a handler that panics is turned into a 500
//! `internal` error by the server, so that is what a panic looks like here); every error
//! is a JSON `{"error": {"code", "message"}}` whose code is documented with that status;
//! no JSON response holds a raw `<`, `>` or `&` (markup is always `\u` escaped); no cell
//! of a CSV export starts a spreadsheet formula; `/api/key` gives back the input it got.
#![no_main]
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

fn rt() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

fn router() -> axum::Router {
    static APP: OnceLock<axum::Router> = OnceLock::new();
    APP.get_or_init(|| {
        let state = urlkey_serve::AppState::new(urlkey_serve::Config {
            max_body_bytes: 1 << 20,
            threads: 1,
            ..Default::default()
        })
        .unwrap();
        // The Host check answers 421 unless the server knows its address and
        // the request names it.
        state.set_bound(std::net::SocketAddr::from(([127, 0, 0, 1], 8080)));
        urlkey_serve::app(state)
    })
    .clone()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let (method, path) = match sel % 9 {
        0 => ("POST", "/api/key"),
        1 => ("POST", "/api/inspect"),
        2 => ("POST", "/api/map"),
        3 => ("POST", "/api/map.csv"),
        4 => ("POST", "/api/map?format=csv"),
        6 => ("POST", "/api/explain"),
        7 => ("POST", "/api/diff"),
        8 => ("POST", "/api/redirects/propose"),
        _ => ("GET", "/api/policies"),
    };
    let ctype = if sel & 0x80 == 0 {
        "application/json"
    } else {
        "text/plain"
    };
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, "127.0.0.1:8080")
        .header(header::CONTENT_TYPE, ctype)
        .body(Body::from(body.to_vec()))
        .unwrap();
    let (status, ctype_out, bytes) = rt().block_on(async {
        let res = router().oneshot(req).await.unwrap();
        let status = res.status();
        let ct = res
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, ct, bytes)
    });
    assert_ne!(
        status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "500 for {path}: {}",
        String::from_utf8_lossy(&bytes)
    );
    if ctype_out.starts_with("application/json") {
        assert!(
            !bytes.iter().any(|b| matches!(b, b'<' | b'>' | b'&')),
            "raw markup in JSON from {path}"
        );
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("the JSON parses");
        if !status.is_success() {
            let code = v["error"]["code"].as_str().expect("an error code");
            let doc = urlkey_serve::error::CODES
                .iter()
                .find(|c| c.0 == code)
                .unwrap_or_else(|| panic!("undocumented code {code}"));
            assert_eq!(doc.1, status.as_u16(), "{code}");
        } else if path == "/api/key" {
            let sent: serde_json::Value = serde_json::from_slice(body).unwrap();
            let input = sent.get("input").or_else(|| sent.get("url")).unwrap();
            assert_eq!(&v["input"], input, "the key response names another input");
            assert_eq!(v["status"] == "ok", v["key"].is_string());
        }
    } else if ctype_out.starts_with("text/csv") {
        assert!(status.is_success());
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(&bytes[..]);
        for rec in rdr.byte_records() {
            let rec = rec.expect("the CSV export parses");
            for cell in rec.iter() {
                assert!(
                    !matches!(
                        cell.first(),
                        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
                    ),
                    "a formula cell: {:?}",
                    String::from_utf8_lossy(cell)
                );
            }
        }
    } else {
        panic!("{path} answered {status} with Content-Type {ctype_out:?}");
    }
});

//! Verify's text fragment check against a loopback server (127.0.0.1 only): found, found
//! across tags, not found, page changed between two verifications, not checked (no page,
//! not HTML, over the body cap), a malformed directive left unchecked. Synthetic pages
//! and URLs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{ledger, open};
use crate::variants::FAST;

/// A server of a few synthetic pages; `/changing` says 10 euros on its first request and
/// 12 euros after.
fn serve() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("addr");
    let changing = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let changing = Arc::clone(&changing);
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16_384 {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let path = path.split('?').next().unwrap_or("/");
                let (status, ctype, body): (&str, &str, Vec<u8>) = match path {
                    "/guide" => (
                        "200 OK",
                        "text/html; charset=utf-8",
                        b"<!doctype html><html><head><title>Setup guide</title></head><body>\
                          <h1>Setup</h1><p>The guide <b>explains</b> the <i>set</i>up,\n  step \
                          by step.</p><ul><li>Install</li><li>Configure</li></ul></body></html>"
                            .to_vec(),
                    ),
                    "/changing" => {
                        let price = if changing.fetch_add(1, Ordering::SeqCst) == 0 {
                            10
                        } else {
                            12
                        };
                        (
                            "200 OK",
                            "text/html",
                            format!("<html><body><p>The price is {price} euros.</p></body></html>")
                                .into_bytes(),
                        )
                    }
                    "/file.pdf" => ("200 OK", "application/pdf", b"%PDF-1.4 the setup".to_vec()),
                    "/huge" => {
                        let mut b = b"<html><body>".to_vec();
                        while b.len() < 3 * 1024 * 1024 {
                            b.extend_from_slice(b"<p>filler text of a long page</p>");
                        }
                        b.extend_from_slice(b"<p>The last sentence.</p></body></html>");
                        ("200 OK", "text/html", b)
                    }
                    _ => ("404 Not Found", "text/html", b"<p>not here</p>".to_vec()),
                };
                let _ = stream.write_all(
                    format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
                         Connection: close\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                );
                let _ = stream.write_all(&body);
            });
        }
    });
    addr
}

/// The latest check of each directive: `observation n result`.
fn checks(db: &Path) -> Vec<String> {
    let c = open(db);
    let mut st = c
        .prepare(
            "SELECT c.observation_id, c.n, c.result FROM text_fragment_checks c \
             WHERE c.verification_id = (SELECT max(c2.verification_id) FROM text_fragment_checks c2 \
                                        WHERE c2.observation_id = c.observation_id) \
             ORDER BY 1, 2",
        )
        .expect("prepare");
    st.query_map([], |r| {
        Ok(format!(
            "{} {} {}",
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?
        ))
    })
    .expect("query")
    .collect::<Result<_, _>>()
    .expect("rows")
}

#[test]
fn verify_checks_each_text_directive_on_the_fetched_page() {
    let addr = serve();
    let u = |p: &str| format!("http://{addr}{p}");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let rows = [
        // Found across tags and a line break, and a range with a suffix.
        (
            "t1",
            u("/guide#:~:text=guide%20explains%20the%20setup&text=step,-by%20step"),
        ),
        ("t2", u("/guide#:~:text=uninstall%20steps")),
        ("t3", u("/changing#:~:text=price%20is%2010%20euros")),
        ("t4", u("/file.pdf#:~:text=the%20setup")),
        ("t5", u("/missing#:~:text=not%20here")),
        ("t6", u("/huge#:~:text=The%20last%20sentence")),
        ("t7", u("/guide?utm_source=synthetic#:~:text=a,,b")),
        ("t8", u("/guide#install")),
        ("t9", "not a url#:~:text=kept%20anyway".to_string()),
    ];
    let mut csv = String::from("observation_id,observed_url,claim,answer_system\n");
    for (id, url) in &rows {
        // t9 comes from another answer system; the flag fills in the others.
        let system = if *id == "t9" { "gemini" } else { "" };
        csv.push_str(&format!("{id},\"{url}\",synthetic claim,{system}\n"));
    }
    let f = dir.path().join("synthetic-fragments.csv");
    std::fs::write(&f, csv).expect("write");
    ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("path"),
            "--answer-system",
            "ai-mode",
            "--prompt-version",
            "v1",
            "--market",
            "local",
            "--run-timestamp",
            "2026-12-01T00:00:00Z",
        ],
    )
    .ok();

    let r = ledger(&db, FAST).ok();
    assert!(
        r.stdout.contains("text fragments: found 2, not-found 1"),
        "{}",
        r.stdout
    );
    assert_eq!(
        checks(&db),
        [
            "t1 1 found",
            "t1 2 found",
            "t2 1 not-found",
            "t3 1 found",
            "t4 1 not-checked",
            "t5 1 not-checked",
            "t6 1 not-checked",
        ],
        "{}",
        r.stdout
    );
    let detail = |obs: &str| -> String {
        open(&db)
            .query_row(
                "SELECT detail FROM text_fragment_checks WHERE observation_id = ?1 \
                 ORDER BY verification_id DESC LIMIT 1",
                [obs],
                |r| r.get(0),
            )
            .expect("detail")
    };
    assert!(
        detail("t4").contains("not an HTML page (application/pdf)"),
        "{}",
        detail("t4")
    );
    assert!(
        detail("t5").contains("no page was read: http-404"),
        "{}",
        detail("t5")
    );
    assert!(detail("t6").contains("the body cap"), "{}", detail("t6"));

    // Verified again: the changed page's directive is page-changed; the others stay.
    ledger(&db, &[FAST, &["--older-than", "0s"]].concat()).ok();
    assert_eq!(
        checks(&db),
        [
            "t1 1 found",
            "t1 2 found",
            "t2 1 not-found",
            "t3 1 page-changed",
            "t4 1 not-checked",
            "t5 1 not-checked",
            "t6 1 not-checked",
        ]
    );
    // As the review queue shows them beside the URL.
    let conn = open(&db);
    let shown = |obs: &str| urlkey_ledger::fragments::described(&conn, obs).expect("described");
    assert_eq!(shown("t3"), ["\"price is 10 euros\" page-changed"]);
    assert_eq!(
        shown("t1"),
        [
            "\"guide explains the setup\" found",
            "\"step [by step]\" found"
        ]
    );
    assert_eq!(shown("t7"), ["text=a,,b malformed (empty-term)"]);
    assert!(shown("t8").is_empty());
    // The export carries the directives with the latest check; the malformed one is
    // there, unchecked.
    let out = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let line = |id: &str| -> serde_json::Value {
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .find(|v| v["observation_id"] == id)
            .expect("row")
    };
    assert_eq!(line("t3")["text_fragments"][0]["check"], "page-changed");
    assert_eq!(
        line("t1")["text_fragments"][0]["start"],
        "guide explains the setup"
    );
    assert_eq!(line("t7")["text_fragments"][0]["malformed"], "empty-term");
    assert_eq!(
        line("t7")["text_fragments"][0]["check"],
        serde_json::Value::Null
    );
    assert_eq!(line("t8")["text_fragments"], serde_json::json!([]));

    // The report counts them, by hand: 8 observations with directives (t1-t7, t9; t8's
    // fragment has none), 9 directives (t1 has two): found 2 (t1), not-found 1 (t2),
    // page-changed 1 (t3), not-checked 3 (t4 PDF, t5 404, t6 over the cap), malformed 1
    // (t7), unverified 1 (t9: an invalid URL, never fetched).
    let json = ledger(&db, &["report", "--format", "json"]).ok().stdout;
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let counts = |c: &serde_json::Value| {
        [
            "observations",
            "directives",
            "found",
            "not_found",
            "page_changed",
            "not_checked",
            "unverified",
            "malformed",
        ]
        .map(|k| c[k].as_u64().unwrap_or_else(|| panic!("{k}: {c}")))
    };
    let f = &v["text_fragments"];
    assert_eq!(counts(f), [8, 9, 2, 1, 1, 3, 1, 1], "{f}");
    assert_eq!(
        counts(&f["by_answer_system"]["ai-mode"]),
        [7, 8, 2, 1, 1, 3, 0, 1]
    );
    assert_eq!(
        counts(&f["by_answer_system"]["gemini"]),
        [1, 1, 0, 0, 0, 0, 1, 0]
    );
    let text = ledger(&db, &["report"]).ok().stdout;
    assert!(
        text.contains(
            "text fragments (each directive's latest verify check; by answer system below): \
             observations 8, directives 9, found 2, not-found 1, page-changed 1, not-checked 3, \
             unverified 1, malformed 1"
        ),
        "{text}"
    );
    assert!(
        text.contains("    gemini: observations 1, directives 1, found 0"),
        "{text}"
    );
    // By answer system, each group has its own.
    let by = ledger(&db, &["report", "--by", "answer_system", "--format", "csv"])
        .ok()
        .stdout;
    let mut r = csv::Reader::from_reader(by.as_bytes());
    let header = r.headers().expect("header").clone();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[0][col("value")], "ai-mode");
    assert_eq!(&rows[0][col("text_fragments_found")], "2");
    assert_eq!(&rows[1][col("text_fragments_unverified")], "1");
}

//! `urlkey serve --ledger DB`: the ledger page and `/api/ledger`, against a real server on
//! an ephemeral 127.0.0.1 port, on the synthetic fixture of the ledger's tests (its figures
//! are worked out by hand in crates/urlkey-ledger/tests/fixtures/README.md). The browser
//! side is in e2e/e2e.mjs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use urlkey_ledger::command::{IngestCommand, LedgerCommand};
use urlkey_serve::{Config, CONTENT_SECURITY_POLICY};

/// `urlkey ledger --db DB ingest FILE`, through the ledger's typed command.
fn ingest(db: &Path, file: &Path) {
    let command = LedgerCommand::Ingest(IngestCommand {
        files: vec![file.to_path_buf()],
        ..IngestCommand::default()
    });
    let (mut out, mut err) = (Vec::new(), Vec::new());
    urlkey_ledger::run(command, db, &mut out, &mut err).expect("ledger ingest");
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
    addr: SocketAddr,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("ledger.sqlite");
        let csv = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../urlkey-ledger/tests/fixtures/synthetic-citations.csv");
        ingest(&db, &csv);
        let addr = urlkey_serve::spawn_with_ledger(Config::default(), Some(db.clone()))
            .expect("server starts");
        Fixture {
            _dir: dir,
            db,
            addr,
        }
    })
}

struct Resp {
    status: u16,
    head: String,
    body: String,
}

fn get(addr: SocketAddr, path: &str) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // Chunked bodies: drop the chunk-size lines (the page is ASCII-safe HTML).
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, tail)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            out.push_str(&tail[..n]);
            rest = &tail[n + 2..];
        }
        out
    } else {
        body.to_string()
    };
    Resp {
        status,
        head: head.to_string(),
        body,
    }
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn the_ledger_page_shows_the_report_under_the_strict_csp() {
    let f = fixture();
    let r = get(f.addr, "/ledger");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.head.contains("text/html"), "{}", r.head);
    assert!(r.head.contains(CONTENT_SECURITY_POLICY), "{}", r.head);
    // The measures with their sample (hand-computed in the ledger's fixture README).
    for want in [
        "data-measure=\"observations\">27<",
        "data-measure=\"valid_observations\">24<",
        "data-measure=\"unique_keys\">15<",
        "data-measure=\"unique_publishers\">8<",
        "data-measure=\"top1_share\">0.2917<",
        "data-measure=\"hhi\">0.1667<",
        "data-measure=\"publishers_jaccard\">0.8750<",
        "data-measure=\"keys_jaccard\">0.4000<",
        "<td class=\"n\">7/24</td>",
        "27 observations; prompt-set versions: ps-2026-10, ps-2026-11",
        "https://docs.example.org/guide",
        "opened read-only",
    ] {
        assert!(r.body.contains(want), "{want} in:\n{}", r.body);
    }
    // Two charts; nothing the CSP would block: no inline script (the one script is the
    // review queue's file), no inline style, the style sheet from this origin.
    assert_eq!(count(&r.body, "<svg"), 2);
    assert_eq!(count(&r.body, "<script"), 1, "one script");
    assert!(
        r.body
            .contains("<script src=\"/ledger.js\" defer></script>"),
        "only the queue's script file"
    );
    assert!(!r.body.contains("<style"), "no inline style element");
    assert!(!r.body.contains(" style="), "no style attribute");
    assert!(r
        .body
        .contains("<link rel=\"stylesheet\" href=\"/ledger.css\">"));
    let css = get(f.addr, "/ledger.css");
    assert_eq!(css.status, 200);
    assert!(css.head.contains("text/css"));
    assert!(css.body.contains("figcaption"));
}

#[test]
fn the_views_group_roll_up_and_compare() {
    let f = fixture();
    let r = get(f.addr, "/ledger?by=answer_system,market");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(count(&r.body, "data-group="), 4);
    assert!(r
        .body
        .contains("<h2>answer_system = assistant-a, market = de</h2>"));
    let r = get(f.addr, "/ledger?publisher=registrable");
    assert!(
        r.body.contains("data-measure=\"unique_publishers\">4<"),
        "{}",
        r.body
    );
    assert!(r.body.contains("data-measure=\"hhi\">0.3438<"));
    // The nav links to the comparison of the two collections.
    assert!(
        r.body
            .contains("compare=c-2026-11-01&amp;compare=c-2026-11-08"),
        "{}",
        r.body
    );
    let r = get(f.addr, "/ledger?compare=c-2026-11-01&compare=c-2026-11-08");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(count(&r.body, "<svg"), 5, "A's two, B's two, the change");
    assert!(r
        .body
        .contains("data-measure=\"change_publishers_gone\">3<"));
    let r = get(
        f.addr,
        "/ledger?window=2026-11-01..2026-11-07&window=2026-11-08..2026-11-08",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("<h2>A: window = 2026-11-01..2026-11-07</h2>"),
        "{}",
        r.body
    );
    // Bad options are JSON errors with the API's codes.
    let r = get(f.addr, "/ledger?by=colour");
    assert_eq!(r.status, 400);
    assert!(r.body.contains("request.invalid-option"), "{}", r.body);
    let r = get(f.addr, "/ledger?compare=c-2026-11-01&compare=nope");
    assert_eq!(r.status, 400);
    assert!(r.body.contains("c-2026-11-01, c-2026-11-08"), "{}", r.body);
}

/// The ledger's refusals reach the page in its words: the option as the page names it
/// (`window`, `compare`, `by`), never a flag of the command line.
#[test]
fn ledger_errors_on_the_page_name_no_flag() {
    let f = fixture();
    let cases = [
        (
            "/ledger?window=2030-01-01..2030-01-02&window=2026-11-01..2026-11-08",
            "window 2030-01-01..2030-01-02: no observations run in it",
        ),
        (
            "/ledger?compare=c-2026-11-01&compare=c-2026-11-08&by=market",
            "compare and by cannot be combined",
        ),
        ("/ledger?by=market,market", "market is grouped by twice"),
        (
            "/ledger?compare=c-2026-11-01&compare=c-2026-11-01",
            "compare c-2026-11-01 c-2026-11-01: name two different collections",
        ),
    ];
    for (path, said) in cases {
        let r = get(f.addr, path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        let v: Value = serde_json::from_str(&r.body).expect("json");
        assert_eq!(v["error"]["code"], "request.invalid-option", "{path}");
        let m = v["error"]["message"].as_str().expect("message");
        assert!(m.contains(said), "{path}: {m}");
        assert!(!m.contains("--"), "{path} names a flag: {m}");
    }
}

#[test]
fn api_ledger_is_the_report_json() {
    let f = fixture();
    let r = get(f.addr, "/api/ledger");
    assert_eq!(r.status, 200, "{}", r.body);
    let v: Value = serde_json::from_str(&r.body).expect("json");
    assert_eq!(v["unique_keys"], 15);
    assert_eq!(v["concentration"]["top5_share"], 0.7917);
    assert_eq!(v["top_keys"][0]["spellings"], 5);
    let r = get(f.addr, "/api/ledger?by=market");
    let v: Value = serde_json::from_str(&r.body).expect("json");
    assert_eq!(v["groups"][1]["values"]["market"], "us");
}

#[test]
fn the_ledger_is_never_written() {
    let f = fixture();
    let before = std::fs::read(&f.db).expect("db");
    for p in ["/ledger", "/ledger?by=collection", "/api/ledger"] {
        assert_eq!(get(f.addr, p).status, 200);
    }
    assert_eq!(
        std::fs::read(&f.db).expect("db"),
        before,
        "the file is unchanged"
    );
    // A server without --ledger has no ledger page.
    let plain = urlkey_serve::spawn_for_tests().expect("server");
    let r = get(plain, "/ledger");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("--ledger"), "{}", r.body);
    // A path that is not a ledger is refused at start.
    let dir = tempfile::tempdir().expect("tempdir");
    let not = dir.path().join("x.sqlite");
    std::fs::write(&not, b"not sqlite").expect("write");
    let err = urlkey_serve::spawn_with_ledger(Config::default(), Some(not)).expect_err("refused");
    // The server's words name no flag (the command line adds `--ledger:`).
    let words = err.to_string();
    assert!(
        words.starts_with("the ledger: ") && !words.contains("--"),
        "{err}"
    );
    let err = urlkey_serve::spawn_with_ledger(Config::default(), Some(dir.path().join("none")))
        .expect_err("refused");
    assert!(err.to_string().contains("no ledger"), "{err}");
}

//! Test helpers: the CLI run in-process, and a small HTTP/1.1 server on 127.0.0.1 with an
//! ephemeral port. No test reaches any other address.

#![allow(dead_code)]

mod pages;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use urlkey_cli::flags::advice;
use urlkey_cli::flags::ledger::LedgerArgs;
use urlkey_ledger::LedgerError;

#[derive(Parser, Debug)]
#[command(name = "urlkey-ledger-test")]
struct TestCli {
    #[command(flatten)]
    args: LedgerArgs,
}

/// A ledger error as the `urlkey` binary prints it (its flags named: `flags::advice`),
/// beside the error itself.
#[derive(Debug)]
pub struct Worded {
    pub error: LedgerError,
    message: String,
}

impl Worded {
    pub fn exit_code(&self) -> i32 {
        self.error.exit_code()
    }
}

impl std::fmt::Display for Worded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a CLI run printed.
#[derive(Debug)]
pub struct Run {
    pub result: Result<(), Worded>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(self) -> Run {
        if let Err(e) = &self.result {
            panic!(
                "command failed: {e}\nstdout:\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            );
        }
        self
    }

    pub fn err(self) -> Worded {
        match self.result {
            Ok(()) => panic!("command succeeded:\n{}", self.stdout),
            Err(e) => e,
        }
    }
}

/// Runs parsed `urlkey ledger` flags as the `urlkey` binary does, on the given streams
/// (without its progress bar, which it draws on a terminal only).
pub fn run_parsed(
    args: LedgerArgs,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), Worded> {
    let (db, command) = args.into_command();
    let words = advice::Flags;
    urlkey_ledger::run_with(command, &db, out, err, &urlkey_ledger::NoProgress, &words).map_err(
        |error| Worded {
            message: advice::ledger(&error, "--db"),
            error,
        },
    )
}

/// Runs `urlkey ledger --db DB ARGS...` in-process.
pub fn ledger(db: &Path, args: &[&str]) -> Run {
    let mut argv: Vec<String> = vec![
        "urlkey-ledger-test".into(),
        "--db".into(),
        db.display().to_string(),
    ];
    argv.extend(args.iter().map(|s| s.to_string()));
    let cli =
        TestCli::try_parse_from(&argv).unwrap_or_else(|e| panic!("bad test argv {argv:?}: {e}"));
    let mut out = Vec::new();
    let mut err = Vec::new();
    let result = run_parsed(cli.args, &mut out, &mut err);
    Run {
        result,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// A ledger with one observation per URL of `urls` (ids `v-000`, `v-001`, ...; claim
/// `synthetic claim N`), ingested as one collection with fixed metadata.
pub fn ledger_for_urls(urls: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let mut csv = String::from("observation_id,observed_url,claim\n");
    for (i, u) in urls.iter().enumerate() {
        csv.push_str(&format!("v-{i:03},{u},synthetic claim {i}\n"));
    }
    let f = dir.path().join("synthetic-local.csv");
    std::fs::write(&f, csv).expect("write");
    ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("path"),
            "--answer-system",
            "test",
            "--prompt-version",
            "v1",
            "--market",
            "local",
            "--run-timestamp",
            "2026-11-30T00:00:00Z",
        ],
    )
    .ok();
    (dir, db)
}

/// [`ledger_for_urls`] for `paths` on `server`.
pub fn ledger_for(server: &TestServer, paths: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let urls: Vec<String> = paths.iter().map(|p| server.url(p)).collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    ledger_for_urls(&refs)
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../urlkey-ledger/tests/fixtures")
        .join(name)
}

pub fn open(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(db).expect("open db")
}

/// Every row of every table, as text: for "nothing changed" checks.
pub fn dump(db: &Path) -> String {
    let c = open(db);
    let mut out = String::new();
    for table in [
        "ingests",
        "observations",
        "verifications",
        "verification_hops",
    ] {
        let mut stmt = c
            .prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2"))
            .expect("prepare");
        let n = stmt.column_count();
        let mut rows = stmt.query([]).expect("query");
        out.push_str(&format!("== {table}\n"));
        while let Some(r) = rows.next().expect("row") {
            for i in 0..n {
                let v: rusqlite::types::Value = r.get(i).expect("value");
                out.push_str(&format!("{v:?}|"));
            }
            out.push('\n');
        }
    }
    out
}

/// One request the server saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub head: String,
    pub at: Instant,
}

/// A local HTTP/1.1 server on 127.0.0.1:0 (one response per connection).
pub struct TestServer {
    pub addr: SocketAddr,
    pub connections: Arc<AtomicUsize>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl TestServer {
    pub fn start() -> TestServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let connections = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (c2, s2) = (Arc::clone(&connections), Arc::clone(&seen));
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("server runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    c2.fetch_add(1, Ordering::SeqCst);
                    let seen = Arc::clone(&s2);
                    tokio::spawn(async move {
                        let _ = handle(stream, addr, seen).await;
                    });
                }
            });
        });
        TestServer {
            addr,
            connections,
            seen,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn connection_count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn requests_for(&self, path: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .expect("lock")
            .iter()
            .filter(|s| s.path == path)
            .cloned()
            .collect()
    }
}

fn response(status: &str, headers: &[(&str, String)], body: &str) -> Vec<u8> {
    let mut s = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        s.push_str(&format!("{k}: {v}\r\n"));
    }
    s.push_str("\r\n");
    s.push_str(body);
    s.into_bytes()
}

fn html(head: &str) -> String {
    format!("<!doctype html><html><head><title>synthetic</title>{head}</head><body><p>synthetic test page</p></body></html>")
}

async fn handle(
    mut stream: tokio::net::TcpStream,
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await?;
        if n == 0 || buf.len() > 64 * 1024 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    if let Ok(mut s) = seen.lock() {
        s.push(Seen {
            path: path.clone(),
            head: head.clone(),
            at: Instant::now(),
        });
    }
    let text_html = ("Content-Type", "text/html; charset=utf-8".to_string());
    let loc = |to: &str| ("Location", to.to_string());
    if let Some(bytes) = pages::variant_page(&path) {
        let _ = stream.write_all(&bytes).await;
        let _ = stream.shutdown().await;
        return Ok(());
    }
    let bytes = match path.as_str() {
        "/ok" | "/ok-again" => response(
            "200 OK",
            &[text_html],
            &html(r#"<link rel="canonical" href="/canonical/ok">"#),
        ),
        "/plain" => response("200 OK", &[text_html], &html("")),
        "/pdf" => response(
            "200 OK",
            &[
                ("Content-Type", "application/pdf".to_string()),
                (
                    "Link",
                    r#"</canonical/paper.pdf>; rel="canonical""#.to_string(),
                ),
            ],
            "%PDF-1.4 synthetic",
        ),
        "/chain/start" => response("301 Moved Permanently", &[loc("/chain/middle")], ""),
        "/chain/middle" => response(
            "302 Found",
            &[loc(&format!("http://{addr}/chain/end#section"))],
            "",
        ),
        "/chain/end" => response(
            "200 OK",
            &[text_html],
            &html(r#"<base href="/chain/"><link rel="canonical" href="final">"#),
        ),
        "/loop/a" => response("302 Found", &[loc("/loop/b")], ""),
        "/loop/b" => response("302 Found", &[loc("/loop/a")], ""),
        p if p.starts_with("/long/") => {
            let n: u32 = p.trim_start_matches("/long/").parse().unwrap_or(0);
            response("302 Found", &[loc(&format!("/long/{}", n + 1))], "")
        }
        "/missing" => response("404 Not Found", &[text_html], "<p>not here</p>"),
        "/gone" => response("410 Gone", &[], ""),
        "/busy" => response(
            "503 Service Unavailable",
            &[("Retry-After", "120".to_string())],
            "busy",
        ),
        "/broken" => response("500 Internal Server Error", &[], ""),
        "/forbidden" => response("403 Forbidden", &[], ""),
        "/challenge" => response(
            "403 Forbidden",
            &[("cf-mitigated", "challenge".to_string()), text_html],
            "<title>Just a moment...</title>",
        ),
        "/login" => response(
            "401 Unauthorized",
            &[("WWW-Authenticate", "Basic realm=\"synthetic\"".to_string())],
            "",
        ),
        p if p.split('?').next() == Some("/lag/") => {
            // The risky spelling of a key that times out (the tests give 1 s).
            tokio::time::sleep(Duration::from_secs(4)).await;
            response("200 OK", &[text_html], &html(""))
        }
        p if p.split('?').next() == Some("/lag") => response("200 OK", &[text_html], &html("")),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            response("200 OK", &[text_html], &html(""))
        }
        "/huge" => {
            // A head that never ends within the cap: 8 MiB of comments, then the canonical.
            let head = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/html\r\n\r\n\
                        <html><head>";
            stream.write_all(head.as_bytes()).await?;
            let filler = format!("<!--{}-->", "x".repeat(65_529));
            let mut sent = 12usize;
            while sent + filler.len() <= 8 * 1024 * 1024 {
                if stream.write_all(filler.as_bytes()).await.is_err() {
                    return Ok(());
                }
                sent += filler.len();
            }
            let _ = stream
                .write_all(br#"<link rel="canonical" href="/too-late"></head><body></body></html>"#)
                .await;
            return Ok(());
        }
        "/to-private" => response("302 Found", &[loc("http://10.0.0.1/admin")], ""),
        "/to-metadata" => response(
            "302 Found",
            &[loc("http://169.254.169.254/latest/meta-data/")],
            "",
        ),
        "/to-mapped" => response("302 Found", &[loc("http://[::ffff:10.0.0.1]/")], ""),
        "/to-localhost" => response(
            "302 Found",
            &[loc(&format!("http://localhost:{}/ok-again", addr.port()))],
            "",
        ),
        "/to-ftp" => response("302 Found", &[loc("ftp://files.example.org/x")], ""),
        "/set-cookie" => response(
            "302 Found",
            &[
                ("Set-Cookie", "session=synthetic; Path=/".to_string()),
                loc("/after-cookie"),
            ],
            "",
        ),
        "/after-cookie" | "/echo" => response("200 OK", &[text_html], &html("")),
        _ => response("404 Not Found", &[], ""),
    };
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
    Ok(())
}

//! `urlkey redirects test` against an in-process HTTP server on 127.0.0.1 (an ephemeral
//! port): every `result`, the loopback refusal without `--allow-loopback`, a MAP with
//! set-aside rows, the output file, the pace, and a standard output closed early. No test
//! reaches any other address.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One request the server saw: its path and head, and when.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    head: String,
    at: Instant,
}

/// A local HTTP/1.1 server: one response per connection, by path.
struct Site {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Site {
    fn start() -> Site {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = Arc::clone(&seen);
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
                    let seen = Arc::clone(&s2);
                    tokio::spawn(async move {
                        let _ = handle(stream, addr, seen).await;
                    });
                }
            });
        });
        Site { addr, seen }
    }

    fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }
}

fn response(status: &str, location: Option<&str>) -> Vec<u8> {
    let body = "synthetic";
    let mut s = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(l) = location {
        s.push_str(&format!("Location: {l}\r\n"));
    }
    s.push_str("\r\n");
    s.push_str(body);
    s.into_bytes()
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
            head,
            at: Instant::now(),
        });
    }
    let moved = "301 Moved Permanently";
    let absolute = format!("http://{addr}/new");
    let bytes = match path.as_str() {
        "/old" | "/pace" => response(moved, Some("/new")),
        "/old-absolute" => response(moved, Some(&absolute)),
        "/Old%20Page.html?id=7" => response(moved, Some("/new?id=7")),
        "/new" | "/new?id=7" | "/other" | "/served" => response("200 OK", None),
        "/temporary" => response("302 Found", Some("/new")),
        "/elsewhere" => response(moved, Some("/other")),
        "/hop1" => response(moved, Some("/hop2")),
        "/hop2" => response(moved, Some("/new")),
        "/to-missing-target" => response(moved, Some("/missing")),
        "/missing" => response("404 Not Found", None),
        "/gone" => response("410 Gone", None),
        "/broken" => response("500 Internal Server Error", None),
        "/no-location" => response(moved, None),
        "/loop-a" => response(moved, Some("/loop-b")),
        "/loop-b" => response(moved, Some("/loop-a")),
        "/self" => response(moved, Some("/self")),
        "/to-private" => response(moved, Some("http://10.0.0.1/admin")),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            response(moved, Some("/new"))
        }
        _ => response("404 Not Found", None),
    };
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
    Ok(())
}

fn urlkey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn write_map(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write the map");
    p.display().to_string()
}

/// The CSV rows (header first) as maps from column to cell.
fn parse_rows(stdout: &[u8]) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(stdout);
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header,
        [
            "line",
            "source",
            "target",
            "expected_status",
            "result",
            "status",
            "location",
            "hops",
            "chain",
            "detail"
        ]
    );
    r.records()
        .map(|rec| {
            let rec = rec.expect("a CSV row");
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_http_result_with_its_status_location_and_chain() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    let map = write_map(
        &dir,
        "map.csv",
        "source,target,status\n\
         /old,/new,\n\
         https://www.old.example/old-absolute,/new,301\n\
         /Old Page.html?id=7,/new?id=7,\n\
         /temporary,/new,301\n\
         /elsewhere,/new,\n\
         /hop1,/new,\n\
         /served,/new,\n\
         /missing,/new,\n\
         /gone,/new,\n\
         /broken,/new,\n\
         /no-location,/new,\n\
         /loop-a,/new,\n\
         /self,/new,\n\
         /to-missing-target,/missing,\n\
         /old,/new,308\n\
         /to-private,http://10.0.0.1/admin,\n",
    );
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        &site.base(),
        "--allow-loopback",
        &map,
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let rows = parse_rows(&out.stdout);
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["line"].as_str(),
                r["result"].as_str(),
                r["status"].as_str(),
                r["hops"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("2", "pass", "301", "1"),
            ("3", "pass", "301", "1"),
            ("4", "pass", "301", "1"),
            ("5", "wrong-status", "302", "1"),
            ("6", "wrong-target", "301", "1"),
            ("7", "chain", "301", "2"),
            ("8", "no-redirect", "200", "0"),
            ("9", "not-found", "404", "0"),
            ("10", "not-found", "410", "0"),
            ("11", "error", "500", "0"),
            ("12", "error", "301", "0"),
            ("13", "loop", "301", "2"),
            ("14", "loop", "301", "1"),
            ("15", "pass", "301", "1"),
            ("16", "wrong-status", "301", "1"),
            ("17", "pass", "301", "1"),
        ]
    );
    let base = site.base();
    assert_eq!(rows[0]["location"], "/new");
    assert_eq!(rows[0]["expected_status"], "301");
    assert_eq!(
        rows[0]["chain"],
        format!("{base}/old 301 -> {base}/new 200")
    );
    assert_eq!(rows[0]["detail"], "");
    // A full URL's path and query are requested at the base; the Location is absolute.
    assert_eq!(rows[1]["location"], format!("{base}/new"));
    assert!(rows[2]["chain"].starts_with(&format!("{base}/Old%20Page.html?id=7 301")));
    assert_eq!(
        rows[5]["chain"],
        format!("{base}/hop1 301 -> {base}/hop2 301 -> {base}/new 200")
    );
    assert!(
        rows[5]["detail"].contains("after 2 redirects"),
        "{:?}",
        rows[5]
    );
    assert!(rows[4]["detail"].contains("/other"), "{:?}", rows[4]);
    assert_eq!(rows[10]["detail"], "HTTP 301 without a Location");
    assert!(rows[11]["detail"].contains("returns to"), "{:?}", rows[11]);
    // The target's own answer is said beside a pass.
    assert_eq!(rows[13]["detail"], "the target answers HTTP 404");
    assert!(
        rows[14]["detail"].contains("asks for 308"),
        "{:?}",
        rows[14]
    );
    let err = stderr(&out);
    assert!(
        err.contains(
            "16 entries tested: 5 pass, 2 wrong-status, 1 wrong-target, 1 chain, \
             1 no-redirect, 2 not-found, 2 error, 2 loop"
        ),
        "{err}"
    );
    // One request at a time, each named: the user agent says what it is doing.
    let seen = site.seen();
    // The full URL's request went to the base, with the base's host.
    let absolute = seen
        .iter()
        .find(|s| s.path == "/old-absolute")
        .expect("requested");
    let host = format!("host: {}", site.addr);
    assert!(
        absolute.head.to_ascii_lowercase().contains(&host),
        "{absolute:?}"
    );
    let ua = format!(
        "user-agent: urlkey/{} (+redirect test)",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        seen.iter()
            .all(|s| s.head.to_ascii_lowercase().contains(&ua)),
        "{seen:?}"
    );
}

#[test]
fn a_map_whose_rows_all_pass_exits_0_and_writes_its_file() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    // Semicolons, a BOM, CRLF, a decision column: the MAP reader's class of files.
    let map = write_map(
        &dir,
        "map.csv",
        "\u{feff}Source;Target;Status;Decision\r\n/old;/new;;accept\r\n/gone;/;;reject\r\n\
         /old-absolute;;;accept\r\n;/x;;accept\r\n/old;/new;200;accept\r\n/old;/new;301;ACCEPT",
    );
    let file = dir.path().join("results.csv");
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        &site.base(),
        "--allow-loopback",
        "-o",
        file.to_str().expect("path"),
        &map,
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let written = std::fs::read(&file).expect("the results file");
    let rows = parse_rows(&written);
    let lines: Vec<&str> = rows.iter().map(|r| r["line"].as_str()).collect();
    assert_eq!(lines, ["2", "7"]);
    assert!(rows.iter().all(|r| r["result"] == "pass"));
    let err = stderr(&out);
    // Every row of the file is counted: 2 tested + 4 set aside = 6 data rows.
    assert!(
        err.contains(
            "2 entries tested: 2 pass; 4 rows set aside, not tested: 1 not-accepted (line 3), \
             1 empty-source (line 5), 1 empty-target (line 4), 1 bad-status (line 6)"
        ),
        "{err}"
    );
    // Only the gone row was never requested: set-aside rows are not tested.
    assert!(site.seen().iter().all(|s| s.path != "/gone"));
}

#[test]
fn loopback_is_refused_without_allow_loopback() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    let map = write_map(&dir, "map.csv", "source,target\n/old,/new\n");
    let out = urlkey(&["redirects", "test", "--base", &site.base(), &map]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let rows = parse_rows(&out.stdout);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["result"], "refused");
    assert_eq!(rows[0]["status"], "");
    let d = &rows[0]["detail"];
    assert!(
        d.contains("127.0.0.1 is a non-public address (loopback)"),
        "{d}"
    );
    assert!(d.contains("network scope: public"), "{d}");
    assert!(d.contains("--allow-loopback"), "{d}");
    assert!(site.seen().is_empty(), "nothing reached the server");
    // localhost is a name that resolves to loopback: refused by the resolver.
    let local = format!("http://localhost:{}", site.addr.port());
    let out = urlkey(&["redirects", "test", "--base", &local, &map]);
    let rows = parse_rows(&out.stdout);
    assert_eq!(rows[0]["result"], "refused", "{:?}", rows[0]);
    assert!(site.seen().is_empty(), "nothing reached the server");
    // A private or unspecified address is refused even with --allow-loopback, before any
    // connection (an IP literal never reaches a resolver).
    for (base, says) in [
        ("http://10.0.0.1", "never connects to private networks"),
        (
            "http://[fd00::1]:8080",
            "never connects to private networks",
        ),
        ("http://0.0.0.0", "never requested"),
    ] {
        let out = urlkey(&[
            "redirects",
            "test",
            "--base",
            base,
            "--allow-loopback",
            &map,
        ]);
        assert_eq!(code(&out), Some(1), "{}", stderr(&out));
        let rows = parse_rows(&out.stdout);
        assert_eq!(rows[0]["result"], "refused", "{base}: {:?}", rows[0]);
        let d = &rows[0]["detail"];
        assert!(d.contains("network scope: public+loopback"), "{d}");
        assert!(d.contains(says), "{base}: {d}");
    }
}

#[test]
fn timeouts_and_unreachable_servers() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    let map = write_map(&dir, "map.csv", "source,target\n/slow,/new\n/old,/new\n");
    let t0 = Instant::now();
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        &site.base(),
        "--allow-loopback",
        "--timeout",
        "0.5",
        &map,
    ]);
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let rows = parse_rows(&out.stdout);
    assert_eq!(rows[0]["result"], "timeout", "{:?}", rows[0]);
    assert_eq!(rows[1]["result"], "pass", "{:?}", rows[1]);
    // A port where nothing listens (bound, then closed).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let base = format!("http://127.0.0.1:{port}");
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        &base,
        "--allow-loopback",
        &map,
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let rows = parse_rows(&out.stdout);
    assert!(
        rows.iter().all(|r| r["result"] == "unreachable"),
        "{rows:?}"
    );
    assert!(stderr(&out).contains("2 entries tested: 0 pass, 2 unreachable"));
}

#[test]
fn requests_are_one_at_a_time_and_spaced_by_the_per_host_delay() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    let map = write_map(&dir, "map.csv", "source,target\n/pace,/new\n/pace,/new\n");
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        &site.base(),
        "--allow-loopback",
        "--per-host-delay",
        "300",
        &map,
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let seen = site.seen();
    let paths: Vec<&str> = seen.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["/pace", "/new", "/pace", "/new"]);
    for w in seen.windows(2) {
        let gap = w[1].at.duration_since(w[0].at);
        assert!(gap >= Duration::from_millis(250), "{gap:?}");
    }
}

#[test]
fn a_base_that_is_not_an_origin_and_a_bad_map_are_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let map = write_map(&dir, "map.csv", "source,target\n/old,/new\n");
    for base in [
        "http://127.0.0.1:1/shop/",
        "ftp://127.0.0.1",
        "127.0.0.1:8080",
    ] {
        let out = urlkey(&["redirects", "test", "--base", base, &map]);
        assert_eq!(code(&out), Some(2), "{base}: {}", stderr(&out));
        assert!(stderr(&out).contains("--base"), "{}", stderr(&out));
    }
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        "http://127.0.0.1:1",
        "--timeout",
        "0",
        &map,
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--timeout"), "{}", stderr(&out));
    // A source or target that is no URL: an error row, nothing requested.
    let odd = write_map(
        &dir,
        "odd.csv",
        "source,target\nhttp://[::1/x,/new\n/old,http://[bad\n",
    );
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        "http://127.0.0.1:1",
        "--allow-loopback",
        &odd,
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let rows = parse_rows(&out.stdout);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["result"], "error", "{r:?}");
        assert!(r["detail"].contains("nothing requested"), "{r:?}");
        assert_eq!(r["chain"], "", "{r:?}");
    }
    let bad = write_map(&dir, "bad.csv", "source,to\n/old,/new\n");
    let out = urlkey(&["redirects", "test", "--base", "http://127.0.0.1:1", &bad]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no target column"),
        "{}",
        stderr(&out)
    );
    // The output file may not be the map.
    let out = urlkey(&[
        "redirects",
        "test",
        "--base",
        "http://127.0.0.1:1",
        "-o",
        &map,
        &map,
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&map).expect("map"),
        "source,target\n/old,/new\n"
    );
}

#[test]
fn a_standard_output_closed_early_stops_the_requests_quietly() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("tmp");
    let mut text = String::from("source,target\n");
    for _ in 0..20 {
        text.push_str("/pace,/new\n");
    }
    let map = write_map(&dir, "map.csv", &text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args([
            "redirects",
            "test",
            "--base",
            &site.base(),
            "--allow-loopback",
            "--per-host-delay",
            "100",
            &map,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("the header");
    assert!(line.starts_with("line,source,target"), "{line}");
    line.clear();
    out.read_line(&mut line).expect("the first row");
    assert!(line.starts_with("2,/pace,/new,301,pass"), "{line}");
    drop(out);
    let status = child.wait().expect("the binary ends");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // It stopped requesting: far fewer than the 40 requests of the whole map.
    let requests = site.seen().len();
    assert!(requests < 12, "{requests} requests after the reader left");
}

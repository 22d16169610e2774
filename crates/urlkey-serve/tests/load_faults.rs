//! `urlkey serve` under load and faults: stalled clients are shed, keep-alive
//! survives error answers, memory is bounded in the number of bodies, a cheap error does
//! not wait behind the map queue. Real servers on ephemeral 127.0.0.1 ports, spoken to
//! over raw HTTP/1.1; no other address is used.
//!
//! The slow-client test runs the server in a child process (this test binary started
//! again with `SERVE_CHILD_ARGS` set and the filter `child_serve`, calling
//! `urlkey_serve::run` as `urlkey serve` does) whose `RLIMIT_NOFILE` is set to 256 before
//! it starts, as `prlimit --nofile=256` would. Time bounds are generous ("within a few
//! seconds" is asserted as "within 20 s"): the machine may be busy.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{read_response, Resp};
use serde_json::json;
use urlkey_serve::Config;

const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// A few lines of HTTP/1.1 client.

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect to the test server");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    s
}

fn post_head(addr: SocketAddr, path: &str, ctype: &str, len: usize, close: bool) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {ctype}\r\nContent-Length: {len}\r\n{}\r\n",
        if close { "Connection: close\r\n" } else { "" }
    )
}

/// One request on a fresh connection.
fn post(addr: SocketAddr, path: &str, body: &[u8]) -> Resp {
    let mut s = connect(addr);
    s.write_all(post_head(addr, path, "application/json", body.len(), true).as_bytes())
        .expect("write head");
    let _ = s.write_all(body); // the server may answer (and close) before the end
    read_response(&mut s).expect("a response")
}

fn key_body() -> Vec<u8> {
    json!({"input": "https://Example.com/a?utm_source=x"})
        .to_string()
        .into_bytes()
}

// ---------------------------------------------------------------------------------------
// The server in a child process, under a file-descriptor limit.

/// The options `urlkey serve` takes from `flags` (`--addr`, `--threads`,
/// `--header-timeout`, `--body-timeout`, each with its value).
fn child_options(flags: &str) -> urlkey_serve::ServeOptions {
    let mut o = urlkey_serve::ServeOptions::default();
    let mut words = flags.split_whitespace();
    while let Some(flag) = words.next() {
        let value = words.next().expect("a value after each flag");
        let number = || value.parse::<u64>().expect("a number");
        match flag {
            "--addr" => o.addr = value.to_string(),
            "--threads" => o.threads = number() as usize,
            "--header-timeout" => o.header_timeout_secs = number(),
            "--body-timeout" => o.body_timeout_secs = number(),
            other => panic!("child_options does not know {other}"),
        }
    }
    o
}

/// In the child process only: `urlkey serve` with the flags in `SERVE_CHILD_ARGS`.
#[test]
fn child_serve() {
    let Ok(args) = std::env::var("SERVE_CHILD_ARGS") else {
        return; // not started as a child: nothing to do
    };
    if let Err(e) = urlkey_serve::run(child_options(&args)) {
        panic!("child server: {e}");
    }
}

/// Kills the child server when the test ends, however it ends.
struct ChildServer {
    child: Child,
    addr: SocketAddr,
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_child_server(flags: &str, nofile: u64) -> ChildServer {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", "child_serve", "--nocapture", "--test-threads=1"])
        .env("SERVE_CHILD_ARGS", format!("--addr 127.0.0.1:0 {flags}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe
        // and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: nofile as libc::rlim_t,
                    rlim_max: nofile as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().expect("start the child server");
    let stdout = child.stdout.take().expect("child stdout");
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = match lines.next() {
            Some(Ok(l)) => l,
            _ => {
                let _ = child.kill();
                panic!("the child server printed no URL");
            }
        };
        if let Some(rest) = line.split("http://").nth(1) {
            let hostport = rest.split('/').next().unwrap_or_default();
            break hostport.parse::<SocketAddr>().expect("a socket address");
        }
    };
    // Keep draining its output so that it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    ChildServer { child, addr }
}

fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Whether the server closed `s` (EOF or reset) by `deadline`; a 408 answer before the
/// close is fine.
fn closed_by(s: &mut TcpStream, deadline: Instant) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left)).ok();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue, // an answer (408): the close follows
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false
            }
            Err(_) => return true, // reset
        }
    }
}

/// With `--header-timeout 1` and a 256-descriptor limit, 300 stalled sockets (nothing
/// sent, half a head, a head and half a body) do not lock a normal client out, and the
/// server closes every one of them within a few seconds.
#[test]
fn stalled_clients_are_closed_and_do_not_lock_others_out() {
    if !cfg!(target_os = "linux") {
        eprintln!("skipped: reads /proc and sets RLIMIT_NOFILE (Linux)");
        return;
    }
    let server = spawn_child_server("--header-timeout 1 --body-timeout 2 --threads 1", 256);
    let addr = server.addr;
    let limits =
        std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).unwrap_or_default();
    let nofile = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap_or_default()
        .to_string();
    assert!(
        nofile.split_whitespace().nth(3) == Some("256"),
        "the child runs under a 256-descriptor limit: {nofile:?}"
    );

    let mut stalled = Vec::new();
    for i in 0..300 {
        let mut s = TcpStream::connect(addr).expect("connect (the backlog takes it)");
        match i % 3 {
            0 => {} // sends nothing at all
            1 => s
                .write_all(b"POST /api/key HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
                .expect("half a head"),
            _ => {
                let head = post_head(addr, "/api/key", "application/json", 1000, false);
                s.write_all(head.as_bytes()).expect("a head");
                s.write_all(b"{\"input\":\"https://").expect("half a body");
            }
        }
        stalled.push(s);
    }
    let opened = Instant::now();
    // A normal request, queued behind all 300, still gets its answer.
    let r = post(addr, "/api/key", &key_body());
    assert_eq!(r.status, 200, "a normal request while 300 sockets stall");
    assert!(
        opened.elapsed() < Duration::from_secs(30),
        "the normal request waited {:?}",
        opened.elapsed()
    );
    assert!(
        fd_count(server.child.id()) <= 256,
        "the server stays under its descriptor limit"
    );
    let deadline = opened + Duration::from_secs(20);
    let open: Vec<usize> = stalled
        .iter_mut()
        .enumerate()
        .filter_map(|(i, s)| (!closed_by(s, deadline)).then_some(i))
        .collect();
    assert!(
        open.is_empty(),
        "{} stalled sockets still open after 20 s (indices {:?}...)",
        open.len(),
        &open[..open.len().min(10)]
    );
    // And the server is still there, answering on a fresh connection.
    assert_eq!(post(addr, "/api/key", &key_body()).status, 200);
    assert!(server.child.id() > 0);
}

// ---------------------------------------------------------------------------------------
// In-process servers.

fn small_cap_server() -> SocketAddr {
    urlkey_serve::spawn(Config {
        max_body_bytes: 4096,
        threads: 1,
        ..Config::default()
    })
    .expect("server starts")
}

/// After a 400, 413 or 415 (whether or not the server read the body), the next request
/// on the same connection succeeds, or the first answer said `Connection: close`.
#[test]
fn keep_alive_survives_error_answers() {
    let small = small_cap_server();
    let addr = urlkey_serve::spawn(Config {
        threads: 1,
        ..Config::default()
    })
    .expect("server starts");
    let big = vec![b'x'; 64 * 1024];
    // (name, server, head, body, status)
    let cases: Vec<(&str, SocketAddr, String, Vec<u8>, u16)> = vec![
        (
            "400 invalid JSON (body read)",
            addr,
            post_head(addr, "/api/key", "application/json", 9, false),
            b"{\"input\":".to_vec(),
            400,
        ),
        (
            "400 bad format option (body not read)",
            addr,
            post_head(addr, "/api/map?format=xml", "application/json", 2000, false),
            vec![b' '; 2000],
            400,
        ),
        (
            "413 declared length",
            small,
            post_head(small, "/api/key", "application/json", big.len(), false),
            big.clone(),
            413,
        ),
        (
            "413 chunked",
            small,
            format!(
                "POST /api/key HTTP/1.1\r\nHost: {small}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            ),
            {
                let mut b = Vec::new();
                for _ in 0..4 {
                    b.extend_from_slice(format!("{:x}\r\n", 4000).as_bytes());
                    b.extend_from_slice(&[b' '; 4000]);
                    b.extend_from_slice(b"\r\n");
                }
                b.extend_from_slice(b"0\r\n\r\n");
                b
            },
            413,
        ),
        (
            "415 with a 64 KB body",
            addr,
            post_head(addr, "/api/key", "text/plain", big.len(), false),
            big.clone(),
            415,
        ),
    ];
    for (name, addr, head, body, want) in cases {
        let mut s = connect(addr);
        s.write_all(head.as_bytes()).expect("write head");
        let _ = s.write_all(&body);
        let first = read_response(&mut s).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(first.status, want, "{name}");
        assert!(
            first.json()["error"]["code"].is_string(),
            "{name}: JSON error"
        );
        if first.closes() {
            // Told: the client opens a new connection. The server did close this one.
            assert!(
                closed_by(&mut s, Instant::now() + Duration::from_secs(10)),
                "{name}: said close but kept the connection"
            );
            continue;
        }
        let kb = key_body();
        let second = post_head(addr, "/api/key", "application/json", kb.len(), false);
        s.write_all(second.as_bytes())
            .and_then(|_| s.write_all(&kb))
            .unwrap_or_else(|e| {
                panic!("{name}: the connection broke without Connection: close: {e}")
            });
        let r = read_response(&mut s)
            .unwrap_or_else(|e| panic!("{name}: no second answer and no Connection: close: {e}"));
        assert_eq!(r.status, 200, "{name}: the second request");
    }
    // A body that was read keeps the connection: no needless reconnect after a bad JSON.
    let mut s = connect(addr);
    for _ in 0..3 {
        s.write_all(post_head(addr, "/api/key", "application/json", 1, false).as_bytes())
            .and_then(|_| s.write_all(b"{"))
            .expect("write");
        let r = read_response(&mut s).expect("answer");
        assert_eq!(r.error_code(), "request.invalid-json");
        assert!(!r.closes());
    }
}

/// Bodies above the held-bytes cap get 503 with Retry-After at once, while small requests
/// go on; the budget comes back when the admitted body is answered.
#[test]
fn big_bodies_over_the_held_bytes_cap_get_503_while_small_ones_succeed() {
    let addr = urlkey_serve::spawn(Config {
        max_body_bytes: 4 * MIB,
        max_held_bytes: 6 * MIB,
        threads: 1,
        ..Config::default()
    })
    .expect("server starts");
    // A JSON body of exactly `big_len` bytes: {"input":"aaaa..."}.
    let big_len = 4 * MIB - 1024;
    let mut body = b"{\"input\":\"".to_vec();
    body.resize(big_len - 2, b'a');
    body.extend_from_slice(b"\"}");
    // Three such bodies, started together, each stalled after its first kilobyte: one
    // fits in 6 MiB, the other two cannot.
    let mut big: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = connect(addr);
            s.write_all(post_head(addr, "/api/key", "application/json", big_len, false).as_bytes())
                .expect("head");
            s.write_all(&body[..1024]).expect("first kilobyte");
            s
        })
        .collect();
    let mut refused = Vec::new();
    let mut admitted = Vec::new();
    for (i, s) in big.iter_mut().enumerate() {
        s.set_read_timeout(Some(Duration::from_secs(3))).ok();
        match read_response(s) {
            Ok(r) => {
                assert_eq!(r.status, 503, "body {i}");
                assert_eq!(r.error_code(), "server.busy");
                assert!(r.header("retry-after").is_some(), "503 says when to retry");
                assert!(r.closes(), "its body was not read");
                refused.push(i);
            }
            Err(_) => admitted.push(i), // no answer yet: admitted, waiting for its body
        }
    }
    assert_eq!(refused.len(), 2, "two of three big bodies refused");
    assert_eq!(admitted.len(), 1);
    // Small requests go on meanwhile.
    for _ in 0..5 {
        assert_eq!(post(addr, "/api/key", &key_body()).status, 200);
    }
    // The admitted body, finished, is answered (the key's outcome is input.too-long), and
    // its share is given back: a new big body is admitted.
    let s = &mut big[admitted[0]];
    s.write_all(&body[1024..]).expect("rest of the body");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let r = read_response(s).expect("the admitted body's answer");
    assert_eq!(r.status, 200, "the admitted body is answered");
    assert_eq!(
        post(addr, "/api/key", &body).status,
        200,
        "budget given back"
    );
}

/// A chunked body over the cap gets 413 as soon as it passes the cap: the server does not
/// read the rest (64 MiB are offered; the answer comes long before they are sent).
#[test]
fn a_chunked_body_over_the_cap_gets_413_without_reading_it_all() {
    let addr = urlkey_serve::spawn(Config {
        max_body_bytes: MIB,
        threads: 1,
        ..Config::default()
    })
    .expect("server starts");
    const OFFERED: usize = 64 * MIB;
    let mut s = connect(addr);
    s.write_all(
        format!(
            "POST /api/key HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .as_bytes(),
    )
    .expect("head");
    let sent = Arc::new(AtomicUsize::new(0));
    let mut w = s.try_clone().expect("clone the socket");
    let counter = sent.clone();
    let writer = std::thread::spawn(move || {
        let chunk = [b' '; 64 * 1024];
        let frame_head = format!("{:x}\r\n", chunk.len());
        while counter.load(Ordering::Relaxed) < OFFERED {
            let ok = w
                .write_all(frame_head.as_bytes())
                .and_then(|_| w.write_all(&chunk))
                .and_then(|_| w.write_all(b"\r\n"));
            if ok.is_err() {
                return; // the server closed: it stopped reading
            }
            counter.fetch_add(chunk.len(), Ordering::Relaxed);
        }
        let _ = w.write_all(b"0\r\n\r\n");
    });
    let r = read_response(&mut s).expect("an answer");
    let at_answer = sent.load(Ordering::Relaxed);
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "request.too-large");
    assert!(
        r.closes(),
        "the rest of the body is not read: Connection: close"
    );
    assert!(
        at_answer < OFFERED / 2,
        "the answer came after {at_answer} bytes of {OFFERED}"
    );
    let _ = s.shutdown(std::net::Shutdown::Both);
    writer.join().expect("writer");
    assert!(
        sent.load(Ordering::Relaxed) < OFFERED,
        "the server read the whole body"
    );
}

fn map_text(lines: usize, salt: &str) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "https://www.example{}.com/{salt}/{i}?utm_source=x&id={}\n",
                i % 50,
                i % 997
            )
        })
        .collect()
}

/// A malformed map request is refused at once, not after the map that is running; and
/// a map that had to wait for the worker says so (`queue.waited`, `queue.ms`).
#[test]
fn map_validation_does_not_wait_and_waiting_is_reported() {
    let addr = urlkey_serve::spawn(Config {
        threads: 1,
        ..Config::default()
    })
    .expect("server starts");
    // A lone small map did not wait.
    let r = post(
        addr,
        "/api/map",
        json!({"text": "https://a.example/\n"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["queue"]["waited"], json!(false));

    // Two long maps at once: one runs, the other waits for it and says so.
    let bodies: Vec<Vec<u8>> = ["a", "b"]
        .iter()
        .map(|salt| {
            json!({"text": map_text(60_000, salt), "page_size": 1})
                .to_string()
                .into_bytes()
        })
        .collect();
    let started = Instant::now();
    let maps: Vec<_> = bodies
        .into_iter()
        .map(|b| std::thread::spawn(move || (post(addr, "/api/map", &b), started.elapsed())))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Meanwhile, malformed JSON and a bad option to /api/map come back at once.
    let t = Instant::now();
    let bad = post(addr, "/api/map", b"{\"text\": \"x\", oops");
    let bad_at = started.elapsed();
    let bad_took = t.elapsed();
    assert_eq!(bad.error_code(), "request.invalid-json");
    let opt = post(
        addr,
        "/api/map",
        json!({"text": "x", "page_size": 0}).to_string().as_bytes(),
    );
    assert_eq!(opt.error_code(), "request.invalid-option");
    let results: Vec<(Resp, Duration)> = maps.into_iter().map(|h| h.join().expect("map")).collect();
    let mut waited = 0;
    for (r, _) in &results {
        assert_eq!(r.status, 200);
        let q = &r.json()["queue"];
        assert!(q["ms"].is_number(), "queue.ms: {q}");
        if q["waited"] == json!(true) {
            waited += 1;
        }
    }
    let last_map = results.iter().map(|(_, d)| *d).max().unwrap_or_default();
    eprintln!("maps done after {last_map:?}; the malformed request sent at {bad_at:?} took {bad_took:?}; {waited} map(s) waited");
    // Only meaningful when the maps were still running when the bad request was sent.
    if last_map > bad_at + Duration::from_millis(200) {
        assert!(
            bad_took < last_map - Duration::from_millis(300),
            "the malformed request took {bad_took:?} while the maps took {last_map:?}"
        );
        assert_eq!(waited, 1, "one of two concurrent maps waited and said so");
    }
    assert!(waited <= 1);
}

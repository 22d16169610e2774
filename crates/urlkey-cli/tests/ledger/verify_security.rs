//! Security review of `ledger verify`: the private-address refusal in every
//! spelling (decimal, octal, hex and short IPv4 forms, IPv4-mapped, -compatible and
//! translated IPv6, redirects, answers of the system resolver), no credentials, no proxy,
//! and a time cap on a body that never ends.
//!
//! No traffic leaves this machine. The refusals of non-loopback addresses are checked on
//! the guard itself (`check_url_host`, the resolver), which is what runs before any
//! connection; the end-to-end cases use loopback spellings only, against a server on
//! 127.0.0.1, so even a guard that failed would only reach that server (and the test
//! counts its connections).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{ledger, open};
use urlkey_ledger::verify::guard::{check_url_host, GuardedResolver, NetworkScope, Refused};

/// A small HTTP/1.0 server on 127.0.0.1: `/ok`, `/echo` (200), `/r?TARGET` (302 to
/// TARGET, as written), `/drip` (a head that never ends, one byte every 100 ms for 60 s).
struct Server {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (c, h) = (connections.clone(), heads.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                c.fetch_add(1, Ordering::SeqCst);
                let h = h.clone();
                std::thread::spawn(move || serve(stream, h));
            }
        });
        Server {
            addr,
            connections,
            heads,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

fn serve(mut s: TcpStream, heads: Arc<Mutex<Vec<String>>>) {
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    heads.lock().unwrap().push(head.clone());
    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let html = "Content-Type: text/html\r\n";
    let _ = if let Some(to) = target.strip_prefix("/r?") {
        write!(
            s,
            "HTTP/1.0 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n"
        )
    } else if target == "/drip" {
        let _ = write!(s, "HTTP/1.0 200 OK\r\n{html}\r\n<html><head>");
        for _ in 0..600 {
            std::thread::sleep(Duration::from_millis(100));
            if s.write_all(b" ").and_then(|_| s.flush()).is_err() {
                return; // the client gave up
            }
        }
        Ok(())
    } else {
        write!(
            s,
            "HTTP/1.0 200 OK\r\n{html}Content-Length: 27\r\n\r\n<html><head></head></html>\n"
        )
    };
}

/// A ledger with one observation per URL (`v-000`, `v-001`, ...).
fn ledger_for(urls: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");
    let mut csv = String::from("observation_id,observed_url\n");
    for (i, u) in urls.iter().enumerate() {
        csv.push_str(&format!("v-{i:03},\"{u}\"\n"));
    }
    let f = dir.path().join("local.csv");
    std::fs::write(&f, csv).unwrap();
    ledger(
        &db,
        &[
            "ingest",
            f.to_str().unwrap(),
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

/// (status, reason, detail, hops as (url, outcome, remote_addr)) of an observation's
/// latest verification.
type Hops = Vec<(String, String, Option<String>)>;
fn verification(db: &Path, id: &str) -> (String, String, Option<String>, Hops) {
    let c = open(db);
    let (vid, status, reason, detail): (i64, String, String, Option<String>) = c
        .query_row(
            "SELECT v.verification_id, v.verification_status, v.reason, v.detail \
             FROM verifications v JOIN observations o \
               ON o.normalization_policy_version = v.normalization_policy_version \
              AND o.normalized_key = v.normalized_key \
             WHERE o.observation_id = ?1 ORDER BY v.verification_id DESC LIMIT 1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap_or_else(|e| panic!("no verification for {id}: {e}"));
    let mut stmt = c
        .prepare(
            "SELECT url, outcome, remote_addr FROM verification_hops \
             WHERE verification_id = ?1 ORDER BY hop",
        )
        .unwrap();
    let hops = stmt
        .query_map([vid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    (status, reason, detail, hops)
}

/// Private, link-local, loopback, unspecified and embedded addresses in every spelling
/// the URL parser of verify (the `url` crate, WHATWG rules) accepts: all refused under
/// the default scope and under `--allow-loopback`, before any connection. Public
/// addresses in the same spellings pass (no over-blocking).
#[test]
fn every_spelling_of_a_private_address_is_refused_before_connecting() {
    let refused = [
        // 10.0.0.1
        "http://10.0.0.1/",
        "http://012.0.0.1/",
        "http://0xa.0.0.1/",
        "http://0x0A000001/",
        "http://167772161/",
        "http://10.1/",
        "http://10.0.1/",
        "http://012.0x0.0.01/",
        "http://10.0.0.1./",
        "http://%31%30.0.0.1/",
        "http://\u{ff11}\u{ff10}.0.0.1/",
        // 192.168.0.1 and 172.16.0.1
        "http://0300.0250.0.1/",
        "http://0xc0a80001/",
        "http://3232235521/",
        "http://192.168.1/",
        "http://0254.0x10.0.1/",
        // 169.254.169.254 (cloud metadata)
        "http://169.254.169.254/latest/meta-data/",
        "http://0xa9fea9fe/",
        "http://2852039166/",
        "http://0251.0376.0251.0376/",
        "http://169.254.43518/",
        "http://0xA9.0xFE.0xA9.0xFE/",
        // 100.64.0.1 (shared), 0.0.0.0, broadcast, multicast, reserved
        "http://100.64.0.1/",
        "http://0/",
        "http://0x0/",
        "http://0.0.0.0/",
        "http://4294967295/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        // IPv6: loopback, unspecified, link-local, unique local, site-local
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[fec0::1]/",
        // IPv4 inside IPv6: mapped (even of a public address), compatible, NAT64,
        // 6to4, translated, Teredo
        "http://[::ffff:10.0.0.1]/",
        "http://[::ffff:a00:1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[::10.0.0.1]/",
        "http://[::127.0.0.1]/",
        "http://[64:ff9b::10.0.0.1]/",
        "http://[64:ff9b:1::a00:1]/",
        "http://[2002:a00:1::]/",
        "http://[::ffff:0:10.0.0.1]/",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
        "https://[2001:db8::1]:443/",
    ];
    for u in refused {
        let url = reqwest::Url::parse(u).unwrap_or_else(|e| panic!("{u}: {e}"));
        for scope in [NetworkScope::Public, NetworkScope::PublicAndLoopback] {
            let lo_ok = scope == NetworkScope::PublicAndLoopback
                && url
                    .host_str()
                    .is_some_and(|h| h.starts_with("127.") || h == "[::1]");
            let r = check_url_host(&url, scope);
            if lo_ok {
                assert!(r.is_ok(), "{u} ({url}) under {scope:?}: {r:?}");
            } else {
                assert!(r.is_err(), "{u} ({url}) passed under {scope:?}");
            }
        }
    }
    // Loopback in every spelling, under the default scope.
    for u in [
        "http://127.0.0.1/",
        "http://0177.0.0.1/",
        "http://0x7f.1/",
        "http://2130706433/",
        "http://127.1/",
        "http://017700000001/",
        "http://0x7f000001/",
        "http://127.255.255.254/",
    ] {
        let url = reqwest::Url::parse(u).unwrap();
        assert!(
            check_url_host(&url, NetworkScope::Public).is_err(),
            "{u} ({url})"
        );
    }
    for u in [
        "http://8.8.8.8/",
        "http://134744072/",
        "http://0x8.0x8.0x8.0x8/",
        "http://010.010.010.010/",
        "http://[2606:4700::1111]/",
    ] {
        let url = reqwest::Url::parse(u).unwrap();
        assert!(
            check_url_host(&url, NetworkScope::Public).is_ok(),
            "{u} ({url}) is public"
        );
    }
}

/// Names go through the guarded resolver: what the system resolver answers is filtered.
/// Numeric names (which the C library turns into addresses with `inet_aton`, octal and
/// hex included, without any DNS query) and `localhost` resolve only to refused
/// addresses, so the lookup fails with `Refused` and the client has nothing to connect to.
#[test]
fn the_resolver_refuses_names_that_answer_private_addresses() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let r = GuardedResolver::new(NetworkScope::Public);
        for name in [
            "localhost",
            "0177.0.0.1",
            "0x7f.1",
            "2130706433",
            "10.1",
            "0300.0250.0.1",
            "0xa9fea9fe",
            "169.254.169.254",
            "::ffff:10.0.0.1",
            "::1",
            "fe80::1",
            "0",
        ] {
            match r.lookup(name).await {
                Ok(addrs) => panic!("{name} resolved to {addrs:?} and passed"),
                Err(e) => assert!(
                    e.downcast_ref::<Refused>().is_some(),
                    "{name}: refused as a private address, not {e}"
                ),
            }
        }
        // With --allow-loopback, loopback answers pass, and only those.
        let r = GuardedResolver::new(NetworkScope::PublicAndLoopback);
        for name in ["0177.0.0.1", "2130706433", "localhost"] {
            let addrs = r.lookup(name).await.unwrap();
            assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{name}");
        }
        for name in ["10.1", "::ffff:127.0.0.1", "0xa9fea9fe"] {
            assert!(r.lookup(name).await.is_err(), "{name}");
        }
    });
}

/// End to end, loopback spellings only: without `--allow-loopback` every observed URL is
/// refused and the local server sees no connection at all.
#[test]
fn loopback_in_other_spellings_is_refused_end_to_end() {
    let s = Server::start();
    let p = s.addr.port();
    let urls: Vec<String> = [
        format!("http://0177.0.0.1:{p}/ok"),
        format!("http://0x7f.1:{p}/ok"),
        format!("http://2130706433:{p}/ok"),
        format!("http://127.1:{p}/ok"),
        format!("http://127.0.0.1.:{p}/ok"),
        format!("http://[::ffff:127.0.0.1]:{p}/ok"),
        format!("http://[::ffff:7f00:1]:{p}/ok"),
        format!("http://LOCALHOST:{p}/ok"),
        format!("http://user:pw@127.0.0.1:{p}/ok"),
    ]
    .into();
    let (_dir, db) = ledger_for(&urls);
    ledger(&db, &["verify", "--timeout", "2", "--per-host-delay", "0"]).ok();
    for (i, u) in urls.iter().enumerate() {
        let (status, reason, _, hops) = verification(&db, &format!("v-{i:03}"));
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("unresolved", "refused-private-address"),
            "{u}"
        );
        assert_eq!(hops.len(), 1, "{u}");
        assert_eq!(hops[0].1, "refused", "{u}");
        assert_eq!(hops[0].2, None, "{u}: no connection");
    }
    assert_eq!(s.connections(), 0, "nothing reached the server");
}

/// Redirects are checked hop by hop with the same guard: under `--allow-loopback`, a
/// redirect to IPv4-mapped loopback (never allowed below `--allow-private-network`) is
/// refused before connecting, a redirect to `file:` is never followed, and userinfo in a
/// Location is removed, not sent. Loopback in another spelling is followed (the scope
/// allows loopback), which shows the spelling is recognised as loopback, not as a name.
#[test]
fn redirect_targets_are_guarded_hop_by_hop() {
    let s = Server::start();
    let p = s.addr.port();
    let urls: Vec<String> = vec![
        s.url(&format!("/r?http://[::ffff:127.0.0.1]:{p}/ok")),
        s.url("/r?file:///etc/passwd"),
        s.url(&format!("/r?http://user:secret@127.0.0.1:{p}/echo")),
        s.url(&format!("/r?http://0x7f.0.0.1:{p}/ok")),
        s.url(&format!("/r?http://[::ffff:7f00:1]:{p}/ok")),
    ];
    let (_dir, db) = ledger_for(&urls);
    ledger(
        &db,
        &[
            "verify",
            "--allow-loopback",
            "--timeout",
            "2",
            "--per-host-delay",
            "0",
        ],
    )
    .ok();
    for i in [0, 4] {
        let (status, reason, _, hops) = verification(&db, &format!("v-{i:03}"));
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("unresolved", "refused-private-address")
        );
        assert_eq!(hops.len(), 2);
        assert_eq!(
            (hops[1].1.as_str(), hops[1].2.as_deref()),
            ("refused", None)
        );
    }
    let (status, reason, _, hops) = verification(&db, "v-001");
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("unresolved", "unsupported-scheme")
    );
    assert_eq!(hops[1].0, "file:///etc/passwd");
    assert_eq!(hops[1].1, "refused");

    let (status, _, _, hops) = verification(&db, "v-002");
    assert_eq!(status, "redirected");
    assert_eq!(hops[1].0, s.url("/echo"), "userinfo removed from the hop");
    let heads = s.heads.lock().unwrap().clone();
    let echo: Vec<&String> = heads
        .iter()
        .filter(|h| h.starts_with("GET /echo"))
        .collect();
    assert_eq!(echo.len(), 1);
    let lower = echo[0].to_ascii_lowercase();
    assert!(!lower.contains("authorization"), "{lower}");
    assert!(!lower.contains("secret"), "{lower}");
    assert!(!lower.contains("cookie"), "{lower}");

    let (status, _, _, hops) = verification(&db, "v-003");
    assert_eq!(status, "redirected");
    assert!(hops[1]
        .2
        .as_deref()
        .is_some_and(|a| a.starts_with("127.0.0.1:")));
    // Five first hops and the two followed redirects reached the server; nothing else.
    assert_eq!(s.connections(), 7);
}

/// A body that never ends (one byte every 100 ms for a minute, inside an unfinished
/// `<head>`) is cut off by the per-request timeout: verify returns in seconds, not a
/// minute, and records the truncated read. Also: proxy variables in the environment are
/// ignored (the client is built with no proxy), so the request went straight to the
/// server and the "proxy" saw nothing.
#[test]
fn a_never_ending_body_is_cut_by_the_timeout_and_proxies_are_ignored() {
    let s = Server::start();
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_addr = proxy.local_addr().unwrap();
    proxy.set_nonblocking(true).unwrap();
    for var in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        std::env::set_var(var, format!("http://{proxy_addr}"));
    }
    let (_dir, db) = ledger_for(&[s.url("/drip")]);
    let t = Instant::now();
    ledger(
        &db,
        &[
            "verify",
            "--allow-loopback",
            "--timeout",
            "1",
            "--per-host-delay",
            "0",
        ],
    )
    .ok();
    let took = t.elapsed();
    for var in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        std::env::remove_var(var);
    }
    // Liveness, not speed: the body would last 60 s; 30 s leaves room for any machine.
    assert!(took < Duration::from_secs(30), "verify took {took:?}");
    let (_, _, detail, hops) = verification(&db, "v-000");
    assert_eq!(hops.len(), 1);
    assert!(
        hops[0]
            .2
            .as_deref()
            .is_some_and(|a| a.starts_with("127.0.0.1:")),
        "went straight to the server: {hops:?}"
    );
    let c = open(&db);
    let (read, hop_detail): (i64, Option<String>) = c
        .query_row(
            "SELECT v.body_bytes_read, h.detail FROM verifications v \
             JOIN verification_hops h USING (verification_id)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(read < 100, "{read} bytes read in a second of drip");
    assert!(
        hop_detail
            .as_deref()
            .is_some_and(|d| d.contains("timed out"))
            || detail.as_deref().is_some_and(|d| d.contains("time")),
        "{hop_detail:?} {detail:?}"
    );
    assert!(
        proxy.accept().is_err(),
        "the proxy from the environment was used"
    );
}

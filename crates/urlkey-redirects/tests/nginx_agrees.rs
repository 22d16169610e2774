//! What `check --server nginx` predicts is what nginx does: each map here is written as a
//! `map $request_uri` block and given to the real nginx (`nginx -t`), and the check's
//! duplicate-source errors and map_hash_bucket_size warnings must be exactly nginx's
//! refusals. nginx comes from Debian's `nginx-light` (scripts/install-test-packages.sh installs
//! it): without it this test fails, it never skips.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use urlkey_redirects::check::{check, FindingKind, Severity};
use urlkey_redirects::server::split;
use urlkey_redirects::{RedirectMap, Server};

fn nginx() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("nginx is not installed: run scripts/install-test-packages.sh (Debian nginx-light)")
}

/// A configuration holding the map's sources as `map` keys (their `$request_uri` form,
/// written as the MAP has them: these maps need no escaping), with `extra` in http {},
/// answering on `port`.
fn conf(dir: &Path, map: &RedirectMap, extra: &str, port: u16) -> PathBuf {
    let mut lines = String::new();
    for e in &map.entries {
        let s = split(&e.source).expect("a path or URL");
        let key = match s.query {
            Some(q) => format!("{}?{q}", s.path),
            None => s.path.to_string(),
        };
        lines.push_str(&format!("    \"{key}\" \"{}\";\n", e.target));
    }
    let d = dir.display();
    let text = format!(
        "daemon off; pid {d}/nginx.pid; error_log stderr; worker_processes 1;
events {{}}
http {{
  access_log off; {extra}
  client_body_temp_path {d}/t1; proxy_temp_path {d}/t2; fastcgi_temp_path {d}/t3;
  uwsgi_temp_path {d}/t4; scgi_temp_path {d}/t5;
  map $request_uri $urlkey_redirect {{
{lines}  }}
  server {{
    listen 127.0.0.1:{port};
    if ($urlkey_redirect) {{ return 301 $urlkey_redirect; }}
    location / {{ return 404; }}
  }}
}}
"
    );
    let file = dir.join("nginx.conf");
    std::fs::write(&file, text).unwrap();
    file
}

/// `nginx -t` on the map's configuration: its stderr when it refuses.
fn nginx_refuses(dir: &Path, map: &RedirectMap, extra: &str) -> Option<String> {
    let file = conf(dir, map, extra, 18391);
    let out = Command::new(nginx())
        .args(["-t", "-q", "-e", "stderr", "-p"])
        .arg(dir)
        .arg("-c")
        .arg(&file)
        .output()
        .expect("nginx runs");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

/// nginx serving the map on a free port of 127.0.0.1, stopped when dropped.
struct Serving {
    child: Child,
    port: u16,
    dir: PathBuf,
    conf: PathBuf,
}

impl Drop for Serving {
    /// `nginx -s stop`: the master stops its workers. A SIGKILL to the master alone
    /// would leave them running, holding the port.
    fn drop(&mut self) {
        let _ = Command::new(nginx())
            .args(["-q", "-e", "stderr", "-p"])
            .arg(&self.dir)
            .arg("-c")
            .arg(&self.conf)
            .args(["-s", "stop"])
            .status();
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path, map: &RedirectMap) -> Serving {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let file = conf(dir, map, "", port);
    let child = Command::new(nginx())
        .args(["-e", "stderr", "-p"])
        .arg(dir)
        .arg("-c")
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    let mut serving = Serving {
        child,
        port,
        dir: dir.to_path_buf(),
        conf: file,
    };
    let t0 = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = serving.child.try_wait() {
            panic!("nginx exited: {status}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "nginx: no answer on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    serving
}

/// The status and `Location` nginx answers for `path`.
fn get(port: u16, path: &str) -> (u16, Option<String>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: old.example\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).expect("a response");
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status");
    let location = text
        .lines()
        .find_map(|l| l.strip_prefix("Location: "))
        .map(|l| l.trim().to_string());
    (status, location)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("urlkey-nginx-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn duplicate_sources_are_what_nginx_refuses() {
    let dir = temp_dir("dup");
    let cases = [
        // One key for nginx: another case, with the same or another target.
        ("/About,/team\n/about,/team\n", true),
        ("/About,/team\n/ABOUT,/other\n", true),
        ("https://a.com/x,/n\nhttps://a.com/X,/n\n", true),
        ("/p?Id=1,/n\n/p?id=1,/m\n", true),
        // Two keys: a trailing slash, the order of a query, another query.
        ("/a/,/x\n/a,/y\n", false),
        ("/p?a=1&b=2,/x\n/p?b=2&a=1,/y\n", false),
        ("/p?id=1,/x\n/p?id=2,/y\n/p,/z\n", false),
    ];
    for (rows, dup) in cases {
        let map = RedirectMap::from_csv("m.csv", &format!("source,target\n{rows}")).unwrap();
        let report = check(&map, Server::Nginx);
        let predicted = report
            .of(FindingKind::DuplicateSource)
            .chain(report.of(FindingKind::Conflict))
            .count()
            > 0;
        let refused = nginx_refuses(&dir, &map, "");
        assert_eq!(predicted, dup, "check on {rows:?}: {:?}", report.findings);
        assert_eq!(
            refused
                .as_deref()
                .is_some_and(|e| e.contains("conflicting parameter")),
            dup,
            "nginx on {rows:?}: {refused:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn long_keys_need_the_bucket_size_check_names() {
    let dir = temp_dir("bucket");
    for len in [45usize, 46, 47, 120, 199, 600] {
        let source = format!("/{}", "a".repeat(len));
        let map = RedirectMap::from_csv("m.csv", &format!("source,target\n{source},/x\n")).unwrap();
        let report = check(&map, Server::Nginx);
        let warning: Vec<_> = report.of(FindingKind::Limit).collect();
        let refused = nginx_refuses(&dir, &map, "");
        // A key of 46 bytes or less (the 45 letters and the slash) fits the default bucket.
        let key_bytes = len + 1;
        assert_eq!(
            warning.is_empty(),
            key_bytes <= 46,
            "{key_bytes}: {warning:?}"
        );
        assert_eq!(
            refused
                .as_deref()
                .is_some_and(|e| e.contains("could not build map_hash")),
            !warning.is_empty(),
            "nginx, a {key_bytes}-byte key: {refused:?}"
        );
        if let Some(w) = warning.first() {
            assert_eq!(w.severity, Severity::Warning);
            assert!(report.passes());
            let set = w
                .detail
                .split("map_hash_bucket_size ")
                .nth(1)
                .and_then(|t| t.split(';').next())
                .and_then(|n| n.parse::<u64>().ok())
                .expect("the finding names the value");
            let directive = format!("map_hash_bucket_size {set};");
            assert_eq!(nginx_refuses(&dir, &map, &directive), None, "{directive}");
            // And it is the smallest multiple of 64 that works.
            let smaller = format!("map_hash_bucket_size {};", set - 64);
            assert!(nginx_refuses(&dir, &map, &smaller).is_some(), "{smaller}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A request path, and the status and `Location` path nginx answers it with.
type Answer = (&'static str, u16, Option<&'static str>);

/// The loops check predicts for nginx's case-insensitive keys are nginx's: each request is
/// answered with a redirect back into the circle.
#[test]
fn loops_check_predicts_are_what_nginx_does() {
    let dir = temp_dir("loop");
    // (rows, the finding check gives for nginx, requests and where nginx sends them)
    let cases: [(&str, Option<&str>, &[Answer]); 3] = [
        (
            "/About,/about\n",
            Some("self"),
            &[
                ("/about", 301, Some("/about")),
                ("/ABOUT", 301, Some("/about")),
            ],
        ),
        (
            "/A,/b\n/B,/a\n",
            Some("loop"),
            &[("/a", 301, Some("/b")), ("/b", 301, Some("/a"))],
        ),
        // A trailing slash is another key: one hop, then no redirect.
        (
            "/a/,/a\n",
            None,
            &[("/a/", 301, Some("/a")), ("/a", 404, None)],
        ),
    ];
    for (rows, predicted, requests) in cases {
        let map = RedirectMap::from_csv("m.csv", &format!("source,target\n{rows}")).unwrap();
        let report = check(&map, Server::Nginx);
        let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, predicted.into_iter().collect::<Vec<_>>(), "{rows:?}");
        // Apache compares case: none of these is a loop there.
        assert!(check(&map, Server::Apache).passes(), "{rows:?}");
        let nginx = serve(&dir, &map);
        for &(path, status, location) in requests {
            let (got_status, got_location) = get(nginx.port, path);
            // nginx may make a relative Location absolute (absolute_redirect): compare paths.
            let path_of = |l: &str| match l.split_once("://") {
                Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]).to_string(),
                None => l.to_string(),
            };
            assert_eq!(
                (got_status, got_location.as_deref().map(path_of)),
                (status, location.map(str::to_string)),
                "nginx on {path} with {rows:?}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

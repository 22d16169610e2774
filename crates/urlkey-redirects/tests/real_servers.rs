//! The compiled maps loaded into a real nginx and a real Apache httpd (Debian's
//! `nginx-light` and `apache2`, installed by `scripts/install-test-packages.sh`), each started
//! unprivileged-style on a free 127.0.0.1 port with everything in a temporary directory.
//! Every source is requested as a browser sends it and must answer its row's status
//! with a Location that is its target; the target must not redirect again (one hop); an
//! unmapped path must not redirect. And nginx's case rule, measured: two sources that
//! differ only in ASCII case stop nginx from starting, which is why compile refuses them.
//!
//! A missing server binary fails these tests (never skips them): run
//! `scripts/install-test-packages.sh`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use urlkey::WebUrl;
use urlkey_redirects::compile::{self, Options, Refusal};
use urlkey_redirects::{live, MapEntry, RedirectMap, Server};

/// A server binary, or a failure that says how to install it.
fn binary(name: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> = vec!["/usr/sbin".into(), "/usr/local/sbin".into()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{name} is not installed: run scripts/install-test-packages.sh (it installs Debian's nginx-light and apache2); these tests never skip"
            )
        })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// A running server, stopped when dropped.
struct Running {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    /// SIGTERM to the master, which stops its workers (nginx's fast shutdown, Apache's
    /// stop); a SIGKILL to the master alone would leave them running, holding the port.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
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

/// A temporary directory the server's workers (a `www-data` or `nobody` when the tests
/// run as root) can read.
fn server_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn write_readable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

/// Starts `cmd` and waits until its port answers, or gives its log when it exits first.
fn start(
    mut cmd: Command,
    port: u16,
    dir: tempfile::TempDir,
    log: &Path,
) -> Result<Running, String> {
    let out = std::fs::File::create(dir.path().join("stdout.log")).unwrap();
    let err = out.try_clone().unwrap();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let mut running = Running {
        child,
        port,
        _dir: dir,
    };
    let t0 = Instant::now();
    let logs = |dir: &Path| {
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        format!("{}{}", read(log), read(&dir.join("stdout.log")))
    };
    loop {
        if let Ok(Some(status)) = running.child.try_wait() {
            return Err(format!("exited ({status}): {}", logs(running._dir.path())));
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(running);
        }
        if t0.elapsed() > Duration::from_secs(10) {
            return Err(format!(
                "no answer on port {port} in 10 s: {}",
                logs(running._dir.path())
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// nginx with the compiled map included in `http {}` and its lines in the server block.
fn nginx(map_conf: &str, setup: &[String]) -> Result<Running, String> {
    let dir = server_dir();
    let d = dir.path().display().to_string();
    let port = free_port();
    write_readable(&dir.path().join("redirects.map.conf"), map_conf);
    let longest = map_conf.lines().map(str::len).max().unwrap_or(0);
    let conf = format!(
        "daemon off;\nmaster_process on;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
         map_hash_bucket_size {bucket};\n  include {d}/redirects.map.conf;\n  \
         server {{\n    listen 127.0.0.1:{port};\n    {lines}\n    location / {{ return 404; }}\n  }}\n}}\n",
        bucket = compile::nginx_bucket_size_for(longest),
        lines = setup.join("\n    "),
    );
    write_readable(&dir.path().join("nginx.conf"), &conf);
    let mut cmd = Command::new(binary("nginx"));
    cmd.arg("-e")
        .arg(dir.path().join("error.log"))
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(dir.path().join("nginx.conf"));
    let log = dir.path().join("error.log");
    start(cmd, port, dir, &log)
}

/// Apache with the compiled map file and the RewriteMap lines compile gave for it.
fn apache(map: &RedirectMap) -> Result<Running, String> {
    apache_with(map, |l| l.to_string())
}

/// Apache with compile's lines, each passed through `edit` first.
fn apache_with(map: &RedirectMap, edit: impl Fn(&str) -> String) -> Result<Running, String> {
    let dir = server_dir();
    let d = dir.path().display().to_string();
    let port = free_port();
    let file = format!("{d}/redirects.map.txt");
    let opts = Options {
        file: Some(file.clone()),
    };
    let c = compile::compile(map, Server::Apache, &opts).map_err(|r| format!("{r:?}"))?;
    write_readable(Path::new(&file), &c.text);
    std::fs::create_dir(dir.path().join("www")).unwrap();
    let modules = "/usr/lib/apache2/modules";
    let user = if is_root() {
        "User www-data\nGroup www-data\n"
    } else {
        ""
    };
    let conf = format!(
        "ServerRoot {d}\nDefaultRuntimeDir {d}\nPidFile {d}/httpd.pid\nErrorLog {d}/error.log\nLogLevel warn\n\
         LoadModule mpm_event_module {modules}/mod_mpm_event.so\n\
         LoadModule authz_core_module {modules}/mod_authz_core.so\n\
         LoadModule rewrite_module {modules}/mod_rewrite.so\n{user}\
         Listen 127.0.0.1:{port}\nServerName 127.0.0.1\nDocumentRoot {d}/www\n{lines}\n",
        lines = c.setup.iter().map(|l| edit(l)).collect::<Vec<_>>().join("\n")
    );
    write_readable(&dir.path().join("httpd.conf"), &conf);
    let mut cmd = Command::new(binary("apache2"));
    cmd.arg("-f")
        .arg(dir.path().join("httpd.conf"))
        .arg("-DFOREGROUND");
    let log = dir.path().join("error.log");
    start(cmd, port, dir, &log)
}

/// One request as a browser sends it (no following): the status and the Location.
fn get(port: u16, target: &str) -> (u16, Option<String>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("a response");
    let head = String::from_utf8_lossy(&buf);
    let head = head.split("\r\n\r\n").next().unwrap_or("");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line for {target}: {head}"));
    let location = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("Location: ")
                .or_else(|| l.strip_prefix("location: "))
        })
        .map(str::to_string);
    (status, location)
}

/// What a browser requests for a source written in the MAP: its path and query.
fn request_target(source: &str) -> String {
    let u = WebUrl::parse(source, Some("http://old.example")).unwrap();
    let href = u.href();
    let origin = u.origin();
    href[origin.len()..].split('#').next().unwrap().to_string()
}

/// The URL a Location (or a MAP's target) resolves to, from `base`.
fn resolved(url: &str, base: &str) -> String {
    WebUrl::parse(url, Some(base)).unwrap().href().to_string()
}

/// The sources and targets: spaces, quotes, `;`, `{`, `$`, `%`, Unicode, a long path,
/// queries, mixed case; statuses cycling through 301, 302, 303, 307, 308.
fn hostile_map() -> RedirectMap {
    let sources = [
        "/plain".to_string(),
        "/with space/and  two".into(),
        "/quote\"double'single".into(),
        "/semi;colon{brace}".into(),
        "/dollar$1/${x}".into(),
        "/percent%25/100%25done".into(),
        "/caf\u{e9}/\u{65e5}\u{672c}/\u{1f600}".into(),
        "/Mixed/CASE".into(),
        format!("/long/{}", "segment-".repeat(120)),
        "/search?q=a b&id=7".into(),
        "/q?x=$1&y=\"{;}\"&z=%25&w=100%".into(),
        "https://old.example/full/url?from=crawl".into(),
    ];
    let targets = [
        "/new/plain",
        "/new page/\u{e9}",
        "https://new.example/q?a=1&b=\"x\"#frag",
        "/new/$1/${urlkey_dollar}",
        "/new;{x}",
        "/new/100%25",
    ];
    let statuses = [301, 302, 303, 307, 308];
    let mut w = csv_writer();
    for (i, s) in sources.iter().enumerate() {
        let t = targets[i % targets.len()];
        let st = statuses[i % statuses.len()].to_string();
        w.write_record([s.as_str(), t, &st]).unwrap();
    }
    let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
    let map = RedirectMap::from_csv("hostile.csv", &text).unwrap();
    assert_eq!(map.entries.len(), sources.len());
    map
}

fn csv_writer() -> csv::Writer<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["source", "target", "status"]).unwrap();
    w
}

/// Every row of `map` redirects in one hop to its target with its status; an unmapped
/// path and a mapped path with a query added do not redirect.
fn assert_redirects(name: &str, running: &Running, map: &RedirectMap) {
    let base = format!("http://127.0.0.1:{}/", running.port);
    for e in &map.entries {
        let req = request_target(&e.source);
        let (status, location) = get(running.port, &req);
        assert_eq!(status, e.status, "{name}: {req} (line {})", e.line);
        let location = location.unwrap_or_else(|| panic!("{name}: {req}: no Location"));
        let at = resolved(&req, &base);
        assert_eq!(
            resolved(&location, &at),
            resolved(&e.target, &at),
            "{name}: {req} -> {location}"
        );
        // One hop: a target on this server does not redirect again.
        let t = resolved(&e.target, &at);
        if let Some(path) = t.strip_prefix(base.trim_end_matches('/')) {
            let (again, loc) = get(running.port, path);
            assert!(
                !(300..400).contains(&again),
                "{name}: {path} redirects again: {again} {loc:?}"
            );
        }
    }
    for unmapped in ["/not/mapped", "/plain/", "/plain?utm_source=x", "/"] {
        let (status, loc) = get(running.port, unmapped);
        assert!(
            !(300..400).contains(&status),
            "{name}: {unmapped}: {status} {loc:?}"
        );
    }
}

/// `urlkey redirects test`'s engine, run against the same server: every row passes, and
/// rows the server does not answer as written fail with what happened.
fn assert_live_test_agrees(name: &str, running: &Running, map: &RedirectMap) {
    let base = live::base_url(&format!("http://127.0.0.1:{}", running.port)).expect("base");
    let mut opts = live::LiveOptions::new(base);
    opts.scope = live::NetworkScope::PublicAndLoopback;
    let tester = live::Tester::new(&opts).expect("tester");
    for e in &map.entries {
        let r = tester.test(e);
        assert_eq!(
            r.result,
            live::LiveResult::Pass,
            "{name}: line {} {} -> {}: {:?}",
            e.line,
            e.source,
            e.target,
            r.detail
        );
    }
    let first = &map.entries[0];
    let wrong = |source: &str, target: &str, status: u16| MapEntry {
        line: 0,
        source: source.into(),
        target: target.into(),
        status,
    };
    let expected_other = if first.status == 301 { 302 } else { 301 };
    let cases = [
        (wrong("/not/mapped", "/x", 301), live::LiveResult::NotFound),
        (
            wrong(&first.source, "/somewhere/else", first.status),
            live::LiveResult::WrongTarget,
        ),
        (
            wrong(&first.source, &first.target, expected_other),
            live::LiveResult::WrongStatus,
        ),
    ];
    for (entry, want) in cases {
        let r = tester.test(&entry);
        assert_eq!(r.result, want, "{name}: {entry:?}: {:?}", r.detail);
    }
}

#[test]
fn nginx_runs_the_compiled_map() {
    let map = hostile_map();
    let c = compile::compile(&map, Server::Nginx, &Options::default()).expect("compiles");
    let running = nginx(&c.text, &c.setup).unwrap_or_else(|e| panic!("nginx did not start: {e}"));
    assert_redirects("nginx", &running, &map);
    assert_live_test_agrees("nginx", &running, &map);
    // nginx matches keys without ASCII case: the other spelling redirects too.
    let (status, _) = get(running.port, "/mixed/case");
    assert_eq!(status, 303, "nginx: /mixed/case");
}

#[test]
fn apache_runs_the_compiled_map() {
    let map = hostile_map();
    let running = apache(&map).unwrap_or_else(|e| panic!("apache did not start: {e}"));
    assert_redirects("apache", &running, &map);
    assert_live_test_agrees("apache", &running, &map);
    // Apache's text map compares case: the other spelling does not redirect.
    let (status, _) = get(running.port, "/mixed/case");
    assert_eq!(status, 404, "apache: /mixed/case");
}

/// The measured fact behind `duplicate-key` (and check's nginx `duplicate-source`): two
/// sources that differ only in ASCII case stop nginx (`conflicting parameter`), whether
/// or not their targets differ, so compile refuses such a map; Apache, which compares case,
/// serves each its own target.
#[test]
fn sources_differing_in_case_stop_nginx_and_compile_refuses_them() {
    for (a, b) in [("/a", "/b"), ("/a", "/a")] {
        let text = format!("source,target\n/About,{a}\n/about,{b}\n");
        let map = RedirectMap::from_csv("case.csv", &text).unwrap();
        match compile::compile(&map, Server::Nginx, &Options::default()) {
            Err(Refusal::Check(r)) => assert!(!r.passes()),
            Err(Refusal::Rows(p)) => {
                assert_eq!(p[0].kind.as_str(), "duplicate-key");
                assert_eq!(p[0].lines, [2, 3]);
            }
            Ok(_) => panic!("compile wrote a map nginx refuses"),
        }
        // Written anyway (render does not refuse), nginx does not start.
        let rules = vec![rule(&map.entries[0]), rule(&map.entries[1])];
        let c = compile::render(Server::Nginx, &rules, &Options::default());
        match nginx(&c.text, &c.setup) {
            Ok(_) => panic!("nginx started with /About and /about as two keys"),
            Err(log) => assert!(log.contains("conflicting parameter \"/about\""), "{log}"),
        }
        let running = apache(&map).unwrap_or_else(|e| panic!("apache did not start: {e}"));
        for (path, target) in [("/About", a), ("/about", b)] {
            let (status, loc) = get(running.port, path);
            assert_eq!(status, 301, "apache {path}");
            assert!(loc.unwrap().ends_with(target), "apache {path}");
        }
    }
}

/// Why the Apache rules carry `UnsafeAllow3F`: without it, Apache 2.4.60+ refuses a target
/// whose query came through a back-reference (403, AH10508).
#[test]
fn apache_needs_unsafe_allow_3f_for_targets_with_a_query() {
    let map = RedirectMap::from_csv("q.csv", "source,target\n/a,/b?x=1\n/c,/d\n").unwrap();
    let without = apache_with(&map, |l| l.replace(",UnsafeAllow3F", "")).unwrap();
    assert_eq!(get(without.port, "/a").0, 403);
    assert_eq!(get(without.port, "/c").0, 301);
    let with = apache(&map).unwrap();
    let (status, loc) = get(with.port, "/a");
    assert_eq!(status, 301);
    assert!(loc.unwrap().ends_with("/b?x=1"));
}

/// A path with a `%` that starts no `%XX` escape gets 400 Bad Request from both servers
/// before any map is read (measured here): compile refuses such a source for them.
#[test]
fn a_bad_percent_escape_in_a_path_gets_400_so_compile_refuses_it() {
    let map = RedirectMap::from_csv("bad.csv", "source,target\n/100%/x,/y\n/ok,/z\n").unwrap();
    for server in [Server::Nginx, Server::Apache] {
        match compile::compile(&map, server, &Options::default()) {
            Err(Refusal::Rows(p)) => {
                assert_eq!(
                    (p[0].kind.as_str(), p[0].lines.as_slice()),
                    ("source-bad-escape", &[2][..])
                )
            }
            other => panic!("{server}: {other:?}"),
        }
    }
    let ok = RedirectMap::from_csv("ok.csv", "source,target\n/ok,/z\n").unwrap();
    let c = compile::compile(&ok, Server::Nginx, &Options::default()).unwrap();
    let n = nginx(&c.text, &c.setup).unwrap_or_else(|e| panic!("nginx: {e}"));
    assert_eq!(get(n.port, "/100%/x").0, 400, "nginx");
    let a = apache(&ok).unwrap_or_else(|e| panic!("apache: {e}"));
    assert_eq!(get(a.port, "/100%/x").0, 400, "apache");
}

fn rule(e: &urlkey_redirects::MapEntry) -> compile::Rule {
    compile::Rule {
        line: e.line,
        source: compile::url::source(&e.source).unwrap(),
        target: compile::url::target(&e.target).unwrap(),
        status: e.status,
    }
}

/// A server that is not installed fails the test with what to run, never skips it.
#[test]
#[should_panic(expected = "is not installed: run scripts/install-test-packages.sh")]
fn a_missing_server_fails_with_the_script_to_run() {
    binary("urlkey-no-such-server");
}

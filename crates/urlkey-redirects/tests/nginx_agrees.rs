//! What `check --server nginx` predicts is what nginx does: each map here is written as a
//! `map $request_uri` block and given to the real nginx (`nginx -t`), and the check's
//! duplicate-source errors and map_hash_bucket_size warnings must be exactly nginx's
//! refusals. nginx comes from Debian's `nginx-light` (scripts/install-servers.sh installs
//! it): without it this test fails, it never skips.

use std::path::{Path, PathBuf};
use std::process::Command;

use urlkey_redirects::check::{check, FindingKind, Severity};
use urlkey_redirects::server::split;
use urlkey_redirects::{RedirectMap, Server};

fn nginx() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("nginx is not installed: run scripts/install-servers.sh (Debian nginx-light)")
}

/// `nginx -t` on a configuration holding the map's sources as `map` keys (their
/// `$request_uri` form), with `extra` in http {}: its stderr when it refuses.
fn nginx_refuses(dir: &Path, map: &RedirectMap, extra: &str) -> Option<String> {
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
    let conf = format!(
        "daemon off; pid {d}/nginx.pid; error_log stderr; worker_processes 1;
events {{}}
http {{
  access_log off; {extra}
  client_body_temp_path {d}/t1; proxy_temp_path {d}/t2; fastcgi_temp_path {d}/t3;
  uwsgi_temp_path {d}/t4; scgi_temp_path {d}/t5;
  map $request_uri $urlkey_redirect {{
{lines}  }}
  server {{ listen 127.0.0.1:18391; if ($urlkey_redirect) {{ return 301 $urlkey_redirect; }} }}
}}
"
    );
    let file = dir.join("nginx.conf");
    std::fs::write(&file, conf).unwrap();
    let out = Command::new(nginx())
        .args(["-t", "-q", "-e", "stderr", "-p"])
        .arg(dir)
        .arg("-c")
        .arg(&file)
        .output()
        .expect("nginx runs");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
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

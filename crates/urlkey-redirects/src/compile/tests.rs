//! Every format written, read back and compared with the MAP, hostile cells included;
//! and the refusals, one per kind.

use super::*;

/// Percent-decoding, for comparing a written URL with the MAP's spelling without the
/// encoder under test.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A MAP's CSV from rows (source, target, status).
fn csv_of(rows: &[(String, String, u16)]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["source", "target", "status"]).unwrap();
    for (s, t, st) in rows {
        w.write_record([s.as_str(), t.as_str(), &st.to_string()])
            .unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

/// Paths whose percent-decoding is their spelling (no `\`, no dot segments, no `#`).
fn hostile_paths() -> Vec<String> {
    let long = format!("/long/{}", "segment-".repeat(400));
    vec![
        "/plain".into(),
        "/with space/and  two".into(),
        "/quote\"double".into(),
        "/quote'single".into(),
        "/semi;colon;".into(),
        "/brace{open}close".into(),
        "/dollar$1/${x}".into(),
        "/percent%25/100%25done".into(),
        "/caf\u{e9}/\u{65e5}\u{672c}/\u{1f600}".into(),
        "/angle<b>&amp".into(),
        "/pipe|caret^backtick`".into(),
        "/Mixed/CASE".into(),
        long,
    ]
}

fn targets() -> Vec<String> {
    vec![
        "/new page/\u{e9}".into(),
        "https://new.example/q?a=1&b=\"x\"#frag ment".into(),
        "/t$1${urlkey_dollar}/back?q=\\$".into(),
        "/x;{y}<z>&'".into(),
    ]
}

/// Rows for a server: the hostile paths (with a query for those that match one), each
/// to a hostile target, statuses cycling through the server's.
fn rows_for(server: Server) -> Vec<(String, String, u16)> {
    let statuses: &[u16] = match server {
        Server::Iis => &[301, 302, 303, 307],
        _ => &[301, 302, 303, 307, 308],
    };
    let host = if server == Server::Cloudflare {
        "https://old.example"
    } else {
        ""
    };
    let query = !matches!(server, Server::Cloudflare | Server::Vercel);
    let mut rows = Vec::new();
    for (i, p) in hostile_paths().into_iter().enumerate() {
        // Vercel takes sources of 2,048 characters at most (check's `vercel.source`).
        if server == Server::Vercel && p.chars().count() > 2048 {
            continue;
        }
        let t = targets()[i % targets().len()].clone();
        // The row with a query first: on Netlify the rule without conditions matches
        // every query, and the first match wins (check's duplicate-source otherwise).
        if query {
            let q = format!("{host}{p}?id=7&q=a b\"'{{$;%25\u{e9}");
            rows.push((q, format!("/from-query/{i}"), 301));
        }
        rows.push((format!("{host}{p}"), t, statuses[i % statuses.len()]));
    }
    rows
}

/// The source as `server`'s file must hold it, decoded: from the MAP's spelling.
fn expected_source(server: Server, written: &str) -> String {
    let w = written
        .strip_prefix("https://old.example")
        .unwrap_or(written);
    match server {
        Server::Cloudflare => format!("old.example{}", decode(w)),
        Server::Netlify => match w.split_once('?') {
            Some((p, q)) => {
                let mut c: Vec<&str> = q.split('&').collect();
                c.sort_unstable();
                let c: Vec<String> = c.iter().map(|x| decode(x)).collect();
                format!("{} {}", decode(p), c.join(" "))
            }
            None => decode(w),
        },
        _ => decode(w),
    }
}

#[test]
fn every_format_reads_back_as_the_map_says() {
    for server in Server::ALL {
        let rows = rows_for(server);
        let map = RedirectMap::from_csv("m.csv", &csv_of(&rows)).unwrap();
        assert_eq!(map.entries.len(), rows.len(), "{server}");
        let c = compile(&map, server, &Options::default())
            .unwrap_or_else(|e| panic!("{server}: {e:?}"));
        assert_eq!(c.redirects, rows.len());
        let back = parse_back(server, &c.text).unwrap_or_else(|e| panic!("{server}: {e}"));
        // IIS groups rows by status (one map each): compare as sets.
        let mut got: Vec<(String, String, u16)> = back
            .iter()
            .map(|e| {
                let src = match server {
                    // Netlify's conditions are separated by spaces; decode each piece.
                    Server::Netlify => e
                        .source
                        .split(' ')
                        .map(decode)
                        .collect::<Vec<_>>()
                        .join(" "),
                    _ => decode(&e.source),
                };
                (src, decode(&e.target), e.status)
            })
            .collect();
        let mut want: Vec<(String, String, u16)> = rows
            .iter()
            .map(|(s, t, st)| {
                // Cloudflare puts a path target on the source's scheme and host.
                let t = match server {
                    Server::Cloudflare if t.starts_with('/') => format!("https://old.example{t}"),
                    _ => t.clone(),
                };
                (expected_source(server, s), decode(&t), *st)
            })
            .collect();
        if server == Server::Iis {
            got.sort();
            want.sort();
        }
        assert_eq!(got.len(), want.len(), "{server}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{server}");
        }
        // Nothing the server would read as a second line or field.
        for e in &back {
            assert!(
                !e.source.contains(['\n', '\r', '\t']) && !e.target.contains(['\n', '\r', ' ']),
                "{server}: {e:?}"
            );
        }
    }
}

#[test]
fn nginx_escapes_backslashes_and_dollars() {
    // A query keeps `\` and `$` as written (a path turns `\` into `/`; `"` is %22 in both).
    let map = RedirectMap::from_csv("m.csv", "source,target\n/a?x=\\$1,/b?c=\\$d\n").unwrap();
    let c = compile(&map, Server::Nginx, &Options::default()).unwrap();
    assert!(
        c.text
            .contains("    \"/a?x=\\\\$1\" \"/b?c=\\\\${urlkey_dollar}d\";\n"),
        "{}",
        c.text
    );
    assert!(c.text.contains("geo $urlkey_dollar { default \"$\"; }"));
    let back = parse_back(Server::Nginx, &c.text).unwrap();
    assert_eq!(
        (back[0].source.as_str(), back[0].target.as_str()),
        ("/a?x=\\$1", "/b?c=\\$d")
    );
}

#[test]
fn per_row_statuses_get_their_lines() {
    let map = RedirectMap::from_csv("m.csv", "source,target,status\n/a,/b,302\n/c,/d,\n").unwrap();
    let c = compile(&map, Server::Nginx, &Options::default()).unwrap();
    assert_eq!(
        c.setup,
        [
            "if ($urlkey_redirect_status = 302) { return 302 $urlkey_redirect; }",
            "if ($urlkey_redirect) { return 301 $urlkey_redirect; }"
        ]
    );
    assert!(
        c.text.contains("    default 301;\n    \"/a\" 302;\n}"),
        "{}",
        c.text
    );
    let opts = Options {
        file: Some("/etc/apache2/urlkey.map".into()),
    };
    let a = compile(&map, Server::Apache, &opts).unwrap();
    assert_eq!(
        a.setup[1],
        "RewriteMap urlkey_redirects \"txt:/etc/apache2/urlkey.map\""
    );
    assert_eq!(a.setup.len(), 2 + 3 * 2);
    assert!(a
        .setup
        .contains(&"RewriteRule ^ %1 [R=302,NE,QSD,L,UnsafeAllow3F]".to_string()));
    assert!(a.text.contains("\n/a 302/b\n/c 301/d\n"), "{}", a.text);
    let i = compile(&map, Server::Iis, &opts).unwrap();
    assert_eq!(i.setup.len(), 2);
    assert!(i.setup[0].contains("redirectType=\"Permanent\""));
    assert!(i.setup[1].contains("{urlkey_redirects_302:{UNENCODED_URL}}"));
    // XML forbids `--` inside a comment: the header's must hold none.
    let comment = i
        .text
        .split_once("<!--")
        .unwrap()
        .1
        .split_once("-->")
        .unwrap()
        .0;
    assert!(!comment.contains("--"), "{comment}");
}

fn problems(csv: &str, server: Server) -> Vec<(&'static str, Vec<u64>)> {
    let map = RedirectMap::from_csv("m.csv", csv).unwrap();
    match rules(&map, server) {
        Ok(_) => Vec::new(),
        Err(p) => p.into_iter().map(|p| (p.kind.as_str(), p.lines)).collect(),
    }
}

#[test]
fn rows_a_server_cannot_say_are_refused_with_their_lines() {
    let m = "source,target\nold-page,/x\n/a#top,/x\n/b,new\n/c,/d\n";
    assert_eq!(
        problems(m, Server::Apache),
        [
            ("source-not-a-path", vec![2]),
            ("source-fragment", vec![3]),
            ("target-not-a-url", vec![4])
        ]
    );
    assert_eq!(
        problems("source,target\n/About,/a\n/about,/b\n", Server::Nginx),
        [("duplicate-key", vec![2, 3])]
    );
    assert!(problems("source,target\n/About,/a\n/about,/b\n", Server::Apache).is_empty());
    let bad = "source,target\n/100%/x,/y\n/ok%2,/y\n/fine%2F?q=100%,/y\n";
    for server in [Server::Nginx, Server::Apache] {
        assert_eq!(
            problems(bad, server),
            [
                ("source-bad-escape", vec![2]),
                ("source-bad-escape", vec![3])
            ]
        );
    }
    assert_eq!(
        problems("source,target\n/a?x=1,/b\n", Server::Vercel),
        [("source-query", vec![2])]
    );
    let cf = "source,target\n/a,/b\nhttps://o.example:8443/a,/b\nhttps://o.example/q?x,/b\nhttp://o.example/d,/e\nhttps://o.example/d,/f\n";
    assert_eq!(
        problems(cf, Server::Cloudflare),
        [
            ("source-needs-host", vec![2]),
            ("source-port", vec![3]),
            ("source-query", vec![4]),
            ("duplicate-key", vec![5, 6])
        ]
    );
    let n = "source,target\n/blog/*,/b\n/n/:year,/b\n/s?flag,/b\n/s?k=1&k=2,/b\n/t?b=2&a=1,/c\n/t?a=1&b=2,/d\n";
    assert_eq!(
        problems(n, Server::Netlify),
        [
            ("pattern", vec![2]),
            ("pattern", vec![3]),
            ("pattern", vec![4]),
            ("pattern", vec![5]),
            ("duplicate-key", vec![6, 7])
        ]
    );
    assert_eq!(
        problems("source,target,status\n/a,/b,308\n", Server::Iis),
        [("status", vec![2])]
    );
    let hosts =
        "source,target\nhttps://a.example/x,/y\nhttps://b.example/x,/y\nhttps://a.example/z,/y\n";
    assert_eq!(problems(hosts, Server::Nginx), [("many-hosts", vec![2, 3])]);
    assert!(problems(hosts, Server::Netlify).is_empty());
}

#[test]
fn a_map_check_fails_is_refused_with_the_report() {
    let map = RedirectMap::from_csv("m.csv", "source,target\n/a,/b\n/a,/c\n").unwrap();
    for server in Server::ALL {
        match compile(&map, server, &Options::default()) {
            Err(Refusal::Check(r)) => assert!(!r.passes()),
            other => panic!("{server}: {other:?}"),
        }
    }
}

#[test]
fn nginx_bucket_size_is_named_for_long_keys() {
    let long = format!("/{}", "x".repeat(300));
    let map = RedirectMap::from_csv("m.csv", &format!("source,target\n{long},/b\n")).unwrap();
    let c = compile(&map, Server::Nginx, &Options::default()).unwrap();
    assert!(
        c.text
            .contains("has 301 bytes: nginx needs map_hash_bucket_size 320;"),
        "{}",
        c.text
    );
}

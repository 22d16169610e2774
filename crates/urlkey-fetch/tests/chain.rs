//! The client against a server on 127.0.0.1 (an ephemeral port): a chain followed by hand
//! and recorded hop by hop, each typed stop, the scope, the body cap. No test reaches any
//! other address.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use urlkey_fetch::failure::Failure;
use urlkey_fetch::{
    read_body, user_agent, Allowance, Chain, Client, End, FetchConfig, NetworkScope, Outcome, Stop,
};

/// Answers each connection by its path, then closes it.
fn serve() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    addr
}

fn answer(mut stream: std::net::TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let redirect = |status: &str, to: &str| {
        format!(
            "HTTP/1.1 {status}\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    };
    let text = match path.as_str() {
        "/a" => redirect("301 Moved Permanently", "/b#frag"),
        "/b" => redirect("302 Found", "http://user:pw@127.0.0.1:1/never"),
        "/loop" => redirect("308 Permanent Redirect", "/loop"),
        "/to-private" => redirect("301 Moved Permanently", "http://10.0.0.1/"),
        "/to-ftp" => redirect("301 Moved Permanently", "ftp://127.0.0.1/"),
        p if p.starts_with("/long/") => {
            let n: u32 = p.trim_start_matches("/long/").parse().unwrap_or(0);
            redirect("302 Found", &format!("/long/{}", n + 1))
        }
        "/big" => {
            let body = "x".repeat(10_000);
            format!("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\nConnection: close\r\n\r\n{body}")
        }
        "/agent" => {
            let body = head.to_ascii_lowercase();
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
    };
    let _ = stream.write_all(text.as_bytes());
}

fn client(scope: NetworkScope) -> Client {
    let cfg = FetchConfig {
        scope,
        per_host_delay: Duration::ZERO,
        timeout: Duration::from_secs(5),
        max_redirects: 3,
        body_cap: 4096,
        ..FetchConfig::new(user_agent("fetch test"))
    };
    Client::new(cfg).expect("a client")
}

fn follow(c: &Client, url: &str) -> Chain {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(c.follow(url.parse().expect("url")))
}

fn stop(chain: &Chain) -> &Stop {
    match &chain.end {
        End::Stopped(s) => s,
        End::Final(f) => panic!("ended on a response: {:?}", f.hop),
    }
}

#[test]
fn every_hop_is_recorded_and_what_is_never_sent_is_removed() {
    let addr = serve();
    let chain = follow(
        &client(NetworkScope::PublicAndLoopback),
        &format!("http://me:secret@{addr}/a#top"),
    );
    assert!(chain.credentials_removed);
    assert_eq!(chain.requested.as_str(), format!("http://{addr}/a"));
    let h = &chain.hops;
    assert_eq!(h[0].http_status, Some(301));
    assert_eq!(h[0].location.as_deref(), Some("/b#frag"));
    assert_eq!(h[0].next_url.as_deref(), Some(&*format!("http://{addr}/b")));
    assert_eq!(h[0].remote_addr, Some(addr));
    assert_eq!(h[1].http_status, Some(302));
    assert_eq!(
        h[1].detail.as_deref(),
        Some("userinfo in the Location removed, not sent")
    );
    assert_eq!(h[1].next_url.as_deref(), Some("http://127.0.0.1:1/never"));
    // Port 1 on loopback: nothing listens there.
    assert_eq!(h[2].outcome, Outcome::Connect);
    assert!(matches!(stop(&chain), Stop::Failed(Failure::Connect(_))));
    assert_eq!(chain.redirects(), 2);
}

#[test]
fn loops_and_long_chains_stop_typed() {
    let addr = serve();
    let c = client(NetworkScope::PublicAndLoopback);
    let chain = follow(&c, &format!("http://{addr}/loop"));
    assert_eq!(chain.hops.len(), 1);
    assert!(matches!(stop(&chain), Stop::Loop { next } if next.path() == "/loop"));
    let chain = follow(&c, &format!("http://{addr}/long/0"));
    assert_eq!(chain.redirects(), 4, "3 followed, the 4th refused");
    let s = stop(&chain);
    assert!(matches!(s, Stop::TooManyRedirects { max: 3, .. }), "{s:?}");
    assert!(s.to_string().ends_with("/long/4"), "{s}");
}

#[test]
fn the_scope_is_checked_at_every_hop() {
    let addr = serve();
    // Loopback refused by default, before any connection.
    let chain = follow(&client(NetworkScope::Public), &format!("http://{addr}/a"));
    assert_eq!(chain.hops[0].outcome, Outcome::Refused);
    assert_eq!(stop(&chain).refusal(), Some(Allowance::Loopback));
    // A redirect to a private address under the loopback scope.
    let c = client(NetworkScope::PublicAndLoopback);
    let chain = follow(&c, &format!("http://{addr}/to-private"));
    assert_eq!(chain.hops.len(), 2);
    assert_eq!(chain.hops[1].outcome, Outcome::Refused);
    assert_eq!(stop(&chain).refusal(), Some(Allowance::PrivateNetwork));
    assert!(!stop(&chain).to_string().contains("--"), "no flag named");
    let chain = follow(&c, &format!("http://{addr}/to-ftp"));
    assert!(matches!(stop(&chain), Stop::UnsupportedScheme(s) if s == "ftp"));
    // A name that resolves to loopback: the resolver refuses it.
    let chain = follow(
        &client(NetworkScope::Public),
        &format!("http://localhost:{}/a", addr.port()),
    );
    assert_eq!(chain.hops[0].outcome, Outcome::Refused);
    assert_eq!(stop(&chain).refusal(), Some(Allowance::Loopback));
}

#[test]
fn the_body_is_read_up_to_the_cap_and_the_user_agent_names_the_purpose() {
    let addr = serve();
    let c = client(NetworkScope::PublicAndLoopback);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let chain = c
            .follow(format!("http://{addr}/big").parse().unwrap())
            .await;
        let End::Final(mut fin) = chain.end else {
            panic!("no response")
        };
        let mut pieces = 0usize;
        let body = read_body(&mut fin.response, 4096, |p| pieces += p.len()).await;
        assert_eq!(body.bytes.len(), 4096);
        assert_eq!(pieces, 4096);
        assert!(body.truncated);
        assert!(body.error.is_none());
        let hop = (*fin).finish();
        assert_eq!(hop.http_status, Some(200));
        assert!(hop.elapsed.is_some());

        let chain = c
            .follow(format!("http://{addr}/agent").parse().unwrap())
            .await;
        let End::Final(mut fin) = chain.end else {
            panic!("no response")
        };
        let body = read_body(&mut fin.response, 4096, |_| {}).await;
        let head = String::from_utf8_lossy(&body.bytes).into_owned();
        let ua = format!(
            "user-agent: urlkey/{} (+fetch test)",
            env!("CARGO_PKG_VERSION")
        );
        assert!(head.contains(&ua), "{head}");
        assert!(
            !head.contains("cookie") && !head.contains("referer"),
            "{head}"
        );
    });
}

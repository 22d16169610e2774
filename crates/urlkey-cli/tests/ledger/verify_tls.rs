//! Verify over TLS, against a loopback HTTPS server (127.0.0.1) whose certificate
//! is signed by a CA generated here (rcgen). Untrusted, the handshake fails and the key is
//! `unresolved` with reason `tls`; trusted through `--ca-cert`, it is verified.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use crate::common::{ledger, open};

struct Tls {
    addr: SocketAddr,
    ca_pem: String,
}

/// A CA, a certificate for 127.0.0.1 signed by it, and a server thread answering every
/// request with one HTML page.
fn start() -> Tls {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let ca_key = KeyPair::generate().expect("ca key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "urlkey synthetic test CA");
    let ca = ca_params.self_signed(&ca_key).expect("ca");
    let leaf_key = KeyPair::generate().expect("leaf key");
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .expect("leaf params")
        .signed_by(&leaf_key, &ca, &ca_key)
        .expect("leaf");

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone(), ca.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into()),
        )
        .expect("server config");
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(tcp) = stream else { continue };
            let config = Arc::clone(&config);
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let body = "<!doctype html><html><head><title>Synthetic TLS page</title>\
                            </head><body><p>served over TLS on loopback</p></body></html>";
                let resp = format!(
                    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/html\r\n\
                     Content-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(resp.as_bytes());
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    Tls {
        addr,
        ca_pem: ca.pem(),
    }
}

#[test]
fn tls_is_verified_with_ca_cert_and_unresolved_without() {
    let srv = start();
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("synthetic-tls.csv");
    std::fs::write(
        &csv,
        format!(
            "observation_id,observed_url\nt-1,https://{}/page\n",
            srv.addr
        ),
    )
    .expect("write");
    ledger(
        &db,
        &[
            "ingest",
            csv.to_str().expect("p"),
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
    let base = [
        "verify",
        "--allow-loopback",
        "--timeout",
        "3",
        "--per-host-delay",
        "0",
    ];

    // Not trusted: the handshake fails; no finding, no page compared.
    let r = ledger(&db, &base).ok();
    assert!(
        r.stdout.contains("content: not-fetched (tls)"),
        "{}",
        r.stdout
    );
    let check: String = open(&db)
        .query_row("SELECT content_check FROM verifications", [], |r| r.get(0))
        .expect("check");
    assert_eq!(check, "not-fetched");
    let latest = || -> (String, String, Option<String>) {
        open(&db)
            .query_row(
                "SELECT v.verification_status, v.reason, w.title FROM verifications v \
                 LEFT JOIN verification_variants w USING (verification_id) \
                 ORDER BY v.verification_id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .expect("verification")
    };
    let (st, reason, _) = latest();
    assert_eq!((st.as_str(), reason.as_str()), ("unresolved", "tls"));

    // Trusted through --ca-cert: verified, the page read.
    let pem = dir.path().join("ca.pem");
    std::fs::write(&pem, &srv.ca_pem).expect("pem");
    let mut args = base.to_vec();
    args.extend(["--older-than", "0s", "--ca-cert", pem.to_str().expect("p")]);
    let r = ledger(&db, &args).ok();
    assert!(
        r.stdout.contains("1 keys checked: 1 verified"),
        "{}",
        r.stdout
    );
    let (st, reason, title) = latest();
    assert_eq!((st.as_str(), reason.as_str()), ("verified", "ok"));
    assert_eq!(title.as_deref(), Some("Synthetic TLS page"));

    // A file that holds no certificate is refused before anything is fetched.
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").expect("junk");
    let mut args = base.to_vec();
    args.extend(["--older-than", "0s", "--ca-cert", junk.to_str().expect("p")]);
    let e = ledger(&db, &args).err();
    assert!(e.to_string().contains("--ca-cert"), "{e}");
}

//! The SSRF-safe HTTP client that `urlkey ledger verify` and `urlkey redirects test` share.
//!
//! - [`guard`]: where a request may connect ([`NetworkScope`]); the check sits in the
//!   resolver, so there is no gap between checking an address and connecting to it.
//! - [`client`]: one isolated client per run ([`Client`], [`FetchConfig`]): no cookies, no
//!   proxy, no referer, no automatic redirects, a user agent that names the purpose, a
//!   timeout per request and a least delay between two requests to one host.
//! - [`chain`]: a request and its redirects followed by hand, every hop checked against
//!   the scope and recorded ([`Chain`], [`Hop`]), ending on a response or a typed
//!   [`Stop`].
//! - [`failure`]: why a request got no response, typed.
//! - [`body`]: a response's body read up to a cap.
//!
//! The modules, and the rule between them: `chain` uses `client`, `failure` and `guard`;
//! `client` uses `guard`; `failure` uses `guard`; `body` uses `failure`'s [`error_chain`];
//! none is used by a module it uses.
//! Nothing here names a flag or a setting of a caller: a refusal says what would allow it
//! as a type ([`guard::Allowance`]) and each caller words it.
//!
//! ## Example
//!
//! A chain followed by hand against a server on 127.0.0.1 (a redirect, then the page):
//! each hop is recorded, and the same request under the default scope (public addresses
//! only) is refused before any connection, saying what would allow it.
//!
//! ```
//! use std::io::{Read, Write};
//! use std::time::Duration;
//! use urlkey_fetch::{user_agent, Allowance, Client, End, FetchConfig, NetworkScope, Outcome};
//!
//! // A server that answers /old with a redirect to /new, and /new with a page.
//! let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! let addr = listener.local_addr()?;
//! std::thread::spawn(move || {
//!     for mut stream in listener.incoming().flatten() {
//!         let mut head = [0u8; 1024];
//!         let n = stream.read(&mut head).unwrap_or(0);
//!         let answer = if head[..n].starts_with(b"GET /old ") {
//!             "HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\n\
//!              Content-Length: 0\r\nConnection: close\r\n\r\n"
//!         } else {
//!             "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
//!         };
//!         let _ = stream.write_all(answer.as_bytes());
//!     }
//! });
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let client = |scope| {
//!     let config = FetchConfig {
//!         scope,
//!         per_host_delay: Duration::ZERO,
//!         ..FetchConfig::new(user_agent("example"))
//!     };
//!     Client::new(config)
//! };
//! let start: url::Url = format!("http://{addr}/old").parse()?;
//!
//! let chain = runtime.block_on(client(NetworkScope::PublicAndLoopback)?.follow(start.clone()));
//! assert_eq!(chain.hops[0].http_status, Some(301));
//! assert_eq!(chain.hops[0].next_url, Some(format!("http://{addr}/new")));
//! let End::Final(last) = chain.end else { panic!("no response") };
//! assert_eq!(last.hop.http_status, Some(200));
//!
//! // Loopback is not a public address: refused before any connection is made.
//! let chain = runtime.block_on(client(NetworkScope::Public)?.follow(start));
//! assert_eq!(chain.hops[0].outcome, Outcome::Refused);
//! let End::Stopped(stop) = chain.end else { panic!("not refused") };
//! assert_eq!(stop.refusal(), Some(Allowance::Loopback));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod body;
pub mod chain;
pub mod client;
pub mod failure;
pub mod guard;

pub use body::{read_body, Body};
pub use chain::{Chain, End, Final, Hop, Outcome, Stop};
pub use client::{sanitize, user_agent, Client, FetchConfig, FetchError};
pub use failure::error_chain;
pub use guard::{AddressClass, Allowance, NetworkScope, Refused};

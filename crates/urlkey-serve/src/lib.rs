//! `urlkey serve`: the Legacy URL Mapper (`urlkey map`) and the key inspector
//! (`urlkey inspect`) as a local web page, over a small JSON API.
//!
//! Everything the page needs is compiled into the binary (HTML, CSS and JavaScript with
//! `include_str!`): the server never reads a file, never fetches a URL, and answers only
//! the fixed paths listed in [`app`]. Every response carries a strict
//! Content-Security-Policy. Request bodies are capped ([`Config::max_body_bytes`]); every
//! failure is a JSON error `{"error": {"code", "message"}}` with a stable code
//! ([`error::CODES`]).
//!
//! Under load and faults the server stays bounded: connections are served by hyper's
//! HTTP/1 builder with a timer, so a connection that does not send a complete head within
//! [`Config::header_timeout`] is closed; a body must arrive within [`Config::body_timeout`]
//! (408); at most [`Config::max_connections`] connections are open (more wait in the
//! kernel's backlog, so file descriptors never run out); and request bodies held at once
//! are capped at [`Config::max_held_bytes`] (503 with `Retry-After`).
//!
//! The map endpoint runs the very code path of `urlkey map` ([`urlkey_batch::map::MapRun`])
//! on the posted text: the CSV export is written by the command's own CSV writer, byte for
//! byte what `urlkey map --format csv` writes, and the rows the page shows are taken from
//! the map engine's row sink, the values `urlkey map --format jsonl` writes. The last
//! result is kept, so paging and filtering do not recompute it.
//!
//! The modules, from the outside in: [`run`] and the accept loop (`conn`) serve the
//! router (`router`: routes and layers; `middleware`: security headers, Host check,
//! body policy) over the shared [`AppState`] (`state`). Each view owns its handler:
//! `assets` (the page's files), `policiesview`, `keyview`, `inspectview`, `explainview`,
//! `diffview`, `mapview` (request, engine, page), `redirectsview` (request, engine: the
//! Redirects view), `ledgerview` (report and review queue) and `reviewview`. A POST body is read under the limits by `body` and parsed by the
//! extractor `json_request`; `worker` runs the work off the async thread and one heavy
//! request at a time; `error` is the API's error answer. No module below the router uses
//! the router or a view, and no view uses another view.
//!
//! ## Example
//!
//! A server on an ephemeral 127.0.0.1 port, asked for a key as the page asks; a request
//! that names another host (what a DNS-rebinding page would send) is refused before any
//! handler runs.
//!
//! ```
//! use std::io::{Read, Write};
//!
//! let addr = urlkey_serve::spawn(urlkey_serve::Config::default())?;
//! let ask = |host: &str, body: &str| -> std::io::Result<String> {
//!     let mut stream = std::net::TcpStream::connect(addr)?;
//!     write!(
//!         stream,
//!         "POST /api/key HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
//!          Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
//!         body.len()
//!     )?;
//!     let mut answer = String::new();
//!     stream.read_to_string(&mut answer)?;
//!     Ok(answer)
//! };
//!
//! let body = r#"{"url": "HTTPS://Example.com/a?utm_source=x", "policy": "mapper@1"}"#;
//! let answer = ask(&addr.to_string(), body)?;
//! assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
//! assert!(answer.contains(r#""key":"https://example.com/a""#), "{answer}");
//!
//! let answer = ask("attacker.example", body)?;
//! assert!(answer.starts_with("HTTP/1.1 421 "), "{answer}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod assets;
mod body;
mod conn;
mod diffview;
pub mod error;
mod explainview;
mod inspectview;
mod json_request;
mod keyview;
mod ledgerview;
mod map_result;
mod mapview;
mod middleware;
mod options;
mod policiesview;
mod redirectsview;
mod reviewview;
mod router;
mod state;
mod textinput;
mod worker;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

pub use assets::{APP_CSS, APP_JS, INDEX_HTML, REDIRECTS_JS};
pub use conn::FD_RESERVE;
pub use explainview::MAX_INPUTS as MAX_EXPLAIN_INPUTS;
pub use middleware::CONTENT_SECURITY_POLICY;
pub use options::{
    resolve_addr, Config, ServeError, ServeOptions, Setting, SettingProblem, DEFAULT_ADDR,
    DEFAULT_BODY_TIMEOUT_SECS, DEFAULT_HEADER_TIMEOUT_SECS, DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_HELD_BYTES,
};
pub use router::app;
pub use state::AppState;

/// Runs the server until the process is stopped: prints the page's URL on standard
/// output, and a warning on standard error when the address is not loopback.
pub fn run(options: ServeOptions) -> Result<(), ServeError> {
    let addr = resolve_addr(&options.addr)?;
    let config = options.config()?;
    let state = AppState::with_ledger(config, options.ledger.clone())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Run(format!("cannot start the server runtime: {e}")))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Run(format!("cannot listen on {addr}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| ServeError::Run(format!("cannot read the bound address: {e}")))?;
        if !local.ip().is_loopback() {
            urlkey_batch::note!(
                "urlkey serve: warning: {local} is not a loopback address: anyone who can reach it can use the page and its API (see docs/security.md)"
            );
        }
        let cap = conn::connection_cap(config.max_connections);
        if cap < config.max_connections {
            urlkey_batch::note!(
                "urlkey serve: the connection limit {} lowered to {cap} to stay under the file-descriptor limit (ulimit -n)",
                config.max_connections
            );
        }
        urlkey_batch::stdio::print_line(format_args!("urlkey serve: http://{local}/ (no URL is fetched; Ctrl-C stops)"));
        if let Some(l) = &options.ledger {
            let writes = if local.ip().is_loopback() {
                "read-only; review decisions written on loopback with the page's token"
            } else {
                "read-only; review decisions refused: not a loopback address"
            };
            urlkey_batch::stdio::print_line(format_args!(
                "urlkey serve: ledger page http://{local}/ledger ({}, {writes})",
                l.display()
            ));
        }
        conn::serve(listener, state, cap, true).await;
        Err(ServeError::Run(
            "the server stopped accepting connections".to_string(),
        ))
    })
}

/// Starts a server with `config` on an ephemeral 127.0.0.1 port, on its own thread, and
/// returns its address. The server lives as long as the process.
pub fn spawn(config: Config) -> std::io::Result<SocketAddr> {
    spawn_with_ledger(config, None)
}

/// [`spawn`], also serving a ledger at /ledger.
pub fn spawn_with_ledger(config: Config, ledger: Option<PathBuf>) -> std::io::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let state = AppState::with_ledger(config, ledger).map_err(std::io::Error::other)?;
    spawn_state(listener, state)
}

/// Serves `state` on `listener` on its own thread (for tests); returns the listener's
/// address. The server lives as long as the process.
pub fn spawn_state(
    listener: std::net::TcpListener,
    state: Arc<AppState>,
) -> std::io::Result<SocketAddr> {
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let config = *state.config();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name(format!("urlkey-serve {addr}"))
        .spawn(move || {
            rt.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => {
                        let cap = conn::connection_cap(config.max_connections);
                        conn::serve(l, state, cap, false).await;
                    }
                    Err(e) => urlkey_batch::note!("urlkey serve (test): {e}"),
                }
            })
        })?;
    Ok(addr)
}

/// [`spawn`] with the default settings.
pub fn spawn_for_tests() -> std::io::Result<SocketAddr> {
    spawn(Config::default())
}

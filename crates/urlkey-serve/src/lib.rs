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
//! The map endpoint runs the very code path of `urlkey map` ([`urlkey_batch::map::MapRun`])
//! on the posted text, so the CSV export is byte for byte what the command writes, and the
//! rows the page shows are read back from the command's own JSON Lines output. The last
//! result is kept, so paging and filtering do not recompute it.

#![warn(missing_docs)]

mod api;
mod assets;
pub mod error;
mod mapview;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};

use urlkey::PolicySet;
use urlkey_batch::pipeline::Pipeline;

pub use api::app;
pub use assets::{APP_CSS, APP_JS, INDEX_HTML};

/// The default cap on a request body: 64 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// The Content-Security-Policy sent with every response.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// `urlkey serve` flags.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on. Loopback by default; another address is warned about.
    /// Port 0 picks a free port (the URL printed says which).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// The largest request body accepted, in bytes; a larger one gets 413.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Worker threads for mapping (0 = every core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// Server settings.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Worker threads for mapping (0 = every core).
    pub threads: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            threads: 0,
        }
    }
}

/// What the handlers share: the policies, the worker pool, the last map result.
pub struct AppState {
    set: PolicySet,
    pipeline: Pipeline,
    config: Config,
    cache: Mutex<Option<Arc<mapview::MapResult>>>,
    /// One map computation at a time: each already uses every worker thread.
    gate: tokio::sync::Semaphore,
}

impl AppState {
    /// The builtin policies and a worker pool of `config.threads`.
    pub fn new(config: Config) -> Result<Arc<Self>, String> {
        Ok(Arc::new(AppState {
            set: PolicySet::builtin(),
            pipeline: Pipeline::new(config.threads)?,
            config,
            cache: Mutex::new(None),
            gate: tokio::sync::Semaphore::new(1),
        }))
    }
}

/// Resolves `--addr` (`127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`).
pub fn resolve_addr(addr: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = addr.parse::<SocketAddr>() {
        return Ok(a);
    }
    addr.to_socket_addrs()
        .map_err(|e| format!("--addr {addr:?}: {e} (use HOST:PORT, e.g. 127.0.0.1:8080)"))?
        .next()
        .ok_or_else(|| format!("--addr {addr:?}: the name resolves to no address"))
}

/// Runs the server until the process is stopped: prints the page's URL on standard
/// output, and a warning on standard error when the address is not loopback.
pub fn run(args: ServeArgs) -> Result<(), String> {
    let addr = resolve_addr(&args.addr)?;
    if args.max_body_bytes == 0 {
        return Err("--max-body-bytes must be at least 1".into());
    }
    let state = AppState::new(Config {
        max_body_bytes: args.max_body_bytes,
        threads: args.threads,
    })?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server runtime: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let local = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        if !local.ip().is_loopback() {
            eprintln!(
                "urlkey serve: warning: {local} is not a loopback address: anyone who can reach it can use the page and its API"
            );
        }
        println!("urlkey serve: http://{local}/ (no URL is fetched; Ctrl-C stops)");
        axum::serve(listener, app(state))
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
}

/// Starts a server with `config` on an ephemeral 127.0.0.1 port, on its own thread, and
/// returns its address. The server lives as long as the process.
pub fn spawn(config: Config) -> std::io::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let state = AppState::new(config).map_err(std::io::Error::other)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name(format!("urlkey-serve {addr}"))
        .spawn(move || {
            rt.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => {
                        if let Err(e) = axum::serve(l, app(state)).await {
                            eprintln!("urlkey serve (test): {e}");
                        }
                    }
                    Err(e) => eprintln!("urlkey serve (test): {e}"),
                }
            })
        })?;
    Ok(addr)
}

/// [`spawn`] with the default settings.
pub fn spawn_for_tests() -> std::io::Result<SocketAddr> {
    spawn(Config::default())
}

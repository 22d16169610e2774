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
//! Under load and faults (issue 20) the server stays bounded: connections are served by
//! hyper's HTTP/1 builder with a timer, so a connection that does not send a complete head
//! within [`Config::header_timeout`] is closed; a body must arrive within
//! [`Config::body_timeout`] (408); at most [`Config::max_connections`] connections are open
//! (more wait in the kernel's backlog, so file descriptors never run out); and request
//! bodies held at once are capped at [`Config::max_held_bytes`] (503 with `Retry-After`).
//!
//! The map endpoint runs the very code path of `urlkey map` ([`urlkey_batch::map::MapRun`])
//! on the posted text, so the CSV export is byte for byte what the command writes, and the
//! rows the page shows are read back from the command's own JSON Lines output. The last
//! result is kept, so paging and filtering do not recompute it.

#![warn(missing_docs)]

mod api;
mod assets;
mod conn;
mod diffview;
pub mod error;
mod explainview;
mod ledgerview;
mod mapview;

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use urlkey::PolicySet;
use urlkey_batch::pipeline::{Pipeline, ThreadError};

pub use api::app;
pub use assets::{APP_CSS, APP_JS, INDEX_HTML};
pub use explainview::MAX_INPUTS as MAX_EXPLAIN_INPUTS;

/// The default cap on a request body: 64 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// The default time a connection has to send a complete request head (also the longest
/// an idle keep-alive connection is kept): 10 s.
pub const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 10;

/// The default time a request has to send its whole body: 30 s.
pub const DEFAULT_BODY_TIMEOUT_SECS: u64 = 30;

/// The default cap on open connections: 256.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// The default cap on request-body bytes held at once across all requests: 256 MiB.
pub const DEFAULT_MAX_HELD_BYTES: usize = 256 * 1024 * 1024;

/// File descriptors kept for the process itself (standard streams, the listener, the
/// runtime's epoll and wake-up descriptors, spare room) when the connection cap is fitted
/// under `ulimit -n`.
pub const FD_RESERVE: u64 = 32;

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
    /// Seconds a connection has to send a complete request head; an idle keep-alive
    /// connection is closed after as long.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_HEADER_TIMEOUT_SECS)]
    pub header_timeout: u64,
    /// Seconds a request has to send its whole body (408 after that).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_BODY_TIMEOUT_SECS)]
    pub body_timeout: u64,
    /// Open connections at most; more wait to be accepted. Lowered to fit under the
    /// process's file-descriptor limit (`ulimit -n`).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Request-body bytes held at once across all requests; a body that does not fit gets
    /// 503 with Retry-After.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_HELD_BYTES)]
    pub max_held_bytes: usize,
    /// Also serve this citation ledger (made by `urlkey ledger`) at /ledger: its report,
    /// charts and top keys. The file is opened read-only and never written.
    #[arg(long, value_name = "DB")]
    pub ledger: Option<PathBuf>,
}

/// Why the server did not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A setting the server cannot honour (the message names the flag): exit 2.
    Usage(String),
    /// The worker pool could not be started.
    Thread(ThreadError),
    /// The runtime or the listening socket could not be set up, or serving ended.
    Run(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Usage(m) | ServeError::Run(m) => f.write_str(m),
            ServeError::Thread(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServeError {}

impl ServeArgs {
    /// The server settings these flags ask for, checked.
    pub fn config(&self) -> Result<Config, ServeError> {
        let config = Config {
            max_body_bytes: self.max_body_bytes,
            threads: self.threads,
            header_timeout: Duration::from_secs(self.header_timeout),
            body_timeout: Duration::from_secs(self.body_timeout),
            max_connections: self.max_connections,
            max_held_bytes: self.max_held_bytes,
        };
        config.validate()?;
        Ok(config)
    }
}

/// Server settings.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Worker threads for mapping (0 = every core).
    pub threads: usize,
    /// How long a connection has to send a complete request head.
    pub header_timeout: Duration,
    /// How long a request has to send its whole body.
    pub body_timeout: Duration,
    /// Open connections at most (before fitting under the file-descriptor limit).
    pub max_connections: usize,
    /// Request-body bytes held at once across all requests.
    pub max_held_bytes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            threads: 0,
            header_timeout: Duration::from_secs(DEFAULT_HEADER_TIMEOUT_SECS),
            body_timeout: Duration::from_secs(DEFAULT_BODY_TIMEOUT_SECS),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_held_bytes: DEFAULT_MAX_HELD_BYTES,
        }
    }
}

impl Config {
    /// Refuses settings the server cannot honour, saying which flag to change.
    pub fn validate(&self) -> Result<(), ServeError> {
        let usage = |m: &str| Err(ServeError::Usage(m.into()));
        if self.max_body_bytes == 0 {
            return usage("--max-body-bytes must be at least 1");
        }
        if self.header_timeout.is_zero() {
            return usage("--header-timeout must be at least 1 (seconds)");
        }
        if self.body_timeout.is_zero() {
            return usage("--body-timeout must be at least 1 (seconds)");
        }
        if self.max_connections == 0 {
            return usage("--max-connections must be at least 1");
        }
        // Otherwise a body under --max-body-bytes could never be admitted.
        if self.max_held_bytes < self.max_body_bytes {
            return Err(ServeError::Usage(format!(
                "--max-held-bytes ({}) must be at least --max-body-bytes ({}): raise the first or lower the second",
                self.max_held_bytes, self.max_body_bytes
            )));
        }
        Ok(())
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
    /// One permit per request-body byte held (`max_held_bytes` in all): a body is admitted
    /// only when its bytes fit, so memory is bounded however many requests arrive.
    held: Arc<tokio::sync::Semaphore>,
    /// The ledger shown at /ledger (`--ledger`), opened read-only per request (and
    /// read-write only to record a review decision, on loopback).
    ledger: Option<PathBuf>,
    /// The address the server answers as: the Host check and the loopback-only writes.
    bound: OnceLock<SocketAddr>,
    /// The per-run token a write must carry (`X-Urlkey-Token`), 32 hex digits.
    token: String,
}

impl AppState {
    /// The builtin policies and a worker pool of `config.threads`.
    pub fn new(config: Config) -> Result<Arc<Self>, ServeError> {
        Self::with_ledger(config, None)
    }

    /// [`AppState::new`], also serving the ledger at `ledger` (checked to open read-only
    /// as a ledger now, so a wrong path fails at start rather than on the page).
    pub fn with_ledger(config: Config, ledger: Option<PathBuf>) -> Result<Arc<Self>, ServeError> {
        config.validate()?;
        if let Some(l) = &ledger {
            urlkey_ledger::report::open_read_only(l)
                .map_err(|e| ServeError::Usage(format!("--ledger: {e}")))?;
        }
        Ok(Arc::new(AppState {
            set: PolicySet::builtin(),
            pipeline: Pipeline::new(config.threads).map_err(ServeError::Thread)?,
            config,
            cache: Mutex::new(None),
            gate: tokio::sync::Semaphore::new(1),
            held: Arc::new(tokio::sync::Semaphore::new(
                config
                    .max_held_bytes
                    .min(tokio::sync::Semaphore::MAX_PERMITS),
            )),
            ledger,
            bound: OnceLock::new(),
            token: new_token()?,
        }))
    }

    /// Says which address the server answers as (its bound address), for the Host check
    /// and the loopback-only writes. Set once: [`spawn`] and [`run`] set it from the
    /// listener unless it was set before (a test can so say "bound elsewhere").
    pub fn set_bound(&self, addr: SocketAddr) {
        let _ = self.bound.set(addr);
    }

    /// The address set by [`AppState::set_bound`].
    pub fn bound(&self) -> Option<SocketAddr> {
        self.bound.get().copied()
    }

    /// Whether review decisions may be written: only with a ledger, and only when the
    /// server is bound to a loopback address.
    pub fn writes_allowed(&self) -> bool {
        self.ledger.is_some() && self.bound().is_some_and(|a| a.ip().is_loopback())
    }

    /// The per-run write token (put in the ledger page when writes are allowed).
    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// Takes the map worker as a running map does, if it is free; it is given back when
    /// the permit is dropped. For tests: while it is held, a map, diff or explain request
    /// waits (and then says `queue.waited`), while malformed requests are still answered.
    pub fn hold_map_worker(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.gate.try_acquire().ok()
    }

    /// The settings in force.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

/// 16 random bytes from the operating system, as 32 hex digits.
fn new_token() -> Result<String, ServeError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)
        .map_err(|e| ServeError::Run(format!("cannot draw a random token: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Resolves `--addr` (`127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`).
pub fn resolve_addr(addr: &str) -> Result<SocketAddr, ServeError> {
    if let Ok(a) = addr.parse::<SocketAddr>() {
        return Ok(a);
    }
    addr.to_socket_addrs()
        .map_err(|e| {
            ServeError::Usage(format!(
                "--addr {addr:?}: {e} (use HOST:PORT, e.g. 127.0.0.1:8080)"
            ))
        })?
        .next()
        .ok_or_else(|| {
            ServeError::Usage(format!("--addr {addr:?}: the name resolves to no address"))
        })
}

/// Runs the server until the process is stopped: prints the page's URL on standard
/// output, and a warning on standard error when the address is not loopback.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    let addr = resolve_addr(&args.addr)?;
    let config = args.config()?;
    let state = AppState::with_ledger(config, args.ledger.clone())?;
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
            eprintln!(
                "urlkey serve: warning: {local} is not a loopback address: anyone who can reach it can use the page and its API (see docs/security.md)"
            );
        }
        let cap = conn::connection_cap(config.max_connections);
        if cap < config.max_connections {
            eprintln!(
                "urlkey serve: --max-connections {} lowered to {cap} to stay under the file-descriptor limit (ulimit -n)",
                config.max_connections
            );
        }
        println!("urlkey serve: http://{local}/ (no URL is fetched; Ctrl-C stops)");
        if let Some(l) = &args.ledger {
            let writes = if local.ip().is_loopback() {
                "read-only; review decisions written on loopback with the page's token"
            } else {
                "read-only; review decisions refused: not a loopback address"
            };
            println!(
                "urlkey serve: ledger page http://{local}/ledger ({}, {writes})",
                l.display()
            );
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

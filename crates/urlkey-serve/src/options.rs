//! What `urlkey serve` is asked to do ([`ServeOptions`], filled in by the command line in
//! `urlkey-cli`), the checked settings the server runs with ([`Config`]), and why it may
//! refuse to start ([`ServeError`]).

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use urlkey_batch::pipeline::ThreadError;

/// The default address: loopback, so the page is not reachable from other machines
/// unless asked for.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

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

/// What `urlkey serve` is asked to do, one field per flag, unchecked: [`ServeOptions::config`]
/// checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeOptions {
    /// `--addr`: the address to listen on (`HOST:PORT`; port 0 picks a free port).
    pub addr: String,
    /// `--max-body-bytes`: the largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// `--threads`: worker threads for mapping (0 = every core).
    pub threads: usize,
    /// `--header-timeout`: seconds a connection has to send a complete request head.
    pub header_timeout_secs: u64,
    /// `--body-timeout`: seconds a request has to send its whole body.
    pub body_timeout_secs: u64,
    /// `--max-connections`: open connections at most.
    pub max_connections: usize,
    /// `--max-held-bytes`: request-body bytes held at once across all requests.
    pub max_held_bytes: usize,
    /// `--ledger`: a citation ledger to serve at /ledger, read-only.
    pub ledger: Option<PathBuf>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            addr: DEFAULT_ADDR.to_string(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            threads: 0,
            header_timeout_secs: DEFAULT_HEADER_TIMEOUT_SECS,
            body_timeout_secs: DEFAULT_BODY_TIMEOUT_SECS,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_held_bytes: DEFAULT_MAX_HELD_BYTES,
            ledger: None,
        }
    }
}

impl ServeOptions {
    /// The server settings these options ask for, checked.
    pub fn config(&self) -> Result<Config, ServeError> {
        let config = Config {
            max_body_bytes: self.max_body_bytes,
            threads: self.threads,
            header_timeout: Duration::from_secs(self.header_timeout_secs),
            body_timeout: Duration::from_secs(self.body_timeout_secs),
            max_connections: self.max_connections,
            max_held_bytes: self.max_held_bytes,
        };
        config.validate()?;
        Ok(config)
    }
}

/// Why the server did not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A setting the server cannot honour: exit 2. The command line names its flag.
    Setting {
        /// Which setting.
        setting: Setting,
        /// What is wrong with it.
        problem: SettingProblem,
    },
    /// The worker pool could not be started.
    Thread(ThreadError),
    /// The runtime or the listening socket could not be set up, or serving ended.
    Run(String),
    /// The `--ledger` file cannot be served (missing, not a ledger, newer than this
    /// urlkey): its own row of the exit-code table ([`LedgerError::exit`], 6 for a
    /// database), as in `urlkey ledger`.
    ///
    /// [`LedgerError::exit`]: urlkey_ledger::error::LedgerError::exit
    Ledger(urlkey_ledger::error::LedgerError),
}

impl ServeError {
    /// The row of the exit-code table this error ends `urlkey serve` with.
    pub fn exit(&self) -> urlkey_batch::exit::Exit {
        use urlkey_batch::exit::Exit;
        match self {
            ServeError::Setting { .. } => Exit::Usage,
            ServeError::Thread(_) | ServeError::Run(_) => Exit::Internal,
            ServeError::Ledger(e) => e.exit(),
        }
    }
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Setting { setting, problem } => {
                write!(f, "{}: {problem}", setting.describe())
            }
            ServeError::Run(m) => f.write_str(m),
            ServeError::Thread(e) => write!(f, "{e}"),
            // The ledger's own words name no flag; the command line words its advice
            // (urlkey-cli's `failure::serve_error`).
            ServeError::Ledger(e) => write!(f, "the ledger: {e}"),
        }
    }
}

impl std::error::Error for ServeError {}

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
    /// Refuses settings the server cannot honour, saying which one.
    pub fn validate(&self) -> Result<(), ServeError> {
        let zero = |setting| {
            Err(ServeError::Setting {
                setting,
                problem: SettingProblem::Zero,
            })
        };
        if self.max_body_bytes == 0 {
            return zero(Setting::MaxBodyBytes);
        }
        if self.header_timeout.is_zero() {
            return zero(Setting::HeaderTimeout);
        }
        if self.body_timeout.is_zero() {
            return zero(Setting::BodyTimeout);
        }
        if self.max_connections == 0 {
            return zero(Setting::MaxConnections);
        }
        // Otherwise a body under the largest body could never be admitted.
        if self.max_held_bytes < self.max_body_bytes {
            return Err(ServeError::Setting {
                setting: Setting::MaxHeldBytes,
                problem: SettingProblem::BelowLargestBody {
                    held: self.max_held_bytes,
                    body: self.max_body_bytes,
                },
            });
        }
        Ok(())
    }
}

/// A setting of the server, named by what it is; the command line names its flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// The address to listen on.
    Addr,
    /// The largest request body.
    MaxBodyBytes,
    /// The time a connection has to send a complete request head.
    HeaderTimeout,
    /// The time a request has to send its whole body.
    BodyTimeout,
    /// The most open connections.
    MaxConnections,
    /// The request-body bytes held at once.
    MaxHeldBytes,
}

impl Setting {
    /// The setting in words.
    pub fn describe(self) -> &'static str {
        match self {
            Setting::Addr => "the address to listen on",
            Setting::MaxBodyBytes => "the largest request body (bytes)",
            Setting::HeaderTimeout => "the request-head timeout (seconds)",
            Setting::BodyTimeout => "the request-body timeout (seconds)",
            Setting::MaxConnections => "the connection limit",
            Setting::MaxHeldBytes => "the request-body bytes held at once",
        }
    }
}

/// What is wrong with a [`Setting`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingProblem {
    /// Zero, where at least 1 is needed.
    Zero,
    /// The bytes held at once are fewer than the largest body, which could then never be
    /// admitted.
    BelowLargestBody {
        /// The bytes held at once asked for.
        held: usize,
        /// The largest body asked for.
        body: usize,
    },
    /// The address does not parse or resolve (the resolver's words).
    Unresolvable {
        /// The address as given.
        addr: String,
        /// Why.
        detail: String,
    },
    /// The name resolves to no address.
    NoAddress {
        /// The address as given.
        addr: String,
    },
}

impl std::fmt::Display for SettingProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingProblem::Zero => f.write_str("must be at least 1"),
            SettingProblem::BelowLargestBody { held, body } => write!(
                f,
                "{held} is less than the largest request body ({body}): raise the first or lower the second"
            ),
            SettingProblem::Unresolvable { addr, detail } => {
                write!(f, "{addr:?}: {detail} (use HOST:PORT, e.g. 127.0.0.1:8080)")
            }
            SettingProblem::NoAddress { addr } => {
                write!(f, "{addr:?}: the name resolves to no address")
            }
        }
    }
}

/// Resolves the address to listen on (`127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`).
pub fn resolve_addr(addr: &str) -> Result<SocketAddr, ServeError> {
    if let Ok(a) = addr.parse::<SocketAddr>() {
        return Ok(a);
    }
    let refused = |problem| ServeError::Setting {
        setting: Setting::Addr,
        problem,
    };
    addr.to_socket_addrs()
        .map_err(|e| {
            refused(SettingProblem::Unresolvable {
                addr: addr.to_string(),
                detail: e.to_string(),
            })
        })?
        .next()
        .ok_or_else(|| {
            refused(SettingProblem::NoAddress {
                addr: addr.to_string(),
            })
        })
}

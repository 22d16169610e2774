//! [`AppState`]: what every handler shares.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use urlkey::PolicySet;
use urlkey_batch::pipeline::Pipeline;

use crate::map_result::LastMap;
use crate::options::{Config, ServeError};

/// What the handlers share: the policies, the worker pool, the last map result.
pub struct AppState {
    pub(crate) set: PolicySet,
    pub(crate) pipeline: Pipeline,
    pub(crate) config: Config,
    /// The last map computed, so paging and filtering do not compute it again.
    pub(crate) last_map: LastMap,
    /// One map computation at a time: each already uses every worker thread.
    pub(crate) gate: tokio::sync::Semaphore,
    /// One permit per request-body byte held (`max_held_bytes` in all): a body is admitted
    /// only when its bytes fit, so memory is bounded however many requests arrive.
    pub(crate) held: Arc<tokio::sync::Semaphore>,
    /// The ledger shown at /ledger (`--ledger`), opened read-only per request (and
    /// read-write only to record a review decision, on loopback).
    pub(crate) ledger: Option<PathBuf>,
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
            urlkey_ledger::report::open_read_only(l).map_err(ServeError::Ledger)?;
        }
        Ok(Arc::new(AppState {
            set: PolicySet::builtin(),
            pipeline: Pipeline::new(config.threads).map_err(ServeError::Thread)?,
            config,
            last_map: LastMap::default(),
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
    /// and the loopback-only writes. Set once: [`crate::spawn`] and [`crate::run`] set it
    /// from the listener unless it was set before (a test can so say "bound elsewhere").
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

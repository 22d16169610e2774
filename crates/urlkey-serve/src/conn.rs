//! The accept loop: HTTP/1 connections through hyper's builder with a timer, under a cap.
//!
//! `axum::serve` installs no timer and no header timeout, so a client that sends half a
//! request head keeps its socket (and our file descriptor) for good. Here every connection
//! is served by `hyper::server::conn::http1::Builder` with hyper-util's `TokioTimer` and
//! `header_read_timeout`: hyper starts that clock as soon as it waits for a head, also
//! for a connection that sends nothing and for an idle keep-alive connection, and closes
//! the connection when it runs out. Body timeouts and size limits are tower-http layers
//! on the router ([`crate::router`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::router::app;
use crate::state::AppState;

/// File descriptors kept for the process itself (standard streams, the listener, the
/// runtime's epoll and wake-up descriptors, spare room) when the connection cap is fitted
/// under `ulimit -n`.
pub const FD_RESERVE: u64 = 32;

/// How often the server reports closed stalled connections (when there were any).
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// `requested`, lowered so that the open connections plus [`FD_RESERVE`] stay
/// under the soft `RLIMIT_NOFILE`: past it `accept` fails with EMFILE, and every client,
/// not only the stalled ones, is locked out.
pub fn connection_cap(requested: usize) -> usize {
    match fd_limit() {
        Some(limit) => {
            let room = limit.saturating_sub(FD_RESERVE).max(1);
            requested.min(usize::try_from(room).unwrap_or(usize::MAX))
        }
        None => requested,
    }
}

/// The soft `RLIMIT_NOFILE`, if there is one.
#[cfg(unix)]
fn fd_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn fd_limit() -> Option<u64> {
    None
}

/// Counts of connections that ended badly, for the periodic report.
#[derive(Default)]
struct Stats {
    header_timeouts: AtomicU64,
    other_errors: AtomicU64,
    accept_errors: AtomicU64,
}

impl Stats {
    fn note(&self, e: &hyper::Error) {
        if e.is_timeout() {
            self.header_timeouts.fetch_add(1, Ordering::Relaxed);
        } else if !e.is_incomplete_message() && !e.is_closed() && !e.is_canceled() {
            self.other_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// One line on standard error for what happened since the last report, if anything:
    /// a flood of stalled clients must be visible, but not as one line each.
    fn report(&self) {
        let t = self.header_timeouts.swap(0, Ordering::Relaxed);
        let o = self.other_errors.swap(0, Ordering::Relaxed);
        let a = self.accept_errors.swap(0, Ordering::Relaxed);
        if t + o + a > 0 {
            urlkey_batch::note!(
                "urlkey serve: closed {t} connection(s) that sent no complete request head within the request-head timeout, {o} that failed otherwise; {a} failed accept(s)"
            );
        }
    }
}

/// Accepts connections until the listener fails for good; never returns otherwise.
/// `cap` connections at most are open: the next is accepted only when one closes, and
/// until then it waits in the kernel's listen backlog, holding none of our descriptors.
pub async fn serve(listener: TcpListener, state: Arc<AppState>, cap: usize, log: bool) {
    let config = *state.config();
    if let Ok(local) = listener.local_addr() {
        state.set_bound(local);
    }
    let app = app(state);
    let slots = Arc::new(Semaphore::new(cap.max(1)));
    let stats = Arc::new(Stats::default());
    if log {
        let stats = stats.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(REPORT_EVERY);
            loop {
                tick.tick().await;
                stats.report();
            }
        });
    }
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .keep_alive(true);
    loop {
        // Take a slot before accepting, so that the cap bounds our descriptors.
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                // EMFILE/ENFILE (descriptors used elsewhere), ECONNABORTED (the client
                // left): not fatal. Pause briefly so a full table is not spun on.
                stats.accept_errors.fetch_add(1, Ordering::Relaxed);
                if log && stats.accept_errors.load(Ordering::Relaxed) == 1 {
                    urlkey_batch::note!("urlkey serve: accept failed: {e} (retrying)");
                }
                drop(slot);
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Small JSON answers: send them without waiting for Nagle's delayed ACK.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let stats = stats.clone();
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                stats.note(&e);
            }
            drop(slot);
        });
    }
}

//! Where a handler's work runs: CPU work off the async threads ([`blocking`]: the runtime
//! has one thread, which must keep answering), and the heavy work (map, diff, explain) one
//! request at a time on the map worker ([`map_worker`]), since each already uses every
//! worker thread.

use std::time::Instant;

use serde::Serialize;

use crate::error::ApiError;
use crate::state::AppState;

/// Runs CPU work off the async threads; a panic becomes an `internal` error.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) if e.is_panic() => Err(ApiError::internal(
            "the work panicked; please report the input",
        )),
        Err(_) => Err(ApiError::internal("the work was cancelled")),
    }
}

/// How long a request waited for the map worker (one map runs at a time).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Queue {
    /// Whether it had to wait for another map to finish.
    pub waited: bool,
    /// How long, in milliseconds.
    pub ms: f64,
}

impl Queue {
    /// No wait.
    pub fn none() -> Self {
        Queue {
            waited: false,
            ms: 0.0,
        }
    }
    /// A wait of `d`.
    pub fn waited(d: std::time::Duration) -> Self {
        Queue {
            waited: true,
            ms: d.as_secs_f64() * 1000.0,
        }
    }
}

/// Waits for the map worker (one map at a time: each uses every worker thread), and says
/// whether and how long this request waited.
pub(crate) async fn map_worker(
    st: &AppState,
) -> Result<(tokio::sync::SemaphorePermit<'_>, Queue), ApiError> {
    if let Ok(p) = st.gate.try_acquire() {
        return Ok((p, Queue::none()));
    }
    let start = Instant::now();
    let p = st
        .gate
        .acquire()
        .await
        .map_err(|_| ApiError::internal("the server is stopping"))?;
    Ok((p, Queue::waited(start.elapsed())))
}

//! Request bodies under the server's limits: at most `--max-body-bytes`, whole within
//! `--body-timeout`, and admitted only while the bytes held across all requests stay
//! under `--max-held-bytes`. [`read_body`] reads one; the JSON request extractor (`json_request.rs`) parses it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap};
use http_body_util::{BodyExt, LengthLimitError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::timeout::TimeoutError;

use crate::error::ApiError;
use crate::state::AppState;

/// Set by [`read_body`] once a request body has been read to its end, so that
/// the body middleware (`middleware.rs`) knows whether the connection can be reused.
#[derive(Clone, Default)]
pub(crate) struct BodyDone(Arc<AtomicBool>);

impl BodyDone {
    /// Whether the body was read to its end.
    pub fn is_done(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A request's share of `--max-held-bytes` (one permit per byte of its body): given back
/// when dropped, so keep it as long as the bytes, or what was parsed from them, are alive.
pub(crate) struct HeldShare {
    _permit: Option<OwnedSemaphorePermit>,
}

/// A request body read whole, with its share of `--max-held-bytes`.
pub(crate) struct HeldBody {
    pub bytes: Bytes,
    pub share: HeldShare,
}

/// The 413 answer: the body is over `--max-body-bytes`.
pub(crate) fn too_large(max: usize) -> ApiError {
    ApiError::new(
        "request.too-large",
        format!(
            "the body is larger than {max} bytes (--max-body-bytes): send less, or raise the flag"
        ),
    )
}

fn body_timeout(st: &AppState) -> ApiError {
    ApiError::new(
        "request.body-timeout",
        format!(
            "the body did not arrive within {} s (--body-timeout): send it at once, or raise the flag",
            st.config.body_timeout.as_secs()
        ),
    )
}

/// Takes `n` more permits of `held` (one per byte) into `permit`, at once or not at all:
/// a request never waits for memory (which could deadlock bodies that wait on each
/// other); it is told to come back (503, `Retry-After`).
fn reserve(
    held: &Arc<Semaphore>,
    permit: &mut Option<OwnedSemaphorePermit>,
    n: usize,
) -> Result<(), ApiError> {
    let mut left = n;
    let mut got: Option<OwnedSemaphorePermit> = None;
    while left > 0 {
        // acquire_many takes a u32; a body over 4 GiB is taken in pieces.
        let step = u32::try_from(left).unwrap_or(u32::MAX);
        match held.clone().try_acquire_many_owned(step) {
            Ok(p) => match got.as_mut() {
                Some(g) => g.merge(p),
                None => got = Some(p),
            },
            Err(_) => {
                return Err(ApiError::new(
                    "server.busy",
                    "the server holds as many request-body bytes as it may (--max-held-bytes): retry after the Retry-After seconds, or send a smaller body",
                ))
            }
        }
        left -= step as usize;
    }
    if let Some(g) = got {
        match permit.as_mut() {
            Some(p) => p.merge(g),
            None => *permit = Some(g),
        }
    }
    Ok(())
}

/// Whether `e` or one of its sources is a `T`.
fn caused_by<T: std::error::Error + 'static>(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if c.is::<T>() {
            return true;
        }
        cur = c.source();
    }
    false
}

/// Reads a JSON body of at most `max_body_bytes`, within `body_timeout`, holding its bytes'
/// share of `max_held_bytes`. A declared length is reserved whole before a byte is read
/// (admitted or refused at once); a chunked body is charged as its pieces arrive.
pub(crate) async fn read_body(
    st: &AppState,
    headers: &HeaderMap,
    done: &BodyDone,
    mut body: Body,
) -> Result<HeldBody, ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(ApiError::new(
            "request.unsupported-media-type",
            "send the body as JSON with the header Content-Type: application/json",
        ));
    }
    let max = st.config.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    // The limit layer has refused these already; checked again so that the reservation
    // below can never be larger than the cap.
    let declared = match declared {
        Some(n) if n > max as u64 => return Err(too_large(max)),
        Some(n) => Some(n as usize),
        None => None,
    };
    let mut permit = None;
    if let Some(n) = declared {
        reserve(&st.held, &mut permit, n)?;
    }
    let deadline = tokio::time::Instant::now() + st.config.body_timeout;
    let mut buf: Vec<u8> = Vec::with_capacity(declared.unwrap_or(0));
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(body_timeout(st)),
            Ok(None) => break,
            Ok(Some(Ok(frame))) => frame,
            Ok(Some(Err(e))) => {
                let e: &(dyn std::error::Error + 'static) = &e;
                return Err(if caused_by::<LengthLimitError>(e) {
                    too_large(max)
                } else if caused_by::<TimeoutError>(e) {
                    body_timeout(st)
                } else {
                    ApiError::new(
                        "request.body-unreadable",
                        format!("the body could not be read: {e}; send it again whole"),
                    )
                });
            }
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers: nothing to keep
        };
        let total = buf.len() + data.len();
        if total > max {
            return Err(too_large(max));
        }
        // Beyond the declared length hyper would fail the body; a chunked body is
        // charged piece by piece.
        let reserved = declared.unwrap_or(0);
        if total > reserved {
            reserve(&st.held, &mut permit, total - reserved.max(buf.len()))?;
        }
        buf.extend_from_slice(&data);
    }
    done.0.store(true, Ordering::Release);
    Ok(HeldBody {
        bytes: Bytes::from(buf),
        share: HeldShare { _permit: permit },
    })
}

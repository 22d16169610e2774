//! `POST /api/map` and `POST /api/map.csv`: `urlkey map` on posted text.
//!
//! A request is checked ([`request`]), waits for the map worker unless its result is the
//! one kept from the last request, runs the map engine of `urlkey map` ([`engine`]), and
//! is answered with one page of the table as JSON ([`page`]) or with the bytes of `urlkey
//! map --format csv`. The rows the page shows are the engine's own rows, taken through
//! its row sink ([`crate::map_result`]), so they say what `urlkey map --format jsonl`
//! says; the last result is kept, so paging and filtering do not recompute it.

mod engine;
mod page;
mod request;

use std::sync::Arc;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};

use crate::body::HeldShare;
use crate::error::ApiError;
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::{blocking, map_worker, Queue};
use request::{MapRequest, Paging, Prepared};

/// Which answer `POST /api/map` gives: `?format=json` (the default) or `?format=csv`.
/// Read before the body, so a wrong format is refused without reading it.
pub(crate) struct AnswerFormat {
    csv: bool,
}

impl FromRequestParts<Arc<AppState>> for AnswerFormat {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _st: &Arc<AppState>) -> Result<Self, ApiError> {
        Ok(AnswerFormat {
            csv: wants_csv(&parts.uri)?,
        })
    }
}

fn wants_csv(uri: &Uri) -> Result<bool, ApiError> {
    let mut csv = false;
    for pair in uri.query().unwrap_or("").split('&') {
        if let Some(v) = pair.strip_prefix("format=") {
            csv = match v {
                "csv" => true,
                "json" => false,
                other => {
                    return Err(ApiError::new(
                        "request.invalid-option",
                        format!("format {other:?}: use json or csv"),
                    ))
                }
            };
        }
    }
    Ok(csv)
}

/// `POST /api/map`: one page of the table as JSON, or (`?format=csv`) the CSV.
pub(crate) async fn map(
    format: AnswerFormat,
    State(st): State<Arc<AppState>>,
    request: JsonRequest<MapRequest>,
) -> Response {
    let result = if format.csv {
        csv_answer(st, request).await
    } else {
        json_answer(st, request).await
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

/// `POST /api/map.csv`: the bytes of `urlkey map --format csv`.
pub(crate) async fn map_csv(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<MapRequest>,
) -> Response {
    csv_answer(st, request)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// Checks a map request off the async threads, before it queues for the map worker: a
/// malformed request is refused at once, not after the maps ahead of it.
async fn check(
    st: &Arc<AppState>,
    request: JsonRequest<MapRequest>,
) -> Result<(Prepared, Paging, HeldShare), ApiError> {
    let st = st.clone();
    blocking(move || {
        let JsonRequest {
            value: mut req,
            held,
        } = request;
        let paging = request::paging(&req)?;
        // The text moves into `prepared`; the share of --max-held-bytes stays with the
        // request until the answer is built.
        let prepared = request::prepare(&st, &mut req)?;
        Ok((prepared, paging, held))
    })
    .await
}

async fn json_answer(
    st: Arc<AppState>,
    request: JsonRequest<MapRequest>,
) -> Result<Response, ApiError> {
    let (prepared, paging, held) = check(&st, request).await?;
    // Paging through the last result needs no worker.
    let (permit, queue) = match engine::cached(&st, &prepared) {
        Some(_) => (None, Queue::none()),
        None => {
            let (p, q) = map_worker(&st).await?;
            (Some(p), q)
        }
    };
    let st2 = st.clone();
    let out = blocking(move || {
        let (result, cached) = engine::compute(&st2, &prepared)?;
        drop(prepared);
        let out = page::respond(&result, cached, queue, &paging);
        drop(held);
        out
    })
    .await?;
    drop(permit);
    Ok((
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        out,
    )
        .into_response())
}

async fn csv_answer(
    st: Arc<AppState>,
    request: JsonRequest<MapRequest>,
) -> Result<Response, ApiError> {
    let (prepared, _paging, held) = check(&st, request).await?;
    let (permit, queue) = map_worker(&st).await?;
    let st2 = st.clone();
    let csv = blocking(move || {
        let csv = engine::map_csv(&st2, &prepared);
        drop(held);
        csv
    })
    .await?;
    drop(permit);
    let queue_ms =
        HeaderValue::from_str(&format!("{:.1}", queue.ms)).unwrap_or(HeaderValue::from_static("0"));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/csv; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=\"urlkey-map.csv\""),
            ),
            // The CSV has no room for it: the wait for the map worker is a header.
            (
                header::HeaderName::from_static("x-urlkey-queue-ms"),
                queue_ms,
            ),
        ],
        csv,
    )
        .into_response())
}

//! [`JsonRequest`]: the body of a POST endpoint, read within the limits ([`crate::body`])
//! and parsed as JSON off the async threads; any failure is the API's error answer.

use std::sync::Arc;

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::body::{read_body, BodyDone, HeldShare};
use crate::error::ApiError;
use crate::state::AppState;
use crate::worker::blocking;

/// A request body parsed as a `T`, with the request's share of `--max-held-bytes`.
///
/// As a handler argument it must come last (it takes the body); a handler that must
/// check something before the body is read calls [`JsonRequest::from_request`] itself.
pub(crate) struct JsonRequest<T> {
    /// The parsed body.
    pub value: T,
    /// The body's share of `--max-held-bytes`: the bytes are freed once parsed, but the
    /// share covers what was parsed from them, so drop it when the answer is built.
    pub held: HeldShare,
}

impl<T: DeserializeOwned + Send + 'static> FromRequest<Arc<AppState>> for JsonRequest<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, st: &Arc<AppState>) -> Result<Self, ApiError> {
        // Put there by the body middleware on every request; a missing one only means
        // the connection is closed after the answer.
        let done = req
            .extensions()
            .get::<BodyDone>()
            .cloned()
            .unwrap_or_default();
        let (parts, body) = req.into_parts();
        let body = read_body(st, &parts.headers, &done, body).await?;
        // A large body takes a while to parse: not on the runtime's only thread.
        blocking(move || {
            let value = serde_json::from_slice(&body.bytes).map_err(|e| ApiError::from_json(&e))?;
            Ok(JsonRequest {
                value,
                held: body.share,
            })
        })
        .await
    }
}

//! `POST /api/inspect`: `urlkey inspect` for one input (the page's Inspect view).

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use crate::error::{json_or_error, to_json, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::blocking;

/// The body of `POST /api/inspect`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InspectRequest {
    #[serde(alias = "url")]
    input: String,
    /// The policy id (default `webkey@1`, as `urlkey inspect`).
    #[serde(default = "default_policy")]
    policy: String,
}

fn default_policy() -> String {
    urlkey::policy::defaults::INSPECT.into()
}

/// `POST /api/inspect`.
pub(crate) async fn inspect(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<InspectRequest>,
) -> Response {
    json_or_error(
        blocking(move || {
            let JsonRequest {
                value: req,
                held: _held,
            } = request;
            let policy = st.set.get(&req.policy).map_err(|e| ApiError::policy(&e))?;
            let i = urlkey::inspect(&req.input, &st.set, &policy);
            to_json(&i)
        })
        .await,
    )
}

//! `POST /api/key`: `urlkey key` for one input (the page's Key view).

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use crate::error::{json_or_error, to_json, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::blocking;

/// The body of `POST /api/key`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeyRequest {
    #[serde(alias = "url")]
    input: String,
    /// The policy id (default `citation@1`, as `urlkey key`).
    #[serde(default = "default_policy")]
    policy: String,
    /// The base URL relative input is resolved against (policies that accept one).
    #[serde(default)]
    base: Option<String>,
}

fn default_policy() -> String {
    urlkey::policy::defaults::KEY.into()
}

#[derive(Serialize)]
struct KeyResponse<'a> {
    policy: &'a str,
    input: &'a str,
    status: urlkey::Status,
    #[serde(flatten)]
    outcome: &'a urlkey::Outcome,
}

/// `POST /api/key`.
pub(crate) async fn key(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<KeyRequest>,
) -> Response {
    json_or_error(
        blocking(move || {
            let JsonRequest {
                value: req,
                held: _held,
            } = request;
            let policy = st.set.get(&req.policy).map_err(|e| ApiError::policy(&e))?;
            if req.base.is_some() && !policy.accepts_base() {
                return Err(ApiError::new(
                    "request.invalid-option",
                    format!(
                        "base: policy {} does not resolve relative input (whatwg@1 does)",
                        policy.id()
                    ),
                ));
            }
            let outcome = policy.key_with_base(&req.input, req.base.as_deref());
            to_json(&KeyResponse {
                policy: policy.id(),
                input: &req.input,
                status: outcome.status(),
                outcome: &outcome,
            })
        })
        .await,
    )
}

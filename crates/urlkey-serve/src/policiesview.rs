//! `GET /api/policies`: the policies the page offers, the policy each view starts with,
//! and the limits the page tells its user about.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use crate::error::json_response;
use crate::state::AppState;

/// The policy each view starts with: the default of its command (`map`, `key`,
/// `inspect`, `explain`); `urlkey diff` has none, so the page's pair starts with the move
/// from the Mapper's policy to the web key.
#[derive(Serialize)]
struct Defaults {
    map: &'static str,
    key: &'static str,
    inspect: &'static str,
    explain: &'static str,
    diff_from: &'static str,
    diff_to: &'static str,
}

/// `GET /api/policies`.
pub(crate) async fn policies(State(st): State<Arc<AppState>>) -> Response {
    let body = serde_json::json!({
        "policies": st.set.list(),
        "psl": st.set.psl().version(),
        "defaults": Defaults {
            map: urlkey::policy::defaults::MAP,
            key: urlkey::policy::defaults::KEY,
            inspect: urlkey::policy::defaults::INSPECT,
            explain: urlkey::policy::defaults::EXPLAIN,
            diff_from: urlkey::policy::defaults::DIFF_FROM,
            diff_to: urlkey::policy::defaults::DIFF_TO,
        },
        "max_body_bytes": st.config.max_body_bytes,
        "max_held_bytes": st.config.max_held_bytes,
        "body_timeout_secs": st.config.body_timeout.as_secs(),
    });
    json_response(StatusCode::OK, &body)
}

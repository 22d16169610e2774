//! `POST /api/ledger/review`: one review decision from the ledger page's queue, recorded
//! through the ledger crate's `review::add` (the code path of `urlkey ledger review add`:
//! same validation, allowed values, reviewer and time fields). It is the only path that
//! opens the ledger read-write, and it is refused unless the server is bound to loopback
//! (`review.writes-refused`) and the request carries this run's token in `X-Urlkey-Token`
//! (`review.bad-token`, compared in constant time): another page, or a server reachable
//! from other machines, cannot write.

use std::sync::Arc;

use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::error::{json_response, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::blocking;

/// A decision posted by the review queue: the fields of `urlkey ledger review add`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewRequest {
    observation: Option<String>,
    key: Option<String>,
    policy: Option<String>,
    role: Option<String>,
    claim_support: Option<String>,
    merge: Option<String>,
    reviewer: String,
    note: Option<String>,
}

/// Equal in constant time for equal lengths (the token's length is not a secret).
fn same_token(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `POST /api/ledger/review`: records one decision through `urlkey_ledger::review::add`.
pub(crate) async fn review(State(st): State<Arc<AppState>>, req: Request) -> Response {
    // Refused before the body is read: a refused write costs no body.
    let Some(path) = st.ledger.clone() else {
        return ApiError::no_ledger().into_response();
    };
    if !st.writes_allowed() {
        return ApiError::new(
            "review.writes-refused",
            "review decisions are written only when `urlkey serve` is bound to a loopback address: use `urlkey ledger review add`",
        )
        .into_response();
    }
    let given = req
        .headers()
        .get("x-urlkey-token")
        .map(|v| v.as_bytes())
        .unwrap_or(b"");
    if !same_token(given, st.token().as_bytes()) {
        return ApiError::new(
            "review.bad-token",
            "the X-Urlkey-Token header is missing or wrong: send the decision from this run's ledger page",
        )
        .into_response();
    }
    let work = async move {
        let request = JsonRequest::<ReviewRequest>::from_request(req, &st).await?;
        blocking(move || {
            let JsonRequest {
                value: req,
                held: _held,
            } = request;
            let d = urlkey_ledger::review::Decision {
                observation: req.observation,
                key: req.key,
                policy: req.policy,
                role: req.role,
                claim_support: req.claim_support,
                merge: req.merge,
                reviewer: req.reviewer,
                note: req.note,
            };
            let conn = urlkey_ledger::db::open(&path, false).map_err(ApiError::ledger)?;
            let id = urlkey_ledger::review::add(&conn, &d).map_err(ApiError::ledger)?;
            Ok(id)
        })
        .await
    };
    match work.await {
        Ok(id) => json_response(StatusCode::OK, &serde_json::json!({ "review_id": id })),
        Err(e) => e.into_response(),
    }
}

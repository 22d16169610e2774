//! The routes: which handler answers which path, and the layers around them. Every
//! handler lives with its view; nothing else is read from disk.

use std::sync::Arc;

use axum::http::Uri;
use axum::routing::{get, post};
use axum::Router;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::error::ApiError;
use crate::middleware::{body_policy, host_check, security_headers};
use crate::state::AppState;
use crate::{
    assets, diffview, explainview, inspectview, keyview, ledgerview, mapview, policiesview,
    redirectsview, reviewview,
};

/// The router: `GET /` (also `/index.html`), `/app.js`, `/redirects.js`, `/app.css`;
/// `GET /api/policies`; `POST /api/map` (`?format=csv` for the CSV), `/api/map.csv`,
/// `/api/key`, `/api/inspect`, `/api/explain` (the Compare view), `/api/diff` (the
/// Mapper's policy pair), `/api/redirects/propose` (the Redirects view); with `--ledger DB`, `GET /ledger`, `/ledger.css`, `/ledger.js` and `/api/ledger`
/// (the ledger, read-only) and `POST /api/ledger/review` (a review decision). Anything
/// else is a JSON 404.
///
/// Layers, outermost first: the security headers; the Host check (421); the body policy
/// (JSON 413 and `Connection: close` after an unread body); tower-http's request-body
/// limit (413 on a declared length at once, and on a chunked body as soon as it passes
/// the cap, not after reading it all); tower-http's body timeout (a body that pauses
/// longer than `--body-timeout` fails, 408).
pub fn app(state: Arc<AppState>) -> Router {
    let config = *state.config();
    Router::new()
        .route("/", get(assets::index))
        .route("/index.html", get(assets::index))
        .route("/app.js", get(assets::app_js))
        .route("/redirects.js", get(assets::redirects_js))
        .route("/app.css", get(assets::app_css))
        .route("/api/policies", get(policiesview::policies))
        .route("/api/map", post(mapview::map))
        .route("/api/map.csv", post(mapview::map_csv))
        .route("/api/key", post(keyview::key))
        .route("/api/inspect", post(inspectview::inspect))
        .route("/api/explain", post(explainview::explain))
        .route("/api/diff", post(diffview::diff))
        .route("/api/redirects/propose", post(redirectsview::propose))
        .route("/ledger", get(ledgerview::page))
        .route("/ledger.css", get(ledgerview::css))
        .route("/api/ledger", get(ledgerview::json))
        .route("/ledger.js", get(ledgerview::js))
        .route("/api/ledger/review", post(reviewview::review))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(RequestBodyTimeoutLayer::new(config.body_timeout))
        .layer(RequestBodyLimitLayer::new(config.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            body_policy,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            host_check,
        ))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::new("request.not-found", format!("no such path: {}", uri.path()))
}

async fn method_not_allowed(uri: Uri) -> ApiError {
    ApiError::new(
        "request.method-not-allowed",
        format!(
            "{} does not take this method (GET for the pages, /api/policies and /api/ledger, POST for the other /api paths)",
            uri.path()
        ),
    )
}

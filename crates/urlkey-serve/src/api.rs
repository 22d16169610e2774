//! The routes: the page's three files and the JSON API.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::{Deserialize, Serialize};

use crate::error::{json_response, to_json, ApiError};
use crate::mapview::{self, MapRequest};
use crate::{assets, AppState};

/// The router: `GET /` (also `/index.html`), `/app.js`, `/app.css`; `GET /api/policies`;
/// `POST /api/map` (`?format=csv` for the CSV), `/api/map.csv`, `/api/key`,
/// `/api/inspect`. Anything else is a JSON 404; nothing is read from disk.
pub fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/api/policies", get(policies))
        .route("/api/map", post(map))
        .route("/api/map.csv", post(map_csv))
        .route("/api/key", post(key))
        .route("/api/inspect", post(inspect))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

/// Headers on every response, errors included.
async fn security_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(crate::CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", assets::INDEX_HTML)
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", assets::APP_JS)
}

async fn app_css() -> Response {
    asset("text/css; charset=utf-8", assets::APP_CSS)
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::new("request.not-found", format!("no such path: {}", uri.path()))
}

async fn method_not_allowed(uri: Uri) -> ApiError {
    ApiError::new(
        "request.method-not-allowed",
        format!(
            "{} does not take this method (GET for the page and /api/policies, POST for the other /api paths)",
            uri.path()
        ),
    )
}

#[derive(Serialize)]
struct Defaults {
    map: &'static str,
    key: &'static str,
    inspect: &'static str,
}

async fn policies(State(st): State<Arc<AppState>>) -> Response {
    let body = serde_json::json!({
        "policies": st.set.list(),
        "psl": st.set.psl().version(),
        "defaults": Defaults { map: "mapper@1", key: "citation@1", inspect: "webkey@1" },
        "max_body_bytes": st.config.max_body_bytes,
    });
    json_response(StatusCode::OK, &body)
}

/// Reads a JSON body of at most `max_body_bytes`.
async fn read_body(st: &AppState, headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
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
    let too_large = || {
        ApiError::new(
            "request.too-large",
            format!("the body is larger than {max} bytes (--max-body-bytes)"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    match Limited::new(body, max).collect().await {
        Ok(c) => Ok(c.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Err(e) => Err(ApiError::new(
            "request.body-unreadable",
            format!("the body could not be read: {e}"),
        )),
    }
}

/// Runs CPU work off the async threads; a panic becomes an `internal` error.
async fn blocking<T: Send + 'static>(
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

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::from_json(&e))
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

async fn map(
    State(st): State<Arc<AppState>>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let result = match wants_csv(&uri) {
        Ok(true) => map_csv_inner(st, headers, body).await,
        Ok(false) => map_inner(st, headers, body).await,
        Err(e) => Err(e),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

async fn map_inner(
    st: Arc<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(&st, &headers, body).await?;
    let _permit = st
        .gate
        .acquire()
        .await
        .map_err(|_| ApiError::internal("the server is stopping"))?;
    let st = st.clone();
    let out = blocking(move || {
        let mut req: MapRequest = parse(&bytes)?;
        drop(bytes);
        let (class, page, size, invalid_page) = mapview::paging(&req)?;
        let prepared = mapview::prepare(&st, &mut req)?;
        let (result, cached) = mapview::compute(&st, &prepared)?;
        mapview::respond(&result, cached, &class, page, size, invalid_page)
    })
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        out,
    )
        .into_response())
}

async fn map_csv(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    map_csv_inner(st, headers, body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn map_csv_inner(
    st: Arc<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(&st, &headers, body).await?;
    let _permit = st
        .gate
        .acquire()
        .await
        .map_err(|_| ApiError::internal("the server is stopping"))?;
    let st = st.clone();
    let csv = blocking(move || {
        let mut req: MapRequest = parse(&bytes)?;
        drop(bytes);
        mapview::paging(&req)?;
        let prepared = mapview::prepare(&st, &mut req)?;
        mapview::map_csv(&st, &prepared)
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"urlkey-map.csv\"",
            ),
        ],
        csv,
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyRequest {
    #[serde(alias = "url")]
    input: String,
    #[serde(default = "default_key_policy")]
    policy: String,
    #[serde(default)]
    base: Option<String>,
}

fn default_key_policy() -> String {
    "citation@1".into()
}

#[derive(Serialize)]
struct KeyResponse<'a> {
    policy: &'a str,
    input: &'a str,
    status: urlkey::Status,
    #[serde(flatten)]
    outcome: &'a urlkey::Outcome,
}

async fn key(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let work = async move {
        let bytes = read_body(&st, &headers, body).await?;
        blocking(move || {
            let req: KeyRequest = parse(&bytes)?;
            let policy = st
                .set
                .get(&req.policy)
                .map_err(|e| ApiError::new("policy.unknown", e.to_string()))?;
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
        .await
    };
    match work.await {
        Ok(b) => (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            b,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InspectRequest {
    #[serde(alias = "url")]
    input: String,
    #[serde(default = "default_inspect_policy")]
    policy: String,
}

fn default_inspect_policy() -> String {
    "webkey@1".into()
}

async fn inspect(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let work = async move {
        let bytes = read_body(&st, &headers, body).await?;
        blocking(move || {
            let req: InspectRequest = parse(&bytes)?;
            let policy = st
                .set
                .get(&req.policy)
                .map_err(|e| ApiError::new("policy.unknown", e.to_string()))?;
            let i = urlkey::inspect(&req.input, &st.set, &policy);
            to_json(&i)
        })
        .await
    };
    match work.await {
        Ok(b) => (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            b,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

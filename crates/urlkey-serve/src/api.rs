//! The routes: the page's three files and the JSON API.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Extension, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError};
use serde::{Deserialize, Serialize};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutError};

use crate::error::{json_or_error, json_response, to_json, ApiError};
use crate::mapview::{self, MapRequest, Queue};
use crate::{assets, AppState};

/// The router: `GET /` (also `/index.html`), `/app.js`, `/app.css`; `GET /api/policies`;
/// `POST /api/map` (`?format=csv` for the CSV), `/api/map.csv`, `/api/key`,
/// `/api/inspect`, `/api/explain` (the Compare view: [`crate::explainview`]), `/api/diff`
/// (the Mapper's policy pair: [`crate::diffview`]); with `--ledger DB`, `GET /ledger`, `/ledger.css` and `/api/ledger`
/// (the ledger, read-only: [`crate::ledgerview`]). Anything else is a JSON 404; nothing
/// else is read from disk.
///
/// Layers, outermost first: the security headers; [`body_policy`] (JSON 413 and
/// `Connection: close` after an unread body); tower-http's request-body limit (413 on a
/// declared length at once, and on a chunked body as soon as it passes the cap, not after
/// reading it all); tower-http's body timeout (a body that pauses longer than
/// `--body-timeout` fails, 408).
pub fn app(state: Arc<AppState>) -> Router {
    let config = *state.config();
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
        .route("/api/explain", post(crate::explainview::explain))
        .route("/api/diff", post(crate::diffview::diff))
        .route("/ledger", get(crate::ledgerview::page))
        .route("/ledger.css", get(crate::ledgerview::css))
        .route("/api/ledger", get(crate::ledgerview::json))
        .route("/ledger.js", get(crate::ledgerview::js))
        .route("/api/ledger/review", post(crate::ledgerview::review))
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

/// Set by [`read_body`] once a request body has been read to its end.
#[derive(Clone, Default)]
pub(crate) struct BodyDone(Arc<AtomicBool>);

/// After a response to a request whose body was not read to its end (415, a 413 on the
/// declared length, a 404, a 503), hyper cannot reuse the connection and closes it; a
/// keep-alive client that was not told would send its next request into a closed socket
/// (a broken pipe). So such a response says `Connection: close`. A body that was read
/// (a 400 for bad JSON, say) leaves the connection open.
///
/// Also turns tower-http's plain-text 413 into the API's JSON error.
async fn body_policy(State(st): State<Arc<AppState>>, mut req: Request, next: Next) -> Response {
    let has_body = !req.body().is_end_stream();
    let done = BodyDone::default();
    req.extensions_mut().insert(done.clone());
    let mut res = next.run(req).await;
    let json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if res.status() == StatusCode::PAYLOAD_TOO_LARGE && !json {
        res = too_large(st.config.max_body_bytes).into_response();
    }
    if has_body && !done.0.load(Ordering::Acquire) {
        res.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    res
}

/// The Host values the server answers to: its bound `addr:port`, and `127.0.0.1`,
/// `localhost` and `[::1]` with the bound port (ASCII case ignored); on port 80 also these
/// names without the port, as browsers send them.
pub(crate) fn host_allowed(bound: Option<std::net::SocketAddr>, host: &str) -> bool {
    let Some(bound) = bound else {
        return false;
    };
    let port = bound.port();
    let host = host.trim();
    let names = ["127.0.0.1", "localhost", "[::1]"];
    host.eq_ignore_ascii_case(&bound.to_string())
        || names
            .iter()
            .any(|n| host.eq_ignore_ascii_case(&format!("{n}:{port}")))
        // On port 80 a browser sends the name alone.
        || (port == 80
            && (names.iter().any(|n| host.eq_ignore_ascii_case(n))
                || host.eq_ignore_ascii_case(&bound.ip().to_string())))
}

/// Every path answers only to the Host values of [`host_allowed`]; anything else (a
/// DNS-rebinding page's name, a missing Host) gets 421 before any handler runs, so a page
/// served from another name can never read or write through this server.
async fn host_check(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if host_allowed(st.bound(), host) {
        return next.run(req).await;
    }
    let mut res = ApiError::new(
        "request.misdirected",
        format!(
            "Host {host:?} is not this server's: use {} (or 127.0.0.1, localhost, [::1] with its port)",
            st.bound().map(|b| b.to_string()).unwrap_or_default()
        ),
    )
    .into_response();
    // The body may not have been read: do not reuse the connection.
    res.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    res
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
            "{} does not take this method (GET for the pages, /api/policies and /api/ledger, POST for the other /api paths)",
            uri.path()
        ),
    )
}

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

async fn policies(State(st): State<Arc<AppState>>) -> Response {
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

fn too_large(max: usize) -> ApiError {
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

/// A request body read whole, with its share of `--max-held-bytes`: the share is given
/// back when this is dropped, so keep it as long as the bytes (or what was parsed from
/// them) are alive.
pub(crate) struct HeldBody {
    pub bytes: Bytes,
    pub permit: Option<OwnedSemaphorePermit>,
}

impl HeldBody {
    /// Parses the body as JSON and frees its bytes at once (the parsed value holds its own
    /// copy of the text): what is left is the share of `--max-held-bytes`, to keep until
    /// the answer is built.
    pub(crate) fn parse<T: serde::de::DeserializeOwned>(
        self,
    ) -> Result<(T, Option<OwnedSemaphorePermit>), ApiError> {
        let value = parse(&self.bytes)?;
        Ok((value, self.permit))
    }
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
        permit,
    })
}

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
    Extension(done): Extension<BodyDone>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let result = match wants_csv(&uri) {
        Ok(true) => map_csv_inner(st, headers, done, body).await,
        Ok(false) => map_inner(st, headers, done, body).await,
        Err(e) => Err(e),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

/// Parses and checks a map request off the async threads, before it queues for the map
/// worker: a malformed body is refused at once, not after the maps ahead of it.
async fn validate_map(
    st: &Arc<AppState>,
    held: HeldBody,
) -> Result<(mapview::Prepared, mapview::Paging, HeldBody), ApiError> {
    let st = st.clone();
    blocking(move || {
        let (mut req, permit): (MapRequest, _) = held.parse()?;
        let paging = mapview::paging(&req)?;
        // The text moves into `prepared`; the share of --max-held-bytes (the permit)
        // stays with the request until the answer is built.
        let prepared = mapview::prepare(&st, &mut req)?;
        let held = HeldBody {
            bytes: Bytes::new(),
            permit,
        };
        Ok((prepared, paging, held))
    })
    .await
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

async fn map_inner(
    st: Arc<AppState>,
    headers: HeaderMap,
    done: BodyDone,
    body: Body,
) -> Result<Response, ApiError> {
    let held = read_body(&st, &headers, &done, body).await?;
    let (prepared, paging, held) = validate_map(&st, held).await?;
    // Paging through the last result needs no worker.
    let (permit, queue) = match mapview::cached(&st, &prepared) {
        Some(_) => (None, Queue::none()),
        None => {
            let (p, q) = map_worker(&st).await?;
            (Some(p), q)
        }
    };
    let st2 = st.clone();
    let out = blocking(move || {
        let (result, cached) = mapview::compute(&st2, &prepared)?;
        drop(prepared);
        let out = mapview::respond(&result, cached, queue, &paging);
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

async fn map_csv(
    State(st): State<Arc<AppState>>,
    Extension(done): Extension<BodyDone>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    map_csv_inner(st, headers, done, body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn map_csv_inner(
    st: Arc<AppState>,
    headers: HeaderMap,
    done: BodyDone,
    body: Body,
) -> Result<Response, ApiError> {
    let held = read_body(&st, &headers, &done, body).await?;
    let (prepared, _paging, held) = validate_map(&st, held).await?;
    let (permit, queue) = map_worker(&st).await?;
    let st2 = st.clone();
    let csv = blocking(move || {
        let csv = mapview::map_csv(&st2, &prepared);
        drop(held);
        csv
    })
    .await?;
    drop(permit);
    let queue_ms = HeaderValue::from_str(&format!("{:.1}", queue.ms()))
        .unwrap_or(HeaderValue::from_static("0"));
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

async fn key(
    State(st): State<Arc<AppState>>,
    Extension(done): Extension<BodyDone>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let work = async move {
        let held = read_body(&st, &headers, &done, body).await?;
        blocking(move || {
            let (req, _permit): (KeyRequest, _) = held.parse()?;
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
        .await
    };
    json_or_error(work.await)
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
    urlkey::policy::defaults::INSPECT.into()
}

async fn inspect(
    State(st): State<Arc<AppState>>,
    Extension(done): Extension<BodyDone>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let work = async move {
        let held = read_body(&st, &headers, &done, body).await?;
        blocking(move || {
            let (req, _permit): (InspectRequest, _) = held.parse()?;
            let policy = st.set.get(&req.policy).map_err(|e| ApiError::policy(&e))?;
            let i = urlkey::inspect(&req.input, &st.set, &policy);
            to_json(&i)
        })
        .await
    };
    json_or_error(work.await)
}

#[cfg(test)]
mod tests {
    use super::host_allowed;

    #[test]
    fn hosts_are_the_bound_address_and_loopback_names_with_the_port() {
        let b = Some("127.0.0.1:8080".parse().unwrap());
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
        ] {
            assert!(host_allowed(b, ok), "{ok}");
        }
        for bad in [
            "",
            "localhost",
            "127.0.0.1",
            "evil.example:8080",
            "localhost:80",
            "127.0.0.1:8081",
        ] {
            assert!(!host_allowed(b, bad), "{bad}");
        }
        let b80 = Some("127.0.0.1:80".parse().unwrap());
        assert!(host_allowed(b80, "localhost") && host_allowed(b80, "127.0.0.1"));
        assert!(!host_allowed(b80, "evil.example"));
        let lan = Some("192.0.2.1:8080".parse().unwrap());
        assert!(host_allowed(lan, "192.0.2.1:8080") && host_allowed(lan, "localhost:8080"));
        assert!(!host_allowed(None, "127.0.0.1:8080"));
    }
}

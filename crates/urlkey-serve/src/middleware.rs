//! The layers every request passes, outermost first: [`security_headers`] on every
//! answer, [`host_check`] (421 before any handler runs), [`body_policy`] (JSON 413, and
//! `Connection: close` after an unread body). The body limit and timeout layers of
//! tower-http sit inside them (`router.rs` puts them in order).

use std::sync::Arc;

use axum::body::HttpBody;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::body::{too_large, BodyDone};
use crate::error::ApiError;
use crate::state::AppState;

/// The Content-Security-Policy sent with every response.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// After a response to a request whose body was not read to its end (415, a 413 on the
/// declared length, a 404, a 503), hyper cannot reuse the connection and closes it; a
/// keep-alive client that was not told would send its next request into a closed socket
/// (a broken pipe). So such a response says `Connection: close`. A body that was read
/// (a 400 for bad JSON, say) leaves the connection open.
///
/// Also turns tower-http's plain-text 413 into the API's JSON error.
pub(crate) async fn body_policy(
    State(st): State<Arc<AppState>>,
    mut req: Request,
    next: Next,
) -> Response {
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
    if has_body && !done.is_done() {
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
pub(crate) async fn host_check(
    State(st): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
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
pub(crate) async fn security_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
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

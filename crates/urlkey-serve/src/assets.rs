//! The page, compiled into the binary: the server reads no file at run time.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// `GET /`.
pub const INDEX_HTML: &str = include_str!("../static/index.html");
/// `GET /app.js`.
pub const APP_JS: &str = include_str!("../static/app.js");
/// `GET /redirects.js`: the Redirects view (its own file: app.js holds the other views).
pub const REDIRECTS_JS: &str = include_str!("../static/redirects.js");
/// `GET /app.css`.
pub const APP_CSS: &str = include_str!("../static/app.css");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// `GET /` and `GET /index.html`.
pub(crate) async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

/// `GET /app.js`.
pub(crate) async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", APP_JS)
}

/// `GET /redirects.js`.
pub(crate) async fn redirects_js() -> Response {
    asset("text/javascript; charset=utf-8", REDIRECTS_JS)
}

/// `GET /app.css`.
pub(crate) async fn app_css() -> Response {
    asset("text/css; charset=utf-8", APP_CSS)
}

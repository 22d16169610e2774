//! The page, compiled into the binary: the server reads no file at run time.

/// `GET /`.
pub const INDEX_HTML: &str = include_str!("../static/index.html");
/// `GET /app.js`.
pub const APP_JS: &str = include_str!("../static/app.js");
/// `GET /app.css`.
pub const APP_CSS: &str = include_str!("../static/app.css");

//! API errors: an HTTP status and a body `{"error": {"code": "...", "message": "..."}}`.
//! Codes are stable (documented in docs/cli.md); messages are for people.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use urlkey::ErrorCode;

/// Every error code the API answers with, its HTTP status, and when.
pub const CODES: [(&str, u16, &str); 18] = [
    (
        "request.not-found",
        404,
        "no such path (the server answers only the page and /api/...)",
    ),
    (
        "request.method-not-allowed",
        405,
        "the path exists but not with this method",
    ),
    (
        "request.unsupported-media-type",
        415,
        "a POST body must be sent as Content-Type: application/json",
    ),
    (
        "request.too-large",
        413,
        "the body is larger than --max-body-bytes",
    ),
    (
        "request.body-unreadable",
        400,
        "the body could not be read to its end",
    ),
    (
        "request.body-timeout",
        408,
        "the body did not arrive whole within --body-timeout seconds",
    ),
    ("request.invalid-json", 400, "the body is not JSON"),
    (
        "request.invalid-field",
        400,
        "a field is missing, unknown or of the wrong type",
    ),
    (
        "request.invalid-option",
        400,
        "a field has a value outside what it accepts (input_format, page_size, ...)",
    ),
    // The policy errors' codes and words are the core's table's (`urlkey::ErrorCode`).
    (
        ErrorCode::PolicyUnknown.as_str(),
        400,
        ErrorCode::PolicyUnknown.description(),
    ),
    (
        ErrorCode::PolicyUnknownOption.as_str(),
        400,
        ErrorCode::PolicyUnknownOption.description(),
    ),
    (
        "input.unreadable",
        400,
        "the text cannot be read in the given shape (e.g. no such CSV column)",
    ),
    (
        "map.fingerprint-collision",
        500,
        "two keys share a 128-bit fingerprint (please report the input)",
    ),
    (
        "server.busy",
        503,
        "the request bodies held at once would pass --max-held-bytes: retry after Retry-After seconds",
    ),
    (
        "request.misdirected",
        421,
        "the Host header is not the bound address nor 127.0.0.1, localhost or [::1] with its port",
    ),
    (
        "review.writes-refused",
        403,
        "review decisions are written only when the server is bound to a loopback address",
    ),
    (
        "review.bad-token",
        403,
        "the X-Urlkey-Token header is missing or is not this run's token (shown in the ledger page)",
    ),
    ("internal", 500, "a bug: the work stopped unexpectedly"),
];

/// One API error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable code (one of [`CODES`]).
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
}

impl ApiError {
    /// An error with the status its code has in [`CODES`] (500 for an unknown code).
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        let status = CODES
            .iter()
            .find(|c| c.0 == code)
            .and_then(|c| StatusCode::from_u16(c.1).ok())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// A body that serde_json refused: bad syntax or a bad field.
    pub fn from_json(e: &serde_json::Error) -> Self {
        use serde_json::error::Category;
        match e.classify() {
            Category::Data => ApiError::new("request.invalid-field", e.to_string()),
            Category::Syntax | Category::Eof | Category::Io => {
                ApiError::new("request.invalid-json", format!("the body is not JSON: {e}"))
            }
        }
    }

    /// A policy that cannot be had, under its own code ([`urlkey::PolicyError::code`]).
    pub fn policy(e: &urlkey::PolicyError) -> Self {
        ApiError::new(e.code().as_str(), e.to_string())
    }

    /// A ledger that cannot be read, or a request the ledger refuses (`invalid-option`),
    /// in the page's words ([`ledger_words`]).
    pub fn ledger(e: urlkey_ledger::LedgerError) -> Self {
        let message = ledger_words(&e);
        if e.exit() == urlkey_batch::exit::Exit::Usage {
            ApiError::new("request.invalid-option", message)
        } else {
            ApiError::new("input.unreadable", format!("the ledger: {message}"))
        }
    }

    /// A ledger path asked for when the server serves no ledger.
    pub fn no_ledger() -> Self {
        ApiError::new(
            "request.not-found",
            "no ledger is served: start the server with `urlkey serve --ledger DB`",
        )
    }

    /// An internal failure.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new("internal", message)
    }
}

/// A ledger error as the page and the API say it: the ledger names each setting by its
/// field (`window`, `claim_support`), which is the page's query parameter or the review's
/// JSON field; where the ledger's words say "choose one", the page says how.
pub fn ledger_words(e: &urlkey_ledger::LedgerError) -> String {
    use urlkey_ledger::ErrorKind;
    match e.kind() {
        ErrorKind::SeveralPolicies { .. } => format!("{e} with the policy option"),
        ErrorKind::NothingToCompare => {
            "compare two collections (compare=A&compare=B) or two windows (window=FROM..TO \
             given twice)"
                .to_string()
        }
        _ => e.to_string(),
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status, self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": { "code": self.code, "message": self.message }
        });
        let mut res = json_response(self.status, &body);
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            // Held bytes are given back as soon as the requests ahead are answered.
            res.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        res
    }
}

/// Serializes `value` as JSON with `<`, `>` and `&` written as `\u003c`, `\u003e` and
/// `\u0026`: still the same JSON, but no byte of it can be read as markup.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, ApiError> {
    let bytes = serde_json::to_vec(value).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(escape_markup(bytes))
}

/// Rewrites `<`, `>` and `&` in serialized JSON as `\u` escapes. Outside strings JSON has
/// none of them, so the result is the same JSON value.
pub fn escape_markup(bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.iter().any(|b| matches!(b, b'<' | b'>' | b'&')) {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len() + 64);
    for b in bytes {
        match b {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            _ => out.push(b),
        }
    }
    out
}

/// The answer of a handler whose work gives serialized JSON (from [`to_json`]) or an error.
pub fn json_or_error(work: Result<Vec<u8>, ApiError>) -> Response {
    match work {
        Ok(bytes) => (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            bytes,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

/// A JSON response (serialization cannot fail for the types used; if it did, a fixed
/// `internal` error is sent instead).
pub fn json_response<T: serde::Serialize + ?Sized>(status: StatusCode, value: &T) -> Response {
    match to_json(value) {
        Ok(bytes) => (
            status,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            bytes,
        )
            .into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            r#"{"error":{"code":"internal","message":"the response could not be serialized"}}"#,
        )
            .into_response(),
    }
}

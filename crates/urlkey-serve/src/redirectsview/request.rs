//! The body of `POST /api/redirects/propose`, checked: the policy, and for each side
//! (OLD, NEW) its text with the reader settings of `/api/map` plus an optional title
//! column ([`Prepared`]).

use axum::body::Bytes;
use serde::Deserialize;
use urlkey::Policy;
use urlkey_batch::input::{KeepColumns, ReadOptions, Setting};

use crate::error::ApiError;
use crate::state::AppState;
use crate::textinput::read_options;

/// One inventory as posted: the text as a file would hold it, and how to read it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SideRequest {
    /// The input, as a file would hold it.
    pub text: String,
    /// `lines` (default), `csv`, `tsv` or `jsonl`.
    #[serde(default)]
    pub input_format: Option<String>,
    /// CSV/TSV column holding the URL: a header name or a 1-based number.
    #[serde(default)]
    pub column: Option<String>,
    /// JSONL field holding the URL.
    #[serde(default)]
    pub field: Option<String>,
    /// The column (CSV/TSV) or field (JSONL) holding each page's title, for the
    /// same-title evidence. Each side names its own: two crawlers rarely agree.
    #[serde(default)]
    pub title_column: Option<String>,
}

/// The body of `POST /api/redirects/propose`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposeRequest {
    /// The policy whose keys say two URLs are one page. Required, as `urlkey redirects
    /// propose --policy` is: which URLs are "the same" is the reviewer's choice.
    pub policy: String,
    /// The old site's inventory: one proposal per record.
    pub old: SideRequest,
    /// The new site's inventory: the targets.
    pub new: SideRequest,
    /// `--max-line-bytes` for both sides (default 65536).
    #[serde(default)]
    pub max_line_bytes: Option<usize>,
}

/// One side, checked.
pub(crate) struct Side {
    /// `OLD` or `NEW`: the name the reader's messages give.
    pub name: &'static str,
    pub text: Bytes,
    pub opts: ReadOptions,
    /// Whether the records carry a title (the first kept cell).
    pub titled: bool,
}

/// A request checked: what the engine needs.
pub(crate) struct Prepared {
    pub policy: Policy,
    pub old: Side,
    pub new: Side,
}

fn side(
    name: &'static str,
    req: SideRequest,
    max_line_bytes: Option<usize>,
) -> Result<Side, ApiError> {
    let mut opts = read_options(
        req.input_format.as_deref(),
        &req.column,
        &req.field,
        max_line_bytes,
        None,
    )
    .map_err(|e| ApiError::new(e.code, format!("{name}: {}", e.message)))?;
    let title = req.title_column.filter(|t| !t.trim().is_empty());
    if let Some(t) = &title {
        // One name, kept whole: a title column's name may hold a comma.
        opts.keep = KeepColumns::Names(vec![t.trim().to_string()]);
        opts.validate().map_err(|e| {
            let hint = if e.setting == Setting::Keep {
                " (title_column: only CSV, TSV and JSONL have a title column)"
            } else {
                ""
            };
            ApiError::new("request.invalid-option", format!("{name}: {e}{hint}"))
        })?;
    }
    Ok(Side {
        name,
        text: Bytes::from(req.text.into_bytes()),
        opts,
        titled: title.is_some(),
    })
}

/// Checks the request's settings and finds its policy. The texts move into the result.
pub(crate) fn prepare(state: &AppState, req: ProposeRequest) -> Result<Prepared, ApiError> {
    let old = side("OLD", req.old, req.max_line_bytes)?;
    let new = side("NEW", req.new, req.max_line_bytes)?;
    // As `urlkey map`: the policy's input limit is the line limit.
    let policy = state
        .set
        .clone()
        .with_max_input_bytes(old.opts.max_line_bytes)
        .get(&req.policy)
        .map_err(|e| ApiError::policy(&e))?;
    Ok(Prepared { policy, old, new })
}

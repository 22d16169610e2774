//! The body of `POST /api/map` and `/api/map.csv`, checked: the text with its reader
//! settings and policy ([`Prepared`]), and the table's paging ([`Paging`]).

use axum::body::Bytes;
use serde::Deserialize;
use urlkey::Policy;
use urlkey_batch::input::ReadOptions;
use urlkey_batch::map::fingerprint;

use crate::error::ApiError;
use crate::map_result::CacheKey;
use crate::state::AppState;
use crate::textinput::read_options;

/// The default page size of the table.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The largest page size.
pub const MAX_PAGE_SIZE: usize = 1000;

/// The body of `POST /api/map` and `POST /api/map.csv`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MapRequest {
    /// The input, as a file would hold it.
    pub text: String,
    /// The policy id (default `mapper@1`, as `urlkey map`).
    #[serde(default = "default_policy")]
    pub policy: String,
    /// `lines` (default), `csv`, `tsv` or `jsonl`.
    #[serde(default)]
    pub input_format: Option<String>,
    /// CSV/TSV column: a header name or a 1-based number.
    #[serde(default)]
    pub column: Option<String>,
    /// JSONL field.
    #[serde(default)]
    pub field: Option<String>,
    /// `--max-line-bytes` (default 65536).
    #[serde(default)]
    pub max_line_bytes: Option<usize>,
    /// `--keep-columns`: `all` or names separated by commas; the CSV export carries them.
    #[serde(default)]
    pub keep_columns: Option<String>,
    /// 1-based page of the table.
    #[serde(default)]
    pub page: Option<usize>,
    /// Rows per page (1 to 1000, default 100).
    #[serde(default)]
    pub page_size: Option<usize>,
    /// `all` (default), `unique`, `duplicate`, `review` or `invalid`.
    #[serde(default)]
    pub classification: Option<String>,
    /// 1-based page of the invalid-row list.
    #[serde(default)]
    pub invalid_page: Option<usize>,
}

fn default_policy() -> String {
    urlkey::policy::defaults::MAP.into()
}

/// The validated settings of a request: what the map engine needs.
pub(crate) struct Prepared {
    pub text: Bytes,
    pub policy: Policy,
    pub opts: ReadOptions,
    pub key: CacheKey,
}

/// Checks the request's settings and finds its policy. The text moves out of `req`.
pub(crate) fn prepare(state: &AppState, req: &mut MapRequest) -> Result<Prepared, ApiError> {
    let opts = read_options(
        req.input_format.as_deref(),
        &req.column,
        &req.field,
        req.max_line_bytes,
        req.keep_columns.as_deref(),
    )?;
    // As `urlkey map`: the policy's input limit is the line limit.
    let policy = state
        .set
        .clone()
        .with_max_input_bytes(opts.max_line_bytes)
        .get(&req.policy)
        .map_err(|e| ApiError::policy(&e))?;
    let key = CacheKey {
        text: fingerprint(&req.text),
        text_len: req.text.len(),
        policy: policy.id().to_string(),
        format: opts.format.name(),
        column: opts.column.clone(),
        field: opts.field.clone(),
        max_line_bytes: opts.max_line_bytes,
        keep: opts.keep.clone(),
    };
    let text = Bytes::from(std::mem::take(&mut req.text).into_bytes());
    Ok(Prepared {
        text,
        policy,
        opts,
        key,
    })
}

/// The paging fields of a request, checked.
pub(crate) struct Paging {
    pub classification: String,
    pub page: usize,
    pub page_size: usize,
    pub invalid_page: usize,
}

/// Checks the paging fields.
pub(crate) fn paging(req: &MapRequest) -> Result<Paging, ApiError> {
    let classification = req.classification.as_deref().unwrap_or("all");
    if !["all", "unique", "duplicate", "review", "invalid"].contains(&classification) {
        return Err(ApiError::new(
            "request.invalid-option",
            format!(
                "classification {classification:?}: use all, unique, duplicate, review or invalid"
            ),
        ));
    }
    let page_size = req.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(ApiError::new(
            "request.invalid-option",
            format!("page_size {page_size}: use 1 to {MAX_PAGE_SIZE}"),
        ));
    }
    let page = req.page.unwrap_or(1);
    let invalid_page = req.invalid_page.unwrap_or(1);
    if page == 0 || invalid_page == 0 {
        return Err(ApiError::new(
            "request.invalid-option",
            "page and invalid_page count from 1",
        ));
    }
    Ok(Paging {
        classification: classification.to_string(),
        page,
        page_size,
        invalid_page,
    })
}

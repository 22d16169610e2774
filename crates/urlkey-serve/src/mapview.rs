//! `POST /api/map`: `urlkey map` on posted text, kept for paging and filtering.
//!
//! The rows are not computed here: [`MapRun`] writes its JSON Lines output into a sink
//! that reads each line back as a [`Row`], so the page shows exactly what `urlkey map
//! --format jsonl` says, and the CSV export ([`map_csv`]) is `urlkey map --format csv`.

use std::collections::BTreeMap;
use std::io::{self, Cursor, Write};
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use serde::{Deserialize, Serialize};
use urlkey::offsets::offsets;
use urlkey::text::{trim_c0_space, written_scheme};
use urlkey::Policy;
use urlkey_batch::input::{
    records_from, InputError, InputFormat, KeepColumns, ReadOptions, RecordSource, Setting,
    DEFAULT_MAX_LINE_BYTES,
};
use urlkey_batch::map::{fingerprint, Fingerprint, MapError, MapRun, MapSummary};
use urlkey_batch::rows::{OutputFormat, RecordWriter, Tail, REVIEW};

use crate::error::ApiError;
use crate::AppState;

/// The default page size of the table.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The largest page size.
pub const MAX_PAGE_SIZE: usize = 1000;

/// The body of `POST /api/map` and `POST /api/map.csv`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapRequest {
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
    "mapper@1".into()
}

/// What identifies a computed result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    text: Fingerprint,
    text_len: usize,
    policy: String,
    format: &'static str,
    column: Option<String>,
    field: Option<String>,
    max_line_bytes: usize,
    keep: KeepColumns,
}

/// The validated settings of a request.
pub struct Prepared {
    text: Bytes,
    policy: Policy,
    opts: ReadOptions,
    key: CacheKey,
}

fn format_name(f: InputFormat) -> &'static str {
    f.name()
}

/// The reader settings of a request (`input_format`, `column`, `field`,
/// `max_line_bytes`, `keep_columns`), checked by the reader's own check, as the command
/// line's are; the message names the request's field. Shared with `POST /api/diff`.
pub(crate) fn read_options(
    input_format: Option<&str>,
    column: &Option<String>,
    field: &Option<String>,
    max_line_bytes: Option<usize>,
    keep_columns: Option<&str>,
) -> Result<ReadOptions, ApiError> {
    let format = match input_format {
        None | Some("") => InputFormat::Lines,
        Some(f) => InputFormat::parse(f).ok_or_else(|| {
            ApiError::new(
                "request.invalid-option",
                format!("input_format {f:?}: use lines, csv, tsv or jsonl"),
            )
        })?,
    };
    let nonempty = |o: &Option<String>| o.as_ref().filter(|s| !s.is_empty()).cloned();
    let opts = ReadOptions {
        format,
        column: nonempty(column),
        field: nonempty(field),
        max_line_bytes: max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES),
        keep: keep_columns.map(KeepColumns::parse).unwrap_or_default(),
        ..ReadOptions::default()
    };
    opts.validate().map_err(|e| {
        let field = match e.setting {
            Setting::Column => " (column: a header name or a 1-based number)",
            Setting::Field => " (field: the name of the field holding the URL)",
            Setting::LineLimit => " (max_line_bytes)",
            Setting::Keep => " (keep_columns)",
            _ => "",
        };
        ApiError::new("request.invalid-option", format!("{e}{field}"))
    })?;
    Ok(opts)
}

/// Checks the request's settings and finds its policy.
pub fn prepare(state: &AppState, req: &mut MapRequest) -> Result<Prepared, ApiError> {
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
        format: format_name(opts.format),
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

/// One transformation, as the table shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    /// The rule.
    pub rule: Box<str>,
    /// The component it changed.
    pub component: Box<str>,
}

/// One row of `urlkey map --format jsonl`, read back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    line: u64,
    observed: String,
    status: Box<str>,
    key: Option<String>,
    signature: Option<String>,
    group: Option<u64>,
    duplicate_of: Option<u64>,
    duplicates: Option<u64>,
    variants: Option<u64>,
    classification: Box<str>,
    removed_tracking: String,
    error_code: Option<Box<str>>,
    error: Option<String>,
    #[serde(default)]
    transformations: Vec<Step>,
    #[serde(default)]
    removed_params: Vec<String>,
    #[serde(default)]
    facts: Vec<Box<str>>,
}

/// Keeps the map rows as the page's table needs them, straight from the map engine.
#[derive(Default)]
struct Rows {
    rows: Vec<Row>,
}

impl urlkey_batch::rows::RowSink for Rows {
    fn start(&mut self, _table: urlkey_batch::rows::Table) -> io::Result<()> {
        Ok(())
    }
    fn key_record(&mut self, _r: &urlkey_batch::rows::KeyRecord<'_>) -> io::Result<()> {
        Err(io::Error::other("the page keeps map rows only"))
    }
    fn map_row(&mut self, r: &urlkey_batch::rows::MapRow<'_>) -> io::Result<()> {
        self.rows.push(Row {
            line: r.line,
            observed: r.observed.to_string(),
            status: r.status.into(),
            key: r.key.map(str::to_string),
            signature: r.signature.map(str::to_string),
            group: r.group,
            duplicate_of: r.duplicate_of,
            duplicates: r.duplicates,
            variants: r.variants,
            classification: r.classification.into(),
            removed_tracking: r.removed_tracking.clone(),
            error_code: r.error_code.map(Into::into),
            error: r.error.map(str::to_string),
            transformations: r
                .transformations
                .unwrap_or_default()
                .iter()
                .map(|t| Step {
                    rule: t.rule.into(),
                    component: t.component.as_str().into(),
                })
                .collect(),
            removed_params: r.removed_params.unwrap_or_default().to_vec(),
            facts: r
                .facts
                .unwrap_or_default()
                .iter()
                .map(|f| f.as_str().into())
                .collect(),
        });
        Ok(())
    }
    fn group_row(&mut self, _g: &urlkey_batch::rows::GroupRow) -> io::Result<()> {
        Err(io::Error::other("the page keeps map rows only"))
    }
}

/// A computed map, kept for paging.
pub struct MapResult {
    key: CacheKey,
    summary: MapSummary,
    rows: Vec<Row>,
    /// Valid rows by (group, line), then invalid rows by line.
    order: Vec<u32>,
    /// Where the invalid rows start in `order`.
    valid_count: usize,
    by_class: BTreeMap<&'static str, u64>,
    elapsed_ms: f64,
}

fn map_error_input(e: InputError) -> ApiError {
    map_error(MapError::Input(e))
}

fn map_error(e: MapError) -> ApiError {
    match e {
        MapError::Input(e) => ApiError::new("input.unreadable", e.message),
        MapError::Output(e) => ApiError::internal(format!("cannot build the rows: {e}")),
        e @ MapError::Collision(_) => ApiError::new("map.fingerprint-collision", e.to_string()),
        // Unreachable below --max-body-bytes, but told as the input it is.
        e @ MapError::TooManyKeys => ApiError::new("input.unreadable", e.to_string()),
        MapError::Thread(e) => ApiError::internal(e.to_string()),
    }
}

/// Opens the request's text as records, as `urlkey map` opens a file.
fn open_text(p: &Prepared) -> impl Fn() -> Result<Box<dyn RecordSource>, InputError> {
    let text = p.text.clone();
    let opts = p.opts.clone();
    move || records_from(Box::new(Cursor::new(text.clone())), "<text>".into(), &opts)
}

/// The map run of a request: `urlkey map`'s engine with the request's policy.
fn map_run<'a>(state: &'a AppState, p: &'a Prepared) -> MapRun<'a> {
    MapRun {
        policy: &p.policy,
        pipeline: &state.pipeline,
        verify_fingerprints: false,
        groups: false,
        progress: None,
        notice: None,
        sources: &[],
        spill: false,
    }
}

fn run_map<W: Write + Send>(
    state: &AppState,
    p: &Prepared,
    writer: &mut RecordWriter<W>,
) -> Result<MapSummary, ApiError> {
    map_run(state, p)
        .run(&open_text(p), writer)
        .map_err(map_error)
}

/// The bytes of `urlkey map --format csv` for the request's text and settings.
pub fn map_csv(state: &AppState, p: &Prepared) -> Result<Vec<u8>, ApiError> {
    let kept = records_from(
        Box::new(Cursor::new(p.text.clone())),
        "<text>".into(),
        &p.opts,
    )
    .map_err(map_error_input)?
    .kept_names()
    .to_vec();
    let mut writer = RecordWriter::new(OutputFormat::Csv, Vec::new()).with_tail(Tail {
        sources: false,
        kept,
    });
    run_map(state, p, &mut writer)?;
    writer
        .finish()
        .map_err(|e| ApiError::internal(format!("cannot write the CSV: {e}")))
}

/// The cached result for these settings, if it is the last one computed.
pub fn cached(state: &AppState, p: &Prepared) -> Option<Arc<MapResult>> {
    let guard = state.cache.lock().ok()?;
    guard.as_ref().filter(|r| r.key == p.key).cloned()
}

/// The cached result for these settings, or a new one (which replaces the cache).
pub fn compute(state: &AppState, p: &Prepared) -> Result<(Arc<MapResult>, bool), ApiError> {
    // Checked again under the worker: the request ahead may have computed it.
    if let Some(r) = cached(state, p) {
        return Ok((r, true));
    }
    let start = Instant::now();
    let mut sink = Rows::default();
    let summary = map_run(state, p)
        .run_rows(&open_text(p), &mut sink, true)
        .map_err(map_error)?;
    let rows = sink.rows;
    if rows.len() > u32::MAX as usize {
        return Err(ApiError::new(
            "request.too-large",
            "more than 4294967295 records",
        ));
    }
    let mut order: Vec<u32> = (0..rows.len() as u32).collect();
    order.sort_by_key(|&i| {
        let r = &rows[i as usize];
        (r.group.is_none(), r.group.unwrap_or(0), r.line)
    });
    let valid_count = rows.iter().filter(|r| r.group.is_some()).count();
    let mut by_class: BTreeMap<&'static str, u64> = ["unique", "duplicate", "review", "invalid"]
        .into_iter()
        .map(|c| (c, 0))
        .collect();
    for r in &rows {
        if let Some(n) = by_class.get_mut(&*r.classification) {
            *n += 1;
        }
    }
    let result = Arc::new(MapResult {
        key: p.key.clone(),
        summary,
        rows,
        order,
        valid_count,
        by_class,
        elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
    });
    if let Ok(mut guard) = state.cache.lock() {
        *guard = Some(result.clone());
    }
    Ok((result, false))
}

/// A UTF-16 span of the observed text to highlight.
#[derive(Debug, Serialize)]
pub struct Highlight {
    start: usize,
    end: usize,
    name: String,
}

/// A row as the page receives it.
#[derive(Serialize)]
struct RowOut<'a> {
    #[serde(flatten)]
    row: &'a Row,
    /// The removed tracking parameters inside `observed`, as UTF-16 spans.
    highlights: Vec<Highlight>,
}

/// The removed tracking parameters' `name=value` pieces in the observed text, located
/// with the library's offsets (UTF-16, as JavaScript indexes strings).
pub fn highlights(observed: &str, removed: &[String]) -> Vec<Highlight> {
    if removed.is_empty() {
        return Vec::new();
    }
    let (trimmed, _) = trim_c0_space(observed);
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let written = written_scheme(&cleaned).is_some();
    offsets(observed, written)
        .params
        .into_iter()
        .filter(|p| removed.contains(&p.name))
        .map(|p| Highlight {
            start: p.span.utf16.start,
            end: p.span.utf16.end,
            name: p.name,
        })
        .collect()
}

#[derive(Serialize)]
struct Page<'a> {
    classification: &'a str,
    page: usize,
    page_size: usize,
    pages: usize,
    total: usize,
    items: Vec<RowOut<'a>>,
}

fn page_of<'a>(
    result: &'a MapResult,
    idx: &[u32],
    classification: &'a str,
    page: usize,
    page_size: usize,
) -> Page<'a> {
    let total = idx.len();
    let pages = total.div_ceil(page_size).max(1);
    let page = page.clamp(1, pages);
    let start = (page - 1) * page_size;
    let items = idx
        .iter()
        .skip(start)
        .take(page_size)
        .map(|&i| {
            let row = &result.rows[i as usize];
            RowOut {
                row,
                highlights: highlights(&row.observed, &row.removed_params),
            }
        })
        .collect();
    Page {
        classification,
        page,
        page_size,
        pages,
        total,
        items,
    }
}

/// The response of `POST /api/map`.
#[derive(Serialize)]
pub struct MapResponse<'a> {
    policy: &'a str,
    summary: &'a MapSummary,
    classifications: &'a BTreeMap<&'static str, u64>,
    cached: bool,
    compute_ms: f64,
    /// Whether (and how long) the request waited for the map worker.
    queue: Queue,
    review: &'static str,
    rows: Page<'a>,
    invalid: Page<'a>,
}

/// The paging fields of a request, checked.
pub struct Paging {
    classification: String,
    page: usize,
    page_size: usize,
    invalid_page: usize,
}

/// How long a map request waited for the map worker (one map runs at a time).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Queue {
    /// Whether it had to wait for another map to finish.
    pub waited: bool,
    /// How long, in milliseconds.
    pub ms: f64,
}

impl Queue {
    /// No wait.
    pub fn none() -> Self {
        Queue {
            waited: false,
            ms: 0.0,
        }
    }
    /// A wait of `d`.
    pub fn waited(d: std::time::Duration) -> Self {
        Queue {
            waited: true,
            ms: d.as_secs_f64() * 1000.0,
        }
    }
    /// The wait in milliseconds.
    pub fn ms(&self) -> f64 {
        self.ms
    }
}

/// Checks the paging fields.
pub fn paging(req: &MapRequest) -> Result<Paging, ApiError> {
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

/// Builds the JSON response for one page of a result.
pub fn respond(
    result: &MapResult,
    cached: bool,
    queue: Queue,
    paging: &Paging,
) -> Result<Vec<u8>, ApiError> {
    let Paging {
        classification,
        page,
        page_size,
        invalid_page,
    } = paging;
    let (classification, page, page_size, invalid_page) =
        (classification.as_str(), *page, *page_size, *invalid_page);
    let filtered: Vec<u32>;
    let idx: &[u32] = match classification {
        "all" => &result.order,
        "invalid" => &result.order[result.valid_count..],
        c => {
            filtered = result.order[..result.valid_count]
                .iter()
                .copied()
                .filter(|&i| &*result.rows[i as usize].classification == c)
                .collect();
            &filtered
        }
    };
    let resp = MapResponse {
        policy: &result.summary.policy,
        summary: &result.summary,
        classifications: &result.by_class,
        cached,
        compute_ms: result.elapsed_ms,
        queue,
        review: REVIEW,
        rows: page_of(result, idx, classification, page, page_size),
        invalid: page_of(
            result,
            &result.order[result.valid_count..],
            "invalid",
            invalid_page,
            page_size,
        ),
    };
    crate::error::to_json(&resp)
}

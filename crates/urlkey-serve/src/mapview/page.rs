//! The JSON answer of `POST /api/map`: one page of the table (and one of the invalid
//! rows) of a computed map, each row with the removed tracking parameters located in its
//! observed text.

use std::collections::BTreeMap;

use serde::Serialize;
use urlkey::internals::offsets::offsets;
use urlkey::internals::text::{trim_c0_space, written_scheme};
use urlkey_batch::map::MapSummary;
use urlkey_batch::rows::REVIEW;

use super::request::Paging;
use crate::error::ApiError;
use crate::map_result::{MapResult, Row};
use crate::worker::Queue;

/// A UTF-16 span of the observed text to highlight.
#[derive(Debug, Serialize)]
pub(crate) struct Highlight {
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
pub(crate) fn highlights(observed: &str, removed: &[String]) -> Vec<Highlight> {
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
struct MapResponse<'a> {
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

/// Builds the JSON response for one page of a result.
pub(crate) fn respond(
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

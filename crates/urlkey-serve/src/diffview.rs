//! `POST /api/diff`: `urlkey diff --from P --to Q` on the Mapper's text, for the page's
//! policy pair.
//!
//! The text is read by the reader `urlkey map` and `urlkey diff` use (same shapes, same
//! line numbers, same skipped lines), as standard input would be (its `source` is `-`), and
//! every record goes to [`PolicyDiff`] as the command sends it; the answer is the
//! command's JSON report plus `queue`. Limits as `POST /api/map`: the body is read within
//! the caps and checked first, then the request takes the map worker.

use std::io::Cursor;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use urlkey::Policy;
use urlkey_batch::diff::{PolicyDiff, Report};
use urlkey_batch::input::{records_from, InputRecord, ReadOptions};

use crate::error::{json_or_error, to_json, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::textinput::read_options;
use crate::worker::{blocking, map_worker, Queue};

/// The name the text goes by in `examples[].source`: that of standard input, so the report
/// is the one `urlkey diff --format json < FILE` writes.
const SOURCE: &str = "-";

/// Records read from the text at a time.
const BATCH: usize = 4096;

/// The body of `POST /api/diff`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiffRequest {
    /// The input, as a file would hold it.
    text: String,
    /// The policy the inventory is keyed under now (`--from`).
    from: String,
    /// The policy it would move to (`--to`).
    to: String,
    /// `lines` (default), `csv`, `tsv` or `jsonl`.
    #[serde(default)]
    input_format: Option<String>,
    /// CSV/TSV column: a header name or a 1-based number.
    #[serde(default)]
    column: Option<String>,
    /// JSONL field.
    #[serde(default)]
    field: Option<String>,
    /// `--max-line-bytes` (default 65536).
    #[serde(default)]
    max_line_bytes: Option<usize>,
}

/// A request checked: its text, reader settings and both policies.
struct Prepared {
    text: Bytes,
    opts: ReadOptions,
    from: Policy,
    to: Policy,
}

#[derive(Serialize)]
struct DiffResponse<'a> {
    #[serde(flatten)]
    report: &'a Report,
    /// Whether (and how long) the request waited for the map worker.
    queue: Queue,
}

fn prepare(st: &AppState, req: DiffRequest) -> Result<Prepared, ApiError> {
    let opts = read_options(
        req.input_format.as_deref(),
        &req.column,
        &req.field,
        req.max_line_bytes,
        None,
    )?;
    // As `urlkey diff`: both policies' input limit is the line limit.
    let set = st.set.clone().with_max_input_bytes(opts.max_line_bytes);
    let from = set.get(&req.from).map_err(|e| ApiError::policy(&e))?;
    let to = set.get(&req.to).map_err(|e| ApiError::policy(&e))?;
    Ok(Prepared {
        text: Bytes::from(req.text.into_bytes()),
        opts,
        from,
        to,
    })
}

/// Keys every record of the text under both policies: the loop of `urlkey diff`.
fn report(p: &Prepared) -> Result<Report, ApiError> {
    let input = |e: urlkey_batch::input::InputError| ApiError::new("input.unreadable", e.message);
    let mut records = records_from(
        Box::new(Cursor::new(p.text.clone())),
        SOURCE.into(),
        &p.opts,
    )
    .map_err(input)?;
    let mut diff = PolicyDiff::new(&p.from, &p.to);
    let mut batch: Vec<InputRecord> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        let more = records.next_batch(&mut batch, BATCH).map_err(input)?;
        for r in batch.drain(..) {
            diff.add(r);
        }
        if !more {
            break;
        }
    }
    Ok(diff.finish(&[SOURCE.to_string()]))
}

/// `POST /api/diff`.
pub(crate) async fn diff(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<DiffRequest>,
) -> Response {
    let work = async move {
        let JsonRequest { value: req, held } = request;
        let st2 = st.clone();
        // Checked before queueing for the worker: a malformed request is answered at once.
        let prepared = blocking(move || prepare(&st2, req)).await?;
        let (worker, queue) = map_worker(&st).await?;
        let out = blocking(move || {
            let r = report(&prepared)?;
            drop(prepared);
            let out = to_json(&DiffResponse { report: &r, queue });
            // The share of --max-held-bytes covers the text until the answer is built.
            drop(held);
            out
        })
        .await?;
        drop(worker);
        Ok::<_, ApiError>(out)
    };
    json_or_error(work.await)
}

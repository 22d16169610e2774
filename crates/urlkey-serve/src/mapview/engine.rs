//! The map engine of `urlkey map` ([`MapRun`]) on a request's text: the rows for the
//! page's table ([`compute`], kept in [`crate::map_result::LastMap`]) and the bytes of
//! `urlkey map --format csv` ([`map_csv`]).

use std::io::{Cursor, Write};
use std::sync::Arc;
use std::time::Instant;

use urlkey_batch::input::{records_from, InputError, RecordSource};
use urlkey_batch::map::{MapError, MapRun, MapSummary};
use urlkey_batch::rows::{OutputFormat, RecordWriter, Tail};

use super::request::Prepared;
use crate::error::ApiError;
use crate::map_result::{MapResult, RowCollector};
use crate::state::AppState;

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
pub(crate) fn map_csv(state: &AppState, p: &Prepared) -> Result<Vec<u8>, ApiError> {
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

/// The last result if it was computed for these settings.
pub(crate) fn cached(state: &AppState, p: &Prepared) -> Option<Arc<MapResult>> {
    state.last_map.get(&p.key)
}

/// The cached result for these settings, or a new one (which replaces the cache), and
/// whether it was cached.
pub(crate) fn compute(state: &AppState, p: &Prepared) -> Result<(Arc<MapResult>, bool), ApiError> {
    // Checked again under the worker: the request ahead may have computed it.
    if let Some(r) = cached(state, p) {
        return Ok((r, true));
    }
    let start = Instant::now();
    let mut sink = RowCollector::default();
    let summary = map_run(state, p)
        .run_rows(&open_text(p), &mut sink, true)
        .map_err(map_error)?;
    let result = Arc::new(MapResult::new(p.key.clone(), summary, sink.rows, start)?);
    state.last_map.put(result.clone());
    Ok((result, false))
}

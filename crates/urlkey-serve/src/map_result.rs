//! A computed map as the page pages through it: the rows `urlkey map` builds, in the
//! table's order, with counts by classification; and [`LastMap`], the one-slot cache that
//! keeps the last one so paging and filtering do not compute it again.
//!
//! The rows are taken straight from the map engine through its row sink
//! ([`urlkey_batch::rows::RowSink`]): the values are the ones `urlkey map --format jsonl`
//! writes, without being written and read back.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use urlkey_batch::input::KeepColumns;
use urlkey_batch::map::{Fingerprint, MapSummary};
use urlkey_batch::rows::{GroupRow, KeyRecord, MapRow, RowSink, Table};

use crate::error::ApiError;

/// What identifies a computed result: the text (by fingerprint and length), the policy
/// and the reader settings. Paging and the classification filter are not part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CacheKey {
    pub text: Fingerprint,
    pub text_len: usize,
    pub policy: String,
    pub format: &'static str,
    pub column: Option<String>,
    pub field: Option<String>,
    pub max_line_bytes: usize,
    pub keep: KeepColumns,
}

/// One transformation, as the table shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// The rule.
    pub rule: Box<str>,
    /// The component it changed.
    pub component: Box<str>,
}

/// One row of the map, with the fields and names of `urlkey map --format jsonl`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub line: u64,
    pub observed: String,
    pub status: Box<str>,
    pub key: Option<String>,
    pub signature: Option<String>,
    pub group: Option<u64>,
    pub duplicate_of: Option<u64>,
    pub duplicates: Option<u64>,
    pub variants: Option<u64>,
    pub classification: Box<str>,
    pub removed_tracking: String,
    pub error_code: Option<Box<str>>,
    pub error: Option<String>,
    pub transformations: Vec<Step>,
    pub removed_params: Vec<String>,
    pub facts: Vec<Box<str>>,
}

/// Keeps the map rows as the page's table needs them, straight from the map engine.
#[derive(Default)]
pub(crate) struct RowCollector {
    pub rows: Vec<Row>,
}

impl RowSink for RowCollector {
    fn start(&mut self, _table: Table) -> io::Result<()> {
        Ok(())
    }
    fn key_record(&mut self, _r: &KeyRecord<'_>) -> io::Result<()> {
        Err(io::Error::other("the page keeps map rows only"))
    }
    fn map_row(&mut self, r: &MapRow<'_>) -> io::Result<()> {
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
    fn group_row(&mut self, _g: &GroupRow) -> io::Result<()> {
        Err(io::Error::other("the page keeps map rows only"))
    }
}

/// A computed map, kept for paging.
pub(crate) struct MapResult {
    pub key: CacheKey,
    pub summary: MapSummary,
    pub rows: Vec<Row>,
    /// Valid rows by (group, line), then invalid rows by line.
    pub order: Vec<u32>,
    /// Where the invalid rows start in `order`.
    pub valid_count: usize,
    pub by_class: BTreeMap<&'static str, u64>,
    pub elapsed_ms: f64,
}

impl MapResult {
    /// Orders and counts the rows of a map run started at `start`; its compute time ends
    /// now.
    pub fn new(
        key: CacheKey,
        summary: MapSummary,
        rows: Vec<Row>,
        start: Instant,
    ) -> Result<Self, ApiError> {
        // The table's order is kept as u32 indexes, half the memory of usize.
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
        let mut by_class: BTreeMap<&'static str, u64> =
            ["unique", "duplicate", "review", "invalid"]
                .into_iter()
                .map(|c| (c, 0))
                .collect();
        for r in &rows {
            if let Some(n) = by_class.get_mut(&*r.classification) {
                *n += 1;
            }
        }
        Ok(MapResult {
            key,
            summary,
            rows,
            order,
            valid_count,
            by_class,
            elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
        })
    }
}

/// The last map computed (one slot: a new map replaces it).
#[derive(Default)]
pub(crate) struct LastMap(Mutex<Option<Arc<MapResult>>>);

impl LastMap {
    /// The last result, if it was computed for `key`.
    pub fn get(&self, key: &CacheKey) -> Option<Arc<MapResult>> {
        let guard = self.0.lock().ok()?;
        guard.as_ref().filter(|r| r.key == *key).cloned()
    }

    /// Keeps `result` as the last one.
    pub fn put(&self, result: Arc<MapResult>) {
        if let Ok(mut guard) = self.0.lock() {
            *guard = Some(result);
        }
    }
}

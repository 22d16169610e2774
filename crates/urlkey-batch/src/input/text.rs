//! Line-shaped inputs: one URL per line, and JSON Lines with a field holding the URL.

use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use urlkey::{ErrorCode, KeyError};

use super::lines::PhysicalLines;
use super::{
    decode_record, InputError, InputErrorKind, InputRecord, KeepColumns, ReadOptions, RecordSource,
    Skipped,
};

/// A plain line: blank and `#` lines are skipped and counted, the rest decoded.
fn line_record(
    line: u64,
    bytes: &[u8],
    full_len: usize,
    max: usize,
    skipped: &mut Skipped,
) -> Option<InputRecord> {
    // Seed 000 ("The pipeline"): blank and comment lines after the tool's trim; the library
    // decides (urlkey::text::line_kind), so every reader and policy agree. A line cut at the
    // limit is never blank: it had more than the limit's worth of bytes.
    if full_len > bytes.len() {
        return Some(decode_record(line, bytes, full_len, max));
    }
    match urlkey::text::line_kind(bytes) {
        urlkey::text::LineKind::Blank => skipped.blank += 1,
        urlkey::text::LineKind::Comment => skipped.comment += 1,
        urlkey::text::LineKind::Record => return Some(decode_record(line, bytes, full_len, max)),
    }
    None
}

/// Plain lines.
pub struct LineReader<R> {
    inner: PhysicalLines<R>,
    name: String,
    buf: Vec<u8>,
    line: u64,
    max: usize,
    count: Arc<AtomicU64>,
    skipped: Skipped,
    done: bool,
}

impl<R: BufRead + Send> LineReader<R> {
    /// A reader of `inner`, named `name` in errors; `count` is the byte counter of its file.
    pub fn new(inner: R, name: String, max_line_bytes: usize, count: Arc<AtomicU64>) -> Self {
        LineReader {
            inner: PhysicalLines::new(inner),
            name,
            buf: Vec::with_capacity(1024),
            line: 0,
            max: max_line_bytes,
            count,
            skipped: Skipped::default(),
            done: false,
        }
    }

    /// The next physical line and its full length, or `None` at the end.
    fn next_line(&mut self) -> Result<Option<usize>, InputError> {
        // Keep one byte past the limit: a line longer than the limit is cut, and known as such.
        let n = self
            .inner
            .next_line(&mut self.buf, self.max.saturating_add(1))
            .map_err(|e| {
                InputError::new(
                    InputErrorKind::Read,
                    &self.name,
                    format!("read error after line {}: {e}", self.line),
                )
            })?;
        if n.is_some() {
            self.line += 1;
        }
        Ok(n)
    }
}

impl<R: BufRead + Send> RecordSource for LineReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        let start = out.len();
        while !self.done && out.len() - start < max {
            let Some(full) = self.next_line()? else {
                self.done = true;
                break;
            };
            if let Some(r) = line_record(self.line, &self.buf, full, self.max, &mut self.skipped) {
                out.push(r);
            }
        }
        Ok(!self.done)
    }
    fn skipped(&self) -> Skipped {
        self.skipped
    }
    fn lines_read(&self) -> u64 {
        self.line
    }
    fn bytes_read(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// JSON Lines with a field holding the URL.
pub struct JsonlReader<R> {
    lines: LineReader<R>,
    field: String,
    keep: Vec<String>,
    raw: Vec<InputRecord>,
}

impl<R: BufRead + Send> JsonlReader<R> {
    /// A reader taking the URL from `opts.field` (and the kept fields by name).
    pub fn new(
        inner: R,
        name: String,
        opts: &ReadOptions,
        count: Arc<AtomicU64>,
    ) -> Result<Self, InputError> {
        let field = opts.field.clone().ok_or_else(|| {
            InputError::new(
                InputErrorKind::Column,
                &name,
                "JSONL input needs the field holding the URL",
            )
        })?;
        let keep = match &opts.keep {
            KeepColumns::Names(n) => n.clone(),
            _ => Vec::new(),
        };
        Ok(JsonlReader {
            lines: LineReader::new(inner, name, opts.max_line_bytes, count),
            field,
            keep,
            raw: Vec::new(),
        })
    }

    fn record(&self, r: InputRecord) -> InputRecord {
        let line = r.line;
        let invalid = |observed: String, code, msg: String| InputRecord {
            line,
            observed,
            problem: Some(KeyError::new(code, msg)),
            kept: vec![String::new(); self.keep.len()],
            ..InputRecord::default()
        };
        let map = match serde_json::from_str::<serde_json::Value>(&r.observed) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                return invalid(
                    r.observed,
                    ErrorCode::InputInvalidJson,
                    "the line is JSON but not an object".into(),
                )
            }
            Err(e) => {
                return invalid(
                    r.observed,
                    ErrorCode::InputInvalidJson,
                    format!("not JSON: {e}"),
                )
            }
        };
        let kept = self
            .keep
            .iter()
            .map(|k| match map.get(k) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            })
            .collect();
        let mut rec = match map.get(&self.field) {
            Some(serde_json::Value::String(s)) => InputRecord {
                line,
                observed: s.clone(),
                ..InputRecord::default()
            },
            Some(other) => invalid(
                other.to_string(),
                ErrorCode::InputMissingField,
                format!("field {:?} is not a string", self.field),
            ),
            None => invalid(
                String::new(),
                ErrorCode::InputMissingField,
                format!("the object has no field {:?}", self.field),
            ),
        };
        rec.kept = kept;
        rec
    }
}

impl<R: BufRead + Send> RecordSource for JsonlReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        self.raw.clear();
        let more = self.lines.next_batch(&mut self.raw, max)?;
        let raw = std::mem::take(&mut self.raw);
        for mut r in raw {
            if r.problem.is_some() {
                r.kept = vec![String::new(); self.keep.len()];
                out.push(r);
            } else {
                out.push(self.record(r));
            }
        }
        Ok(more)
    }
    fn skipped(&self) -> Skipped {
        self.lines.skipped()
    }
    fn lines_read(&self) -> u64 {
        self.lines.lines_read()
    }
    fn bytes_read(&self) -> u64 {
        self.lines.bytes_read()
    }
    fn kept_names(&self) -> &[String] {
        &self.keep
    }
}

//! Line-shaped inputs: one URL per line, and JSON Lines with a field holding the URL.

use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use urlkey::{ErrorCode, KeyError};

use super::lines::PhysicalLines;
use super::options::{KeepColumns, ReadOptions};
use super::record::{
    decode_record, InputError, InputErrorKind, InputRecord, RecordSource, Skipped,
};

/// Where plain lines go: blank and `#` lines are skipped and counted, the rest become
/// records.
struct LineSink<'a> {
    /// The line limit.
    max: usize,
    /// Lines so far: the number of the line being read once it is counted.
    line: &'a mut u64,
    skipped: &'a mut Skipped,
    out: &'a mut Vec<InputRecord>,
}

impl LineSink<'_> {
    /// A line as read: `bytes` (cut one byte past the limit) of a line of `full_len` bytes.
    fn bytes_line(&mut self, bytes: &[u8], full_len: usize) {
        *self.line += 1;
        // Only a line within the limit may be skipped: docs/cli.md gives a line longer than
        // `--max-line-bytes` a record (`input.too-long`) whatever it holds. `bytes` keeps
        // one byte past the limit, so its length alone would let one such line through.
        if full_len <= self.max && self.skips(bytes) {
            return;
        }
        let rec = decode_record(*self.line, bytes, full_len, self.max);
        self.out.push(rec);
    }

    /// A whole line already known to be UTF-8.
    fn text_line(&mut self, text: &str) {
        if text.len() > self.max {
            // Too long: as read, it would have been cut one byte past the limit.
            let cut = text.len().min(self.max.saturating_add(1));
            return self.bytes_line(&text.as_bytes()[..cut], text.len());
        }
        *self.line += 1;
        if self.skips(text.as_bytes()) {
            return;
        }
        self.out.push(InputRecord {
            line: *self.line,
            observed: text.to_owned(),
            ..InputRecord::default()
        });
    }

    /// Counts a blank or comment line; false for a line that is a record.
    fn skips(&mut self, bytes: &[u8]) -> bool {
        // The Legacy URL Mapper spec ("The pipeline"): blank and comment lines after the
        // tool's trim; the library decides (urlkey::internals::text::line_kind), so every reader and
        // policy agree. A line over the limit is never blank or a comment (the callers do
        // not ask).
        match urlkey::internals::text::line_kind(bytes) {
            urlkey::internals::text::LineKind::Blank => self.skipped.blank += 1,
            urlkey::internals::text::LineKind::Comment => self.skipped.comment += 1,
            urlkey::internals::text::LineKind::Record => return false,
        }
        true
    }
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

    fn read_error(&self, e: std::io::Error) -> InputError {
        InputError::new(
            InputErrorKind::Read,
            &self.name,
            format!("read error after line {}: {e}", self.line),
        )
    }
}

impl<R: BufRead + Send> RecordSource for LineReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        let full = out.len().saturating_add(max);
        while !self.done && out.len() < full {
            let mut sink = LineSink {
                max: self.max,
                line: &mut self.line,
                skipped: &mut self.skipped,
                out,
            };
            // Nearly every line: whole lines straight from the reader's buffer.
            let lent = self.inner.lend_text_lines(|text| {
                sink.text_line(text);
                sink.out.len() < full
            });
            if lent.map_err(|e| self.read_error(e))? > 0 {
                continue;
            }
            // The rest (a line that spans a refill, invalid UTF-8, the end): gathered.
            // Keep one byte past the limit: a line longer than the limit is cut, and
            // known as such.
            let mut sink = LineSink {
                max: self.max,
                line: &mut self.line,
                skipped: &mut self.skipped,
                out,
            };
            let read =
                self.inner
                    .with_next_line(&mut self.buf, self.max.saturating_add(1), |bytes, n| {
                        sink.bytes_line(bytes, n)
                    });
            if read.map_err(|e| self.read_error(e))?.is_none() {
                self.done = true;
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

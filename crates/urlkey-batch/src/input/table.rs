//! Delimited text (CSV, TSV, semicolon and pipe files) with a header row, and the row
//! model that spreadsheets share: the URL from one column, the kept columns beside it.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use urlkey::{ErrorCode, KeyError};

use super::lines::{skip_lines, LineTracker, PhysicalLines};
use super::options::{InputFormat, KeepColumns, ReadOptions};
use super::quotes::{check_row, StrayKind, StrayQuote};
use super::record::{
    decode_record, escape_invalid_utf8, InputError, InputErrorKind, InputRecord, RecordSource,
    Skipped,
};

/// Which cells of a row are read.
#[derive(Debug, Clone)]
pub(crate) struct RowShape {
    /// The URL's column.
    pub index: usize,
    /// How the URL's column was asked for (for messages).
    pub label: String,
    /// The kept columns' indices (`None`: the input has no such column; the cell is empty).
    pub kept: Vec<Option<usize>>,
    /// The kept columns' names.
    pub kept_names: Vec<String>,
    /// The header row (empty without one).
    pub names: Vec<String>,
    pub max: usize,
    /// Every column is kept and the header names them: the cells of a longer row past
    /// the header go to [`InputRecord::overflow`].
    pub overflow: bool,
}

impl RowShape {
    /// Resolves the URL's column and the kept ones against the header (`names` is empty
    /// when there is no header row). Later inputs of a run (`strict == false`) may lack a
    /// kept column: its cells are empty, and a notice says so.
    pub fn resolve(
        names: &[String],
        width: usize,
        opts: &ReadOptions,
        src: &str,
        strict: bool,
        notices: &mut Vec<String>,
    ) -> Result<Self, InputError> {
        let column = opts.column.as_deref().unwrap_or("1");
        let col_err = |m: String| {
            InputError::new(
                InputErrorKind::Column,
                src,
                format!("line {}: {m}", opts.skip_rows + 1),
            )
        };
        let index = if opts.headers {
            find_column(names, column).map_err(col_err)?
        } else {
            match column.parse::<usize>() {
                Ok(n) if n >= 1 => n - 1,
                _ => {
                    return Err(col_err(
                        "without a header row the column must be a 1-based number".into(),
                    ))
                }
            }
        };
        let (kept, kept_names) = match &opts.keep {
            KeepColumns::None => (Vec::new(), Vec::new()),
            KeepColumns::All => {
                let all: Vec<usize> = (0..names.len().max(width))
                    .filter(|&i| i != index)
                    .collect();
                let labels = all
                    .iter()
                    .map(|&i| {
                        names
                            .get(i)
                            .cloned()
                            .unwrap_or_else(|| format!("column{}", i + 1))
                    })
                    .collect();
                (all.into_iter().map(Some).collect(), labels)
            }
            KeepColumns::Names(wanted) => {
                let mut idx = Vec::new();
                let mut labels = Vec::new();
                for w in wanted {
                    let found = if opts.headers {
                        find_column(names, w)
                    } else {
                        w.parse::<usize>()
                            .ok()
                            .filter(|&n| n >= 1)
                            .map(|n| n - 1)
                            .ok_or_else(|| {
                                "without a header row kept columns are 1-based numbers".to_string()
                            })
                    };
                    match found {
                        Ok(i) => {
                            idx.push(Some(i));
                            labels.push(
                                names
                                    .get(i)
                                    .cloned()
                                    .unwrap_or_else(|| format!("column{}", i + 1)),
                            );
                        }
                        Err(m) if strict => {
                            return Err(col_err(format!("cannot keep a column: {m}")))
                        }
                        Err(_) => {
                            notices.push(format!(
                                "{src}: no column {w:?} to keep: its cells are empty"
                            ));
                            idx.push(None);
                            labels.push(w.clone());
                        }
                    }
                }
                (idx, labels)
            }
        };
        Ok(RowShape {
            index,
            label: column.to_string(),
            kept,
            kept_names,
            names: names.to_vec(),
            max: opts.max_line_bytes,
            overflow: opts.keep == KeepColumns::All && opts.headers,
        })
    }

    /// The record of one row starting at `line`.
    pub fn record(&self, line: u64, row: &csv::ByteRecord) -> InputRecord {
        let kept = self
            .kept
            .iter()
            .map(|i| {
                i.and_then(|i| row.get(i))
                    .map(escape_invalid_utf8)
                    .unwrap_or_default()
            })
            .collect();
        let mut rec = match row.get(self.index) {
            None => InputRecord {
                line,
                problem: Some(KeyError::new(
                    ErrorCode::InputMissingField,
                    format!(
                        "the row has {} fields; column {:?} is field {}",
                        row.len(),
                        self.label,
                        self.index + 1
                    ),
                )),
                ..InputRecord::default()
            },
            // An empty cell is a row without its URL, not a blank line: keep it.
            Some(field) if field.trim_ascii().is_empty() => InputRecord {
                line,
                observed: String::from_utf8_lossy(field).into_owned(),
                problem: Some(KeyError::new(
                    ErrorCode::InputMissingField,
                    format!("column {:?} is empty", self.label),
                )),
                ..InputRecord::default()
            },
            Some(field) => decode_record(line, field, field.len(), self.max),
        };
        rec.kept = kept;
        rec.fields = row.len();
        if self.overflow && row.len() > self.kept.len() + 1 {
            rec.overflow = row
                .iter()
                .skip(self.kept.len() + 1)
                .map(escape_invalid_utf8)
                .collect();
        }
        rec
    }
}

/// The delimiter a header line uses: the most frequent of `,` `;` tab `|` outside quotes
/// (a comma when none appears or on a tie with it).
/// How much of the header line delimiter detection reads at most.
const DELIMITER_SNIFF_BYTES: usize = 256 * 1024;

/// Consumes and returns the first line of `inner` with its line end (at most `limit`
/// bytes), however the reader's buffer cuts the input: the delimiter found must not depend
/// on how the bytes arrive.
fn read_first_line<R: BufRead>(inner: &mut R, limit: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    while head.len() < limit {
        let buf = inner.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let take = &buf[..buf.len().min(limit - head.len())];
        if let Some(i) = memchr::memchr2(b'\n', b'\r', take) {
            head.extend_from_slice(&take[..=i]);
            inner.consume(i + 1);
            break;
        }
        let n = take.len();
        head.extend_from_slice(take);
        inner.consume(n);
    }
    Ok(head)
}

pub(crate) fn detect_delimiter(header: &[u8]) -> u8 {
    let end = memchr::memchr2(b'\n', b'\r', header).unwrap_or(header.len());
    let mut counts = [0usize; 4];
    let cands = [b',', b';', b'\t', b'|'];
    let mut quoted = false;
    for &b in &header[..end] {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            if let Some(i) = cands.iter().position(|&c| c == b) {
                counts[i] += 1;
            }
        }
    }
    let mut best = 0;
    for i in 1..4 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    cands[best]
}

/// The end of the notice of a detected delimiter, which a caller replaces with its own
/// way of giving one (a flag).
pub const OTHER_DELIMITER: &str = "choose another delimiter to override";

/// The delimiter a user names: one ASCII character, or `tab` (also `\t` or a tab).
pub fn parse_delimiter(d: &str) -> Option<u8> {
    match d {
        "tab" | "\\t" | "\t" => Some(b'\t'),
        d if d.len() == 1 && d.is_ascii() => Some(d.as_bytes()[0]),
        _ => None,
    }
}

/// A printable name for a delimiter.
pub(crate) fn delimiter_name(d: u8) -> String {
    match d {
        b'\t' => "tab".into(),
        b' ' => "space".into(),
        d => format!("{:?}", d as char),
    }
}

/// CSV or TSV with a header row.
pub struct CsvReader<R: std::io::Read> {
    inner: csv::Reader<LineTracker<std::io::Chain<std::io::Cursor<Vec<u8>>, R>>>,
    shape: RowShape,
    rec: csv::ByteRecord,
    count: Arc<AtomicU64>,
    done: bool,
    name: String,
    delimiter: u8,
    /// Cells may be quoted: rows spanning lines are checked ([`super::quotes`]).
    quotes: bool,
    /// The URL's column, when `column` names it (see [`ReadOptions::url_in_column`]).
    url_field: Option<usize>,
}

impl<R: BufRead + Send> CsvReader<R> {
    /// Skips the rows before the header, finds the delimiter, reads the header and finds
    /// the columns; what the user should know goes to `notices`.
    pub(crate) fn open(
        inner: R,
        name: String,
        opts: &ReadOptions,
        count: Arc<AtomicU64>,
        strict_keep: bool,
        notices: &mut Vec<String>,
    ) -> Result<Self, InputError> {
        let read_err = |e: std::io::Error| {
            InputError::new(InputErrorKind::Read, &name, format!("cannot read: {e}"))
        };
        let mut lines = PhysicalLines::new(inner);
        let skipped = skip_lines(&mut lines, opts.skip_rows).map_err(read_err)?;
        lines.finish_line_end().map_err(read_err)?;
        let mut inner = lines.into_inner();
        let mut head = Vec::new();
        let delimiter = match (opts.delimiter, opts.format) {
            (Some(d), _) => d,
            (None, InputFormat::Tsv) => b'\t',
            (None, _) => {
                head = read_first_line(&mut inner, DELIMITER_SNIFF_BYTES).map_err(read_err)?;
                let d = detect_delimiter(&head);
                if d != b',' {
                    notices.push(format!(
                        "{name}: reading as {}-separated (detected from the header line; {OTHER_DELIMITER})",
                        delimiter_name(d)
                    ));
                }
                d
            }
        };
        // The bytes read for detection go back in front of the rest.
        let mut tracker = LineTracker::new(std::io::Cursor::new(head).chain(inner), skipped + 1);
        if opts.quotes {
            tracker = tracker.keeping_raw();
        }
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .quoting(opts.quotes)
            .has_headers(opts.headers)
            .from_reader(tracker);
        let names: Vec<String> = if opts.headers {
            let headers = rdr.byte_headers().map_err(|e| {
                InputError::new(
                    InputErrorKind::Read,
                    &name,
                    format!("cannot read the header row: {e}"),
                )
            })?;
            headers
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let h = String::from_utf8_lossy(h).into_owned();
                    if i == 0 {
                        h.trim_start_matches('\u{feff}').to_string()
                    } else {
                        h
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        if opts.headers && opts.quotes {
            // The header row can fold lines too (none of its cells is a URL).
            let end = rdr.position().byte();
            let tracker = rdr.get_mut();
            if let Some(s) = check_row(tracker.raw(0, end), delimiter, skipped + 1, None) {
                return Err(stray_error(&name, s, tracker.current_line()));
            }
        }
        let shape = match RowShape::resolve(&names, names.len(), opts, &name, strict_keep, notices)
        {
            Ok(shape) => shape,
            Err(e) if e.kind == InputErrorKind::Column && opts.headers => {
                return Err(header_below(&mut rdr, opts, e));
            }
            Err(e) => return Err(e),
        };
        let url_field = opts.url_in_column.then_some(shape.index);
        let reader = CsvReader {
            inner: rdr,
            shape,
            rec: csv::ByteRecord::new(),
            count,
            done: false,
            name,
            delimiter,
            quotes: opts.quotes,
            url_field,
        };
        Ok(reader)
    }

    /// Refuses the row from byte `start` to `end` (starting on `line`) when a quote in it
    /// folds lines together ([`super::quotes`]); forgets the bytes before `end`.
    fn check_quotes(
        &mut self,
        start: u64,
        end: u64,
        line: u64,
        url_field: Option<usize>,
    ) -> Result<(), InputError> {
        let tracker = self.inner.get_mut();
        let stray = check_row(tracker.raw(start, end), self.delimiter, line, url_field);
        tracker.release(end);
        match stray {
            None => Ok(()),
            Some(s) => Err(stray_error(&self.name, s, tracker.current_line())),
        }
    }
}

/// How many rows below a header without the column are looked at for one that names it.
const TITLE_ROWS: usize = 5;

/// `e` (the header has no such column), or, when one of the next rows names the column
/// by name, the error that says the lines above that row are a title.
fn header_below<R: Read>(
    rdr: &mut csv::Reader<LineTracker<R>>,
    opts: &ReadOptions,
    e: InputError,
) -> InputError {
    let Some(col) = opts
        .column
        .as_deref()
        .filter(|c| c.parse::<usize>().is_err())
    else {
        return e;
    };
    let mut row = csv::ByteRecord::new();
    for _ in 0..TITLE_ROWS {
        if !matches!(rdr.read_byte_record(&mut row), Ok(true)) {
            break;
        }
        if row
            .iter()
            .any(|c| String::from_utf8_lossy(c).trim().eq_ignore_ascii_case(col))
        {
            let offset = row.position().map_or(0, |p| p.byte());
            let line = rdr.get_mut().line_at(offset);
            return InputError {
                kind: InputErrorKind::HeaderBelow { line },
                message: format!(
                    "{}; line {line} names {col:?}: the lines above it look like a title",
                    e.message
                ),
            };
        }
    }
    e
}

/// The refusal of a quote that folds lines: where it opens, what it would swallow.
fn stray_error(name: &str, s: StrayQuote, last_line: u64) -> InputError {
    let at = format!("line {}: a quote opens cell {} and", s.line, s.field + 1);
    let what = match s.kind {
        StrayKind::Unclosed => {
            let n = last_line.saturating_sub(s.line);
            format!(
                "{at} is never closed: the {n} line{} after it, to the end of the input, would vanish into its cell",
                if n == 1 { "" } else { "s" }
            )
        }
        StrayKind::ClosedMidCell { closed_line } => format!(
            "{at} is closed only on line {closed_line}, inside a cell: the rows of lines {} to {closed_line} would vanish into its cell",
            s.line + 1
        ),
        StrayKind::UrlCell { closed_line } => format!(
            "{at} is closed on line {closed_line}: the URL's cell would hold {} line break{}, and a URL holds none",
            closed_line - s.line,
            if closed_line - s.line == 1 { "" } else { "s" }
        ),
    };
    InputError {
        kind: InputErrorKind::Quote { line: s.line },
        message: format!("{name}: {what}"),
    }
}

impl<R: BufRead + Send> RecordSource for CsvReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        let start = out.len();
        while !self.done && out.len() - start < max {
            let more = self
                .inner
                .read_byte_record(&mut self.rec)
                .map_err(|e| InputError {
                    kind: InputErrorKind::Read,
                    message: format!("CSV: {e}"),
                })?;
            if !more {
                self.done = true;
                break;
            }
            let offset = self.rec.position().map_or(0, |p| p.byte());
            let line = self.inner.get_mut().line_at(offset);
            if self.quotes {
                let end = self.inner.position().byte();
                // A row on one line folds nothing, unless it ends the input (a quote
                // opened there is never closed).
                let spans = memchr::memchr2(b'\n', b'\r', self.rec.as_slice()).is_some();
                if spans || self.inner.get_ref().ended_at() == Some(end) {
                    self.check_quotes(offset, end, line, self.url_field)?;
                } else {
                    self.inner.get_mut().release(offset);
                }
            }
            out.push(self.shape.record(line, &self.rec));
        }
        Ok(!self.done)
    }
    fn skipped(&self) -> Skipped {
        Skipped::default()
    }
    fn lines_read(&self) -> u64 {
        self.inner.get_ref().current_line()
    }
    fn bytes_read(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
    fn kept_names(&self) -> &[String] {
        &self.shape.kept_names
    }
    fn header(&self) -> &[String] {
        &self.shape.names
    }
}

/// Finds a column: the exact name, else the one name equal to it ignoring ASCII case, else
/// a 1-based number. `what` names the thing sought in messages ("column", "kept column").
pub(crate) fn find_column(names: &[String], wanted: &str) -> Result<usize, String> {
    if let Some(i) = names.iter().position(|h| h == wanted) {
        return Ok(i);
    }
    let folded: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].eq_ignore_ascii_case(wanted))
        .collect();
    match folded.as_slice() {
        [i] => return Ok(*i),
        [] => {}
        many => {
            return Err(format!(
                "{wanted:?} matches {} columns when case is ignored ({}): write the name exactly",
                many.len(),
                many.iter()
                    .map(|&i| format!("{:?}", names[i]))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
    match wanted.parse::<usize>() {
        Ok(n) if n >= 1 && n <= names.len() => Ok(n - 1),
        _ if names.is_empty() => Err(format!("no column {wanted:?}: the header row is empty")),
        _ => {
            Err(format!(
            "no column {wanted:?}; the header has: {} (name one of them, or give a 1-based number)",
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        ))
        }
    }
}

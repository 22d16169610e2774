//! Readers: plain lines, CSV/TSV (any delimiter) with a column, JSONL with a field, and
//! spreadsheets (`.xlsx`, `.xls`, `.ods`); files or standard input; `.gz` and `.zst` read
//! transparently; UTF-8, UTF-16 with a byte-order mark, or any WHATWG encoding label.
//!
//! A CSV/TSV quote that would fold the lines after it into one cell stops the read, naming
//! its line (`quotes.rs`): every line comes out as a record, or the input is refused.
//!
//! Every record knows the file it came from ([`InputRecord::source`]) and the physical line
//! where it starts in that file ([`InputRecord::line`]: `\n`, `\r\n` and a lone `\r` each end
//! a line; a spreadsheet row is its row number), so that output joins back to the input.

mod decode;
mod lines;
mod options;
mod quotes;
mod record;
mod sheet;
mod source;
mod table;
mod text;

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use decode::{encoding_for_label, sniff, Sniffed, NUL_BYTES};
pub use lines::{LineTracker, PhysicalLines};
pub use options::{
    InputFormat, KeepColumns, OptionsError, ReadOptions, Setting, DEFAULT_MAX_LINE_BYTES,
    TOO_LONG_KEEP,
};
pub use record::{
    escape_invalid_utf8, InputError, InputErrorKind, InputRecord, RecordSource, Skipped,
};
pub use source::Source;
pub use table::{parse_delimiter, OTHER_DELIMITER};
pub use text::{JsonlReader, LineReader};

/// An input with nothing in it.
struct Empty {
    kept: Vec<String>,
}

impl RecordSource for Empty {
    fn next_batch(&mut self, _: &mut Vec<InputRecord>, _: usize) -> Result<bool, InputError> {
        Ok(false)
    }
    fn skipped(&self) -> Skipped {
        Skipped::default()
    }
    fn lines_read(&self) -> u64 {
        0
    }
    fn bytes_read(&self) -> u64 {
        0
    }
    fn kept_names(&self) -> &[String] {
        &self.kept
    }
}

/// A reader with the notices found when it was opened (an empty or binary input, a
/// detected delimiter): every caller takes them through [`RecordSource::take_notices`].
struct WithNotices {
    inner: Box<dyn RecordSource>,
    notices: Vec<String>,
}

impl RecordSource for WithNotices {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        self.inner.next_batch(out, max)
    }
    fn skipped(&self) -> Skipped {
        self.inner.skipped()
    }
    fn lines_read(&self) -> u64 {
        self.inner.lines_read()
    }
    fn bytes_read(&self) -> u64 {
        self.inner.bytes_read()
    }
    fn kept_names(&self) -> &[String] {
        self.inner.kept_names()
    }
    fn header(&self) -> &[String] {
        self.inner.header()
    }
    fn take_notices(&mut self) -> Vec<String> {
        let mut n = std::mem::take(&mut self.notices);
        n.append(&mut self.inner.take_notices());
        n
    }
    fn sheet_name(&self) -> Option<&str> {
        self.inner.sheet_name()
    }
}

/// Opens a source as records of the given shape.
pub fn open_records(src: &Source, opts: &ReadOptions) -> Result<Box<dyn RecordSource>, InputError> {
    open_source(src, opts, Arc::default(), true)
}

/// Opens `src`. `strict_keep`: a kept column the header lacks is an error (the first
/// input) or an empty cell (later inputs).
fn open_source(
    src: &Source,
    opts: &ReadOptions,
    count: Arc<AtomicU64>,
    strict_keep: bool,
) -> Result<Box<dyn RecordSource>, InputError> {
    let reader = src.open_counted(count.clone())?;
    records_from_counted(reader, src.name(), opts, count, strict_keep)
}

/// Wraps an already-open reader (used for spill files and in-memory input).
pub fn records_from(
    reader: Box<dyn BufRead + Send>,
    name: String,
    opts: &ReadOptions,
) -> Result<Box<dyn RecordSource>, InputError> {
    records_from_counted(reader, name, opts, Arc::default(), true)
}

fn records_from_counted(
    reader: Box<dyn BufRead + Send>,
    name: String,
    opts: &ReadOptions,
    count: Arc<AtomicU64>,
    strict_keep: bool,
) -> Result<Box<dyn RecordSource>, InputError> {
    let mut notices = Vec::new();
    let inner = open_reader(reader, name, opts, count, strict_keep, &mut notices)?;
    Ok(if notices.is_empty() {
        inner
    } else {
        Box::new(WithNotices { inner, notices })
    })
}

/// The longest byte-order mark (UTF-8's) in bytes.
const BOM_BYTES: usize = 3;

/// `reader`, with at least its first [`BOM_BYTES`] in its first buffer (fewer only at the
/// end of the input): a reader whose buffer is smaller, or a pipe that delivers a byte at
/// a time, must not hide a byte-order mark from [`sniff`]. Reads no further than that, so
/// a live pipe is not held up.
fn with_bom_in_view(
    mut reader: Box<dyn BufRead + Send>,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    let first = reader.fill_buf()?.len();
    if first == 0 || first >= BOM_BYTES {
        return Ok(reader);
    }
    let mut head = Vec::with_capacity(BOM_BYTES);
    while head.len() < BOM_BYTES {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let take = buf.len().min(BOM_BYTES - head.len());
        head.extend_from_slice(&buf[..take]);
        reader.consume(take);
    }
    Ok(Box::new(std::io::Cursor::new(head).chain(reader)))
}

/// The reader for `opts.format`; what the user should know about the input goes to
/// `notices`.
fn open_reader(
    mut reader: Box<dyn BufRead + Send>,
    name: String,
    opts: &ReadOptions,
    count: Arc<AtomicU64>,
    strict_keep: bool,
    notices: &mut Vec<String>,
) -> Result<Box<dyn RecordSource>, InputError> {
    let read_err = |e: std::io::Error| {
        InputError::new(InputErrorKind::Read, &name, format!("cannot read: {e}"))
    };
    reader = with_bom_in_view(reader).map_err(read_err)?;
    let head = reader.fill_buf().map_err(read_err)?;
    let sniffed = sniff(head);
    if sniffed.empty {
        notices.push(format!("{name}: the input is empty: no records"));
        let kept = match &opts.keep {
            KeepColumns::Names(n) => n.clone(),
            _ => Vec::new(),
        };
        return Ok(Box::new(Empty { kept }));
    }
    if opts.format == InputFormat::Sheet {
        let r = sheet::SheetReader::new(reader, &name, opts, count, strict_keep, notices)?;
        return Ok(Box::new(r));
    }
    // NUL bytes are what UTF-16 is made of: once the user named a UTF-16 encoding they are
    // no sign of a binary file.
    let named_utf16 = opts
        .encoding
        .is_some_and(|e| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE);
    if let Some(why) = sniffed
        .binary
        .filter(|why| !(named_utf16 && *why == decode::NUL_BYTES))
    {
        notices.push(format!(
            "{name}: this does not look like text: {why}; every line still becomes a record"
        ));
    }
    let mut reader = decode::decode(reader, opts.encoding, &sniffed)
        .map_err(|e| InputError::new(InputErrorKind::Read, &name, format!("cannot decode: {e}")))?;
    if opts.format == InputFormat::Lines && opts.url_in_column {
        let head = reader.fill_buf().map_err(read_err)?;
        if first_line_is_tabbed(head) {
            notices.push(format!(
                "{name}: line 1 holds tabs, as a tab-separated table's header does, but each \
                 whole line is read as one URL (whose parser drops tabs); {NAME_THE_COLUMN}"
            ));
        }
    }
    let src: Box<dyn RecordSource> = match opts.format {
        InputFormat::Lines => Box::new(LineReader::new(reader, name, opts.max_line_bytes, count)),
        InputFormat::Csv | InputFormat::Tsv => Box::new(table::CsvReader::open(
            reader,
            name,
            opts,
            count,
            strict_keep,
            notices,
        )?),
        InputFormat::Jsonl => Box::new(JsonlReader::new(reader, name, opts, count)?),
        InputFormat::Sheet => unreachable!("handled above"),
    };
    Ok(src)
}

/// Whether `src`, read as delimited text with `opts` (any delimiter, detected as always),
/// has a header that names `opts.column`: how a command that reads two inputs with one
/// `--column` tells a table whose name says nothing (a `.txt` saved as Excel's "Unicode
/// text", standard input) from a list of URLs. Reads the header alone. Without a header
/// row (`opts.headers` false) the column is a number and any input is taken as a table.
pub fn has_named_column(src: &Source, opts: &ReadOptions) -> Result<bool, InputError> {
    let Some(col) = opts.column.as_deref() else {
        return Ok(false);
    };
    if !opts.headers {
        return Ok(true);
    }
    let table = ReadOptions {
        format: InputFormat::Csv,
        keep: KeepColumns::None,
        ..opts.clone()
    };
    match open_records(src, &table) {
        Ok(r) => Ok(r.header().iter().any(|h| h.eq_ignore_ascii_case(col))),
        Err(e) if e.kind == InputErrorKind::Column => Ok(false),
        Err(e) => Err(e),
    }
}

/// The end of the notice of a list whose lines hold tabs, which a caller replaces with
/// its own way of naming the URL's column (a flag).
pub const NAME_THE_COLUMN: &str = "name the URL's column to read it alone";

/// The first line of `head` holds a tab (a URL never does), and is no JSON object.
fn first_line_is_tabbed(head: &[u8]) -> bool {
    let end = memchr::memchr2(b'\n', b'\r', head).unwrap_or(head.len());
    let line = &head[..end];
    memchr::memchr(b'\t', line).is_some() && line.trim_ascii_start().first() != Some(&b'{')
}

/// Guesses the input shape from a file name (`.csv`, `.tsv`, `.jsonl`, through `.gz`/`.zst`;
/// `.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`).
pub fn format_from_name(path: &Path) -> Option<InputFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.trim_end_matches(".gz").trim_end_matches(".zst");
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "csv" => Some(InputFormat::Csv),
        "tsv" | "tab" => Some(InputFormat::Tsv),
        "jsonl" | "ndjson" => Some(InputFormat::Jsonl),
        "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => Some(InputFormat::Sheet),
        _ => None,
    }
}

/// Several sources read as one input, in order; each record carries its source's index and
/// its line within that source.
pub struct ChainSource {
    pending: std::collections::VecDeque<Source>,
    index: u32,
    opts: ReadOptions,
    current: Option<Box<dyn RecordSource>>,
    lines_done: u64,
    count: Arc<AtomicU64>,
    skipped_done: Skipped,
    kept: Vec<String>,
    notices: Vec<String>,
    /// The run reads more than one input: records get their [`InputRecord::run_line`].
    several: bool,
    /// [`RecordSource::run_line_offsets`] of the inputs opened so far.
    offsets: Vec<u64>,
    /// The line of the current input's last record, which a line count that ends before
    /// it (a last row the reader counts otherwise) must not leave to the next input.
    last_line: u64,
    /// The run lines of the inputs done: their lines, or their last records' where more.
    run_done: u64,
}

impl ChainSource {
    /// Opens the first source now (so a missing file or column is reported before any
    /// output) and the others when reached. Every file is checked to exist up front.
    pub fn new(sources: Vec<Source>, opts: ReadOptions) -> Result<Self, InputError> {
        for s in &sources {
            if let Some(p) = s.path() {
                if let Err(e) = std::fs::metadata(p) {
                    return Err(InputError::new(
                        InputErrorKind::Open,
                        &s.name(),
                        format!("cannot open: {e}"),
                    ));
                }
            }
        }
        if sources.len() > (1 << SOURCE_BITS) {
            return Err(InputError::new(
                InputErrorKind::Open,
                "inputs",
                format!(
                    "more than {} inputs in one run: concatenate some of them first",
                    1u64 << SOURCE_BITS
                ),
            ));
        }
        let count = Arc::new(AtomicU64::new(0));
        let several = sources.len() > 1;
        let mut pending: std::collections::VecDeque<Source> = sources.into();
        let (current, kept) = match pending.pop_front() {
            Some(s) => {
                let r = open_source(&s, &opts, count.clone(), true)?;
                let kept = r.kept_names().to_vec();
                (Some(r), kept)
            }
            None => (None, Vec::new()),
        };
        Ok(ChainSource {
            pending,
            index: 0,
            opts,
            current,
            lines_done: 0,
            count,
            skipped_done: Skipped::default(),
            kept,
            notices: Vec::new(),
            several,
            offsets: if several { vec![0] } else { Vec::new() },
            last_line: 0,
            run_done: 0,
        })
    }
}

/// Bits of a packed record position ([`RecordRef`]) that hold the source index.
pub const SOURCE_BITS: u32 = 20;

/// A record's place in the inputs of a run (source index and line), packed into 64 bits:
/// the source in the top [`SOURCE_BITS`], the line below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RecordRef(u64);

impl RecordRef {
    const LINE_MASK: u64 = (1 << (64 - SOURCE_BITS)) - 1;

    /// The place of `source`'s `line`.
    pub fn new(source: u32, line: u64) -> Self {
        RecordRef((u64::from(source) << (64 - SOURCE_BITS)) | (line & Self::LINE_MASK))
    }
    /// The place of a record.
    pub fn of(r: &InputRecord) -> Self {
        Self::new(r.source, r.line)
    }
    /// The source index.
    pub fn source(self) -> u32 {
        (self.0 >> (64 - SOURCE_BITS)) as u32
    }
    /// The line.
    pub fn line(self) -> u64 {
        self.0 & Self::LINE_MASK
    }
    /// The packed bits, for a file that keeps places (`urlkey map`'s spill, which keeps
    /// each as its difference from the place before it).
    pub(crate) fn to_bits(self) -> u64 {
        self.0
    }
}

impl RecordSource for ChainSource {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        loop {
            let Some(cur) = self.current.as_mut() else {
                return Ok(false);
            };
            let start = out.len();
            let more = cur.next_batch(out, max)?;
            if self.several {
                let offset = self.run_done;
                for r in &mut out[start..] {
                    r.source = self.index;
                    r.run_line = offset + r.line;
                }
                if let Some(r) = out[start..].last() {
                    self.last_line = r.line;
                }
            } else {
                for r in &mut out[start..] {
                    r.source = self.index;
                }
            }
            if more {
                return Ok(true);
            }
            self.lines_done += cur.lines_read();
            self.run_done += cur.lines_read().max(self.last_line);
            self.last_line = 0;
            let s = cur.skipped();
            self.skipped_done.blank += s.blank;
            self.skipped_done.comment += s.comment;
            self.notices.append(&mut cur.take_notices());
            self.current = match self.pending.pop_front() {
                Some(src) => {
                    self.index += 1;
                    self.offsets.push(self.run_done);
                    let mut opts = self.opts.clone();
                    if opts.keep != KeepColumns::None {
                        opts.keep = KeepColumns::Names(self.kept.clone());
                    }
                    Some(open_source(&src, &opts, self.count.clone(), false)?)
                }
                None => None,
            };
            if self.current.is_none() {
                return Ok(false);
            }
            if out.len() > start {
                return Ok(true);
            }
        }
    }
    fn skipped(&self) -> Skipped {
        let s = self
            .current
            .as_ref()
            .map(|c| c.skipped())
            .unwrap_or_default();
        Skipped {
            blank: self.skipped_done.blank + s.blank,
            comment: self.skipped_done.comment + s.comment,
        }
    }
    fn lines_read(&self) -> u64 {
        self.lines_done + self.current.as_ref().map_or(0, |c| c.lines_read())
    }
    fn bytes_read(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
    fn kept_names(&self) -> &[String] {
        &self.kept
    }
    fn header(&self) -> &[String] {
        self.current.as_ref().map_or(&[], |c| c.header())
    }
    fn sheet_name(&self) -> Option<&str> {
        self.current.as_ref().and_then(|c| c.sheet_name())
    }
    fn run_line_offsets(&self) -> &[u64] {
        &self.offsets
    }
    fn take_notices(&mut self) -> Vec<String> {
        let mut n = std::mem::take(&mut self.notices);
        if let Some(c) = self.current.as_mut() {
            n.append(&mut c.take_notices());
        }
        n
    }
}

#[cfg(test)]
mod quote_tests;
#[cfg(test)]
mod tests;

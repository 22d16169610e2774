//! Readers: plain lines, CSV/TSV (any delimiter) with a column, JSONL with a field, and
//! spreadsheets (`.xlsx`, `.xls`, `.ods`); files or standard input; `.gz` and `.zst` read
//! transparently; UTF-8, UTF-16 with a byte-order mark, or any WHATWG encoding label.
//!
//! Every record knows the file it came from ([`InputRecord::source`]) and the physical line
//! where it starts in that file ([`InputRecord::line`]: `\n`, `\r\n` and a lone `\r` each end
//! a line; a spreadsheet row is its row number), so that output joins back to the input.

mod decode;
mod lines;
mod sheet;
mod table;
mod text;

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use urlkey::{ErrorCode, KeyError};

pub use decode::{encoding_for_label, sniff, Sniffed, NUL_BYTES};
pub use lines::{LineTracker, PhysicalLines};
pub use text::{JsonlReader, LineReader};

/// The default limit on one input line (64 KiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024;

/// How many bytes of an over-long line are kept in `observed`.
pub const TOO_LONG_KEEP: usize = 256;

/// The shape of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One URL per line.
    Lines,
    /// Delimited text with a header row (`,` unless detected or given); the URL in a column.
    Csv,
    /// Tab-separated with a header row; the URL in a column.
    Tsv,
    /// One JSON object per line; the URL in a field.
    Jsonl,
    /// A spreadsheet (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`); the URL in a column.
    Sheet,
}

impl InputFormat {
    /// Parses `lines`, `csv`, `tsv`, `jsonl` or `sheet` (also `xlsx`, `xls`, `ods`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lines" | "text" | "txt" => Some(Self::Lines),
            "csv" => Some(Self::Csv),
            "tsv" => Some(Self::Tsv),
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            "sheet" | "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => Some(Self::Sheet),
            _ => None,
        }
    }

    /// The name used in messages and by `parse`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Lines => "lines",
            Self::Csv => "csv",
            Self::Tsv => "tsv",
            Self::Jsonl => "jsonl",
            Self::Sheet => "sheet",
        }
    }

    /// True for the shapes whose URL is in a named column.
    pub const fn is_tabular(self) -> bool {
        matches!(self, Self::Csv | Self::Tsv | Self::Sheet)
    }
}

/// The input's other columns that follow urlkey's in every record (`--keep-columns`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum KeepColumns {
    /// None (the default).
    #[default]
    None,
    /// Every column but the URL's, in the input's order.
    All,
    /// These, in this order (matched as `--column` is).
    Names(Vec<String>),
}

impl KeepColumns {
    /// Parses `all` or a comma-separated list of names.
    pub fn parse(s: &str) -> Self {
        match s.trim() {
            "" => KeepColumns::None,
            "all" => KeepColumns::All,
            list => KeepColumns::Names(list.split(',').map(|n| n.trim().to_string()).collect()),
        }
    }
}

/// Reader settings.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The input shape.
    pub format: InputFormat,
    /// The column holding the URL (CSV/TSV/spreadsheet).
    pub column: Option<String>,
    /// The JSONL field holding the URL.
    pub field: Option<String>,
    /// Lines longer than this become `input.too-long` records.
    pub max_line_bytes: usize,
    /// The text encoding of inputs without a byte-order mark (default: UTF-8).
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// The CSV delimiter; detected from the header line when not given.
    pub delimiter: Option<u8>,
    /// The first row (after `skip_rows`) names the columns.
    pub headers: bool,
    /// Lines (rows of a spreadsheet) before the header.
    pub skip_rows: u64,
    /// The spreadsheet's sheet: a name or a 1-based number (default: the first).
    pub sheet: Option<String>,
    /// Other columns to carry into the output.
    pub keep: KeepColumns,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: InputFormat::Lines,
            column: None,
            field: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            encoding: None,
            delimiter: None,
            headers: true,
            skip_rows: 0,
            sheet: None,
            keep: KeepColumns::None,
        }
    }
}

/// A setting that cannot work, found before anything is read. The message names the
/// setting as the library knows it; the command line adds its flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError {
    /// The setting to change, for the caller to name its own way (a flag, a field).
    pub setting: Setting,
    /// What is wrong and what to do.
    pub message: String,
}

/// A reader setting, as [`OptionsError`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// [`ReadOptions::max_line_bytes`].
    LineLimit,
    /// [`ReadOptions::column`].
    Column,
    /// [`ReadOptions::headers`] (with a numbered column).
    Headers,
    /// [`ReadOptions::field`].
    Field,
    /// [`ReadOptions::keep`].
    Keep,
    /// [`ReadOptions::sheet`].
    Sheet,
    /// [`ReadOptions::delimiter`].
    Delimiter,
}

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for OptionsError {}

impl ReadOptions {
    /// Checks that the settings fit together (shared by the CLI and serve).
    pub fn validate(&self) -> Result<(), OptionsError> {
        let err = |setting: Setting, m: &str| {
            Err(OptionsError {
                setting,
                message: m.into(),
            })
        };
        if self.max_line_bytes == 0 {
            return err(
                Setting::LineLimit,
                "the line limit (max line bytes) must be at least 1",
            );
        }
        match self.format {
            f if f.is_tabular() => {
                let Some(col) = &self.column else {
                    return err(Setting::Column, "tabular input (CSV, TSV, spreadsheet) needs the column holding the URL: a header name or a 1-based number");
                };
                if !self.headers && col.parse::<usize>().map_or(true, |n| n == 0) {
                    return err(
                        Setting::Headers,
                        "without a header row the column must be a 1-based number",
                    );
                }
            }
            InputFormat::Jsonl => {
                if self.field.is_none() {
                    return err(
                        Setting::Field,
                        "JSONL input needs the field holding the URL",
                    );
                }
                if self.keep == KeepColumns::All {
                    return err(
                        Setting::Keep,
                        "JSONL has no header to take \"all\" columns from: name the fields to keep",
                    );
                }
            }
            _ => {
                if self.keep != KeepColumns::None {
                    return err(Setting::Keep, "plain lines have no other columns to keep: keeping columns needs CSV, TSV, JSONL or a spreadsheet");
                }
            }
        }
        if self.sheet.is_some() && self.format != InputFormat::Sheet {
            return err(
                Setting::Sheet,
                "a sheet can only be chosen in a spreadsheet input (.xlsx, .xls, .ods)",
            );
        }
        if matches!(self.delimiter, Some(b'"' | b'\n' | b'\r')) {
            return err(
                Setting::Delimiter,
                "the delimiter cannot be a quote or a line end",
            );
        }
        Ok(())
    }
}

/// One input record: where it was, what was read, and a problem found before any policy
/// ran (then the record is invalid with that error).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InputRecord {
    /// The index of its input among the inputs of the run (0 for the first).
    pub source: u32,
    /// The 1-based physical line where the record starts in its own input (the header is
    /// line 1; a spreadsheet row is its row number).
    pub line: u64,
    /// With several inputs ([`ChainSource`]): the line counted through the run's inputs
    /// one after another (the lines of the inputs before its own, plus `line`), which
    /// names one record across all of them; 0 when the run reads one input.
    pub run_line: u64,
    /// The text as read (invalid UTF-8 shown with `\xNN` escapes; an over-long line
    /// shortened, see `docs/cli.md`).
    pub observed: String,
    /// A reading problem.
    pub problem: Option<KeyError>,
    /// The kept columns' cells, in [`RecordSource::kept_names`] order.
    pub kept: Vec<String>,
    /// How many cells the row has as read (CSV, TSV, spreadsheets; 0 for other shapes):
    /// with [`RecordSource::header`], tells a short or long row from empty cells.
    pub fields: usize,
    /// The cells of a CSV/TSV row past the header's last column, as read, when every
    /// column is kept ([`KeepColumns::All`] with a header row; empty otherwise): with
    /// `observed` and `kept`, every cell of a row longer than the header.
    pub overflow: Vec<String>,
}

/// Counts of lines that produced no record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Blank lines (and empty spreadsheet rows).
    pub blank: u64,
    /// Lines whose first non-space character is `#`.
    pub comment: u64,
}

/// What kind of reading failure an [`InputError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputErrorKind {
    /// The input could not be opened.
    Open,
    /// Reading or decoding failed part way.
    Read,
    /// The header has no such column (or the name is ambiguous).
    Column,
    /// A spreadsheet could not be read, or has no such sheet.
    Sheet,
}

/// An input that cannot be read at all: reported before any output.
#[derive(Debug, Clone)]
pub struct InputError {
    /// The kind.
    pub kind: InputErrorKind,
    /// What failed, naming the file (and line where known), and what to do.
    pub message: String,
}

impl InputError {
    fn new(kind: InputErrorKind, src: &str, what: impl std::fmt::Display) -> Self {
        InputError {
            kind,
            message: format!("{src}: {what}"),
        }
    }
    fn read(src: &Source, what: impl std::fmt::Display) -> Self {
        Self::new(InputErrorKind::Read, &src.name(), what)
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for InputError {}

/// Where records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
    /// Standard input kept in a file to be read twice (`urlkey map`); named `-`.
    Spilled(PathBuf),
}

impl Source {
    /// `-` is standard input.
    pub fn from_arg(s: &str) -> Self {
        if s == "-" {
            Source::Stdin
        } else {
            Source::File(PathBuf::from(s))
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin | Source::Spilled(_) => "<stdin>".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The name in output records (`source`): the path as given, `-` for standard input.
    pub fn label(&self) -> String {
        match self {
            Source::Stdin | Source::Spilled(_) => "-".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The file read, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::File(p) | Source::Spilled(p) => Some(p),
        }
    }

    /// The size in bytes, when known (for progress).
    pub fn byte_len(&self) -> Option<u64> {
        std::fs::metadata(self.path()?).ok().map(|m| m.len())
    }

    /// The lowercased extension of a file's name (`""` for standard input).
    fn extension(&self) -> String {
        match self {
            Source::File(p) => p
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase(),
            _ => String::new(),
        }
    }

    /// Opens the source, decompressing `.gz`/`.zst` by extension or magic bytes; `count`
    /// receives the bytes read from the file itself.
    pub fn open_counted(
        &self,
        count: Arc<AtomicU64>,
    ) -> Result<Box<dyn BufRead + Send>, InputError> {
        let raw: Box<dyn Read + Send> = match self.path() {
            None => Box::new(decode::CountingReader::new(io::stdin(), count)),
            Some(p) => {
                let f = File::open(p).map_err(|e| {
                    InputError::new(
                        InputErrorKind::Open,
                        &self.name(),
                        format!("cannot open: {e}"),
                    )
                })?;
                Box::new(decode::CountingReader::new(f, count))
            }
        };
        decode::decompress(raw, self)
    }

    /// [`Source::open_counted`] without a counter.
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, InputError> {
        self.open_counted(Arc::default())
    }
}

/// Escapes invalid UTF-8 as `\xNN` so the record shows exactly which bytes were there.
pub fn escape_invalid_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Turns bytes into a record: too long (`full_len` is the length before any cut), invalid
/// UTF-8, or text.
fn decode_record(line: u64, bytes: &[u8], full_len: usize, max: usize) -> InputRecord {
    if full_len > max {
        let keep = &bytes[..TOO_LONG_KEEP.min(bytes.len())];
        return InputRecord {
            line,
            observed: format!("{}…", escape_invalid_utf8(keep)),
            problem: Some(KeyError::new(
                ErrorCode::InputTooLong,
                format!("the line is {full_len} bytes; the limit is {max} bytes"),
            )),
            ..InputRecord::default()
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => InputRecord {
            line,
            observed: s.to_string(),
            ..InputRecord::default()
        },
        Err(e) => InputRecord {
            line,
            observed: escape_invalid_utf8(bytes),
            problem: Some(KeyError::new(
                ErrorCode::InputInvalidUtf8,
                format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            )),
            ..InputRecord::default()
        },
    }
}

/// Reads records one batch at a time, so the caller keeps memory bounded.
pub trait RecordSource: Send {
    /// Appends up to `max` records to `out`; returns false at the end of the input.
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError>;
    /// Lines skipped so far.
    fn skipped(&self) -> Skipped;
    /// Lines read so far (records and skipped lines).
    fn lines_read(&self) -> u64;
    /// Bytes read so far from the input files (before decompression and decoding).
    fn bytes_read(&self) -> u64;
    /// The names of the kept columns (`--keep-columns`), as the input's header has them.
    fn kept_names(&self) -> &[String] {
        &[]
    }
    /// The header row as read, every column (CSV, TSV, spreadsheets with a header; empty
    /// otherwise).
    fn header(&self) -> &[String] {
        &[]
    }
    /// Things the user should know about the input (a detected delimiter, binary
    /// content, an empty file), taken once.
    fn take_notices(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// The name of the sheet read (spreadsheets; `None` otherwise).
    fn sheet_name(&self) -> Option<&str> {
        None
    }
    /// Per input of the run, in order, the lines of the inputs before it: what a line of
    /// that input adds to make its [`InputRecord::run_line`]. Empty for one input.
    fn run_line_offsets(&self) -> &[u64] {
        &[]
    }
}

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
    let reader = decode::decode(reader, opts.encoding, &sniffed)
        .map_err(|e| InputError::new(InputErrorKind::Read, &name, format!("cannot decode: {e}")))?;
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
mod tests;

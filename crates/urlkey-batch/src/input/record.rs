//! What a reader gives: one [`InputRecord`] per line or row, the lines it skipped, the errors
//! that stop a read, and the [`RecordSource`] trait every reader implements.

use urlkey::{ErrorCode, KeyError};

use super::options::TOO_LONG_KEEP;
use super::source::Source;

/// One input record: where it was, what was read, and a problem found before any policy
/// ran (then the record is invalid with that error).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InputRecord {
    /// The index of its input among the inputs of the run (0 for the first).
    pub source: u32,
    /// The 1-based physical line where the record starts in its own input (the header is
    /// line 1; a spreadsheet row is its row number).
    pub line: u64,
    /// With several inputs ([`ChainSource`](super::ChainSource)): the line counted through
    /// the run's inputs one after another (the lines of the inputs before its own, plus
    /// `line`), which names one record across all of them; 0 when the run reads one input.
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
    /// column is kept ([`KeepColumns::All`](super::KeepColumns::All) with a header row;
    /// empty otherwise): with `observed` and `kept`, every cell of a row longer than the
    /// header.
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
    /// A quote opened on `line` folds the lines after it into one cell (never closed,
    /// closed inside a cell, or a URL's cell spanning lines): the input is refused rather
    /// than read with rows lost. Reading quotes as ordinary characters
    /// ([`ReadOptions::quotes`](super::ReadOptions::quotes)) reads every line as a row.
    Quote {
        /// The physical line where the quote opens its cell.
        line: u64,
    },
    /// The header row has no such column, but a row below it names it: the lines above
    /// are a title (a crawler's "Internal - All"), to skip.
    HeaderBelow {
        /// The physical line that names the column.
        line: u64,
    },
}

impl InputErrorKind {
    /// A stable name for scripts and tests (`input.unclosed-quote`, ...).
    pub const fn code(self) -> &'static str {
        match self {
            InputErrorKind::Open => "input.open",
            InputErrorKind::Read => "input.read",
            InputErrorKind::Column => "input.column",
            InputErrorKind::Sheet => "input.sheet",
            InputErrorKind::Quote { .. } => "input.stray-quote",
            InputErrorKind::HeaderBelow { .. } => "input.column",
        }
    }
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
    pub(super) fn new(kind: InputErrorKind, src: &str, what: impl std::fmt::Display) -> Self {
        InputError {
            kind,
            message: format!("{src}: {what}"),
        }
    }
    pub(super) fn read(src: &Source, what: impl std::fmt::Display) -> Self {
        Self::new(InputErrorKind::Read, &src.name(), what)
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for InputError {}

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
pub(super) fn decode_record(line: u64, bytes: &[u8], full_len: usize, max: usize) -> InputRecord {
    if full_len > max {
        let keep = &bytes[..TOO_LONG_KEEP.min(bytes.len())];
        return InputRecord {
            line,
            observed: format!("{}…", escape_invalid_utf8(keep)),
            problem: Some(KeyError::new(
                ErrorCode::InputTooLong,
                urlkey::internals::too_long_message(full_len, max),
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

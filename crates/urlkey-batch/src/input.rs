//! Readers: plain lines, CSV/TSV with a column, JSONL with a field; files or standard
//! input; `.gz` and `.zst` read transparently (by extension or magic bytes).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use urlkey::{ErrorCode, KeyError};

/// The default limit on one input line (64 KiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024;

/// How many bytes of an over-long line are kept in `observed`.
pub const TOO_LONG_KEEP: usize = 256;

/// The shape of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One URL per line.
    Lines,
    /// CSV with a header row; the URL in `--column`.
    Csv,
    /// Tab-separated with a header row; the URL in `--column`.
    Tsv,
    /// One JSON object per line; the URL in `--field`.
    Jsonl,
}

impl InputFormat {
    /// Parses `lines`, `csv`, `tsv` or `jsonl`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lines" | "text" | "txt" => Some(Self::Lines),
            "csv" => Some(Self::Csv),
            "tsv" => Some(Self::Tsv),
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            _ => None,
        }
    }
}

/// Which column of a CSV/TSV file holds the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// By header name (tried first).
    Name(String),
    /// By 1-based position, when no header has that name and the text is a number.
    Index(usize),
}

/// Reader settings.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The input shape.
    pub format: InputFormat,
    /// CSV/TSV column.
    pub column: Option<String>,
    /// JSONL field.
    pub field: Option<String>,
    /// Lines longer than this become `input.too-long` records.
    pub max_line_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: InputFormat::Lines,
            column: None,
            field: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// One input record: where it was, what was read, and a problem found before any policy
/// ran (then the record is invalid with that error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRecord {
    /// The 1-based line of the record in its input (skipped lines counted).
    pub line: u64,
    /// The text as read (invalid UTF-8 shown with `\xNN` escapes; an over-long line
    /// shortened, see `docs/cli.md`).
    pub observed: String,
    /// A reading problem.
    pub problem: Option<KeyError>,
}

/// Counts of lines that produced no record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Blank lines.
    pub blank: u64,
    /// Lines whose first non-space character is `#`.
    pub comment: u64,
}

/// An input that cannot be read at all: reported before any output.
#[derive(Debug)]
pub struct InputError {
    /// What failed, naming the file (and line where known).
    pub message: String,
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
            Source::Stdin => "<stdin>".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The size in bytes, when known (for progress).
    pub fn byte_len(&self) -> Option<u64> {
        match self {
            Source::Stdin => None,
            Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
        }
    }

    /// Opens the source, decompressing `.gz`/`.zst` by extension or magic bytes.
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, InputError> {
        let raw: Box<dyn Read + Send> = match self {
            Source::Stdin => Box::new(io::stdin()),
            Source::File(p) => Box::new(File::open(p).map_err(|e| InputError {
                message: format!("{}: cannot open: {e}", p.display()),
            })?),
        };
        decompress(raw, self)
    }
}

fn decompress(
    raw: Box<dyn Read + Send>,
    src: &Source,
) -> Result<Box<dyn BufRead + Send>, InputError> {
    let mut buf = BufReader::with_capacity(256 * 1024, raw);
    let magic = buf.fill_buf().map_err(|e| InputError {
        message: format!("{}: cannot read: {e}", src.name()),
    })?;
    let ext = match src {
        Source::File(p) => p
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase(),
        Source::Stdin => String::new(),
    };
    if magic.starts_with(&[0x1f, 0x8b]) || (ext == "gz" && magic.is_empty()) {
        return Ok(Box::new(BufReader::with_capacity(
            256 * 1024,
            flate2::bufread::MultiGzDecoder::new(buf),
        )));
    }
    if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        let dec = zstd::stream::read::Decoder::with_buffer(buf).map_err(|e| InputError {
            message: format!("{}: cannot start zstd decoding: {e}", src.name()),
        })?;
        return Ok(Box::new(BufReader::with_capacity(256 * 1024, dec)));
    }
    if ext == "gz" || ext == "zst" {
        return Err(InputError {
            message: format!(
                "{}: the name ends in .{ext} but the content is not {}: rename the file or recompress it",
                src.name(),
                if ext == "gz" { "gzip" } else { "zstd" }
            ),
        });
    }
    Ok(Box::new(buf))
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

/// Turns bytes into a record: too long, invalid UTF-8, or text.
fn decode_record(line: u64, bytes: &[u8], max: usize) -> InputRecord {
    if bytes.len() > max {
        let keep = &bytes[..TOO_LONG_KEEP.min(bytes.len())];
        return InputRecord {
            line,
            observed: format!("{}…", escape_invalid_utf8(keep)),
            problem: Some(KeyError::new(
                ErrorCode::InputTooLong,
                format!(
                    "the line is {} bytes; the limit is {max} (--max-line-bytes)",
                    bytes.len()
                ),
            )),
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => InputRecord {
            line,
            observed: s.to_string(),
            problem: None,
        },
        Err(e) => InputRecord {
            line,
            observed: escape_invalid_utf8(bytes),
            problem: Some(KeyError::new(
                ErrorCode::InputInvalidUtf8,
                format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            )),
        },
    }
}

/// A plain line: blank and `#` lines are skipped and counted, the rest decoded.
fn line_record(line: u64, bytes: &[u8], max: usize, skipped: &mut Skipped) -> Option<InputRecord> {
    // Seed 000 ("The pipeline"): blank and comment lines after the tool's trim; the library
    // decides (urlkey::text::line_kind), so every reader and policy agree (issue 13, item 7).
    match urlkey::text::line_kind(bytes) {
        urlkey::text::LineKind::Blank => skipped.blank += 1,
        urlkey::text::LineKind::Comment => skipped.comment += 1,
        urlkey::text::LineKind::Record => return Some(decode_record(line, bytes, max)),
    }
    None
}

/// Reads records one batch at a time, so the caller keeps memory bounded.
pub trait RecordSource: Send {
    /// Appends up to `max` records to `out`; returns false at the end of the input.
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError>;
    /// Lines skipped so far.
    fn skipped(&self) -> Skipped;
    /// Lines read so far (records and skipped lines).
    fn lines_read(&self) -> u64;
    /// Bytes read so far (of the decompressed input).
    fn bytes_read(&self) -> u64;
}

/// Plain lines.
pub struct LineReader<R> {
    inner: R,
    name: String,
    buf: Vec<u8>,
    line: u64,
    bytes: u64,
    max: usize,
    skipped: Skipped,
    done: bool,
}

impl<R: BufRead + Send> LineReader<R> {
    /// A reader of `inner`, named `name` in errors.
    pub fn new(inner: R, name: String, max_line_bytes: usize) -> Self {
        LineReader {
            inner,
            name,
            buf: Vec::with_capacity(1024),
            line: 0,
            bytes: 0,
            max: max_line_bytes,
            skipped: Skipped::default(),
            done: false,
        }
    }
}

impl<R: BufRead + Send> RecordSource for LineReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        let start = out.len();
        while !self.done && out.len() - start < max {
            self.buf.clear();
            let n = self
                .inner
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| InputError {
                    message: format!("{}: read error after line {}: {e}", self.name, self.line),
                })?;
            if n == 0 {
                self.done = true;
                break;
            }
            self.bytes += n as u64;
            self.line += 1;
            let mut bytes: &[u8] = &self.buf;
            if let Some(b) = bytes.strip_suffix(b"\n") {
                bytes = b.strip_suffix(b"\r").unwrap_or(b);
            }
            if self.line == 1 {
                bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            }
            if let Some(r) = line_record(self.line, bytes, self.max, &mut self.skipped) {
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
        self.bytes
    }
}

/// CSV or TSV with a header row.
pub struct CsvReader<R: Read> {
    inner: csv::Reader<R>,
    name: String,
    index: usize,
    column_label: String,
    rec: csv::ByteRecord,
    lines: u64,
    max: usize,
    done: bool,
}

impl<R: Read + Send> CsvReader<R> {
    /// Reads the header and finds the column; a missing column is an error naming the
    /// headers there are.
    pub fn new(
        inner: R,
        name: String,
        delimiter: u8,
        column: &str,
        max: usize,
    ) -> Result<Self, InputError> {
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .has_headers(true)
            .from_reader(inner);
        let headers = rdr.byte_headers().map_err(|e| InputError {
            message: format!("{name}: cannot read the header row: {e}"),
        })?;
        let names: Vec<String> = headers
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
            .collect();
        let index = match names.iter().position(|h| h == column) {
            Some(i) => i,
            None => match column.parse::<usize>() {
                Ok(n) if n >= 1 && n <= names.len() => n - 1,
                _ => {
                    return Err(InputError {
                        message: format!(
                            "{name}: line 1: no column {column:?}; the header has: {} (use --column NAME or a 1-based number)",
                            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
                        ),
                    })
                }
            },
        };
        Ok(CsvReader {
            inner: rdr,
            name,
            index,
            column_label: column.to_string(),
            rec: csv::ByteRecord::new(),
            lines: 1,
            max,
            done: false,
        })
    }
}

impl<R: Read + Send> RecordSource for CsvReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        let start = out.len();
        while !self.done && out.len() - start < max {
            let more = self
                .inner
                .read_byte_record(&mut self.rec)
                .map_err(|e| InputError {
                    message: format!("{}: {e}", self.name),
                })?;
            if !more {
                self.done = true;
                break;
            }
            let line = self.rec.position().map_or(0, |p| p.line());
            self.lines = self.inner.position().line().max(line);
            match self.rec.get(self.index) {
                None => out.push(InputRecord {
                    line,
                    observed: String::new(),
                    problem: Some(KeyError::new(
                        ErrorCode::InputMissingField,
                        format!(
                            "the row has {} fields; column {:?} is field {}",
                            self.rec.len(),
                            self.column_label,
                            self.index + 1
                        ),
                    )),
                }),
                // An empty cell is a row without its URL, not a blank line: keep it.
                Some(field) if field.trim_ascii().is_empty() => out.push(InputRecord {
                    line,
                    observed: String::from_utf8_lossy(field).into_owned(),
                    problem: Some(KeyError::new(
                        ErrorCode::InputMissingField,
                        format!("column {:?} is empty", self.column_label),
                    )),
                }),
                Some(field) => out.push(decode_record(line, field, self.max)),
            }
        }
        Ok(!self.done)
    }
    fn skipped(&self) -> Skipped {
        Skipped::default()
    }
    fn lines_read(&self) -> u64 {
        self.lines
    }
    fn bytes_read(&self) -> u64 {
        self.inner.position().byte()
    }
}

/// JSON Lines with a field holding the URL.
pub struct JsonlReader<R> {
    lines: LineReader<R>,
    field: String,
    raw: Vec<InputRecord>,
}

impl<R: BufRead + Send> JsonlReader<R> {
    /// A reader taking the URL from `field`.
    pub fn new(inner: R, name: String, field: &str, max: usize) -> Self {
        JsonlReader {
            lines: LineReader::new(inner, name, max),
            field: field.to_string(),
            raw: Vec::new(),
        }
    }
}

impl<R: BufRead + Send> RecordSource for JsonlReader<R> {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        self.raw.clear();
        let more = self.lines.next_batch(&mut self.raw, max)?;
        for r in self.raw.drain(..) {
            if r.problem.is_some() {
                out.push(r);
                continue;
            }
            let rec = match serde_json::from_str::<serde_json::Value>(&r.observed) {
                Ok(serde_json::Value::Object(map)) => match map.get(&self.field) {
                    Some(serde_json::Value::String(s)) => InputRecord {
                        line: r.line,
                        observed: s.clone(),
                        problem: None,
                    },
                    Some(other) => InputRecord {
                        line: r.line,
                        observed: other.to_string(),
                        problem: Some(KeyError::new(
                            ErrorCode::InputMissingField,
                            format!("field {:?} is not a string", self.field),
                        )),
                    },
                    None => InputRecord {
                        line: r.line,
                        observed: String::new(),
                        problem: Some(KeyError::new(
                            ErrorCode::InputMissingField,
                            format!("the object has no field {:?}", self.field),
                        )),
                    },
                },
                Ok(_) => InputRecord {
                    line: r.line,
                    observed: r.observed,
                    problem: Some(KeyError::new(
                        ErrorCode::InputInvalidJson,
                        "the line is JSON but not an object",
                    )),
                },
                Err(e) => InputRecord {
                    line: r.line,
                    observed: r.observed,
                    problem: Some(KeyError::new(
                        ErrorCode::InputInvalidJson,
                        format!("not JSON: {e}"),
                    )),
                },
            };
            out.push(rec);
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
}

/// Opens a source as records of the given shape.
pub fn open_records(src: &Source, opts: &ReadOptions) -> Result<Box<dyn RecordSource>, InputError> {
    let reader = src.open()?;
    records_from(reader, src.name(), opts)
}

/// Wraps an already-open reader (used for spill files and in-memory input).
pub fn records_from(
    reader: Box<dyn BufRead + Send>,
    name: String,
    opts: &ReadOptions,
) -> Result<Box<dyn RecordSource>, InputError> {
    Ok(match opts.format {
        InputFormat::Lines => Box::new(LineReader::new(reader, name, opts.max_line_bytes)),
        InputFormat::Csv | InputFormat::Tsv => {
            let column = opts.column.as_deref().ok_or_else(|| InputError {
                message: format!("{name}: CSV/TSV input needs --column NAME (or a 1-based number)"),
            })?;
            let delim = if opts.format == InputFormat::Csv {
                b','
            } else {
                b'\t'
            };
            Box::new(CsvReader::new(
                reader,
                name,
                delim,
                column,
                opts.max_line_bytes,
            )?)
        }
        InputFormat::Jsonl => {
            let field = opts.field.as_deref().ok_or_else(|| InputError {
                message: format!("{name}: JSONL input needs --field NAME"),
            })?;
            Box::new(JsonlReader::new(reader, name, field, opts.max_line_bytes))
        }
    })
}

/// Guesses the input shape from a file name (`.csv`, `.tsv`, `.jsonl`, through `.gz`/`.zst`).
pub fn format_from_name(path: &Path) -> Option<InputFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.trim_end_matches(".gz").trim_end_matches(".zst");
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "csv" => Some(InputFormat::Csv),
        "tsv" => Some(InputFormat::Tsv),
        "jsonl" | "ndjson" => Some(InputFormat::Jsonl),
        _ => None,
    }
}

/// Several sources read as one input, in order; line numbers continue across them.
pub struct ChainSource {
    pending: std::collections::VecDeque<Source>,
    opts: ReadOptions,
    current: Option<Box<dyn RecordSource>>,
    line_offset: u64,
    bytes_done: u64,
    skipped_done: Skipped,
}

impl ChainSource {
    /// Opens the first source now (so a missing file is reported before any output) and
    /// the others when reached. Every file is checked to exist up front.
    pub fn new(sources: Vec<Source>, opts: ReadOptions) -> Result<Self, InputError> {
        for s in &sources {
            if let Source::File(p) = s {
                if let Err(e) = std::fs::metadata(p) {
                    return Err(InputError {
                        message: format!("{}: cannot open: {e}", p.display()),
                    });
                }
            }
        }
        let mut pending: std::collections::VecDeque<Source> = sources.into();
        let current = match pending.pop_front() {
            Some(s) => Some(open_records(&s, &opts)?),
            None => None,
        };
        Ok(ChainSource {
            pending,
            opts,
            current,
            line_offset: 0,
            bytes_done: 0,
            skipped_done: Skipped::default(),
        })
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
            for r in &mut out[start..] {
                r.line += self.line_offset;
            }
            if more {
                return Ok(true);
            }
            self.line_offset += cur.lines_read();
            self.bytes_done += cur.bytes_read();
            let s = cur.skipped();
            self.skipped_done.blank += s.blank;
            self.skipped_done.comment += s.comment;
            self.current = match self.pending.pop_front() {
                Some(src) => Some(open_records(&src, &self.opts)?),
                None => None,
            };
            if self.current.is_none() {
                return Ok(false);
            }
            if out.len() - start > 0 {
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
        self.line_offset + self.current.as_ref().map_or(0, |c| c.lines_read())
    }
    fn bytes_read(&self) -> u64 {
        self.bytes_done + self.current.as_ref().map_or(0, |c| c.bytes_read())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &[u8], opts: &ReadOptions) -> (Vec<InputRecord>, Skipped) {
        let mut src =
            records_from(Box::new(io::Cursor::new(text.to_vec())), "t".into(), opts).unwrap();
        let mut out = Vec::new();
        while src.next_batch(&mut out, 2).unwrap() {}
        (out, src.skipped())
    }

    #[test]
    fn lines_are_numbered_with_skips_counted() {
        let (recs, skipped) = read_all(
            b"\xEF\xBB\xBFa\r\n\n  # c\nb\xFFc\nlast",
            &ReadOptions::default(),
        );
        assert_eq!(recs.len(), 3);
        assert_eq!((recs[0].line, recs[0].observed.as_str()), (1, "a"));
        assert_eq!(recs[1].line, 4);
        assert_eq!(recs[1].observed, "b\\xFFc");
        assert_eq!(
            recs[1].problem.as_ref().unwrap().code,
            ErrorCode::InputInvalidUtf8
        );
        assert_eq!((recs[2].line, recs[2].observed.as_str()), (5, "last"));
        assert_eq!(
            skipped,
            Skipped {
                blank: 1,
                comment: 1
            }
        );
    }

    #[test]
    fn long_lines_become_records() {
        let opts = ReadOptions {
            max_line_bytes: 10,
            ..ReadOptions::default()
        };
        let (recs, _) = read_all(b"0123456789ABC\nok\n", &opts);
        assert_eq!(
            recs[0].problem.as_ref().unwrap().code,
            ErrorCode::InputTooLong
        );
        assert!(recs[1].problem.is_none());
    }

    #[test]
    fn csv_column_by_name_or_number_and_embedded_newlines() {
        let text = b"id,url\n1,\"https://a/\nb\"\n2\n3,https://c/\n";
        let opts = ReadOptions {
            format: InputFormat::Csv,
            column: Some("url".into()),
            ..Default::default()
        };
        let (recs, _) = read_all(text, &opts);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].observed, "https://a/\nb");
        assert_eq!(recs[0].line, 2);
        assert_eq!(
            recs[1].problem.as_ref().unwrap().code,
            ErrorCode::InputMissingField
        );
        assert_eq!(recs[1].line, 4);
        assert_eq!((recs[2].line, recs[2].observed.as_str()), (5, "https://c/"));
        let opts = ReadOptions {
            format: InputFormat::Csv,
            column: Some("2".into()),
            ..Default::default()
        };
        assert_eq!(read_all(text, &opts).0.len(), 3);
        let opts = ReadOptions {
            format: InputFormat::Csv,
            column: Some("link".into()),
            ..Default::default()
        };
        let err = records_from(
            Box::new(io::Cursor::new(text.to_vec())),
            "f.csv".into(),
            &opts,
        )
        .err()
        .unwrap();
        assert!(
            err.message.contains("no column \"link\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn jsonl_field() {
        let text = b"{\"u\":\"https://a/\"}\n{\"v\":1}\nnot json\n[1]\n{\"u\":5}\n";
        let opts = ReadOptions {
            format: InputFormat::Jsonl,
            field: Some("u".into()),
            ..Default::default()
        };
        let (recs, _) = read_all(text, &opts);
        let codes: Vec<_> = recs
            .iter()
            .map(|r| r.problem.as_ref().map(|p| p.code.as_str()))
            .collect();
        assert_eq!(
            codes,
            [
                None,
                Some("input.missing-field"),
                Some("input.invalid-json"),
                Some("input.invalid-json"),
                Some("input.missing-field")
            ]
        );
        assert_eq!(recs[0].observed, "https://a/");
    }
}

//! How inputs are read: their format, the column or field that holds the URL, the columns
//! kept, the line limit, the encoding ([`ReadOptions`]).

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
    /// CSV/TSV cells may be quoted with `"` (RFC 4180; the default). A quote that would
    /// fold lines into one cell is then refused ([`InputErrorKind::Quote`](super::InputErrorKind::Quote)).
    /// False: a quote is an ordinary character and every line is a row.
    pub quotes: bool,
    /// `column` is the URL's: a cell of it that spans lines is refused, and a list whose
    /// first line holds tabs gets a notice. False for a caller that reads every column
    /// (or JSON object) and finds the URL itself (the ledger).
    pub url_in_column: bool,
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
            quotes: true,
            url_in_column: true,
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

//! What an input is and which of its columns hold which ledger field: the format (by
//! extension, then by content), the ledger's field names, and `--columns`.

use std::path::Path;

/// The input columns (CSV header names, JSONL field names), as the seed document's "Minimum audit ledger"
/// names them.
pub const INPUT_FIELDS: [&str; 9] = [
    "observation_id",
    "prompt_id",
    "prompt_version",
    "answer_system",
    "market",
    "collection",
    "run_timestamp",
    "observed_url",
    "claim",
];

/// The format of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-separated, with a header row.
    Csv,
    /// Tab-separated, with a header row.
    Tsv,
    /// One JSON object per line.
    Jsonl,
    /// An Office Open XML workbook (`.xlsx`, also `.xlsm` and `.xlsb`), read as it is.
    Xlsx,
    /// An Excel 97-2003 workbook (`.xls`).
    Xls,
    /// An OpenDocument spreadsheet (`.ods`).
    Ods,
}

impl crate::choice::Choice for InputFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            InputFormat::Csv,
            "csv",
            "Comma-separated, with a header row",
        ),
        (InputFormat::Tsv, "tsv", "Tab-separated, with a header row"),
        (InputFormat::Jsonl, "jsonl", "One JSON object per line"),
        (
            InputFormat::Xlsx,
            "xlsx",
            "An Office Open XML workbook (`.xlsx`, also `.xlsm` and `.xlsb`), read as it is",
        ),
        (
            InputFormat::Xls,
            "xls",
            "An Excel 97-2003 workbook (`.xls`)",
        ),
        (
            InputFormat::Ods,
            "ods",
            "An OpenDocument spreadsheet (`.ods`)",
        ),
    ];
}

crate::choice::from_str_by_name!(InputFormat);

impl InputFormat {
    /// `csv`, `tsv`, `jsonl`, `xlsx`, `xls` or `ods` (as stored in `ingests.input_format`).
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Xlsx => "xlsx",
            InputFormat::Xls => "xls",
            InputFormat::Ods => "ods",
        }
    }

    /// True for the spreadsheet formats.
    pub fn is_sheet(self) -> bool {
        matches!(
            self,
            InputFormat::Xlsx | InputFormat::Xls | InputFormat::Ods
        )
    }
}

/// The extension that names the content: `x.csv.gz` is `csv`.
pub(super) fn content_extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    Some(name.rsplit_once('.')?.1.to_string())
}

/// A spreadsheet by its first bytes (a ZIP: `.xlsx`, or `.ods` when its mimetype says so;
/// an OLE file: `.xls`), else by extension (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, also
/// through `.gz`/`.zst`), else by extension (`.csv`, `.tsv`, `.jsonl`, `.ndjson`, `.json`),
/// else by content: a first non-blank byte `{` is JSONL, a header with tabs and no commas is
/// TSV, anything else CSV. `bytes` is the start of the content.
pub fn detect_format(path: &Path, bytes: &[u8]) -> InputFormat {
    if bytes.starts_with(b"PK\x03\x04") {
        let ods = bytes
            .windows(46)
            .take(256)
            .any(|w| w == b"application/vnd.oasis.opendocument.spreadsheet");
        return if ods {
            InputFormat::Ods
        } else {
            InputFormat::Xlsx
        };
    }
    if bytes.starts_with(b"\xD0\xCF\x11\xE0") {
        return InputFormat::Xls;
    }
    match content_extension(path).as_deref() {
        Some("xlsx") | Some("xlsm") | Some("xlsb") => return InputFormat::Xlsx,
        Some("xls") => return InputFormat::Xls,
        Some("ods") => return InputFormat::Ods,
        Some("csv") => return InputFormat::Csv,
        Some("tsv") | Some("tab") => return InputFormat::Tsv,
        Some("jsonl") | Some("ndjson") | Some("json") => return InputFormat::Jsonl,
        _ => {}
    }
    let text = sniff_text(bytes);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return InputFormat::Jsonl;
    }
    let header = text.split(|&b| b == b'\n').next().unwrap_or_default();
    if header.contains(&b'\t') && !header.contains(&b',') {
        InputFormat::Tsv
    } else {
        InputFormat::Csv
    }
}

/// The first 64 KiB as text for sniffing: a UTF-8 byte-order mark removed, UTF-16 (a
/// byte-order mark) narrowed to its ASCII bytes.
pub(super) fn sniff_text(bytes: &[u8]) -> Vec<u8> {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        head[2..].iter().copied().filter(|&b| b != 0).collect()
    } else {
        head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head).to_vec()
    }
}

pub(super) fn field_name(name: &str) -> Option<&'static str> {
    INPUT_FIELDS.iter().copied().find(|f| *f == name)
}

/// `--columns 'observation_id=Observation ID,observed_url=URL'`: which input column (or
/// JSONL field) holds which ledger field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(Vec<(&'static str, String)>);

impl ColumnMap {
    /// Parses `field=Header,field=Header`; the fields are the ledger's input fields.
    pub fn parse(text: &str) -> std::result::Result<ColumnMap, String> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((field, header)) = part.split_once('=') else {
                return Err(format!(
                    "{part:?} is not FIELD=HEADER: write e.g. \
                     'observation_id=Observation ID,observed_url=URL'"
                ));
            };
            let Some(f) = field_name(field.trim()) else {
                return Err(format!(
                    "{:?} is not a ledger field; the fields are {}",
                    field.trim(),
                    INPUT_FIELDS.join(", ")
                ));
            };
            if out.iter().any(|(g, _)| *g == f) {
                return Err(format!("{f} is mapped twice: keep one"));
            }
            out.push((f, header.trim().to_string()));
        }
        Ok(ColumnMap(out))
    }

    /// The ledger field an input column or JSONL key stands for: a `--columns` mapping
    /// (the header name exactly, else ignoring case and separators), else the field's own
    /// name ignoring case and separators (`Observation ID` = `observation_id`), unless
    /// `--columns` maps that field to another column.
    pub fn field_for(&self, name: &str) -> Option<&'static str> {
        let name = name.trim();
        if let Some((f, _)) = self.0.iter().find(|(_, h)| h == name) {
            return Some(f);
        }
        let sq = squash(name);
        if let Some((f, _)) = self.0.iter().find(|(_, h)| squash(h) == sq) {
            return Some(f);
        }
        INPUT_FIELDS
            .iter()
            .copied()
            .find(|f| squash(f) == sq && !self.0.iter().any(|(g, _)| g == f))
    }

    /// The mapped header names that `header` lacks.
    pub(super) fn missing(&self, header: &[String]) -> Vec<String> {
        self.0
            .iter()
            .filter(|(f, _)| !header.iter().any(|h| self.field_for(h) == Some(f)))
            .map(|(f, h)| format!("{f}={h}"))
            .collect()
    }
}

/// Lowercase letters and digits only: `Observation ID`, `observation-id` and
/// `observation_id` are one name.
pub(super) fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_detection() {
        let p = Path::new("x.data");
        assert_eq!(detect_format(p, b"  {\"a\":1}\n"), InputFormat::Jsonl);
        assert_eq!(detect_format(p, b"a\tb\n1\t2\n"), InputFormat::Tsv);
        assert_eq!(detect_format(p, b"a,b\n1,2\n"), InputFormat::Csv);
        assert_eq!(
            detect_format(Path::new("x.CSV"), b"{"),
            InputFormat::Csv,
            "the extension decides first"
        );
        assert_eq!(
            detect_format(Path::new("x.ndjson"), b"a,b"),
            InputFormat::Jsonl
        );
    }
}

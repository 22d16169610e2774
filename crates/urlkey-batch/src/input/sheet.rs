//! Spreadsheets (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`) through calamine: one sheet,
//! every cell as the text a person sees (`301`, not `301.0`), rows numbered as the sheet
//! numbers them.

use std::io::{BufRead, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use calamine::{Data, Reader};

use super::options::ReadOptions;
use super::record::{InputError, InputErrorKind, InputRecord, RecordSource, Skipped};
use super::table::RowShape;

/// The text of a cell.
pub(crate) fn cell_text(d: &Data) -> String {
    match d {
        Data::Empty => String::new(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Int(i) => i.to_string(),
        // Integral numbers as written; others in the shortest form that reads back equal.
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Data::DateTime(d) => d.to_string(),
        Data::Error(e) => e.to_string(),
    }
}

/// The rows of one sheet.
pub struct SheetReader {
    rows: std::vec::IntoIter<(u64, csv::ByteRecord)>,
    shape: RowShape,
    skipped: Skipped,
    last_row: u64,
    count: Arc<AtomicU64>,
    sheet: String,
}

impl SheetReader {
    /// Reads the workbook, picks the sheet (`opts.sheet`: a name or a 1-based number; the
    /// first by default), finds the header and the columns.
    pub(crate) fn new(
        mut inner: Box<dyn BufRead + Send>,
        name: &str,
        opts: &ReadOptions,
        count: Arc<AtomicU64>,
        strict_keep: bool,
        notices: &mut Vec<String>,
    ) -> Result<Self, InputError> {
        let err = |m: String| InputError::new(InputErrorKind::Sheet, name, m);
        let mut bytes = Vec::new();
        inner.read_to_end(&mut bytes).map_err(|e| {
            InputError::new(InputErrorKind::Read, name, format!("cannot read: {e}"))
        })?;
        let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|e| {
            err(format!(
                "cannot read it as a spreadsheet (.xlsx, .xls, .ods): {e}"
            ))
        })?;
        let sheets = book.sheet_names();
        let sheet = match &opts.sheet {
            None => sheets
                .first()
                .cloned()
                .ok_or_else(|| err("the workbook has no sheet".into()))?,
            Some(s) => match sheets.iter().find(|n| *n == s) {
                Some(n) => n.clone(),
                None => match s.parse::<usize>() {
                    Ok(i) if i >= 1 && i <= sheets.len() => sheets[i - 1].clone(),
                    _ => {
                        return Err(err(format!(
                        "no sheet {s:?}; the workbook has: {} (name one, or give a 1-based number)",
                        sheets
                            .iter()
                            .map(|n| format!("{n:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                    }
                },
            },
        };
        let range = book
            .worksheet_range(&sheet)
            .map_err(|e| err(format!("cannot read sheet {sheet:?}: {e}")))?;
        let first = range.start().map_or(0, |(r, _)| u64::from(r));
        let mut skipped = Skipped::default();
        let mut rows = Vec::new();
        let mut header: Option<Vec<String>> = None;
        let mut last_row = 0;
        for (i, cells) in range.rows().enumerate() {
            let number = first + i as u64 + 1;
            last_row = number;
            if number <= opts.skip_rows {
                continue;
            }
            let texts: Vec<String> = cells.iter().map(cell_text).collect();
            if texts.iter().all(|t| t.is_empty()) {
                skipped.blank += 1;
                continue;
            }
            if opts.headers && header.is_none() {
                header = Some(texts);
                continue;
            }
            let mut rec = csv::ByteRecord::new();
            for t in &texts {
                rec.push_field(t.as_bytes());
            }
            rows.push((number, rec));
        }
        let names = header.unwrap_or_default();
        let width = rows.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        let shape = RowShape::resolve(&names, width, opts, name, strict_keep, notices)?;
        Ok(SheetReader {
            rows: rows.into_iter(),
            shape,
            skipped,
            last_row,
            count,
            sheet,
        })
    }
}

impl RecordSource for SheetReader {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        for _ in 0..max {
            match self.rows.next() {
                Some((line, row)) => out.push(self.shape.record(line, &row)),
                None => return Ok(false),
            }
        }
        Ok(self.rows.len() > 0)
    }
    fn skipped(&self) -> Skipped {
        self.skipped
    }
    fn lines_read(&self) -> u64 {
        self.last_row
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
    fn sheet_name(&self) -> Option<&str> {
        Some(&self.sheet)
    }
}

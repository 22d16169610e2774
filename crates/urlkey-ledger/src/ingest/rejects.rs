//! The rows an ingest refuses: counted, the first ones listed, and (with `--rejects`) written
//! to the rejects file, completed atomically.

use std::path::Path;

use super::columns::InputFormat;
use super::summary::{Problem, PROBLEMS_LISTED};
use crate::error::{LedgerError, Result};
use crate::words::{Remedy, Words};

/// The refused rows so far: counts, the first problems, and the rejects file they go to.
pub(super) struct Refused<'a> {
    pub(super) listed: Vec<Problem>,
    pub(super) problems: usize,
    pub(super) rows: usize,
    pub(super) file: Option<RejectsFile>,
    pub(super) path: Option<&'a Path>,
    /// Ledger fields the header has no column for: each row's problem with one of them
    /// is the same, so it is counted here and listed once ([`Refused::fold_absent`]).
    pub(super) absent: Vec<Absent>,
    /// How the rejects file words a remedy.
    pub(super) words: &'a dyn Words,
}

/// A ledger field without a column: the rows that lack it for that reason.
#[derive(Debug, Default)]
pub(super) struct Absent {
    pub(super) field: &'static str,
    pub(super) rows: usize,
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) reason: String,
    pub(super) remedy: Option<Remedy>,
}

impl Refused<'_> {
    /// One refused row and its problems (rows come in line order, so the listing is).
    pub(super) fn add(&mut self, line: u64, cells: &[String], ps: Vec<Problem>) -> Result<()> {
        self.rows += 1;
        if let (Some(f), Some(path)) = (self.file.as_mut(), self.path) {
            let reason = ps
                .iter()
                .map(|p| match &p.column {
                    Some(c) => format!("{c}: {}", p.reason_in(self.words)),
                    None => p.reason_in(self.words),
                })
                .collect::<Vec<_>>()
                .join("; ");
            f.write(line, cells, &reason)
                .map_err(|e| rejects_failed(path, e))?;
        }
        let mut ps = ps;
        if !self.absent.is_empty() {
            ps.retain(|p| {
                let Some(a) = self.absent.iter_mut().find(|a| {
                    p.column.as_deref() == Some(a.field)
                        && p.reason.starts_with(&format!("no {}:", a.field))
                }) else {
                    return true;
                };
                if a.rows == 0 {
                    (a.first, a.reason, a.remedy) = (line, p.reason.clone(), p.remedy);
                }
                a.rows += 1;
                a.last = line;
                false
            });
        }
        self.problems += ps.len();
        let room = PROBLEMS_LISTED.saturating_sub(self.listed.len());
        self.listed.extend(ps.into_iter().take(room));
        Ok(())
    }

    /// Lists each field without a column once, first, with the rows that lack it.
    pub(super) fn fold_absent(&mut self) {
        let mut once: Vec<Problem> = Vec::new();
        for a in self.absent.iter().filter(|a| a.rows > 0) {
            once.push(Problem {
                line: a.first,
                column: Some(a.field.to_string()),
                reason: format!(
                    "the header has no {} column: {} lack{} it (lines {} to {}); {}",
                    a.field,
                    super::summary::plural(a.rows, "row"),
                    if a.rows == 1 { "s" } else { "" },
                    a.first,
                    a.last,
                    a.reason
                ),
                remedy: a.remedy,
            });
        }
        self.problems += once.len();
        once.append(&mut self.listed);
        once.truncate(PROBLEMS_LISTED);
        self.listed = once;
        self.absent.clear();
    }
}

pub(super) fn rejects_failed(path: &Path, e: std::io::Error) -> LedgerError {
    LedgerError::output(format!(
        "cannot write the rejects file {}: {e}; check the path and the free space (nothing \
         was stored)",
        path.display()
    ))
}

/// The rejects file, written to a temporary file beside it (committed by the caller):
/// CSV/TSV with `line`, `reason` and then the input's own columns (a spreadsheet's
/// rejects are CSV); JSONL objects with `line` and `reason` first, then the row's own
/// fields.
pub(super) enum RejectsFile {
    Jsonl(std::io::BufWriter<urlkey_batch::outfile::OutputFile>),
    Table(Box<csv::Writer<std::io::BufWriter<urlkey_batch::outfile::OutputFile>>>),
}

impl RejectsFile {
    pub(super) fn create(
        path: &Path,
        format: InputFormat,
        header: &[String],
    ) -> Result<RejectsFile> {
        let failed = |e: std::io::Error| rejects_failed(path, e);
        let file = urlkey_batch::outfile::OutputFile::create(path).map_err(failed)?;
        let w = std::io::BufWriter::new(file);
        Ok(match format {
            InputFormat::Jsonl => RejectsFile::Jsonl(w),
            _ => {
                let mut c = csv::WriterBuilder::new()
                    .delimiter(if format == InputFormat::Tsv {
                        b'\t'
                    } else {
                        b','
                    })
                    .flexible(true)
                    .from_writer(w);
                let mut head = vec!["line".to_string(), "reason".to_string()];
                head.extend(header.iter().cloned());
                c.write_record(&head).map_err(|e| failed(e.into()))?;
                RejectsFile::Table(Box::new(c))
            }
        })
    }

    /// One refused row: the cells exactly as read (every one of them: a short row has
    /// only its own, a long row all of its own, past the header's last column too).
    pub(super) fn write(
        &mut self,
        line: u64,
        cells: &[String],
        reason: &str,
    ) -> std::io::Result<()> {
        match self {
            RejectsFile::Jsonl(w) => {
                use std::io::Write;
                let raw = cells.first().map(String::as_str).unwrap_or("");
                let head = format!(
                    "{{\"line\":{line},\"reason\":{}",
                    serde_json::Value::String(reason.to_string())
                );
                let text = match serde_json::from_str::<serde_json::Value>(raw) {
                    Ok(serde_json::Value::Object(m)) if m.is_empty() => format!("{head}}}"),
                    Ok(serde_json::Value::Object(_)) => {
                        let inner = raw.trim().strip_prefix('{').unwrap_or(raw);
                        format!("{head},{inner}")
                    }
                    _ => format!(
                        "{head},\"text\":{}}}",
                        serde_json::Value::String(raw.to_string())
                    ),
                };
                writeln!(w, "{text}")
            }
            RejectsFile::Table(c) => {
                let line = line.to_string();
                let rec = [line.as_str(), reason]
                    .into_iter()
                    .chain(cells.iter().map(String::as_str));
                c.write_record(rec).map_err(std::io::Error::from)
            }
        }
    }

    /// Everything flushed to the temporary file, ready to be renamed into place.
    pub(super) fn finish(self) -> Result<urlkey_batch::outfile::OutputFile> {
        let failed = |e: std::io::Error| {
            LedgerError::output(format!(
                "cannot write the rejects file: {e}; check the path and the free space \
                 (nothing was stored)"
            ))
        };
        let w = match self {
            RejectsFile::Jsonl(w) => w,
            RejectsFile::Table(c) => (*c).into_inner().map_err(|e| failed(e.into_error()))?,
        };
        w.into_inner().map_err(|e| failed(e.into_error()))
    }
}

//! What one ingest did ([`IngestSummary`]) and the problems of the rows it refused.

use std::fmt;

use super::columns::InputFormat;
use crate::words::{PlainWords, Remedy, Words};

/// What one ingest did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestSummary {
    /// The file as named on the command line.
    pub path: String,
    /// The format it was read as.
    pub format: InputFormat,
    /// The policy that keyed it.
    pub policy: String,
    /// Data rows read.
    pub rows_read: usize,
    /// New observations stored.
    pub added: usize,
    /// Rows already in the ledger with the same content (nothing written for them).
    pub unchanged: usize,
    /// Of the added rows, those whose URL is invalid (stored with their error code).
    pub invalid_added: usize,
    /// Rows refused (set aside in the rejects file when one was given).
    pub rejected: usize,
    /// The first [`PROBLEMS_LISTED`] problems found, by line (a rejected row may have
    /// several); `problem_count` counts them all.
    pub problems: Vec<Problem>,
    /// How many problems were found in all.
    pub problem_count: usize,
    /// `gzip` or `zstd` when the file was compressed (its hash is of the compressed bytes).
    pub compression: Option<&'static str>,
    /// The sheet read, for a spreadsheet.
    pub sheet: Option<String>,
    /// The rejects file written, if any.
    pub rejects: Option<String>,
    /// What the reader noticed about the input (a detected delimiter, an empty file).
    pub notices: Vec<String>,
    /// Columns or fields the ledger does not read.
    pub ignored_columns: Vec<String>,
}

/// One problem of one row: its line, the column (when one is to blame) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The physical line where the row starts.
    pub line: u64,
    /// The column to blame, if one is.
    pub column: Option<String>,
    /// What is wrong and what to do.
    pub reason: String,
    /// When a setting of the ingest would let the row in: said after the reason
    /// ("…, or …"), in the caller's words ([`Words::remedy`]).
    pub remedy: Option<Remedy>,
}

impl Problem {
    /// The reason with its remedy, in `words`.
    pub fn reason_in(&self, words: &dyn Words) -> String {
        match self.remedy {
            Some(r) => format!("{}, or {}", self.reason, words.remedy(r)),
            None => self.reason.clone(),
        }
    }

    /// `line N, column C: reason`, in `words`.
    pub fn line_in(&self, words: &dyn Words) -> String {
        match &self.column {
            Some(c) => format!("line {}, column {c}: {}", self.line, self.reason_in(words)),
            None => format!("line {}: {}", self.line, self.reason_in(words)),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line_in(&PlainWords))
    }
}

/// `1 problem`, `2 problems`.
pub fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// How many problems a listing shows before it gives only their count.
pub const PROBLEMS_LISTED: usize = 100;

/// The problems, one a line, the first [`PROBLEMS_LISTED`] then a count of the others
/// (`total`: how many there are in all, `problems` may hold only the first ones).
pub fn list_problems(problems: &[Problem], total: usize, words: &dyn Words) -> String {
    let mut out = String::new();
    for p in problems.iter().take(PROBLEMS_LISTED) {
        out.push_str("\n  ");
        out.push_str(&p.line_in(words));
    }
    let shown = problems.len().min(PROBLEMS_LISTED);
    if total > shown {
        out.push_str(&format!("\n  ... and {} more problems", total - shown));
    }
    out
}

impl IngestSummary {
    /// True when nothing was written.
    pub fn is_noop(&self) -> bool {
        self.added == 0
    }

    /// How the file was read: `csv`, `csv, gzip`, `xlsx, sheet "Data"`.
    pub fn read_as(&self) -> String {
        let mut s = self.format.as_str().to_string();
        if let Some(c) = self.compression {
            s.push_str(", ");
            s.push_str(c);
        }
        if let Some(sh) = &self.sheet {
            s.push_str(&format!(", sheet {sh:?}"));
        }
        s
    }
}

impl fmt::Display for IngestSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rejected > 0 || self.rejects.is_some() {
            return write!(
                f,
                "{}: {} rows read ({}, keyed with {}) = {} stored ({} of them with an invalid \
                 URL, stored with its error code) + {} already in the ledger + {} rejected{}",
                self.path,
                self.rows_read,
                self.read_as(),
                self.policy,
                self.added,
                self.invalid_added,
                self.unchanged,
                self.rejected,
                match &self.rejects {
                    Some(r) => format!(" (written to {r})"),
                    None => String::new(),
                }
            );
        }
        if self.rows_read == 0 {
            return write!(
                f,
                "{}: 0 rows read ({}): the file has no data rows, nothing written",
                self.path,
                self.read_as()
            );
        }
        if self.is_noop() {
            write!(
                f,
                "{}: {} rows read ({}), all {} already in the ledger with identical content: \
                 nothing written",
                self.path,
                self.rows_read,
                self.read_as(),
                self.unchanged
            )
        } else {
            write!(
                f,
                "{}: {} rows read ({}, keyed with {}): {} observations added ({} of them with an \
                 invalid URL, stored with its error code), {} already in the ledger",
                self.path,
                self.rows_read,
                self.read_as(),
                self.policy,
                self.added,
                self.invalid_added,
                self.unchanged
            )
        }
    }
}

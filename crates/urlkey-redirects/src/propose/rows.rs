//! A proposal as a row: one per old record, in input order, with the columns of
//! [`COLUMNS`] in every format; the CLI writes them and the web page shows them.
//!
//! The rows are a MAP once reviewed ([`crate::RedirectMap`]): `source`, `target` and an
//! empty `decision` for the reviewer (`accept` keeps the row). Their `status` column
//! holds the proposal's status, which a MAP reads as "no HTTP status given" (301) until
//! the reviewer writes one there.

use serde::Serialize;
use urlkey_batch::rows::{spreadsheet_safe, REVIEW};

use super::{Proposal, Status};

/// A column's type in JSON Lines and Parquet (CSV writes each as text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Text (`null` when absent).
    Text,
    /// A 64-bit integer.
    Int,
    /// A 64-bit float.
    Float,
    /// `true` or `false`.
    Bool,
}

/// The rows' columns, in order, with their types.
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("line", ColumnKind::Int),
    ("source", ColumnKind::Text),
    ("status", ColumnKind::Text),
    ("target", ColumnKind::Text),
    ("evidence", ColumnKind::Text),
    ("evidence_detail", ColumnKind::Text),
    ("score", ColumnKind::Float),
    ("runner_up", ColumnKind::Text),
    ("runner_up_score", ColumnKind::Float),
    ("ambiguous", ColumnKind::Bool),
    ("error_code", ColumnKind::Text),
    ("title", ColumnKind::Text),
    ("target_title", ColumnKind::Text),
    ("decision", ColumnKind::Text),
    ("review", ColumnKind::Text),
];

/// How the `evidence` column joins the names of a target's evidence (strongest first).
pub const EVIDENCE_SEPARATOR: &str = ";";

/// How `evidence_detail` joins the details (`name: detail`, in the same order).
pub const DETAIL_SEPARATOR: &str = "; ";

/// One row (its field names are [`COLUMNS`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProposalRow<'a> {
    /// The old record's line in its input.
    pub line: u64,
    /// The old URL as written.
    pub source: &'a str,
    /// [`Status::as_str`].
    pub status: &'static str,
    /// The proposed target.
    pub target: Option<&'a str>,
    /// The evidence's names, strongest first, joined by [`EVIDENCE_SEPARATOR`].
    pub evidence: Option<String>,
    /// `name: detail` for each, joined by [`DETAIL_SEPARATOR`].
    pub evidence_detail: Option<String>,
    /// The target's score (absent without a target).
    pub score: Option<f64>,
    /// The next best target.
    pub runner_up: Option<&'a str>,
    /// Its score.
    pub runner_up_score: Option<f64>,
    /// Whether a person must compare the target and the runner-up.
    pub ambiguous: bool,
    /// For `invalid`: the error code under the policy.
    pub error_code: Option<&'static str>,
    /// The old page's title (`--title-column`).
    pub title: Option<&'a str>,
    /// The target's title.
    pub target_title: Option<&'a str>,
    /// Empty: the reviewer writes `accept` or `reject`.
    pub decision: &'static str,
    /// Always `MANUAL REVIEW REQUIRED`: urlkey proposes, a person decides.
    pub review: &'static str,
}

impl<'a> ProposalRow<'a> {
    /// The row of `p`, the proposal for the old record at `line` whose URL is `source`.
    pub fn new(line: u64, source: &'a str, title: Option<&'a str>, p: &'a Proposal) -> Self {
        let has_target = p.target.is_some();
        ProposalRow {
            line,
            source,
            status: p.status.as_str(),
            target: p.target.as_deref(),
            evidence: (!p.evidence.is_empty()).then(|| {
                p.evidence
                    .iter()
                    .map(|e| e.kind.name())
                    .collect::<Vec<_>>()
                    .join(EVIDENCE_SEPARATOR)
            }),
            evidence_detail: (!p.evidence.is_empty()).then(|| {
                p.evidence
                    .iter()
                    .map(|e| format!("{}: {}", e.kind.name(), e.detail))
                    .collect::<Vec<_>>()
                    .join(DETAIL_SEPARATOR)
            }),
            score: has_target.then_some(p.score),
            runner_up: p.runner_up.as_deref(),
            runner_up_score: p.runner_up_score,
            ambiguous: p.ambiguous,
            error_code: p.error_code,
            title,
            target_title: p.target_title.as_deref(),
            decision: "",
            review: REVIEW,
        }
    }

    /// The CSV cells, in [`COLUMNS`] order (titles made safe for a spreadsheet, as `map`
    /// makes the input's other columns safe).
    pub fn csv_cells(&self) -> Vec<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        let text = |t: Option<&'a str>| Cow::Borrowed(t.unwrap_or(""));
        let num = |n: Option<f64>| Cow::Owned(n.map_or(String::new(), |n| n.to_string()));
        vec![
            Cow::Owned(self.line.to_string()),
            Cow::Borrowed(self.source),
            Cow::Borrowed(self.status),
            text(self.target),
            Cow::Borrowed(self.evidence.as_deref().unwrap_or("")),
            Cow::Borrowed(self.evidence_detail.as_deref().unwrap_or("")),
            num(self.score),
            text(self.runner_up),
            num(self.runner_up_score),
            Cow::Borrowed(if self.ambiguous { "true" } else { "false" }),
            Cow::Borrowed(self.error_code.unwrap_or("")),
            spreadsheet_safe(self.title.unwrap_or("")),
            spreadsheet_safe(self.target_title.unwrap_or("")),
            Cow::Borrowed(self.decision),
            Cow::Borrowed(self.review),
        ]
    }
}

/// The counts of a run: every old record is one row with one status, so the statuses add
/// up to the records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Old records (rows written).
    pub records: u64,
    /// Rows by status, in [`Status::ALL`] order.
    pub by_status: [u64; 5],
    /// Rows whose target is ambiguous.
    pub ambiguous: u64,
}

impl Summary {
    /// Counts one row.
    pub fn add(&mut self, p: &Proposal) {
        self.records += 1;
        if let Some(i) = Status::ALL.iter().position(|s| *s == p.status) {
            self.by_status[i] += 1;
        }
        self.ambiguous += u64::from(p.ambiguous);
    }

    /// Counts one row.
    pub fn add_row(&mut self, r: &ProposalRow<'_>) {
        self.records += 1;
        if let Some(i) = Status::ALL.iter().position(|s| s.as_str() == r.status) {
            self.by_status[i] += 1;
        }
        self.ambiguous += u64::from(r.ambiguous);
    }

    /// Adds the counts of another part of the run.
    pub fn merge(&mut self, other: &Summary) {
        self.records += other.records;
        for (a, b) in self.by_status.iter_mut().zip(other.by_status) {
            *a += b;
        }
        self.ambiguous += other.ambiguous;
    }

    /// Rows of `status`.
    pub fn of(&self, status: Status) -> u64 {
        Status::ALL
            .iter()
            .position(|s| *s == status)
            .map_or(0, |i| self.by_status[i])
    }

    /// `12 records = 3 served + 4 same-key + 2 candidate + 2 none + 1 invalid (1 ambiguous)`.
    pub fn adds_up(&self) -> String {
        let parts: Vec<String> = Status::ALL
            .iter()
            .map(|s| format!("{} {}", self.of(*s), s.as_str()))
            .collect();
        format!(
            "{} records = {} ({} ambiguous)",
            self.records,
            parts.join(" + "),
            self.ambiguous
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::{Evidence, EvidenceKind};
    use super::*;

    pub(crate) fn proposal() -> Proposal {
        Proposal {
            status: Status::Candidate,
            target: Some("https://example.com/b".into()),
            evidence: vec![
                Evidence {
                    kind: EvidenceKind::SameStem,
                    detail: "\"b\" in /".into(),
                },
                Evidence {
                    kind: EvidenceKind::SharedTokens,
                    detail: "2 of 2 words (jaccard 1.00)".into(),
                },
            ],
            score: 51.0,
            runner_up: Some("https://example.com/c/b".into()),
            runner_up_score: Some(50.5),
            ambiguous: true,
            error_code: None,
            target_title: Some("=B".into()),
        }
    }

    /// The JSON field order is the column table, and CSV's header too.
    #[test]
    fn every_format_has_the_columns_of_the_table() {
        let p = proposal();
        let row = ProposalRow::new(2, "/b.html", Some("B"), &p);
        let json = serde_json::to_value(&row).expect("json");
        let names: Vec<&str> = json
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
        want.sort_unstable();
        let mut got = names.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(json["score"], serde_json::json!(51.0));
        assert_eq!(json["ambiguous"], serde_json::json!(true));
        assert_eq!(row.csv_cells().len(), COLUMNS.len());
    }

    #[test]
    fn the_summary_adds_up() {
        let mut s = Summary::default();
        s.add(&proposal());
        s.add(&Proposal::empty(Status::Invalid));
        assert_eq!(
            s.adds_up(),
            "2 records = 0 served + 0 same-key + 1 candidate + 0 none + 1 invalid (1 ambiguous)"
        );
    }
}

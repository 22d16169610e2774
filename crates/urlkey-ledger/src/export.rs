//! `ledger export`: every observation with the latest verification of its key, from the
//! `audit_ledger` view.

use std::io::Write;

use rusqlite::Connection;
use serde_json::Value;

use crate::error::{LedgerError, Result};

/// The export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A header row, then one row per observation. `transformations` is a JSON string.
    Csv,
    /// One JSON object per observation. `transformations` is an array.
    Jsonl,
}

impl crate::choice::Choice for ExportFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            ExportFormat::Csv,
            "csv",
            "A header row, then one row per observation. `transformations` is a JSON string",
        ),
        (
            ExportFormat::Jsonl,
            "jsonl",
            "One JSON object per observation. `transformations` is an array",
        ),
    ];
}

crate::choice::from_str_by_name!(ExportFormat);

/// The exported columns, in order: the seed's minimum audit ledger, then context.
/// `run_timestamp` is the collection instant in UTC (RFC 3339, `2026-11-08T08:00:00Z`);
/// `run_timestamp_as_written` is the input's text for it, untouched. `text_fragments` is the
/// observed URL's text directives with the latest verification's check of each (a JSON
/// array, `[]` when there is none).
pub const COLUMNS: [&str; 30] = [
    "observation_id",
    "prompt_id",
    "prompt_version",
    "answer_system",
    "market",
    "collection",
    "run_timestamp",
    "observed_url",
    "normalization_policy_version",
    "normalized_key",
    "publisher_hostname",
    "transformations",
    "error_code",
    "verification_status",
    "verified_final_url",
    "publisher_canonical",
    "verification_http_status",
    "verification_reason",
    "verified_at",
    "verified_via_observation_id",
    "claim",
    "extra",
    "content_check",
    "source_role",
    "claim_support",
    "merge_decision",
    "reviewed_by",
    "reviewed_at",
    "run_timestamp_as_written",
    "text_fragments",
];

/// A CSV text cell that opens as text in a spreadsheet: `urlkey map`'s rule
/// ([`urlkey_batch::rows::spreadsheet_safe`]: a cell whose first character would start
/// a formula gets a leading `'`; OWASP's advice on CSV injection, observed URLs coming from
/// AI answers), for an owned cell, which is returned as it is when it needs nothing. JSONL
/// is never altered.
pub fn spreadsheet_safe(s: String) -> String {
    if let std::borrow::Cow::Owned(prefixed) = urlkey_batch::rows::spreadsheet_safe(&s) {
        return prefixed;
    }
    s
}

/// Writes the export; returns the number of observations written.
pub fn write(conn: &Connection, format: ExportFormat, out: &mut dyn Write) -> Result<usize> {
    let sql = format!(
        "SELECT {} FROM audit_ledger AS a JOIN observations AS o USING (observation_id) \
         ORDER BY o.rowid",
        COLUMNS
            .iter()
            .map(|c| format!("a.{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut n = 0;
    match format {
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(COLUMNS).map_err(LedgerError::from)?;
            while let Some(r) = rows.next()? {
                let mut rec: Vec<String> = Vec::with_capacity(COLUMNS.len());
                for i in 0..COLUMNS.len() {
                    let v: rusqlite::types::Value = r.get(i)?;
                    rec.push(match v {
                        rusqlite::types::Value::Null => String::new(),
                        rusqlite::types::Value::Integer(x) => x.to_string(),
                        rusqlite::types::Value::Real(x) => x.to_string(),
                        rusqlite::types::Value::Text(t) => spreadsheet_safe(t),
                        rusqlite::types::Value::Blob(_) => String::new(),
                    });
                }
                w.write_record(&rec).map_err(LedgerError::from)?;
                n += 1;
            }
            w.flush()?;
        }
        ExportFormat::Jsonl => {
            // Written field by field so that the keys keep the column order.
            while let Some(r) = rows.next()? {
                let mut line = String::from("{");
                for (i, c) in COLUMNS.iter().enumerate() {
                    let v: rusqlite::types::Value = r.get(i)?;
                    if i > 0 {
                        line.push(',');
                    }
                    line.push_str(&Value::String((*c).to_string()).to_string());
                    line.push(':');
                    match v {
                        // Stored as JSON by the ledger: embedded as it is, keys in order.
                        rusqlite::types::Value::Text(t)
                            if matches!(*c, "transformations" | "extra" | "text_fragments")
                                && serde_json::from_str::<serde::de::IgnoredAny>(&t).is_ok() =>
                        {
                            line.push_str(&t)
                        }
                        rusqlite::types::Value::Text(t) => {
                            line.push_str(&Value::String(t).to_string())
                        }
                        rusqlite::types::Value::Integer(x) => line.push_str(&x.to_string()),
                        rusqlite::types::Value::Real(x) => {
                            line.push_str(&Value::from(x).to_string())
                        }
                        rusqlite::types::Value::Null | rusqlite::types::Value::Blob(_) => {
                            line.push_str("null")
                        }
                    }
                }
                line.push('}');
                writeln!(out, "{line}")?;
                n += 1;
            }
        }
    }
    Ok(n)
}

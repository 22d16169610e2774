//! A row whose `observation_id` is already in the ledger: what it holds ([`Stored`]) and how
//! it differs from the row read again (none: the row is already present; some: refused).

use rusqlite::{OptionalExtension, Statement};

use super::row::Row;
use super::summary::Problem;
use crate::error::{LedgerError, Result};

/// An observation as stored, with the ingest (file and line) that first stored it.
pub(super) struct Stored {
    pub(super) prompt_id: Option<String>,
    pub(super) prompt_version: String,
    pub(super) answer_system: String,
    pub(super) market: String,
    pub(super) collection: Option<String>,
    pub(super) run_timestamp: String,
    pub(super) run_at: String,
    pub(super) observed_url: String,
    pub(super) policy: String,
    pub(super) ingest_id: i64,
    pub(super) source_line: i64,
    pub(super) source_path: String,
    pub(super) claim: Option<String>,
    /// NULL for a row stored before the ledger kept claims and other columns (schema 1):
    /// then neither is compared.
    pub(super) extra: Option<String>,
}

impl Stored {
    /// The statement that [`Stored::find`] runs (prepared once per file).
    pub(super) const LOOKUP: &'static str =
        "SELECT o.prompt_id, o.prompt_version, o.answer_system, o.market, o.collection, \
         o.run_timestamp_as_written, o.run_timestamp, o.observed_url, \
         o.normalization_policy_version, \
         o.ingest_id, o.source_line, i.source_path, o.claim, o.extra \
         FROM observations o JOIN ingests i USING (ingest_id) WHERE o.observation_id = ?1";

    /// The observation stored under `observation_id`, if any (`lookup`: [`Stored::LOOKUP`]).
    #[inline]
    pub(super) fn find(lookup: &mut Statement<'_>, observation_id: &str) -> Result<Option<Stored>> {
        lookup
            .query_row([observation_id], |r| {
                Ok(Stored {
                    prompt_id: r.get(0)?,
                    prompt_version: r.get(1)?,
                    answer_system: r.get(2)?,
                    market: r.get(3)?,
                    collection: r.get(4)?,
                    run_timestamp: r.get(5)?,
                    run_at: r.get(6)?,
                    observed_url: r.get(7)?,
                    policy: r.get(8)?,
                    ingest_id: r.get(9)?,
                    source_line: r.get(10)?,
                    source_path: r.get(11)?,
                    claim: r.get(12)?,
                    extra: r.get(13)?,
                })
            })
            .optional()
            .map_err(|e| LedgerError::db("cannot look up an observation", e))
    }

    /// Why `row` is refused: its `observation_id` is stored (by the ingest `ingest_id` or an
    /// earlier one) with other content, `diffs`.
    pub(super) fn conflict(&self, row: &Row, ingest_id: i64, diffs: &[String]) -> Problem {
        let origin = if self.ingest_id == ingest_id {
            format!("first seen at line {} of this file", self.source_line)
        } else {
            format!(
                "ingested earlier from {} line {}",
                self.source_path, self.source_line
            )
        };
        Problem {
            line: row.line,
            column: Some("observation_id".to_string()),
            reason: format!(
                "observation_id {:?} is already in the ledger ({origin}) with \
                 different content: {}. An observation_id names one dated \
                 observation: give this row a new observation_id, or correct it \
                 to match",
                row.observation_id,
                diffs.join("; ")
            ),
            remedy: None,
        }
    }

    pub(super) fn differences(&self, row: &Row, policy: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |name: &str, ledger: Option<&str>, file: Option<&str>| {
            if ledger != file {
                out.push(format!(
                    "{name}: ledger has {}, file has {}",
                    show(ledger),
                    show(file)
                ));
            }
        };
        cmp(
            "prompt_id",
            self.prompt_id.as_deref(),
            row.prompt_id.as_deref(),
        );
        cmp(
            "prompt_version",
            Some(&self.prompt_version),
            Some(&row.prompt_version),
        );
        cmp(
            "answer_system",
            Some(&self.answer_system),
            Some(&row.answer_system),
        );
        cmp("market", Some(&self.market), Some(&row.market));
        cmp(
            "collection",
            self.collection.as_deref(),
            row.collection.as_deref(),
        );
        cmp(
            "run_timestamp",
            Some(&self.run_timestamp),
            Some(&row.run_timestamp),
        );
        if self.run_timestamp == row.run_timestamp && self.run_at != row.run_at {
            cmp(
                "run_timestamp read as UTC",
                Some(&self.run_at),
                Some(&row.run_at),
            );
        }
        cmp(
            "observed_url",
            Some(&self.observed_url),
            Some(&row.observed_url),
        );
        cmp("normalization policy", Some(&self.policy), Some(policy));
        if let Some(extra) = &self.extra {
            cmp("claim", self.claim.as_deref(), row.claim.as_deref());
            let same = serde_json::from_str::<serde_json::Value>(extra).ok()
                == serde_json::from_str::<serde_json::Value>(&row.extra).ok();
            if !same {
                cmp("extra", Some(extra), Some(&row.extra));
            }
        }
        out
    }
}

pub(super) fn show(v: Option<&str>) -> String {
    match v {
        None => "nothing".to_string(),
        Some(s) if s.chars().count() > 160 => {
            let cut: String = s.chars().take(160).collect();
            format!("{cut:?}...")
        }
        Some(s) => format!("{s:?}"),
    }
}

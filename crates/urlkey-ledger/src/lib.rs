//! # urlkey-ledger
//!
//! The citation audit ledger of the seed document "Preserve three different records":
//! AI-answer citation observations in SQLite,
//! each observed URL kept exactly as seen beside its comparison key
//! (`normalized_key`, made by a versioned `urlkey` policy) and, later, its network
//! verification. Reports count observations, unique URL keys and unique publisher
//! hostnames as separate measures, each stated with its sample.
//!
//! Used as `urlkey ledger` (the flags are the urlkey-cli crate's; they become a
//! [`LedgerCommand`], run by [`run`]) and documented in `docs/ledger.md`.
//!
//! ## Example
//!
//! Three citations, two of them spellings of one page and one that is not a URL, stored
//! and counted: the invalid observation is kept (with its error code), and observations,
//! URL keys and publishers are three separate counts.
//!
//! ```
//! use urlkey_ledger::command::{IngestCommand, ReportCommand};
//! use urlkey_ledger::report::ReportFormat;
//! use urlkey_ledger::{run, LedgerCommand};
//!
//! let dir = tempfile::tempdir()?;
//! let citations = dir.path().join("citations.csv");
//! std::fs::write(
//!     &citations,
//!     "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
//!      obs-1,ps-1,assistant-a,us,2026-11-01T09:00:00Z,https://docs.example.org/guide?utm_id=1\n\
//!      obs-2,ps-1,assistant-b,us,2026-11-01T09:05:00Z,https://Docs.Example.org/guide\n\
//!      obs-3,ps-1,assistant-b,us,2026-11-01T09:06:00Z,see the docs\n",
//! )?;
//! let db = dir.path().join("ledger.sqlite");
//! let (mut out, mut notes) = (Vec::new(), Vec::new());
//! let ingest = IngestCommand { files: vec![citations], ..IngestCommand::default() };
//! run(LedgerCommand::Ingest(ingest), &db, &mut out, &mut notes)?;
//!
//! let mut json = Vec::new();
//! let report = ReportCommand { format: ReportFormat::Json, ..ReportCommand::default() };
//! run(LedgerCommand::Report(report), &db, &mut json, &mut notes)?;
//! let report: serde_json::Value = serde_json::from_slice(&json)?;
//! assert_eq!(report["observations"], 3);
//! assert_eq!(report["invalid_observations"], 1);
//! assert_eq!(report["unique_keys"], 1);
//! assert_eq!(report["unique_publishers"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod choice;
pub mod command;
pub mod db;
pub mod error;
pub mod export;
pub mod fragments;
pub mod ingest;
pub mod norm;
pub mod rekey;
pub mod report;
pub mod review;
pub mod spelling;
pub mod timefmt;
pub mod verify;
pub mod words;

pub use command::{run, run_with, LedgerCommand};
pub use error::{ErrorKind, LedgerError, Setting};
pub use words::{NoProgress, PlainWords, Progress, Words};

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

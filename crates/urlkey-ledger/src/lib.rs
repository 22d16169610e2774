//! # urlkey-ledger
//!
//! The citation audit ledger of seed 004: AI-answer citation observations in SQLite,
//! each observed URL kept exactly as seen beside its comparison key
//! (`normalized_key`, made by a versioned `urlkey` policy) and, later, its network
//! verification. Reports count observations, unique URL keys and unique publisher
//! hostnames as separate measures, each stated with its sample.
//!
//! Used as `urlkey ledger` (see [`cli`]) and documented in `docs/ledger.md`.

#![warn(missing_docs)]

pub mod cli;
pub mod db;
pub mod error;
pub mod export;
pub mod ingest;
pub mod norm;
pub mod report;
pub mod review;
pub mod review_cli;
pub mod timefmt;
pub mod verify;

pub use error::LedgerError;

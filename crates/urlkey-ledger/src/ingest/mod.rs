//! `ledger ingest`: read a CSV, TSV, JSONL or spreadsheet file of citation observations
//! (`.gz`/`.zst` too), key each observed URL with a policy and store every row, invalid
//! ones included, in one transaction per file.
//!
//! A file is read twice, and never held whole: a first pass hashes the bytes, checks the
//! encoding and keeps the first 64 KiB for sniffing (standard input is copied to a
//! temporary file on the way); the second streams the rows in batches into one
//! transaction, checking, comparing and storing each. Every problem of the file is found
//! in that pass; without `--rejects` a single one rolls the transaction back.
//!
//! - `columns.rs`: the input's format and which columns hold which ledger field;
//! - `read.rs`: the two reads of a file (the check, then the rows in batches);
//! - `row.rs`: a row completed with the defaults and checked;
//! - `pass.rs`: the transaction that stores the rows ([`ingest()`]);
//! - `rejects.rs`: the refused rows and the rejects file;
//! - `reingest.rs`: a row already in the ledger, compared with what is stored;
//! - `summary.rs`: what an ingest did, and its problems.

mod columns;
mod pass;
mod read;
mod reingest;
mod rejects;
mod row;
mod summary;

pub use columns::{detect_format, ColumnMap, InputFormat, INPUT_FIELDS};
pub use pass::{ingest, ingest_file, ingest_file_with_progress, IngestOptions};
pub use read::{unknown_encoding, Phase};
pub use row::Defaults;
pub use summary::{list_problems, plural, IngestSummary, Problem, PROBLEMS_LISTED};

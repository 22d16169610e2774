//! The ledger's integration tests, one binary (each test binary is linked separately, a
//! cost on a 2-core machine). They drive `urlkey ledger` as the binary does: argv parsed by
//! the CLI's flags (`urlkey_cli::flags::ledger`), run by `urlkey_ledger::run`.

mod claim_extra;
mod common;
mod concentration;
mod concurrent_create;
mod crash_safety;
mod export_safety;
mod ingest_files;
mod ingest_rejects;
mod ingest_report;
mod not_fetched;
mod real_files;
mod rekey;
mod report_html;
mod report_measures;
mod review;
mod review_lists;
mod risky_spellings;
mod sheets;
mod stability;
mod text_fragments;
mod timestamps;
mod variants;
mod verify;
mod verify_security;
mod verify_tls;

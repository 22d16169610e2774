//! The ledger's integration tests, one binary: each module was its own test binary
//! (~210 MB each with debuginfo, each linked separately on a 2-core machine).

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
mod report_html;
mod report_measures;
mod review;
mod review_lists;
mod sheets;
mod timestamps;
mod variants;
mod verify;
mod verify_security;
mod verify_tls;

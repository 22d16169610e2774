//! The `urlkey` command's flags as a library, so that tests can parse an argv exactly as
//! the binary does (the ledger's integration tests, `tests/ledger/`).

#![forbid(unsafe_code)]

pub mod flags;

//! The entrypoint DuckDB calls at `LOAD`: `urlkey_init_c_api`, written by duckdb-rs'
//! `duckdb_entrypoint_c_api` macro. The macro emits `unsafe` functions and a
//! `#[no_mangle]` symbol (it receives raw pointers from DuckDB), so `unsafe_code` is
//! allowed in this module alone; the crate denies it everywhere else but in
//! [`crate::vector`].
#![allow(unsafe_code)]

use std::error::Error;

use duckdb::{duckdb_entrypoint_c_api, Connection};

/// Registers every function of [`crate::catalogue::FUNCTIONS`].
// `v1.2.0`: the C API version of duckdb-rs 1.20000.x's stubs, the oldest DuckDB that
// loads the extension (scripts/build-duckdb-extension.sh writes it into the footer).
#[duckdb_entrypoint_c_api(ext_name = "urlkey", min_duckdb_version = "v1.2.0")]
pub fn extension_entrypoint(con: Connection) -> Result<(), Box<dyn Error>> {
    crate::register(&con)
}

//! The DuckDB loadable extension of urlkey (`urlkey.duckdb_extension`), written against
//! DuckDB's C extension API (duckdb-rs `loadable-extension`: nothing of DuckDB is
//! compiled here; DuckDB fills in the API at `LOAD`).
//!
//! - `urlkey_key(url [, policy])`, `urlkey_clean(url)`,
//!   `urlkey_registrable_domain(url [, policy])`, `urlkey_outcome(url [, policy])`:
//!   scalar functions over whole vectors ([`scalars`]); the outcome's fields are
//!   [`record::fields`] (the core's table).
//! - `urlkey_query_pairs(url)`: a table function over a constant and, under the same
//!   name, a scalar function giving a list of `(name, value)` structs for a column
//!   ([`query_pairs`]).
//! - `urlkey_functions()`: the functions and their descriptions ([`catalogue`]).
//!
//! Policies are resolved once per process and name ([`policies`]). The build and the
//! metadata footer DuckDB checks at `LOAD`: `scripts/build-duckdb-extension.sh`. The
//! functions and the SQL recipe of `urlkey map`: `crates/urlkey-duckdb/README.md`.
//!
//! `unsafe` is denied but in two modules: `entry` (the entrypoint macro's output) and
//! `vector` (reading `VARCHAR` arguments in place, and one `BIGINT` write).

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod catalogue;
mod entry;
pub mod policies;
pub mod query_pairs;
pub mod record;
pub mod scalars;
mod vector;

use std::error::Error;

use duckdb::Connection;

/// Registers the functions on `con` (the entrypoint's connection).
pub fn register(con: &Connection) -> Result<(), Box<dyn Error>> {
    con.register_scalar_function::<scalars::Key>("urlkey_key")?;
    con.register_scalar_function::<scalars::OutcomeRow>("urlkey_outcome")?;
    con.register_scalar_function::<scalars::Clean>("urlkey_clean")?;
    con.register_scalar_function::<scalars::RegistrableDomain>("urlkey_registrable_domain")?;
    con.register_table_function::<query_pairs::QueryPairs>("urlkey_query_pairs")?;
    con.register_scalar_function::<query_pairs::QueryPairList>("urlkey_query_pairs")?;
    con.register_table_function::<catalogue::Functions>("urlkey_functions")?;
    Ok(())
}

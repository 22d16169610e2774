//! Every function of the extension with its description, and the table function
//! `urlkey_functions()` that lists them.
//!
//! DuckDB's C extension API cannot attach a description to a function: there is no
//! `duckdb_*_set_description` for functions (the only such call is for configuration
//! options; duckdb/duckdb#25996), and `COMMENT ON` refuses system catalog entries, where
//! extension functions live ("Can not comment on System Catalog entries"). So
//! `duckdb_functions().description` stays NULL for them, and the descriptions are
//! served by `SELECT * FROM urlkey_functions()` instead.

use std::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};

use duckdb::core::{DataChunkHandle, Inserter, LogicalTypeHandle, LogicalTypeId};
use duckdb::vtab::{BindInfo, InitInfo, TableFunctionInfo, VTab};

/// `(name, signature, description)` of every function the extension registers; a name
/// registered both as a table and as a scalar function (`urlkey_query_pairs`) has a row
/// for each.
pub const FUNCTIONS: [(&str, &str, &str); 7] = [
    (
        "urlkey_key",
        "urlkey_key(url VARCHAR [, policy VARCHAR]) -> VARCHAR",
        "The comparison key of url under policy (default: the policy of `urlkey key`, citation@1); NULL for NULL or an invalid URL.",
    ),
    (
        "urlkey_outcome",
        "urlkey_outcome(url VARCHAR [, policy VARCHAR]) -> STRUCT(policy, status, key, canonical, error_code, error_message, removed_params, transformations, facts, host, signature, registrable_domain, psl_version)",
        "Everything the policy reports for url: status 'ok' or 'invalid' with its error code, key, canonical form, removed parameters, transformations, facts, host, grouping signature, registrable domain, PSL version.",
    ),
    (
        "urlkey_clean",
        "urlkey_clean(url VARCHAR) -> VARCHAR",
        "The clean link of url: its key under clean@1 (tracking parameters removed, redirect wrappers unwrapped); NULL for NULL or an invalid URL.",
    ),
    (
        "urlkey_registrable_domain",
        "urlkey_registrable_domain(url VARCHAR [, policy VARCHAR]) -> VARCHAR",
        "The registrable domain (PSL) of the host of url's key under policy (default citation@1); NULL for an IP host, a public suffix, no host or an invalid URL.",
    ),
    (
        "urlkey_query_pairs",
        "urlkey_query_pairs(url VARCHAR) -> TABLE(position BIGINT, name VARCHAR, value VARCHAR)",
        "The query of url as ordered, form-decoded (name, value) pairs, repeats and blanks kept; an error with the stable code for text that is not an absolute URL. url must be a constant: for a column, use the scalar form.",
    ),
    (
        "urlkey_query_pairs",
        "urlkey_query_pairs(url VARCHAR) -> STRUCT(name VARCHAR, value VARCHAR)[]",
        "The scalar form, for a column: the query of url as a list of ordered, form-decoded (name, value) pairs, repeats and blanks kept; NULL for NULL or text that is not an absolute URL.",
    ),
    (
        "urlkey_functions",
        "urlkey_functions() -> TABLE(function_name VARCHAR, signature VARCHAR, description VARCHAR)",
        "The functions of the urlkey extension with their descriptions (DuckDB's C API cannot set duckdb_functions().description).",
    ),
];

/// Whether the one chunk was written.
pub struct Done(AtomicBool);

/// `urlkey_functions()`.
pub struct Functions;

impl VTab for Functions {
    type InitData = Done;
    type BindData = ();

    fn bind(bind: &BindInfo) -> Result<(), Box<dyn Error>> {
        for col in ["function_name", "signature", "description"] {
            bind.add_result_column(col, LogicalTypeHandle::from(LogicalTypeId::Varchar));
        }
        Ok(())
    }

    fn init(_: &InitInfo) -> Result<Done, Box<dyn Error>> {
        Ok(Done(AtomicBool::new(false)))
    }

    fn func(
        func: &TableFunctionInfo<Self>,
        output: &mut DataChunkHandle,
    ) -> Result<(), Box<dyn Error>> {
        if func.get_init_data().0.swap(true, Ordering::Relaxed) {
            output.set_len(0);
            return Ok(());
        }
        let cols = [
            output.flat_vector(0),
            output.flat_vector(1),
            output.flat_vector(2),
        ];
        for (row, (name, signature, description)) in FUNCTIONS.iter().enumerate() {
            cols[0].insert(row, *name);
            cols[1].insert(row, *signature);
            cols[2].insert(row, *description);
        }
        output.set_len(FUNCTIONS.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::FUNCTIONS;

    #[test]
    fn each_signature_is_listed_once_with_a_description() {
        let mut signatures: Vec<&str> = FUNCTIONS.iter().map(|f| f.1).collect();
        signatures.sort_unstable();
        signatures.dedup();
        assert_eq!(signatures.len(), FUNCTIONS.len());
        for (name, signature, description) in FUNCTIONS {
            assert!(name.starts_with("urlkey_"), "{name}");
            assert!(signature.starts_with(&format!("{name}(")), "{signature}");
            assert!(description.len() > 20, "{name}");
        }
    }
}

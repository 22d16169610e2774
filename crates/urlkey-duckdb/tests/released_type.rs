//! The released type of `urlkey_outcome`, as a program using the crate sees it.
//!
//! Also why this is an integration test and not a unit test: building it makes `cargo test
//! --workspace` build the library itself (its `cdylib`, the extension) with the
//! workspace's features, so that `scripts/build-duckdb-extension.sh` in the test profile
//! finds it built instead of building its dependencies again with other features.

use urlkey_duckdb::record::{fields, sql_type};

/// Docs and user queries name these fields: derived from the core table, they keep this
/// text (a new core field may only follow them).
#[test]
fn the_sql_type_is_the_released_one_derived_from_the_core_table() {
    let released = "STRUCT(\"policy\" VARCHAR, \"status\" VARCHAR, \"key\" VARCHAR, \
         \"canonical\" VARCHAR, \"error_code\" VARCHAR, \"error_message\" VARCHAR, \
         \"removed_params\" VARCHAR[], \"transformations\" STRUCT(\"rule\" VARCHAR, \
         \"component\" VARCHAR, \"before\" VARCHAR, \"after\" VARCHAR, \"wrapper\" \
         VARCHAR)[], \"facts\" VARCHAR[], \"host\" VARCHAR, \"signature\" VARCHAR, \
         \"registrable_domain\" VARCHAR, \"psl_version\" VARCHAR";
    let sql = sql_type();
    assert!(
        sql == format!("{released})") || sql.starts_with(&format!("{released}, ")),
        "{sql}"
    );
    let core: Vec<&str> = urlkey::fields::FIELDS
        .iter()
        .filter(|f| f.in_engines)
        .map(|f| f.name)
        .collect();
    let ours: Vec<&str> = fields().iter().map(|f| f.name).collect();
    assert_eq!(ours, core);
}

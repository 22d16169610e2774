//! The row of `urlkey_outcome`: the core's outcome fields that the engines carry
//! ([`urlkey::fields::engine_fields`]), in their order, and the SQL type of each
//! [`FieldType`]. Read by the SQL type (`scalars::outcome_type`) and by the writer
//! (`scalars::write_outcomes`); the Polars plugin derives the same fields from the same
//! table.
//!
//! Pure Rust: nothing here calls DuckDB, so the unit tests run under `cargo test`.

use urlkey::fields::{self, Field, FieldType, TRANSFORMATION_FIELDS};

/// The fields of `urlkey_outcome`'s `STRUCT`, in order.
pub fn fields() -> Vec<&'static Field> {
    fields::engine_fields().collect()
}

/// The SQL text of one field type (a transformation's fields are all `VARCHAR`).
pub fn sql_type_of(ty: FieldType) -> String {
    match ty {
        FieldType::Text => "VARCHAR".to_string(),
        FieldType::TextList => "VARCHAR[]".to_string(),
        FieldType::Transformations => format!(
            "STRUCT({})[]",
            TRANSFORMATION_FIELDS
                .iter()
                .map(|f| format!("\"{}\" VARCHAR", f.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The SQL text of the row's type, as `duckdb_functions()` and `typeof()` show it.
pub fn sql_type() -> String {
    let fields: Vec<String> = fields()
        .iter()
        .map(|f| format!("\"{}\" {}", f.name, sql_type_of(f.ty)))
        .collect();
    format!("STRUCT({})", fields.join(", "))
}

//! Which input columns the expressions take, decided from the Arrow type Polars hands the
//! plugin, at schema time (`collect_schema()`, or before any `collect()`), so that a wrong
//! type fails before a query runs, with the type's name and what to do.
//!
//! Taken: String, and Categorical and Enum (Polars hands those over as
//! `Dictionary(_, Utf8View)`, as pyarrow dictionary strings and many Parquet files become),
//! keyed as the same text as String; a column of nulls of no type (`Null`). Everything else
//! is refused: a number, a date or a list is not a URL, and casting it is the caller's call.
//!
//! Tested from Python (the crate has no Rust test binary, lib.rs says why):
//! `crates/urlkey-py/tests/test_polars.py` runs every expression on each of these types.

use polars::prelude::*;
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};

/// Whether `dt` is text: Utf8 in any of its layouts.
fn is_text(dt: &ArrowDataType) -> bool {
    matches!(
        dt,
        ArrowDataType::Utf8 | ArrowDataType::LargeUtf8 | ArrowDataType::Utf8View
    )
}

/// Whether an input of Arrow type `dt` is taken.
pub fn is_taken(dt: &ArrowDataType) -> bool {
    match dt {
        ArrowDataType::Null => true,
        ArrowDataType::Dictionary(_, values, _) => is_text(values),
        other => is_text(other),
    }
}

/// The name Python Polars gives an Arrow type, for messages (`Int64`, `List(String)`).
pub fn polars_name(dt: &ArrowDataType) -> String {
    use ArrowDataType as A;
    let name = match dt {
        A::Null => "Null",
        A::Boolean => "Boolean",
        A::Int8 => "Int8",
        A::Int16 => "Int16",
        A::Int32 => "Int32",
        A::Int64 => "Int64",
        A::Int128 => "Int128",
        A::UInt8 => "UInt8",
        A::UInt16 => "UInt16",
        A::UInt32 => "UInt32",
        A::UInt64 => "UInt64",
        A::UInt128 => "UInt128",
        A::Float16 => "Float16",
        A::Float32 => "Float32",
        A::Float64 => "Float64",
        A::Utf8 | A::LargeUtf8 | A::Utf8View => "String",
        A::Binary | A::LargeBinary | A::BinaryView | A::FixedSizeBinary(_) => "Binary",
        A::Date32 => "Date",
        A::Date64 | A::Timestamp(..) => "Datetime",
        A::Time32(_) | A::Time64(_) => "Time",
        A::Duration(_) => "Duration",
        A::Decimal(..) | A::Decimal32(..) | A::Decimal64(..) | A::Decimal256(..) => "Decimal",
        A::Struct(_) => "Struct",
        A::List(f) | A::LargeList(f) => return format!("List({})", polars_name(f.dtype())),
        A::FixedSizeList(f, n) => return format!("Array({}, {n})", polars_name(f.dtype())),
        A::Dictionary(_, values, _) if is_text(values) => "Categorical",
        A::Dictionary(_, values, _) => return polars_name(values),
        A::Extension(ext) => return format!("Extension({})", ext.name),
        other => return format!("{other:?}"),
    };
    name.to_string()
}

/// Checks the inputs of expression `what` (one column, or `arity` of them) and gives its
/// output field: the first input's name with type `output`.
pub fn output_field(
    inputs: &[ArrowField],
    what: &str,
    arity: usize,
    output: DataType,
) -> PolarsResult<Field> {
    if inputs.len() != arity {
        return Err(polars_err!(
            InvalidOperation: "urlkey.{}: takes {} column(s), got {}",
            what, arity, inputs.len()
        ));
    }
    for f in inputs {
        if !is_taken(f.dtype()) {
            return Err(refused(what, f.name.as_str(), &polars_name(f.dtype())));
        }
    }
    Ok(Field::new(inputs[0].name.clone(), output))
}

/// The error for a column of a type the expressions do not take.
pub fn refused(what: &str, column: &str, dtype: &str) -> PolarsError {
    polars_err!(
        SchemaMismatch: "urlkey.{}: the column {:?} is {}, not String (or Categorical/Enum); cast it first: pl.col({:?}).cast(pl.String)",
        what, column, dtype, column
    )
}

/// The input as strings: String as it is, Categorical and Enum as their text, a column of
/// nulls as nulls; any other type is refused (the schema check refuses it first).
pub fn strings(s: &Series, what: &str) -> PolarsResult<StringChunked> {
    match s.dtype() {
        DataType::String => Ok(s.str()?.clone()),
        DataType::Categorical(..) | DataType::Enum(..) => {
            Ok(s.cast(&DataType::String)?.str()?.clone())
        }
        DataType::Null => Ok(StringChunked::full_null(s.name().clone(), s.len())),
        other => Err(refused(what, s.name().as_str(), &format!("{other:?}"))),
    }
}

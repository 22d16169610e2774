//! `keys()`: one Arrow record batch of key columns for an Arrow string array. Pure Rust,
//! no Python: the binding hands the array over through the Arrow C data interface and
//! runs [`key_batch`] with the GIL released.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use urlkey::fields::{self, FieldType, Row, Value};
use urlkey::{ErrorCode, Outcome, Policy, PublicSuffixList};

/// The row's own columns, before the outcome's: the value's 0-based position and the value
/// itself (null for a null value).
const OWN: [&str; 2] = ["index", "observed"];

/// The outcome fields `keys()` released first, in their released order; every other field
/// the engines carry ([`fields::engine_fields`]) follows, in the core table's order.
const RELEASED_ORDER: [&str; 11] = [
    "policy",
    "status",
    "key",
    "canonical",
    "error_code",
    "error_message",
    "host",
    "signature",
    "transformations",
    "removed_params",
    "facts",
];

/// The outcome fields of `keys()`, in column order (after `index` and `observed`).
pub fn outcome_fields() -> Vec<&'static fields::Field> {
    let released = RELEASED_ORDER.iter().filter_map(|n| fields::by_name(n));
    let rest = fields::engine_fields().filter(|f| !RELEASED_ORDER.contains(&f.name));
    released.chain(rest).collect()
}

/// The columns of `keys()`, in order.
pub fn columns() -> Vec<&'static str> {
    OWN.into_iter()
        .chain(outcome_fields().iter().map(|f| f.name))
        .collect()
}

/// The Arrow type of a field type: a transformation is its rule's name (the full steps are
/// `key()`'s and the Polars and DuckDB engines').
fn arrow_type(ty: FieldType) -> DataType {
    match ty {
        FieldType::Text => DataType::Utf8,
        FieldType::TextList | FieldType::Transformations => {
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
        }
    }
}

/// The schema of `keys()`.
pub fn schema() -> SchemaRef {
    let own = [
        Field::new(OWN[0], DataType::Int64, false),
        Field::new(OWN[1], DataType::Utf8, true),
    ];
    let outcome = outcome_fields()
        .into_iter()
        .map(|f| Field::new(f.name, arrow_type(f.ty), f.nullable));
    Arc::new(Schema::new(
        own.into_iter().chain(outcome).collect::<Vec<_>>(),
    ))
}

/// The outcome of one value: a missing value (null) is an invalid record
/// `input.missing-field`, as an empty CSV cell is for the CLI.
pub fn outcome(policy: &Policy, value: Option<&str>, base: Option<&str>) -> Outcome {
    match value {
        Some(v) => policy.key_with_base(v, base),
        None => Outcome::invalid(urlkey::KeyError::new(
            ErrorCode::InputMissingField,
            "the value is null",
        )),
    }
}

/// The builder of one outcome column.
enum Column {
    Text(StringBuilder),
    List(ListBuilder<StringBuilder>),
}

impl Column {
    fn new(ty: FieldType, rows: usize) -> Self {
        match ty {
            FieldType::Text => Column::Text(StringBuilder::with_capacity(rows, rows * 24)),
            FieldType::TextList | FieldType::Transformations => {
                Column::List(ListBuilder::with_capacity(StringBuilder::new(), rows))
            }
        }
    }

    fn push(&mut self, value: Value<'_>) {
        match (self, value) {
            (Column::Text(b), Value::Text(t)) => b.append_option(t),
            (Column::List(b), Value::TextList(texts)) => {
                texts.iter().for_each(|t| b.values().append_value(t));
                b.append(true);
            }
            (Column::List(b), Value::Transformations(ts)) => {
                ts.iter().for_each(|t| b.values().append_value(t.rule));
                b.append(true);
            }
            // The column was made from the field's type, and a field reads its own type
            // (urlkey's fields tests): this arm is never taken.
            (Column::Text(b), _) => b.append_null(),
            (Column::List(b), _) => b.append(false),
        }
    }

    fn finish(self) -> ArrayRef {
        match self {
            Column::Text(mut b) => Arc::new(b.finish()),
            Column::List(mut b) => Arc::new(b.finish()),
        }
    }
}

struct Builders {
    index: Int64Builder,
    observed: StringBuilder,
    fields: Vec<(&'static fields::Field, Column)>,
}

impl Builders {
    fn new(rows: usize) -> Self {
        Builders {
            index: Int64Builder::with_capacity(rows),
            observed: StringBuilder::with_capacity(rows, rows * 48),
            fields: outcome_fields()
                .into_iter()
                .map(|f| (f, Column::new(f.ty, rows)))
                .collect(),
        }
    }

    fn push(&mut self, index: usize, value: Option<&str>, row: &Row<'_>) {
        self.index
            .append_value(i64::try_from(index).unwrap_or(i64::MAX));
        self.observed.append_option(value);
        for (f, column) in &mut self.fields {
            column.push(f.read(row));
        }
    }

    fn finish(mut self) -> Result<RecordBatch, String> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.index.finish()),
            Arc::new(self.observed.finish()),
        ];
        columns.extend(self.fields.into_iter().map(|(_, c)| c.finish()));
        RecordBatch::try_new(schema(), columns).map_err(|e| e.to_string())
    }
}

/// Keys every value of a string array (`string`, `large_string` or `string_view`) under
/// `policy`, one row per value in order; `psl` is the policy set's list (the
/// `registrable_domain` and `psl_version` columns). Any other array type is an error
/// naming it.
pub fn key_batch(
    values: &dyn Array,
    policy: &Policy,
    psl: &PublicSuffixList,
    base: Option<&str>,
) -> Result<RecordBatch, String> {
    let n = values.len();
    let mut b = Builders::new(n);
    let id = policy.id();
    let mut run = |i: usize, v: Option<&str>| {
        let o = outcome(policy, v, base);
        let row = Row {
            policy: id,
            outcome: &o,
            psl,
        };
        b.push(i, v, &row);
    };
    match values.data_type() {
        DataType::Utf8 => values
            .as_string::<i32>()
            .iter()
            .enumerate()
            .for_each(|(i, v)| run(i, v)),
        DataType::LargeUtf8 => values
            .as_string::<i64>()
            .iter()
            .enumerate()
            .for_each(|(i, v)| run(i, v)),
        DataType::Utf8View => values
            .as_string_view()
            .iter()
            .enumerate()
            .for_each(|(i, v)| run(i, v)),
        DataType::Null => (0..n).for_each(|i| run(i, None)),
        other => {
            return Err(format!(
            "keys() takes an array of strings (string, large_string or string_view), not {other}"
        ))
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use arrow_array::{LargeStringArray, StringArray};

    use super::*;

    fn set() -> &'static urlkey::PolicySet {
        static SET: std::sync::OnceLock<urlkey::PolicySet> = std::sync::OnceLock::new();
        SET.get_or_init(urlkey::PolicySet::builtin)
    }

    fn policy(id: &str) -> Policy {
        set().get(id).unwrap()
    }

    fn psl() -> &'static PublicSuffixList {
        set().psl()
    }

    /// The released columns keep their names, order and types; the core table's other
    /// engine fields follow, each typed from its field type and nullability.
    #[test]
    fn the_schema_is_the_released_columns_then_the_core_table() {
        let released = [
            "index",
            "observed",
            "policy",
            "status",
            "key",
            "canonical",
            "error_code",
            "error_message",
            "host",
            "signature",
            "transformations",
            "removed_params",
            "facts",
        ];
        let names = columns();
        assert_eq!(names[..released.len()], released);
        assert_eq!(
            // The core fields keys() added after its released columns; a new one may only follow.
            names[released.len()..released.len() + 2],
            ["registrable_domain", "psl_version"]
        );
        let schema = schema();
        let got: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(got, names);
        // Every engine field of the core is here once, with the core's nullability.
        let mut core: Vec<&str> = fields::engine_fields().map(|f| f.name).collect();
        let mut ours: Vec<&str> = names[OWN.len()..].to_vec();
        core.sort_unstable();
        ours.sort_unstable();
        assert_eq!(ours, core);
        for f in fields::engine_fields() {
            let a = schema.field_with_name(f.name).unwrap();
            assert_eq!(a.is_nullable(), f.nullable, "{}", f.name);
            let list = matches!(a.data_type(), DataType::List(_));
            assert_eq!(list, f.ty != FieldType::Text, "{}", f.name);
        }
        let s = |n: &str| schema.field_with_name(n).unwrap().data_type().clone();
        assert_eq!(s("index"), DataType::Int64);
        assert_eq!(s("policy"), DataType::Utf8);
        assert_eq!(
            s("facts"),
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
        );
        assert_eq!(s("transformations"), s("facts"));
    }

    #[test]
    fn registrable_domain_and_psl_version_are_the_core_s() {
        let values = StringArray::from(vec![
            Some("HTTPS://www.BBC.co.uk/news/?utm_source=x"),
            None,
            Some("http://192.168.0.1/"),
        ]);
        let b = key_batch(&values, &policy("citation@1"), psl(), None).unwrap();
        let col = |name: &str| b.column_by_name(name).unwrap().as_string::<i32>().clone();
        assert_eq!(col("registrable_domain").value(0), "bbc.co.uk");
        assert!(col("registrable_domain").is_null(1));
        assert!(col("registrable_domain").is_null(2));
        for i in 0..3 {
            assert_eq!(col("psl_version").value(i), psl().version());
        }
    }

    #[test]
    fn one_row_per_value_in_order_with_nulls_invalid() {
        let values = StringArray::from(vec![
            Some("https://research.example.net/report/?gclid=example"),
            None,
            Some("javascript:alert(1)"),
        ]);
        let b = key_batch(&values, &policy("citation@1"), psl(), None).unwrap();
        assert_eq!(b.num_rows(), 3);
        assert_eq!(b.schema(), schema());
        let col = |name: &str| b.column_by_name(name).unwrap().as_string::<i32>().clone();
        assert_eq!(col("key").value(0), "https://research.example.net/report");
        assert_eq!(col("status").value(1), "invalid");
        assert_eq!(col("error_code").value(1), "input.missing-field");
        assert!(col("observed").is_null(1));
        assert_eq!(col("error_code").value(2), "citation.unsupported-scheme");
        assert!(col("key").is_null(2));
        let rules = b
            .column_by_name("transformations")
            .unwrap()
            .as_list::<i32>()
            .value(0);
        let rules: Vec<&str> = rules.as_string::<i32>().iter().flatten().collect();
        assert_eq!(
            rules,
            ["remove-tracking-parameters", "remove-trailing-slash"]
        );
    }

    #[test]
    fn large_strings_and_mapper_signatures() {
        let values = LargeStringArray::from(vec![
            "/x?b=2&a=1",
            "HTTP://Example.com:80/a//b?utm_source=x&id=7",
        ]);
        let b = key_batch(&values, &policy("mapper@1"), psl(), None).unwrap();
        let col = |name: &str| b.column_by_name(name).unwrap().as_string::<i32>().clone();
        assert_eq!(col("key").value(0), "/x?a=1&b=2");
        assert_eq!(col("signature").value(0), "/x?a&b");
        assert_eq!(col("key").value(1), "http://example.com/a/b?id=7");
        assert_eq!(col("host").value(1), "example.com");
    }

    #[test]
    fn other_types_are_refused() {
        let values = arrow_array::Int64Array::from(vec![1, 2]);
        let e = key_batch(&values, &policy("citation@1"), psl(), None).unwrap_err();
        assert!(e.contains("Int64"), "{e}");
    }

    #[test]
    fn keys_match_the_policy_one_by_one() {
        let inputs = [
            "https://a.test/x/",
            "HTTPS://B.test:443/?utm_source=1&z=2&a=1#f",
            "nope",
        ];
        for id in urlkey::policy::BUILTIN_IDS.iter().copied() {
            let p = policy(id);
            let b = key_batch(&StringArray::from(inputs.to_vec()), &p, psl(), None).unwrap();
            let keys = b.column_by_name("key").unwrap().as_string::<i32>().clone();
            for (i, input) in inputs.iter().enumerate() {
                assert_eq!(keys.is_null(i), p.key(input).key.is_none());
                if let Some(k) = p.key(input).key {
                    assert_eq!(keys.value(i), k);
                }
            }
        }
    }
}

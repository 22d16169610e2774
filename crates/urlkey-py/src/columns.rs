//! `keys()`: one Arrow record batch of key columns for an Arrow string array. Pure Rust,
//! no Python: the binding hands the array over through the Arrow C data interface and
//! runs [`key_batch`] with the GIL released.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use urlkey::{ErrorCode, Outcome, Policy};

/// The columns of `keys()`, in order.
pub const COLUMNS: [&str; 13] = [
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

fn string_list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
        false,
    )
}

/// The schema of `keys()`.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        Field::new("observed", DataType::Utf8, true),
        Field::new("policy", DataType::Utf8, false),
        Field::new("status", DataType::Utf8, false),
        Field::new("key", DataType::Utf8, true),
        Field::new("canonical", DataType::Utf8, true),
        Field::new("error_code", DataType::Utf8, true),
        Field::new("error_message", DataType::Utf8, true),
        Field::new("host", DataType::Utf8, true),
        Field::new("signature", DataType::Utf8, true),
        string_list("transformations"),
        string_list("removed_params"),
        string_list("facts"),
    ]))
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

struct Builders {
    index: Int64Builder,
    observed: StringBuilder,
    policy: StringBuilder,
    status: StringBuilder,
    key: StringBuilder,
    canonical: StringBuilder,
    error_code: StringBuilder,
    error_message: StringBuilder,
    host: StringBuilder,
    signature: StringBuilder,
    transformations: ListBuilder<StringBuilder>,
    removed_params: ListBuilder<StringBuilder>,
    facts: ListBuilder<StringBuilder>,
}

impl Builders {
    fn new(rows: usize) -> Self {
        let s = || StringBuilder::with_capacity(rows, rows * 48);
        let l = || ListBuilder::with_capacity(StringBuilder::new(), rows);
        Builders {
            index: Int64Builder::with_capacity(rows),
            observed: s(),
            policy: StringBuilder::with_capacity(rows, rows * 10),
            status: StringBuilder::with_capacity(rows, rows * 7),
            key: s(),
            canonical: s(),
            error_code: StringBuilder::new(),
            error_message: StringBuilder::new(),
            host: StringBuilder::with_capacity(rows, rows * 20),
            signature: s(),
            transformations: l(),
            removed_params: l(),
            facts: l(),
        }
    }

    fn push(&mut self, index: usize, value: Option<&str>, policy: &str, o: &Outcome) {
        self.index
            .append_value(i64::try_from(index).unwrap_or(i64::MAX));
        self.observed.append_option(value);
        self.policy.append_value(policy);
        self.status
            .append_value(if o.is_valid() { "ok" } else { "invalid" });
        self.key.append_option(o.key.as_deref());
        self.canonical.append_option(o.canonical.as_deref());
        self.error_code
            .append_option(o.error.as_ref().map(|e| e.code.as_str()));
        self.error_message
            .append_option(o.error.as_ref().map(|e| e.message.as_str()));
        self.host.append_option(o.host.as_deref());
        self.signature.append_option(o.signature.as_deref());
        for t in &o.transformations {
            self.transformations.values().append_value(t.rule);
        }
        self.transformations.append(true);
        for p in &o.removed_params {
            self.removed_params.values().append_value(p);
        }
        self.removed_params.append(true);
        for f in &o.facts {
            self.facts.values().append_value(f.as_str());
        }
        self.facts.append(true);
    }

    fn finish(mut self) -> Result<RecordBatch, String> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.index.finish()),
            Arc::new(self.observed.finish()),
            Arc::new(self.policy.finish()),
            Arc::new(self.status.finish()),
            Arc::new(self.key.finish()),
            Arc::new(self.canonical.finish()),
            Arc::new(self.error_code.finish()),
            Arc::new(self.error_message.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.signature.finish()),
            Arc::new(self.transformations.finish()),
            Arc::new(self.removed_params.finish()),
            Arc::new(self.facts.finish()),
        ];
        RecordBatch::try_new(schema(), columns).map_err(|e| e.to_string())
    }
}

/// Keys every value of a string array (`string`, `large_string` or `string_view`) under
/// `policy`, one row per value in order. Any other array type is an error naming it.
pub fn key_batch(
    values: &dyn Array,
    policy: &Policy,
    base: Option<&str>,
) -> Result<RecordBatch, String> {
    let n = values.len();
    let mut b = Builders::new(n);
    let id = policy.id();
    let mut run = |i: usize, v: Option<&str>| {
        let o = outcome(policy, v, base);
        b.push(i, v, id, &o);
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

    fn policy(id: &str) -> Policy {
        urlkey::PolicySet::builtin().get(id).unwrap()
    }

    #[test]
    fn one_row_per_value_in_order_with_nulls_invalid() {
        let values = StringArray::from(vec![
            Some("https://research.example.net/report/?gclid=example"),
            None,
            Some("javascript:alert(1)"),
        ]);
        let b = key_batch(&values, &policy("citation@1"), None).unwrap();
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
        let b = key_batch(&values, &policy("mapper@1"), None).unwrap();
        let col = |name: &str| b.column_by_name(name).unwrap().as_string::<i32>().clone();
        assert_eq!(col("key").value(0), "/x?a=1&b=2");
        assert_eq!(col("signature").value(0), "/x?a&b");
        assert_eq!(col("key").value(1), "http://example.com/a/b?id=7");
        assert_eq!(col("host").value(1), "example.com");
    }

    #[test]
    fn other_types_are_refused() {
        let values = arrow_array::Int64Array::from(vec![1, 2]);
        let e = key_batch(&values, &policy("citation@1"), None).unwrap_err();
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
            let b = key_batch(&StringArray::from(inputs.to_vec()), &p, None).unwrap();
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

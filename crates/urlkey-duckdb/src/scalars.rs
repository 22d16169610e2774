//! The scalar functions: `urlkey_key`, `urlkey_clean`, `urlkey_registrable_domain` and
//! `urlkey_outcome`. Each call takes a whole chunk (up to 2,048 rows): the URL column,
//! and the policy column when one is given, are read in place (the private module `vector`), and
//! the results are written into DuckDB's output vector directly.
//!
//! NULL in (a NULL URL, or a NULL policy) gives NULL out. An invalid URL is never an
//! error: `urlkey_key` gives NULL, `urlkey_outcome` a row with `status = 'invalid'` and
//! its error code. A policy that does not exist ends the query with an error whose text
//! starts with `policy.unknown`.

use std::borrow::Cow;
use std::error::Error;

use duckdb::core::{DataChunkHandle, Inserter, LogicalTypeHandle, LogicalTypeId};
use duckdb::vscalar::{ScalarFunctionSignature, VScalar};
use duckdb::vtab::arrow::WritableVector;
use urlkey::policy::defaults;
use urlkey::{Outcome, Policy};

use crate::policies::{policy_set, Resolver};
use urlkey::fields::{FieldType, Row, Value, TRANSFORMATION_FIELDS};

use crate::record;
use crate::vector::Strings;

/// The policy of `urlkey_clean`: the clean link (`docs/policies.md`).
pub const CLEAN_POLICY: &str = "clean@1";

fn varchar() -> LogicalTypeHandle {
    LogicalTypeHandle::from(LogicalTypeId::Varchar)
}

/// `(url)` and `(url, policy)`, both returning `ret`.
fn url_and_policy(ret: fn() -> LogicalTypeHandle) -> Vec<ScalarFunctionSignature> {
    vec![
        ScalarFunctionSignature::exact(vec![varchar()], ret()),
        ScalarFunctionSignature::exact(vec![varchar(), varchar()], ret()),
    ]
}

/// Calls `each(row, Some((url, policy)))` for every row of `input` whose URL and policy
/// are not NULL, and `each(row, None)` for the others, in row order. The policy is
/// column 1 when the call has two arguments, else `default`.
fn rows(
    input: &DataChunkHandle,
    default: &str,
    mut each: impl FnMut(usize, Option<(&str, &Policy)>),
) -> Result<(), Box<dyn Error>> {
    let urls = Strings::of(input, 0);
    let names = (input.num_columns() > 1).then(|| Strings::of(input, 1));
    let mut resolver = Resolver::default();
    for row in 0..urls.len() {
        let Some(url) = urls.get(row) else {
            each(row, None);
            continue;
        };
        let name: Cow<'_, str> = match &names {
            Some(n) => match n.get(row) {
                Some(name) => name,
                None => {
                    each(row, None);
                    continue;
                }
            },
            None => Cow::Borrowed(default),
        };
        let policy = resolver.get(&name)?;
        each(row, Some((&url, policy)));
    }
    Ok(())
}

/// Writes the key of every row under its policy ([`Policy::key_into`], which gives the
/// key of [`Policy::key`] byte for byte without building the rest of the outcome).
fn write_keys(
    input: &DataChunkHandle,
    output: &mut dyn WritableVector,
    default: &str,
) -> Result<(), Box<dyn Error>> {
    let mut out = output.flat_vector();
    let mut key = String::new();
    rows(input, default, |row, arg| match arg {
        Some((url, policy)) if policy.key_into(url, &mut key).is_ok() => {
            out.insert(row, key.as_str())
        }
        _ => out.set_null(row),
    })
}

/// `urlkey_key(url [, policy])`.
pub struct Key;

impl VScalar for Key {
    type State = ();

    fn invoke(
        _: &(),
        input: &mut DataChunkHandle,
        output: &mut dyn WritableVector,
    ) -> Result<(), Box<dyn Error>> {
        write_keys(input, output, defaults::KEY)
    }

    fn signatures() -> Vec<ScalarFunctionSignature> {
        url_and_policy(varchar)
    }
}

/// `urlkey_clean(url)`: the key under [`CLEAN_POLICY`].
pub struct Clean;

impl VScalar for Clean {
    type State = ();

    fn invoke(
        _: &(),
        input: &mut DataChunkHandle,
        output: &mut dyn WritableVector,
    ) -> Result<(), Box<dyn Error>> {
        write_keys(input, output, CLEAN_POLICY)
    }

    fn signatures() -> Vec<ScalarFunctionSignature> {
        vec![ScalarFunctionSignature::exact(vec![varchar()], varchar())]
    }
}

/// `urlkey_registrable_domain(url [, policy])`: [`Outcome::registrable_domain`] under
/// the builtin set's list.
pub struct RegistrableDomain;

impl VScalar for RegistrableDomain {
    type State = ();

    fn invoke(
        _: &(),
        input: &mut DataChunkHandle,
        output: &mut dyn WritableVector,
    ) -> Result<(), Box<dyn Error>> {
        let mut out = output.flat_vector();
        let psl = policy_set().psl();
        rows(input, defaults::KEY, |row, arg| {
            let outcome = arg.map(|(url, policy)| policy.key(url));
            match outcome.as_ref().and_then(|o| o.registrable_domain(psl)) {
                Some(d) => out.insert(row, d),
                None => out.set_null(row),
            }
        })
    }

    fn signatures() -> Vec<ScalarFunctionSignature> {
        url_and_policy(varchar)
    }
}

/// The SQL type of `urlkey_outcome`'s result, from [`record::fields`].
pub fn outcome_type() -> LogicalTypeHandle {
    let fields: Vec<(&str, LogicalTypeHandle)> = record::fields()
        .iter()
        .map(|f| {
            let t = match f.ty {
                FieldType::Text => varchar(),
                FieldType::TextList => LogicalTypeHandle::list(&varchar()),
                FieldType::Transformations => {
                    let fields: Vec<(&str, LogicalTypeHandle)> = TRANSFORMATION_FIELDS
                        .iter()
                        .map(|t| (t.name, varchar()))
                        .collect();
                    LogicalTypeHandle::list(&LogicalTypeHandle::struct_type(&fields))
                }
            };
            (f.name, t)
        })
        .collect();
    LogicalTypeHandle::struct_type(&fields)
}

/// `urlkey_outcome(url [, policy])`: the whole outcome as a `STRUCT` ([`record`]).
pub struct OutcomeRow;

impl VScalar for OutcomeRow {
    type State = ();

    fn invoke(
        _: &(),
        input: &mut DataChunkHandle,
        output: &mut dyn WritableVector,
    ) -> Result<(), Box<dyn Error>> {
        // The chunk's outcomes first (each row names the policy it ran under, an index in
        // `policies`), then the output column by column.
        let mut policies: Vec<Policy> = Vec::new();
        let mut outcomes: Vec<Option<(usize, Outcome)>> = Vec::with_capacity(input.len());
        rows(input, defaults::KEY, |_, arg| {
            outcomes.push(arg.map(|(url, policy)| {
                if policies.last().is_none_or(|p| p.id() != policy.id()) {
                    policies.push(policy.clone());
                }
                (policies.len() - 1, policy.key(url))
            }))
        })?;
        let psl = policy_set().psl();
        let rows: Vec<Option<Row<'_>>> = outcomes
            .iter()
            .map(|o| {
                o.as_ref().map(|(p, o)| Row {
                    policy: policies[*p].id(),
                    outcome: o,
                    psl,
                })
            })
            .collect();
        write_outcomes(&rows, output);
        Ok(())
    }

    fn signatures() -> Vec<ScalarFunctionSignature> {
        url_and_policy(outcome_type)
    }
}

/// Writes the rows into the `STRUCT` output, field by field ([`record::fields`]). A NULL
/// row is NULL in the struct and in every field (DuckDB reads a field of a struct without
/// looking at the struct's own validity).
fn write_outcomes(rows: &[Option<Row<'_>>], output: &mut dyn WritableVector) {
    let len = rows.len();
    let mut st = output.struct_vector();
    for (f, field) in record::fields().into_iter().enumerate() {
        let values: Vec<Option<Value<'_>>> = rows
            .iter()
            .map(|r| r.as_ref().map(|r| field.read(r)))
            .collect();
        match field.ty {
            FieldType::Text => {
                let mut child = st.child(f, len);
                for (row, value) in values.iter().enumerate() {
                    match value {
                        Some(Value::Text(Some(t))) => child.insert(row, *t),
                        _ => child.set_null(row),
                    }
                }
            }
            FieldType::TextList => {
                let mut list = st.list_vector_child(f);
                let total: usize = values.iter().flatten().map(list_len).sum();
                let child = list.child(total.max(1));
                let mut offset = 0;
                for (row, value) in values.iter().enumerate() {
                    let Some(Value::TextList(texts)) = value else {
                        list.set_entry(row, offset, 0);
                        list.set_null(row);
                        continue;
                    };
                    for (i, t) in texts.iter().enumerate() {
                        child.insert(offset + i, t);
                    }
                    list.set_entry(row, offset, texts.len());
                    offset += texts.len();
                }
                list.set_len(total);
            }
            FieldType::Transformations => {
                let mut list = st.list_vector_child(f);
                let total: usize = values.iter().flatten().map(list_len).sum();
                let items = list.struct_child(total.max(1));
                let mut children: Vec<_> = (0..TRANSFORMATION_FIELDS.len())
                    .map(|j| items.child(j, total.max(1)))
                    .collect();
                let mut offset = 0;
                for (row, value) in values.iter().enumerate() {
                    let Some(Value::Transformations(ts)) = value else {
                        list.set_entry(row, offset, 0);
                        list.set_null(row);
                        continue;
                    };
                    for (i, t) in ts.iter().enumerate() {
                        for (child, sub) in children.iter_mut().zip(TRANSFORMATION_FIELDS) {
                            match sub.read(t) {
                                Some(v) => child.insert(offset + i, v),
                                None => child.set_null(offset + i),
                            }
                        }
                    }
                    list.set_entry(row, offset, ts.len());
                    offset += ts.len();
                }
                list.set_len(total);
            }
        }
    }
    for (row, r) in rows.iter().enumerate() {
        if r.is_none() {
            st.set_null(row);
        }
    }
}

/// How many elements a list value has (0 for a text).
fn list_len(v: &Value<'_>) -> usize {
    match v {
        Value::Text(_) => 0,
        Value::TextList(t) => t.len(),
        Value::Transformations(t) => t.len(),
    }
}

//! The plugin's expressions. Polars calls each once per chunk of a column, on its own
//! threads and without the GIL (`is_elementwise=True` on the Python side lets it split the
//! column and stream it). Every expression maps null to null; an invalid URL is never
//! `""`: `key` gives null, `outcome` says `status = "invalid"` with the error code.
//!
//! Each expression is two safe functions, its output field (`*_type`, which also refuses
//! an input type it does not take, at schema time: [`crate::input`]) and its result; the
//! entry points Polars calls wrap both ([`crate::ffi`]).

use polars::chunked_array::builder::get_list_builder;
use polars::prelude::*;
use polars_arrow::datatypes::Field as ArrowField;
use urlkey::explain::explain as explain_inputs;
use urlkey::policy::DEFAULT_MAX_INPUT_BYTES;

use crate::input::{output_field, strings};
use crate::outcome::{self, OutcomeColumns};
use crate::policies::{resolve, PolicyArgs, Resolved};

fn policy(args: &PolicyArgs) -> PolarsResult<Resolved> {
    resolve(args).map_err(|e| polars_err!(ComputeError: "{}", e))
}

/// The keyword arguments, pickled by Polars.
fn kwargs<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> PolarsResult<T> {
    serde_pickle::from_slice(bytes, Default::default())
        .map_err(|e| polars_err!(ComputeError: "{}", e))
}

/// The policy of an expression's keyword arguments.
fn policy_of(kw: &[u8]) -> PolarsResult<Resolved> {
    policy(&kwargs::<PolicyArgs>(kw)?)
}

fn string_type(inputs: &[ArrowField], what: &str) -> PolarsResult<Field> {
    output_field(inputs, what, 1, DataType::String)
}

/// The key of every URL under the policy; null for null and for an invalid URL.
pub fn keys(values: &StringChunked, r: &Resolved) -> StringChunked {
    let mut out = StringChunkedBuilder::new(values.name().clone(), values.len());
    let mut key = String::new();
    for v in values.iter() {
        match v {
            Some(v) if r.policy.key_into(v, &mut key).is_ok() => out.append_value(&key),
            _ => out.append_null(),
        }
    }
    out.finish()
}

pub(crate) fn key_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    string_type(inputs, "key")
}

pub(crate) fn key(inputs: &[Series], kw: &[u8]) -> PolarsResult<Series> {
    let r = policy_of(kw)?;
    let values = strings(&inputs[0], "key")?;
    Ok(keys(&values, &r).into_series())
}

pub(crate) fn clean_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    string_type(inputs, "clean")
}

pub(crate) fn clean(inputs: &[Series], _: &[u8]) -> PolarsResult<Series> {
    let r = policy(&PolicyArgs::builtin("clean@1"))?;
    let values = strings(&inputs[0], "clean")?;
    Ok(keys(&values, &r).into_series())
}

/// The outcome structs of a column.
pub fn outcomes(values: &StringChunked, r: &Resolved) -> PolarsResult<Series> {
    let mut out = OutcomeColumns::with_capacity(values.len());
    for v in values.iter() {
        match v {
            Some(v) => out.push(r, &r.policy.key(v)),
            None => out.push_null(),
        }
    }
    out.finish(values.name().clone())
}

pub(crate) fn outcome_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    output_field(inputs, "outcome", 1, outcome::dtype())
}

pub(crate) fn outcome(inputs: &[Series], kw: &[u8]) -> PolarsResult<Series> {
    let r = policy_of(kw)?;
    let values = strings(&inputs[0], "outcome")?;
    outcomes(&values, &r)
}

pub(crate) fn registrable_domain_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    string_type(inputs, "registrable_domain")
}

pub(crate) fn registrable_domain(inputs: &[Series], kw: &[u8]) -> PolarsResult<Series> {
    let r = policy_of(kw)?;
    let values = strings(&inputs[0], "registrable_domain")?;
    let mut out = StringChunkedBuilder::new(values.name().clone(), values.len());
    for v in values.iter() {
        let o = v.map(|v| r.policy.key(v));
        out.append_option(o.as_ref().and_then(|o| o.registrable_domain(r.set.psl())));
    }
    Ok(out.finish().into_series())
}

fn pair_dtype() -> DataType {
    DataType::Struct(vec![
        Field::new("name".into(), DataType::String),
        Field::new("value".into(), DataType::String),
    ])
}

pub(crate) fn query_pairs_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    let list = DataType::List(Box::new(pair_dtype()));
    output_field(inputs, "query_pairs", 1, list)
}

/// `urlkey::query_pairs` of every URL, or `None` for text that is not an absolute URL and
/// for text over the input limit (64 KiB, as `key` and `outcome`: `input.too-long`).
pub fn pairs_within_limit(url: &str) -> Option<Vec<(String, String)>> {
    if url.len() > DEFAULT_MAX_INPUT_BYTES {
        return None;
    }
    urlkey::query_pairs(url).ok()
}

/// The pairs of every URL as a list of `{name, value}`; null for null, for text that is not
/// an absolute URL and for text over the input limit (`outcome` says why).
pub(crate) fn query_pairs(inputs: &[Series], _: &[u8]) -> PolarsResult<Series> {
    let values = strings(&inputs[0], "query_pairs")?;
    let mut out = get_list_builder(
        &pair_dtype(),
        values.len(),
        values.len(),
        values.name().clone(),
    );
    for v in values.iter() {
        match v.and_then(pairs_within_limit) {
            Some(pairs) => {
                let names: StringChunked = pairs.iter().map(|(n, _)| Some(n.as_str())).collect();
                let vals: StringChunked = pairs.iter().map(|(_, v)| Some(v.as_str())).collect();
                let fields = [
                    names.with_name("name".into()).into_series(),
                    vals.with_name("value".into()).into_series(),
                ];
                let row = StructChunked::from_series("".into(), pairs.len(), fields.iter())?;
                out.append_series(&row.into_series())?;
            }
            None => out.append_null(),
        }
    }
    Ok(out.finish().into_series())
}

/// What `inspect` gives per row, in the struct's order: the scalar facts as fields, and the
/// whole inspection (offsets, profile, the key under every builtin) as the JSON `urlkey
/// inspect --format json` prints.
const INSPECT_FIELDS: [&str; 11] = [
    "valid",
    "error_code",
    "href",
    "canonical",
    "is_website",
    "looks_like_web_address",
    "facts",
    "registrable_domain",
    "public_suffix",
    "key",
    "json",
];
const INSPECT_FLAGS: [&str; 3] = ["valid", "is_website", "looks_like_web_address"];
const INSPECT_TEXTS: [&str; 7] = [
    "error_code",
    "href",
    "canonical",
    "registrable_domain",
    "public_suffix",
    "key",
    "json",
];

fn inspect_dtype() -> DataType {
    let field = |name: &str| {
        let dt = if INSPECT_FLAGS.contains(&name) {
            DataType::Boolean
        } else if name == "facts" {
            DataType::List(Box::new(DataType::String))
        } else {
            DataType::String
        };
        Field::new(name.into(), dt)
    };
    DataType::Struct(INSPECT_FIELDS.iter().map(|n| field(n)).collect())
}

pub(crate) fn inspect_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    output_field(inputs, "inspect", 1, inspect_dtype())
}

pub(crate) fn inspect(inputs: &[Series], kw: &[u8]) -> PolarsResult<Series> {
    let r = policy_of(kw)?;
    let values = strings(&inputs[0], "inspect")?;
    let n = values.len();
    let mut flags = INSPECT_FLAGS.map(|name| BooleanChunkedBuilder::new(name.into(), n));
    let mut texts = INSPECT_TEXTS.map(|name| StringChunkedBuilder::new(name.into(), n));
    let mut facts = ListStringChunkedBuilder::new("facts".into(), n, n);
    let mut validity = Vec::with_capacity(n);
    for v in values.iter() {
        validity.push(v.is_some());
        let Some(v) = v else {
            flags.iter_mut().for_each(|b| b.append_null());
            texts.iter_mut().for_each(|b| b.append_null());
            facts.append_null();
            continue;
        };
        let i = urlkey::inspect(v, &r.set, &r.policy);
        for (b, f) in flags
            .iter_mut()
            .zip([i.valid, i.is_website, i.looks_like_web_address])
        {
            b.append_value(f);
        }
        facts.append_values_iter(i.facts.iter().map(|f| f.as_str()));
        let json =
            serde_json::to_string(&i).map_err(|e| polars_err!(ComputeError: "inspect: {}", e))?;
        let cells = [
            i.error.as_ref().map(|e| e.code.as_str()),
            i.href.as_deref(),
            i.canonical.as_deref(),
            i.registrable_domain.as_deref(),
            i.public_suffix.as_deref(),
            i.key.as_deref(),
            Some(json.as_str()),
        ];
        for (b, c) in texts.iter_mut().zip(cells) {
            b.append_option(c);
        }
    }
    let mut built: Vec<Series> = flags
        .into_iter()
        .map(|b| b.finish().into_series())
        .chain(texts.into_iter().map(|b| b.finish().into_series()))
        .collect();
    built.push(facts.finish().into_series());
    // In INSPECT_FIELDS' order, the one list `inspect_dtype` reads too.
    let columns = INSPECT_FIELDS
        .iter()
        .map(|name| {
            built
                .iter()
                .find(|s| s.name().as_str() == *name)
                .cloned()
                .ok_or_else(|| polars_err!(ComputeError: "inspect: no column {}", name))
        })
        .collect::<PolarsResult<Vec<Series>>>()?;
    let ca = StructChunked::from_series(values.name().clone(), n, columns.iter())?;
    Ok(ca
        .with_outer_validity(Some(validity.into_iter().collect()))
        .into_series())
}

fn explain_dtype() -> DataType {
    let strings = || DataType::List(Box::new(DataType::String));
    DataType::Struct(vec![
        Field::new("policy".into(), DataType::String),
        Field::new("same_key".into(), DataType::Boolean),
        Field::new("key_a".into(), DataType::String),
        Field::new("key_b".into(), DataType::String),
        Field::new("rules".into(), strings()),
        Field::new("differs_in".into(), DataType::String),
        Field::new("value_a".into(), DataType::String),
        Field::new("value_b".into(), DataType::String),
        Field::new("same_key_under".into(), strings()),
    ])
}

pub(crate) fn explain_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    output_field(inputs, "explain", 2, explain_dtype())
}

/// `urlkey explain A B` for every row of two columns: whether the two URLs share a key
/// under the policy, the rules that made them meet, or the first component where their
/// keys differ and the builtins under which they would meet. Null when either is null.
pub(crate) fn explain(inputs: &[Series], kw: &[u8]) -> PolarsResult<Series> {
    let r = policy_of(kw)?;
    let a = strings(&inputs[0], "explain")?;
    let b = strings(&inputs[1], "explain")?;
    let (a, b) = match (a.len(), b.len()) {
        (x, y) if x == y => (a, b),
        (1, y) => (a.new_from_index(0, y), b),
        (x, 1) => (a.clone(), b.new_from_index(0, x)),
        (x, y) => {
            return Err(
                polars_err!(ShapeMismatch: "explain: the two columns have {} and {} rows; give two of one length, or a single value (pl.lit) for one of them", x, y),
            )
        }
    };
    let n = a.len();
    let sb = |name: &str| StringChunkedBuilder::new(name.into(), n);
    let lb = |name: &str| ListStringChunkedBuilder::new(name.into(), n, n);
    let (mut policy_id, mut key_a, mut key_b) = (sb("policy"), sb("key_a"), sb("key_b"));
    let (mut differs, mut value_a, mut value_b) = (sb("differs_in"), sb("value_a"), sb("value_b"));
    let (mut rules, mut under) = (lb("rules"), lb("same_key_under"));
    let mut same = BooleanChunkedBuilder::new("same_key".into(), n);
    let mut validity = Vec::with_capacity(n);
    for (x, y) in a.iter().zip(b.iter()) {
        let (Some(x), Some(y)) = (x, y) else {
            validity.push(false);
            for s in [
                &mut policy_id,
                &mut key_a,
                &mut key_b,
                &mut differs,
                &mut value_a,
                &mut value_b,
            ] {
                s.append_null();
            }
            rules.append_null();
            under.append_null();
            same.append_null();
            continue;
        };
        validity.push(true);
        let e = explain_inputs(&[x.to_string(), y.to_string()], &r.set, &r.policy);
        policy_id.append_value(&e.policy);
        same.append_value(e.same_key);
        key_a.append_option(e.keys.first().and_then(|k| k.as_deref()));
        key_b.append_option(e.keys.get(1).and_then(|k| k.as_deref()));
        rules.append_values_iter(e.rules.iter().copied());
        differs.append_option(e.differs_in);
        let values = e.differing_values.as_deref().unwrap_or(&[]);
        value_a.append_option(values.first().and_then(|v| v.as_deref()));
        value_b.append_option(values.get(1).and_then(|v| v.as_deref()));
        under.append_values_iter(e.same_key_under.iter().map(String::as_str));
    }
    let columns = [
        policy_id.finish().into_series(),
        same.finish().into_series(),
        key_a.finish().into_series(),
        key_b.finish().into_series(),
        rules.finish().into_series(),
        differs.finish().into_series(),
        value_a.finish().into_series(),
        value_b.finish().into_series(),
        under.finish().into_series(),
    ];
    let ca = StructChunked::from_series(a.name().clone(), n, columns.iter())?;
    Ok(ca
        .with_outer_validity(Some(validity.into_iter().collect()))
        .into_series())
}

/// `selftest_panic`: not an expression of the Python API, a probe that panics on purpose,
/// at schema time when its input column is named `panic_at_schema`, else when it runs, so
/// that a test shows a Rust panic in the plugin becoming a Python exception with the
/// process alive (crates/urlkey-py/tests/test_polars.py).
pub(crate) fn selftest_panic_type(inputs: &[ArrowField]) -> PolarsResult<Field> {
    if inputs.first().map(|f| f.name.as_str()) == Some("panic_at_schema") {
        panic!("selftest_panic at schema time");
    }
    string_type(inputs, "selftest_panic")
}

pub(crate) fn selftest_panic(_: &[Series], _: &[u8]) -> PolarsResult<Series> {
    panic!("selftest_panic when it runs");
}

//! The `outcome` struct column: one [`urlkey::Outcome`] per row, with the same fields, in
//! the same order, as the DuckDB extension's `urlkey_outcome` STRUCT.

use polars::prelude::*;
use polars_arrow::array::{Array, ListArray};
use polars_arrow::offset::OffsetsBuffer;
use urlkey::Outcome;

use crate::policies::Resolved;

/// The struct's fields, in order.
pub const FIELDS: [&str; 13] = [
    "policy",
    "status",
    "key",
    "canonical",
    "error_code",
    "error_message",
    "removed_params",
    "transformations",
    "facts",
    "host",
    "signature",
    "registrable_domain",
    "psl_version",
];

/// The fields of one transformation, in order.
pub const TRANSFORMATION_FIELDS: [&str; 5] = ["rule", "component", "before", "after", "wrapper"];

fn string_list() -> DataType {
    DataType::List(Box::new(DataType::String))
}

fn transformation_dtype() -> DataType {
    DataType::Struct(
        TRANSFORMATION_FIELDS
            .iter()
            .map(|n| Field::new((*n).into(), DataType::String))
            .collect(),
    )
}

/// The struct's data type.
pub fn dtype() -> DataType {
    let fields = FIELDS
        .iter()
        .map(|name| {
            let dt = match *name {
                "removed_params" | "facts" => string_list(),
                "transformations" => DataType::List(Box::new(transformation_dtype())),
                _ => DataType::String,
            };
            Field::new((*name).into(), dt)
        })
        .collect();
    DataType::Struct(fields)
}

/// Builds the struct column row by row: `push` for a value, `push_null` for a null input
/// (the whole struct is null: null in, null out).
pub struct OutcomeColumns {
    valid: Vec<bool>,
    policy: StringChunkedBuilder,
    status: StringChunkedBuilder,
    key: StringChunkedBuilder,
    canonical: StringChunkedBuilder,
    error_code: StringChunkedBuilder,
    error_message: StringChunkedBuilder,
    removed_params: ListStringChunkedBuilder,
    facts: ListStringChunkedBuilder,
    host: StringChunkedBuilder,
    signature: StringChunkedBuilder,
    registrable_domain: StringChunkedBuilder,
    psl_version: StringChunkedBuilder,
    // The transformations of every row, flat, and where each row's start.
    t_offsets: Vec<i64>,
    t_rule: StringChunkedBuilder,
    t_component: StringChunkedBuilder,
    t_before: StringChunkedBuilder,
    t_after: StringChunkedBuilder,
    t_wrapper: StringChunkedBuilder,
}

fn s(name: &str, capacity: usize) -> StringChunkedBuilder {
    StringChunkedBuilder::new(name.into(), capacity)
}

impl OutcomeColumns {
    /// Room for `capacity` rows.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut t_offsets = Vec::with_capacity(capacity + 1);
        t_offsets.push(0);
        OutcomeColumns {
            valid: Vec::with_capacity(capacity),
            policy: s("policy", capacity),
            status: s("status", capacity),
            key: s("key", capacity),
            canonical: s("canonical", capacity),
            error_code: s("error_code", capacity),
            error_message: s("error_message", capacity),
            removed_params: ListStringChunkedBuilder::new("removed_params".into(), capacity, 0),
            facts: ListStringChunkedBuilder::new("facts".into(), capacity, capacity),
            host: s("host", capacity),
            signature: s("signature", capacity),
            registrable_domain: s("registrable_domain", capacity),
            psl_version: s("psl_version", capacity),
            t_offsets,
            t_rule: s("rule", capacity),
            t_component: s("component", capacity),
            t_before: s("before", capacity),
            t_after: s("after", capacity),
            t_wrapper: s("wrapper", capacity),
        }
    }

    /// One row for an outcome of `resolved`'s policy.
    pub fn push(&mut self, resolved: &Resolved, o: &Outcome) {
        self.valid.push(true);
        self.policy.append_value(resolved.policy.id());
        self.status
            .append_value(if o.is_valid() { "ok" } else { "invalid" });
        self.key.append_option(o.key.as_deref());
        self.canonical.append_option(o.canonical.as_deref());
        self.error_code
            .append_option(o.error.as_ref().map(|e| e.code.as_str()));
        self.error_message
            .append_option(o.error.as_ref().map(|e| e.message.as_str()));
        self.removed_params
            .append_values_iter(o.removed_params.iter().map(String::as_str));
        self.facts
            .append_values_iter(o.facts.iter().map(|f| f.as_str()));
        self.host.append_option(o.host.as_deref());
        self.signature.append_option(o.signature.as_deref());
        self.registrable_domain
            .append_option(o.registrable_domain(resolved.set.psl()));
        self.psl_version.append_value(resolved.set.psl().version());
        for t in &o.transformations {
            self.t_rule.append_value(t.rule);
            self.t_component.append_value(t.component.as_str());
            self.t_before.append_value(&t.before);
            self.t_after.append_value(&t.after);
            self.t_wrapper.append_option(t.wrapper);
        }
        let last = self.t_offsets.last().copied().unwrap_or(0);
        self.t_offsets.push(last + o.transformations.len() as i64);
    }

    /// A null row.
    pub fn push_null(&mut self) {
        self.valid.push(false);
        for b in [
            &mut self.policy,
            &mut self.status,
            &mut self.key,
            &mut self.canonical,
            &mut self.error_code,
            &mut self.error_message,
            &mut self.host,
            &mut self.signature,
            &mut self.registrable_domain,
            &mut self.psl_version,
        ] {
            b.append_null();
        }
        self.removed_params.append_null();
        self.facts.append_null();
        let last = self.t_offsets.last().copied().unwrap_or(0);
        self.t_offsets.push(last);
    }

    fn transformations(&mut self) -> PolarsResult<Series> {
        let t_len = self.t_offsets.last().copied().unwrap_or(0) as usize;
        let fields = [
            take(&mut self.t_rule, "rule"),
            take(&mut self.t_component, "component"),
            take(&mut self.t_before, "before"),
            take(&mut self.t_after, "after"),
            take(&mut self.t_wrapper, "wrapper"),
        ];
        let flat = StructChunked::from_series("item".into(), t_len, fields.iter())?;
        let flat = flat.rechunk();
        let values: Box<dyn Array> = match flat.chunks().first() {
            Some(a) => a.clone(),
            None => return Err(polars_err!(ComputeError: "transformations: no chunk")),
        };
        let offsets = std::mem::take(&mut self.t_offsets);
        let offsets = OffsetsBuffer::<i64>::try_from(offsets)?;
        let arrow_dtype = ListArray::<i64>::default_datatype(values.dtype().clone());
        let list = ListArray::<i64>::try_new(arrow_dtype, offsets, values, None)?;
        let ca = ListChunked::with_chunk("transformations".into(), list);
        // The arrow type maps back to String views: cast to the declared type so that the
        // column's dtype is exactly `dtype()`'s.
        ca.into_series()
            .cast(&DataType::List(Box::new(transformation_dtype())))
    }

    /// The struct column, named `name`.
    pub fn finish(mut self, name: PlSmallStr) -> PolarsResult<Series> {
        let transformations = self.transformations()?;
        let columns = [
            take(&mut self.policy, "policy"),
            take(&mut self.status, "status"),
            take(&mut self.key, "key"),
            take(&mut self.canonical, "canonical"),
            take(&mut self.error_code, "error_code"),
            take(&mut self.error_message, "error_message"),
            self.removed_params.finish().into_series(),
            transformations,
            self.facts.finish().into_series(),
            take(&mut self.host, "host"),
            take(&mut self.signature, "signature"),
            take(&mut self.registrable_domain, "registrable_domain"),
            take(&mut self.psl_version, "psl_version"),
        ];
        let ca = StructChunked::from_series(name, self.valid.len(), columns.iter())?;
        let validity = self.valid.iter().copied().collect();
        Ok(ca.with_outer_validity(Some(validity)).into_series())
    }
}

fn take(b: &mut StringChunkedBuilder, name: &str) -> Series {
    std::mem::replace(b, s(name, 0)).finish().into_series()
}

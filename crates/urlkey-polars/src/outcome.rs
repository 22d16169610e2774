//! The `outcome` struct column: one [`urlkey::Outcome`] per row. Its fields are the core's
//! outcome fields that the engines carry ([`urlkey::fields::engine_fields`]), in the same
//! order as the DuckDB extension's `urlkey_outcome` STRUCT, each typed from its
//! [`FieldType`] and built by one loop over the table.

use polars::prelude::*;
use polars_arrow::array::{Array, ListArray};
use polars_arrow::offset::OffsetsBuffer;
use urlkey::fields::{self, FieldType, Row, Value, TRANSFORMATION_FIELDS};
use urlkey::Outcome;

use crate::policies::Resolved;

/// The struct's fields, in order.
pub fn field_names() -> Vec<&'static str> {
    fields::engine_fields().map(|f| f.name).collect()
}

/// The fields of one transformation, in order.
pub fn transformation_field_names() -> Vec<&'static str> {
    TRANSFORMATION_FIELDS.iter().map(|f| f.name).collect()
}

fn transformation_dtype() -> DataType {
    DataType::Struct(
        TRANSFORMATION_FIELDS
            .iter()
            .map(|f| Field::new(f.name.into(), DataType::String))
            .collect(),
    )
}

/// The Polars type of a field type.
fn dtype_of(ty: FieldType) -> DataType {
    match ty {
        FieldType::Text => DataType::String,
        FieldType::TextList => DataType::List(Box::new(DataType::String)),
        FieldType::Transformations => DataType::List(Box::new(transformation_dtype())),
    }
}

/// The struct's data type.
pub fn dtype() -> DataType {
    DataType::Struct(
        fields::engine_fields()
            .map(|f| Field::new(f.name.into(), dtype_of(f.ty)))
            .collect(),
    )
}

/// The transformations of every row, flat, and where each row's start.
struct Steps {
    offsets: Vec<i64>,
    fields: Vec<StringChunkedBuilder>,
}

/// The builder of one field.
enum Column {
    Text(StringChunkedBuilder),
    List(ListStringChunkedBuilder),
    Steps(Steps),
}

fn s(name: &str, capacity: usize) -> StringChunkedBuilder {
    StringChunkedBuilder::new(name.into(), capacity)
}

fn take(b: &mut StringChunkedBuilder, name: &str) -> Series {
    std::mem::replace(b, s(name, 0)).finish().into_series()
}

impl Column {
    fn new(field: &fields::Field, capacity: usize) -> Self {
        match field.ty {
            FieldType::Text => Column::Text(s(field.name, capacity)),
            FieldType::TextList => Column::List(ListStringChunkedBuilder::new(
                field.name.into(),
                capacity,
                capacity,
            )),
            FieldType::Transformations => {
                let mut offsets = Vec::with_capacity(capacity + 1);
                offsets.push(0);
                Column::Steps(Steps {
                    offsets,
                    fields: TRANSFORMATION_FIELDS
                        .iter()
                        .map(|f| s(f.name, capacity))
                        .collect(),
                })
            }
        }
    }

    fn push(&mut self, value: Value<'_>) {
        match (self, value) {
            (Column::Text(b), Value::Text(t)) => b.append_option(t),
            (Column::List(b), Value::TextList(texts)) => b.append_values_iter(texts.iter()),
            (Column::Steps(st), Value::Transformations(ts)) => {
                for t in ts {
                    for (b, f) in st.fields.iter_mut().zip(TRANSFORMATION_FIELDS) {
                        b.append_option(f.read(t));
                    }
                }
                let last = st.offsets.last().copied().unwrap_or(0);
                st.offsets.push(last + ts.len() as i64);
            }
            // The column was made from the field's type, and a field reads its own type
            // (urlkey's fields tests): this arm is never taken.
            (c, _) => c.push_null(),
        }
    }

    fn push_null(&mut self) {
        match self {
            Column::Text(b) => b.append_null(),
            Column::List(b) => b.append_null(),
            Column::Steps(st) => {
                let last = st.offsets.last().copied().unwrap_or(0);
                st.offsets.push(last);
            }
        }
    }

    fn finish(self, name: &str) -> PolarsResult<Series> {
        match self {
            Column::Text(b) => Ok(b.finish().into_series()),
            Column::List(mut b) => Ok(b.finish().into_series()),
            Column::Steps(st) => st.finish(name),
        }
    }
}

impl Steps {
    fn finish(mut self, name: &str) -> PolarsResult<Series> {
        let t_len = self.offsets.last().copied().unwrap_or(0) as usize;
        let fields: Vec<Series> = self
            .fields
            .iter_mut()
            .zip(TRANSFORMATION_FIELDS)
            .map(|(b, f)| take(b, f.name))
            .collect();
        let flat = StructChunked::from_series("item".into(), t_len, fields.iter())?;
        let flat = flat.rechunk();
        let values: Box<dyn Array> = match flat.chunks().first() {
            Some(a) => a.clone(),
            None => return Err(polars_err!(ComputeError: "{name}: no chunk")),
        };
        let offsets = OffsetsBuffer::<i64>::try_from(self.offsets)?;
        let arrow_dtype = ListArray::<i64>::default_datatype(values.dtype().clone());
        let list = ListArray::<i64>::try_new(arrow_dtype, offsets, values, None)?;
        let ca = ListChunked::with_chunk(name.into(), list);
        // The arrow type maps back to String views: cast to the declared type so that the
        // column's dtype is exactly `dtype()`'s.
        ca.into_series().cast(&dtype_of(FieldType::Transformations))
    }
}

/// Builds the struct column row by row: `push` for a value, `push_null` for a null input
/// (the whole struct is null: null in, null out).
pub struct OutcomeColumns {
    valid: Vec<bool>,
    columns: Vec<(&'static fields::Field, Column)>,
}

impl OutcomeColumns {
    /// Room for `capacity` rows.
    pub fn with_capacity(capacity: usize) -> Self {
        OutcomeColumns {
            valid: Vec::with_capacity(capacity),
            columns: fields::engine_fields()
                .map(|f| (f, Column::new(f, capacity)))
                .collect(),
        }
    }

    /// One row for an outcome of `resolved`'s policy.
    pub fn push(&mut self, resolved: &Resolved, o: &Outcome) {
        self.valid.push(true);
        let row = Row {
            policy: resolved.policy.id(),
            outcome: o,
            psl: resolved.set.psl(),
        };
        for (f, column) in &mut self.columns {
            column.push(f.read(&row));
        }
    }

    /// A null row.
    pub fn push_null(&mut self) {
        self.valid.push(false);
        for (_, column) in &mut self.columns {
            column.push_null();
        }
    }

    /// The struct column, named `name`.
    pub fn finish(self, name: PlSmallStr) -> PolarsResult<Series> {
        let columns = self
            .columns
            .into_iter()
            .map(|(f, c)| c.finish(f.name))
            .collect::<PolarsResult<Vec<Series>>>()?;
        let ca = StructChunked::from_series(name, self.valid.len(), columns.iter())?;
        let validity = self.valid.iter().copied().collect();
        Ok(ca.with_outer_validity(Some(validity)).into_series())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The released struct (Python users and the DuckDB twin read these fields), derived
    /// from the core table: its fields keep these names, order and types (a new core field
    /// may only follow them), and the struct is every engine field of the core, in order.
    #[test]
    fn the_struct_is_the_released_one_derived_from_the_core_table() {
        let step = DataType::Struct(
            ["rule", "component", "before", "after", "wrapper"]
                .iter()
                .map(|n| Field::new((*n).into(), DataType::String))
                .collect(),
        );
        let text = DataType::String;
        let texts = DataType::List(Box::new(DataType::String));
        let want: Vec<(&str, DataType)> = vec![
            ("policy", text.clone()),
            ("status", text.clone()),
            ("key", text.clone()),
            ("canonical", text.clone()),
            ("error_code", text.clone()),
            ("error_message", text.clone()),
            ("removed_params", texts.clone()),
            ("transformations", DataType::List(Box::new(step))),
            ("facts", texts),
            ("host", text.clone()),
            ("signature", text.clone()),
            ("registrable_domain", text.clone()),
            ("psl_version", text),
        ];
        let DataType::Struct(got) = dtype() else {
            panic!("not a struct: {:?}", dtype())
        };
        assert!(got.len() >= want.len());
        for (g, (name, t)) in got.iter().zip(want) {
            assert_eq!((g.name().as_str(), g.dtype()), (name, &t));
        }
        for (g, f) in got.iter().zip(fields::engine_fields()) {
            assert_eq!((g.name().as_str(), g.dtype()), (f.name, &dtype_of(f.ty)));
        }
        let core: Vec<&str> = fields::FIELDS
            .iter()
            .filter(|f| f.in_engines)
            .map(|f| f.name)
            .collect();
        assert_eq!(field_names(), core);
    }

    /// A built column has exactly the declared type, and its rows read what the core's
    /// readers read (a null input is a null struct).
    #[test]
    fn built_columns_have_the_declared_type_and_the_core_s_values() {
        let r = crate::policies::resolve(&crate::policies::PolicyArgs::builtin("clean@1"))
            .expect("a builtin policy");
        let inputs = [
            Some("https://www.google.com/url?q=https://news.example.org/a%3Fb%3D1&sa=D"),
            None,
            Some("nope"),
        ];
        let mut out = OutcomeColumns::with_capacity(inputs.len());
        let outcomes: Vec<Option<Outcome>> =
            inputs.iter().map(|v| v.map(|v| r.policy.key(v))).collect();
        for o in &outcomes {
            match o {
                Some(o) => out.push(&r, o),
                None => out.push_null(),
            }
        }
        let series = out.finish("o".into()).expect("a column");
        assert_eq!(series.dtype(), &dtype());
        assert_eq!(series.null_count(), 1);
        let st = series.struct_().expect("a struct");
        let text = |name: &str, row: usize| -> Option<String> {
            let f = st.field_by_name(name).expect("a field");
            f.str().expect("text").get(row).map(str::to_string)
        };
        assert_eq!(text("policy", 0).as_deref(), Some("clean@1"));
        assert_eq!(
            text("registrable_domain", 0).as_deref(),
            Some("example.org")
        );
        assert_eq!(text("status", 2).as_deref(), Some("invalid"));
        let code = outcomes[2].as_ref().and_then(|o| o.error.as_ref());
        assert!(code.is_some());
        assert_eq!(
            text("error_code", 2).as_deref(),
            code.map(|e| e.code.as_str())
        );
        assert_eq!(
            text("psl_version", 2).as_deref(),
            Some(r.set.psl().version())
        );
        let steps = st.field_by_name("transformations").expect("a field");
        let steps = steps.list().expect("a list");
        let first = steps.get_as_series(0).expect("row 0");
        assert_eq!(
            first.len(),
            outcomes[0].as_ref().map_or(0, |o| o.transformations.len())
        );
        let wrapper = first
            .struct_()
            .expect("steps")
            .field_by_name("wrapper")
            .expect("a field");
        // Only the unwrap step names its wrapper.
        let unwraps = outcomes[0].as_ref().map_or(0, |o| {
            o.transformations
                .iter()
                .filter(|t| t.rule == "unwrap-redirect")
                .count()
        });
        assert!(unwraps > 0);
        assert_eq!(wrapper.len() - wrapper.null_count(), unwraps);
    }
}

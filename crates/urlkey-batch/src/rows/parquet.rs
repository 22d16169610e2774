//! `--format parquet`: key records, map rows, map groups and diff rows as an Apache Parquet file, so
//! that Spark, DuckDB, Polars or pandas read the output directly.
//!
//! The columns are the fields of the JSONL records, in the same order and with the same
//! names; a JSON `null` is a Parquet null. Types:
//!
//! | JSONL | Parquet (Arrow) |
//! |---|---|
//! | numbers (`line`, `group`, `duplicates`, ...) | `int64` (signed: Spark reads unsigned 64-bit columns as decimals) |
//! | strings | `string` (UTF-8) |
//! | `error` of `urlkey key` (`null` or `{code, message}`) | `struct<code: string, message: string>`, null when valid |
//! | `transformations` | `list<struct<rule, component, before, after: string>>` |
//! | `removed_params`, `facts` | `list<string>` |
//! | `sample_lines` (`map --groups`) | `list<int64>` |
//!
//! Files are zstd-compressed, in row groups of at most [`ROW_GROUP_ROWS`] rows; memory
//! stays bounded by one row group whatever the input size. The writer produces bytes into
//! a buffer that the caller drains after each record ([`ParquetSink::write_key`] and
//! friends append them to `out`), so it streams to any `Write` without needing `Send`.
//!
//! Without the cargo feature `parquet` the sink exists but every call fails with a message
//! saying the build has no Parquet support.

use std::io;

use super::columns::{Cell, Table};
use super::record::{GroupRow, KeyRecord, MapRow};

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 64 * 1024;

/// Records buffered in Arrow builders before they are handed to the Parquet writer.
pub const BATCH_ROWS: usize = 8 * 1024;

#[cfg(all(test, feature = "parquet"))]
pub(super) use imp::schema;
pub use imp::ParquetSink;

#[cfg(not(feature = "parquet"))]
mod imp {
    use super::*;

    fn unsupported() -> io::Error {
        io::Error::other(
            "this build has no Parquet support (the cargo feature `parquet` of urlkey-batch)",
        )
    }

    /// A Parquet writer; this build has none (see the module documentation).
    #[derive(Default)]
    pub struct ParquetSink;

    impl ParquetSink {
        /// A sink.
        pub fn new() -> Self {
            ParquetSink
        }
        /// Fails: no Parquet support.
        pub fn start(&mut self, _table: Table, _tail: Vec<String>) -> io::Result<()> {
            Err(unsupported())
        }
        /// Fails: no Parquet support.
        pub fn write_key(
            &mut self,
            _r: &KeyRecord<'_>,
            _tail: &[Cell<'_>],
            _out: &mut Vec<u8>,
        ) -> io::Result<()> {
            Err(unsupported())
        }
        /// Fails: no Parquet support.
        pub fn write_map(
            &mut self,
            _r: &MapRow<'_>,
            _tail: &[Cell<'_>],
            _out: &mut Vec<u8>,
        ) -> io::Result<()> {
            Err(unsupported())
        }
        /// Fails: no Parquet support.
        pub fn write_group(
            &mut self,
            _g: &GroupRow,
            _tail: &[Cell<'_>],
            _out: &mut Vec<u8>,
        ) -> io::Result<()> {
            Err(unsupported())
        }
        /// Fails: no Parquet support.
        pub fn write_cells(
            &mut self,
            _table: Table,
            _cells: &[Cell<'_>],
            _tail: &[Cell<'_>],
            _out: &mut Vec<u8>,
        ) -> io::Result<()> {
            Err(unsupported())
        }
        /// Fails: no Parquet support.
        pub fn finish(self, _out: &mut Vec<u8>) -> io::Result<()> {
            Err(unsupported())
        }
    }
}

#[cfg(feature = "parquet")]
mod imp {
    use std::sync::{Arc, Mutex};

    use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, ListArray, RecordBatch, StructArray};
    use arrow_buffer::{NullBuffer, OffsetBuffer};
    use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    use urlkey::{Fact, Transformation};

    use super::*;
    use crate::rows::columns::{ColumnType, Tail};

    /// The bytes the Parquet writer has produced and the caller has not taken yet.
    #[derive(Clone, Default)]
    struct SharedBuf(Arc<Mutex<Vec<u8>>>);

    impl SharedBuf {
        fn drain_into(&self, out: &mut Vec<u8>) {
            let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
            out.append(&mut b);
        }
    }

    impl io::Write for SharedBuf {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn pq(e: parquet::errors::ParquetError) -> io::Error {
        io::Error::other(format!("Parquet: {e}"))
    }

    fn arrow(e: arrow_schema::ArrowError) -> io::Error {
        io::Error::other(format!("Arrow: {e}"))
    }

    fn utf8(name: &str, nullable: bool) -> Field {
        Field::new(name, DataType::Utf8, nullable)
    }

    fn int(name: &str, nullable: bool) -> Field {
        Field::new(name, DataType::Int64, nullable)
    }

    fn string_list(name: &str, nullable: bool) -> Field {
        Field::new(
            name,
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            nullable,
        )
    }

    fn transformation_fields() -> Fields {
        Fields::from(vec![
            utf8("rule", false),
            utf8("component", false),
            utf8("before", false),
            utf8("after", false),
        ])
    }

    fn transformations_field(nullable: bool) -> Field {
        Field::new(
            "transformations",
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(transformation_fields()),
                true,
            ))),
            nullable,
        )
    }

    fn error_fields() -> Fields {
        Fields::from(vec![utf8("code", false), utf8("message", false)])
    }

    /// The Arrow schema of a table with tail columns (nullable; strings, `run_line` an
    /// `int64` as urlkey's own numbers) after its own.
    pub fn schema_with_tail(table: Table, tail: &[String]) -> SchemaRef {
        let mut fields: Vec<Field> = schema(table)
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.extend(tail.iter().map(|n| {
            if Tail::is_number(n) {
                int(n, true)
            } else {
                utf8(n, true)
            }
        }));
        Arc::new(Schema::new(fields))
    }

    /// The Arrow schema of a table (the Parquet file's schema), from its column table
    /// ([`Table::columns`]).
    pub fn schema(table: Table) -> SchemaRef {
        let fields: Vec<Field> = table
            .columns()
            .iter()
            .map(|c| match c.ty {
                ColumnType::Int => int(c.name, c.nullable),
                ColumnType::Text => utf8(c.name, c.nullable),
                ColumnType::Error => {
                    Field::new(c.name, DataType::Struct(error_fields()), c.nullable)
                }
                ColumnType::Transformations => transformations_field(c.nullable),
                ColumnType::TextList => string_list(c.name, c.nullable),
                ColumnType::IntList => Field::new(
                    c.name,
                    DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                    c.nullable,
                ),
            })
            .collect();
        Arc::new(Schema::new(fields))
    }

    fn i64_of(v: u64) -> i64 {
        i64::try_from(v).unwrap_or(i64::MAX)
    }

    /// `list<struct<rule, component, before, after>>`, built column by column.
    #[derive(Default)]
    struct TransformationsBuilder {
        offsets: Vec<i32>,
        valid: Vec<bool>,
        rule: StringBuilder,
        component: StringBuilder,
        before: StringBuilder,
        after: StringBuilder,
    }

    impl TransformationsBuilder {
        fn append(&mut self, ts: Option<&[Transformation]>) {
            if self.offsets.is_empty() {
                self.offsets.push(0);
            }
            for t in ts.unwrap_or_default() {
                self.rule.append_value(t.rule);
                self.component.append_value(t.component.as_str());
                self.before.append_value(&t.before);
                self.after.append_value(&t.after);
            }
            let last = *self.offsets.last().unwrap_or(&0);
            let n = ts.map_or(0, |t| t.len());
            self.offsets
                .push(last + i32::try_from(n).unwrap_or(i32::MAX));
            self.valid.push(ts.is_some());
        }

        fn finish(&mut self, nullable: bool) -> Result<ArrayRef, io::Error> {
            if self.offsets.is_empty() {
                self.offsets.push(0);
            }
            let children: Vec<ArrayRef> = vec![
                Arc::new(self.rule.finish()),
                Arc::new(self.component.finish()),
                Arc::new(self.before.finish()),
                Arc::new(self.after.finish()),
            ];
            let items =
                StructArray::try_new(transformation_fields(), children, None).map_err(arrow)?;
            let offsets = OffsetBuffer::new(std::mem::take(&mut self.offsets).into());
            let valid = std::mem::take(&mut self.valid);
            let nulls = (nullable && valid.iter().any(|v| !v)).then(|| NullBuffer::from(valid));
            let item = Arc::new(Field::new(
                "item",
                DataType::Struct(transformation_fields()),
                true,
            ));
            Ok(Arc::new(
                ListArray::try_new(item, offsets, Arc::new(items), nulls).map_err(arrow)?,
            ))
        }
    }

    fn append_strings<'a>(
        b: &mut ListBuilder<StringBuilder>,
        items: Option<impl Iterator<Item = &'a str>>,
    ) {
        match items {
            Some(it) => {
                for s in it {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }

    fn facts(f: &[Fact]) -> impl Iterator<Item = &'static str> + '_ {
        f.iter().map(|f| f.as_str())
    }

    #[derive(Default)]
    struct KeyCols {
        line: Int64Builder,
        observed: StringBuilder,
        policy: StringBuilder,
        status: StringBuilder,
        key: StringBuilder,
        canonical: StringBuilder,
        error_code: StringBuilder,
        error_message: StringBuilder,
        error_valid: Vec<bool>,
        transformations: TransformationsBuilder,
        removed_params: ListBuilder<StringBuilder>,
        facts: ListBuilder<StringBuilder>,
        psl: StringBuilder,
    }

    #[derive(Default)]
    struct MapCols {
        line: Int64Builder,
        observed: StringBuilder,
        status: StringBuilder,
        key: StringBuilder,
        signature: StringBuilder,
        group: Int64Builder,
        duplicate_of: Int64Builder,
        duplicates: Int64Builder,
        variants: Int64Builder,
        classification: StringBuilder,
        removed_tracking: StringBuilder,
        error_code: StringBuilder,
        error: StringBuilder,
        review: StringBuilder,
        transformations: TransformationsBuilder,
        removed_params: ListBuilder<StringBuilder>,
        facts: ListBuilder<StringBuilder>,
    }

    #[derive(Default)]
    struct GroupCols {
        group: Int64Builder,
        signature: StringBuilder,
        members: Int64Builder,
        distinct_keys: Int64Builder,
        classification: StringBuilder,
        sample_lines: ListBuilder<Int64Builder>,
        review: StringBuilder,
    }

    enum Cols {
        Key(Box<KeyCols>),
        Map(Box<MapCols>),
        Groups(Box<GroupCols>),
        /// A table whose every column is a number or a text (diff's rows), one builder
        /// per column.
        Cells(Vec<TailBuilder>),
    }

    impl Cols {
        fn new(table: Table) -> Self {
            match table {
                Table::Key => Cols::Key(Box::default()),
                Table::Map => Cols::Map(Box::default()),
                Table::Groups => Cols::Groups(Box::default()),
                Table::DiffPolicies | Table::DiffInventories => Cols::Cells(
                    table
                        .columns()
                        .iter()
                        .map(|c| TailBuilder::of(c.ty == ColumnType::Int))
                        .collect(),
                ),
            }
        }

        fn finish(&mut self) -> io::Result<Vec<ArrayRef>> {
            Ok(match self {
                Cols::Key(c) => {
                    let valid = std::mem::take(&mut c.error_valid);
                    let error = StructArray::try_new(
                        error_fields(),
                        vec![
                            Arc::new(c.error_code.finish()),
                            Arc::new(c.error_message.finish()),
                        ],
                        valid.iter().any(|v| !v).then(|| NullBuffer::from(valid)),
                    )
                    .map_err(arrow)?;
                    vec![
                        Arc::new(c.line.finish()),
                        Arc::new(c.observed.finish()),
                        Arc::new(c.policy.finish()),
                        Arc::new(c.status.finish()),
                        Arc::new(c.key.finish()),
                        Arc::new(c.canonical.finish()),
                        Arc::new(error),
                        c.transformations.finish(false)?,
                        Arc::new(c.removed_params.finish()),
                        Arc::new(c.facts.finish()),
                        Arc::new(c.psl.finish()),
                    ]
                }
                Cols::Map(c) => vec![
                    Arc::new(c.line.finish()),
                    Arc::new(c.observed.finish()),
                    Arc::new(c.status.finish()),
                    Arc::new(c.key.finish()),
                    Arc::new(c.signature.finish()),
                    Arc::new(c.group.finish()),
                    Arc::new(c.duplicate_of.finish()),
                    Arc::new(c.duplicates.finish()),
                    Arc::new(c.variants.finish()),
                    Arc::new(c.classification.finish()),
                    Arc::new(c.removed_tracking.finish()),
                    Arc::new(c.error_code.finish()),
                    Arc::new(c.error.finish()),
                    Arc::new(c.review.finish()),
                    c.transformations.finish(true)?,
                    Arc::new(c.removed_params.finish()),
                    Arc::new(c.facts.finish()),
                ],
                Cols::Cells(c) => c.iter_mut().map(TailBuilder::finish).collect(),
                Cols::Groups(c) => vec![
                    Arc::new(c.group.finish()),
                    Arc::new(c.signature.finish()),
                    Arc::new(c.members.finish()),
                    Arc::new(c.distinct_keys.finish()),
                    Arc::new(c.classification.finish()),
                    Arc::new(c.sample_lines.finish()),
                    Arc::new(c.review.finish()),
                ],
            })
        }
    }

    /// A tail column's builder, of its [`Cell`]'s type.
    enum TailBuilder {
        Text(StringBuilder),
        Int(Int64Builder),
    }

    impl TailBuilder {
        fn of(number: bool) -> Self {
            if number {
                TailBuilder::Int(Int64Builder::new())
            } else {
                TailBuilder::Text(StringBuilder::new())
            }
        }

        fn append(&mut self, cell: &Cell<'_>) -> io::Result<()> {
            match (self, cell) {
                (TailBuilder::Text(b), Cell::Text(t)) => b.append_option(*t),
                (TailBuilder::Int(b), Cell::Int(n)) => b.append_option(n.map(i64_of)),
                _ => return Err(io::Error::other("a cell of the wrong type")),
            }
            Ok(())
        }

        fn finish(&mut self) -> ArrayRef {
            match self {
                TailBuilder::Text(b) => Arc::new(b.finish()),
                TailBuilder::Int(b) => Arc::new(b.finish()),
            }
        }
    }

    struct State {
        table: Table,
        schema: SchemaRef,
        cols: Cols,
        tail: Vec<TailBuilder>,
        rows: usize,
        writer: ArrowWriter<SharedBuf>,
        buf: SharedBuf,
    }

    impl State {
        fn new(table: Table, tail: &[String]) -> io::Result<Self> {
            let schema = schema_with_tail(table, tail);
            let buf = SharedBuf::default();
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                .set_created_by(format!("urlkey {}", env!("CARGO_PKG_VERSION")))
                .build();
            let writer =
                ArrowWriter::try_new(buf.clone(), schema.clone(), Some(props)).map_err(pq)?;
            Ok(State {
                table,
                schema,
                cols: Cols::new(table),
                tail: tail
                    .iter()
                    .map(|n| TailBuilder::of(Tail::is_number(n)))
                    .collect(),
                rows: 0,
                writer,
                buf,
            })
        }

        fn write_batch(&mut self) -> io::Result<()> {
            if self.rows == 0 {
                return Ok(());
            }
            let mut columns = self.cols.finish()?;
            columns.extend(self.tail.iter_mut().map(TailBuilder::finish));
            let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(arrow)?;
            self.rows = 0;
            self.writer.write(&batch).map_err(pq)
        }

        fn row_done(&mut self, tail: &[Cell<'_>], out: &mut Vec<u8>) -> io::Result<()> {
            for (b, v) in self.tail.iter_mut().zip(tail) {
                b.append(v)?;
            }
            self.rows += 1;
            if self.rows >= BATCH_ROWS {
                self.write_batch()?;
                self.buf.drain_into(out);
            }
            Ok(())
        }
    }

    /// A Parquet writer of one table (see the module documentation).
    #[derive(Default)]
    pub struct ParquetSink {
        state: Option<State>,
    }

    impl ParquetSink {
        /// A sink; the table is chosen by [`ParquetSink::start`] or the first record.
        pub fn new() -> Self {
            ParquetSink::default()
        }

        /// Chooses the table (an empty input still gives a file with the schema).
        pub fn start(&mut self, table: Table, tail: Vec<String>) -> io::Result<()> {
            if self.state.is_none() {
                self.state = Some(State::new(table, &tail)?);
            }
            self.state(table).map(|_| ())
        }

        fn state(&mut self, table: Table) -> io::Result<&mut State> {
            if self.state.is_none() {
                self.state = Some(State::new(table, &[])?);
            }
            match &mut self.state {
                Some(s) if s.table == table => Ok(s),
                _ => Err(io::Error::other(
                    "one Parquet file holds one table: key records, map rows, map groups or diff rows",
                )),
            }
        }

        /// Adds one `urlkey key` record; bytes ready for the file are appended to `out`.
        pub fn write_key(
            &mut self,
            r: &KeyRecord<'_>,
            tail: &[Cell<'_>],
            out: &mut Vec<u8>,
        ) -> io::Result<()> {
            let s = self.state(Table::Key)?;
            let Cols::Key(c) = &mut s.cols else {
                return Err(io::Error::other("not a key table"));
            };
            c.line.append_value(i64_of(r.line));
            c.observed.append_value(r.observed);
            c.policy.append_value(r.policy);
            c.status
                .append_value(if r.error.is_none() { "ok" } else { "invalid" });
            c.key.append_option(r.key);
            c.canonical.append_option(r.canonical);
            match r.error {
                Some(e) => {
                    c.error_code.append_value(e.code.as_str());
                    c.error_message.append_value(&e.message);
                    c.error_valid.push(true);
                }
                None => {
                    c.error_code.append_value("");
                    c.error_message.append_value("");
                    c.error_valid.push(false);
                }
            }
            c.transformations.append(Some(r.transformations));
            append_strings(
                &mut c.removed_params,
                Some(r.removed_params.iter().map(String::as_str)),
            );
            append_strings(&mut c.facts, Some(facts(r.facts)));
            c.psl.append_option(r.psl);
            s.row_done(tail, out)
        }

        /// Adds one `urlkey map` row.
        pub fn write_map(
            &mut self,
            r: &MapRow<'_>,
            tail: &[Cell<'_>],
            out: &mut Vec<u8>,
        ) -> io::Result<()> {
            let s = self.state(Table::Map)?;
            let Cols::Map(c) = &mut s.cols else {
                return Err(io::Error::other("not a map table"));
            };
            c.line.append_value(i64_of(r.line));
            c.observed.append_value(r.observed);
            c.status.append_value(r.status);
            c.key.append_option(r.key);
            c.signature.append_option(r.signature);
            c.group.append_option(r.group.map(i64_of));
            c.duplicate_of.append_option(r.duplicate_of.map(i64_of));
            c.duplicates.append_option(r.duplicates.map(i64_of));
            c.variants.append_option(r.variants.map(i64_of));
            c.classification.append_value(r.classification);
            c.removed_tracking.append_value(&r.removed_tracking);
            c.error_code.append_option(r.error_code);
            c.error.append_option(r.error);
            c.review.append_value(r.review);
            c.transformations.append(r.transformations);
            append_strings(
                &mut c.removed_params,
                r.removed_params.map(|p| p.iter().map(String::as_str)),
            );
            append_strings(&mut c.facts, r.facts.map(facts));
            s.row_done(tail, out)
        }

        /// Adds one `urlkey map --groups` row.
        pub fn write_group(
            &mut self,
            g: &GroupRow,
            tail: &[Cell<'_>],
            out: &mut Vec<u8>,
        ) -> io::Result<()> {
            let s = self.state(Table::Groups)?;
            let Cols::Groups(c) = &mut s.cols else {
                return Err(io::Error::other("not a groups table"));
            };
            c.group.append_value(i64_of(g.group));
            c.signature.append_value(&g.signature);
            c.members.append_value(i64_of(g.members));
            c.distinct_keys.append_value(i64_of(g.distinct_keys));
            c.classification.append_value(g.classification);
            for l in &g.sample_lines {
                c.sample_lines.values().append_value(i64_of(*l));
            }
            c.sample_lines.append(true);
            c.review.append_value(g.review);
            s.row_done(tail, out)
        }

        /// Adds one row of a table whose columns are numbers and texts (diff's rows):
        /// `cells` in the order of its columns ([`Table::columns`]).
        pub fn write_cells(
            &mut self,
            table: Table,
            cells: &[Cell<'_>],
            tail: &[Cell<'_>],
            out: &mut Vec<u8>,
        ) -> io::Result<()> {
            let s = self.state(table)?;
            let Cols::Cells(c) = &mut s.cols else {
                return Err(io::Error::other("not a table of cells"));
            };
            if c.len() != cells.len() {
                return Err(io::Error::other("a row with the wrong number of cells"));
            }
            for (b, v) in c.iter_mut().zip(cells) {
                b.append(v)?;
            }
            s.row_done(tail, out)
        }

        /// Writes what is buffered and the file footer; the last bytes go to `out`.
        /// A sink that never saw a record or a `start` writes nothing.
        pub fn finish(mut self, out: &mut Vec<u8>) -> io::Result<()> {
            if let Some(mut s) = self.state.take() {
                s.write_batch()?;
                s.writer.close().map_err(pq)?;
                s.buf.drain_into(out);
            }
            Ok(())
        }
    }
}

//! `propose`'s rows as Apache Parquet (zstd, as `urlkey map`'s): the schema is
//! [`super::rows::COLUMNS`] (`int64`, `double`, `boolean`, `string`), rows written in
//! batches whose bytes go out as they are made.

use std::io;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::rows::{ColumnKind, ProposalRow, COLUMNS};

/// Rows per batch handed to the Parquet writer.
const BATCH_ROWS: usize = 64 * 1024;

/// The bytes the Parquet writer has produced and the caller has not taken yet.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    fn drain_into(&self, out: &mut Vec<u8>) {
        out.append(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()));
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

/// The Arrow schema of the rows: `line`, `status`, `ambiguous`, `decision` and `review`
/// are never null.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|&(name, kind)| {
            let ty = match kind {
                ColumnKind::Text => DataType::Utf8,
                ColumnKind::Int => DataType::Int64,
                ColumnKind::Float => DataType::Float64,
                ColumnKind::Bool => DataType::Boolean,
            };
            let required = matches!(
                name,
                "line" | "source" | "status" | "ambiguous" | "decision" | "review"
            );
            Field::new(name, ty, !required)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

#[derive(Default)]
struct Cols {
    line: Int64Builder,
    source: StringBuilder,
    status: StringBuilder,
    target: StringBuilder,
    evidence: StringBuilder,
    evidence_detail: StringBuilder,
    score: Float64Builder,
    runner_up: StringBuilder,
    runner_up_score: Float64Builder,
    ambiguous: BooleanBuilder,
    error_code: StringBuilder,
    title: StringBuilder,
    target_title: StringBuilder,
    decision: StringBuilder,
    review: StringBuilder,
}

/// A Parquet file of proposal rows being written.
pub struct ProposalParquet {
    schema: SchemaRef,
    cols: Cols,
    rows: usize,
    writer: ArrowWriter<SharedBuf>,
    buf: SharedBuf,
}

impl ProposalParquet {
    /// A writer with the schema ([`schema`]).
    pub fn new() -> io::Result<Self> {
        let schema = schema();
        let buf = SharedBuf::default();
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_created_by(format!("urlkey {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = ArrowWriter::try_new(buf.clone(), schema.clone(), Some(props)).map_err(pq)?;
        Ok(ProposalParquet {
            schema,
            cols: Cols::default(),
            rows: 0,
            writer,
            buf,
        })
    }

    /// Adds a row; bytes ready for the file are appended to `out`.
    pub fn write(&mut self, r: &ProposalRow<'_>, out: &mut Vec<u8>) -> io::Result<()> {
        let c = &mut self.cols;
        c.line
            .append_value(i64::try_from(r.line).unwrap_or(i64::MAX));
        c.source.append_value(r.source);
        c.status.append_value(r.status);
        c.target.append_option(r.target);
        c.evidence.append_option(r.evidence.as_deref());
        c.evidence_detail
            .append_option(r.evidence_detail.as_deref());
        c.score.append_option(r.score);
        c.runner_up.append_option(r.runner_up);
        c.runner_up_score.append_option(r.runner_up_score);
        c.ambiguous.append_value(r.ambiguous);
        c.error_code.append_option(r.error_code);
        c.title.append_option(r.title);
        c.target_title.append_option(r.target_title);
        c.decision.append_value(r.decision);
        c.review.append_value(r.review);
        self.rows += 1;
        if self.rows >= BATCH_ROWS {
            self.write_batch()?;
            self.buf.drain_into(out);
        }
        Ok(())
    }

    fn write_batch(&mut self) -> io::Result<()> {
        let c = &mut self.cols;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(c.line.finish()),
            Arc::new(c.source.finish()),
            Arc::new(c.status.finish()),
            Arc::new(c.target.finish()),
            Arc::new(c.evidence.finish()),
            Arc::new(c.evidence_detail.finish()),
            Arc::new(c.score.finish()),
            Arc::new(c.runner_up.finish()),
            Arc::new(c.runner_up_score.finish()),
            Arc::new(c.ambiguous.finish()),
            Arc::new(c.error_code.finish()),
            Arc::new(c.title.finish()),
            Arc::new(c.target_title.finish()),
            Arc::new(c.decision.finish()),
            Arc::new(c.review.finish()),
        ];
        let batch = RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| io::Error::other(format!("Arrow: {e}")))?;
        self.rows = 0;
        self.writer.write(&batch).map_err(pq)
    }

    /// Writes what is buffered and the footer; the last bytes go to `out`. A file with no
    /// row still has the schema.
    pub fn finish(mut self, out: &mut Vec<u8>) -> io::Result<()> {
        if self.rows > 0 {
            self.write_batch()?;
        }
        self.writer.close().map_err(pq)?;
        self.buf.drain_into(out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Seek, Write};

    use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    use super::super::rows::ProposalRow;
    use super::super::writer::{RowFormat, RowWriter};
    use super::super::{Evidence, EvidenceKind, Proposal, Status};

    /// Rows written in more than one batch come back whole, typed, nulls as nulls.
    #[test]
    fn rows_read_back_with_their_types() {
        let target = Proposal {
            status: Status::Candidate,
            target: Some("https://x.com/b".into()),
            evidence: vec![Evidence {
                kind: EvidenceKind::SameStem,
                detail: "\"b\" in /".into(),
            }],
            score: 50.4,
            runner_up: None,
            runner_up_score: None,
            ambiguous: false,
            error_code: None,
            target_title: None,
        };
        let invalid = Proposal::unreadable("input.too-long");
        let mut w = RowWriter::new(RowFormat::Parquet, Vec::new()).expect("writer");
        let n = super::BATCH_ROWS + 10;
        for i in 0..n {
            let p = if i % 2 == 0 { &target } else { &invalid };
            w.write(&ProposalRow::new(i as u64 + 2, "/b.html", Some("B"), p))
                .expect("row");
        }
        let bytes = w.into_inner().expect("finish");
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(&bytes).expect("write");
        f.rewind().expect("rewind");
        let reader = ParquetRecordBatchReaderBuilder::try_new(f)
            .expect("Parquet")
            .build()
            .expect("reader");
        let batches: Vec<_> = reader.map(|b| b.expect("batch")).collect();
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), n);
        let b = &batches[0];
        assert_eq!(b.schema(), super::schema());
        let col = |name: &str| b.column_by_name(name).expect(name).clone();
        let line = col("line");
        let line = line.as_any().downcast_ref::<Int64Array>().expect("int64");
        assert_eq!((line.value(0), line.value(1)), (2, 3));
        let score = col("score");
        let score = score
            .as_any()
            .downcast_ref::<Float64Array>()
            .expect("double");
        assert_eq!(score.value(0), 50.4);
        assert!(score.is_null(1));
        let status = col("status");
        let status = status
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("string");
        assert_eq!((status.value(0), status.value(1)), ("candidate", "invalid"));
        let code = col("error_code");
        let code = code.as_any().downcast_ref::<StringArray>().expect("string");
        assert!(code.is_null(0));
        assert_eq!(code.value(1), "input.too-long");
        let amb = col("ambiguous");
        let amb = amb.as_any().downcast_ref::<BooleanArray>().expect("bool");
        assert!(!amb.value(0));
        let review = col("review");
        let review = review
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("string");
        assert_eq!(review.value(1), "MANUAL REVIEW REQUIRED");
    }
}

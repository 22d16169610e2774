//! Where rows go: [`RowWriter`], one output in one format (CSV with its header, JSON
//! Lines, Parquet), and [`encode`], the bytes of many rows at once for threads that
//! encode their part apart.

use std::io::{self, Write};

use super::rows::{ProposalRow, COLUMNS};

/// The row formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per line (absent values `null`, numbers and booleans as such).
    Jsonl,
    /// Apache Parquet (feature `parquet`).
    #[cfg(feature = "parquet")]
    Parquet,
}

/// Writes rows in one format.
pub struct RowWriter<W: Write> {
    format: RowFormat,
    out: W,
    #[cfg(feature = "parquet")]
    parquet: Option<Box<super::parquet::ProposalParquet>>,
    #[cfg(feature = "parquet")]
    buf: Vec<u8>,
}

impl<W: Write> RowWriter<W> {
    /// A writer; CSV writes its header now.
    pub fn new(format: RowFormat, mut out: W) -> io::Result<Self> {
        if format == RowFormat::Csv {
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::new());
            w.write_record(COLUMNS.iter().map(|c| c.0))
                .map_err(csv_error)?;
            out.write_all(&w.into_inner().map_err(|e| e.into_error())?)?;
        }
        Ok(RowWriter {
            format,
            out,
            #[cfg(feature = "parquet")]
            parquet: match format {
                RowFormat::Parquet => Some(Box::new(super::parquet::ProposalParquet::new()?)),
                _ => None,
            },
            #[cfg(feature = "parquet")]
            buf: Vec::new(),
        })
    }

    /// The format.
    pub fn format(&self) -> RowFormat {
        self.format
    }

    /// Whether rows can be encoded apart ([`encode`]) and their bytes written in order
    /// ([`RowWriter::write_encoded`]): CSV and JSON Lines.
    pub fn encodes_apart(&self) -> bool {
        matches!(self.format, RowFormat::Csv | RowFormat::Jsonl)
    }

    /// Writes one row.
    pub fn write(&mut self, row: &ProposalRow<'_>) -> io::Result<()> {
        #[cfg(feature = "parquet")]
        if let Some(p) = &mut self.parquet {
            self.buf.clear();
            p.write(row, &mut self.buf)?;
            return self.out.write_all(&self.buf);
        }
        let bytes = encode(self.format, std::slice::from_ref(row))?;
        self.out.write_all(&bytes)
    }

    /// Writes rows encoded by [`encode`] in this writer's format.
    pub fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        if !self.encodes_apart() {
            return Err(io::Error::other(
                "Parquet rows are written one by one, not encoded apart",
            ));
        }
        self.out.write_all(bytes)
    }

    /// Flushes (and, for Parquet, writes the footer) and gives back the writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        #[cfg(feature = "parquet")]
        if let Some(p) = self.parquet.take() {
            self.buf.clear();
            p.finish(&mut self.buf)?;
            self.out.write_all(&self.buf)?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The bytes of `rows` in `format` (CSV without its header, or JSON Lines), so that
/// threads can encode their rows apart; Parquet is refused.
pub fn encode(format: RowFormat, rows: &[ProposalRow<'_>]) -> io::Result<Vec<u8>> {
    match format {
        RowFormat::Csv => {
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::with_capacity(rows.len() * 256));
            for row in rows {
                w.write_record(row.csv_cells().iter().map(|c| c.as_ref()))
                    .map_err(csv_error)?;
            }
            w.into_inner().map_err(|e| e.into_error())
        }
        RowFormat::Jsonl => {
            let mut out = Vec::with_capacity(rows.len() * 384);
            for row in rows {
                serde_json::to_writer(&mut out, row)?;
                out.push(b'\n');
            }
            Ok(out)
        }
        #[cfg(feature = "parquet")]
        RowFormat::Parquet => Err(io::Error::other(
            "Parquet rows are written one by one, not encoded apart",
        )),
    }
}

/// The writer's own error when there is one, so that a closed pipe stays a closed pipe.
fn csv_error(e: csv::Error) -> io::Error {
    if !e.is_io_error() {
        return io::Error::other(e);
    }
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_has_its_header_and_one_line_per_row() {
        let p = super::super::rows::tests::proposal();
        let row = ProposalRow::new(2, "/b.html", Some("B"), &p);
        let mut w = RowWriter::new(RowFormat::Csv, Vec::new()).expect("csv");
        w.write(&row).expect("row");
        w.write_encoded(&encode(RowFormat::Csv, std::slice::from_ref(&row)).expect("encode"))
            .expect("encoded");
        let text = String::from_utf8(w.into_inner().expect("flush")).expect("utf8");
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("line,source,status,target,evidence,evidence_detail,score,runner_up,runner_up_score,ambiguous,error_code,title,target_title,decision,review")
        );
        let want = "2,/b.html,candidate,https://example.com/b,same-stem;shared-tokens,\"same-stem: \"\"b\"\" in /; shared-tokens: 2 of 2 words (jaccard 1.00)\",51,https://example.com/c/b,50.5,true,,B,'=B,,MANUAL REVIEW REQUIRED";
        assert_eq!(lines.next(), Some(want));
        assert_eq!(lines.next(), Some(want), "encoded apart, the same bytes");
        assert_eq!(lines.next(), None);
        let mut j = RowWriter::new(RowFormat::Jsonl, Vec::new()).expect("jsonl");
        j.write(&row).expect("row");
        let json = String::from_utf8(j.into_inner().expect("flush")).expect("utf8");
        assert_eq!(
            json,
            String::from_utf8(encode(RowFormat::Jsonl, &[row]).expect("encode")).expect("utf8")
        );
    }
}

//! Tests of the writers across formats: map rows encoded by hand against the csv crate,
//! the order of raw bytes, Parquet files read back.

use super::csv::csv_field;
use super::csv::tests::xorshift;
use super::writer::csv_encoder;
use super::*;

/// Every field of a few thousand generated ones, over the bytes that decide quoting,
/// comes out of [`csv_field`] as the csv crate writes it, for both delimiters.
#[test]
fn csv_field_equals_the_csv_crate_on_generated_fields() {
    const PIECES: [&str; 12] = [
        "a", ",", "\t", "\"", "\r", "\n", " ", "é", "=", ";", "\r\n", "",
    ];
    let mut next = xorshift();
    for format in [OutputFormat::Csv, OutputFormat::Tsv] {
        let delimiter = if format == OutputFormat::Tsv {
            b'\t'
        } else {
            b','
        };
        for i in 0..6000 {
            // Short fields of any pieces; long ones (up to 80 bytes, past several
            // 16-byte blocks) mostly of plain text, one special piece anywhere.
            let field: String = if i % 2 == 0 {
                let len = (next() % 8) as usize;
                (0..len)
                    .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                    .collect()
            } else {
                let len = (next() % 80) as usize;
                let odd = (next() % 100) as usize;
                (0..len)
                    .map(|at| match at == odd {
                        true => PIECES[(next() % PIECES.len() as u64) as usize],
                        false => PIECES[[0, 6, 7, 8, 9][(next() % 5) as usize]],
                    })
                    .collect()
            };
            let mut want = csv_encoder(format, Vec::new());
            want.write_record([field.as_str(), "x"]).unwrap();
            let want = want.into_inner().unwrap();
            let mut got = Vec::new();
            csv_field(&mut got, delimiter, &field);
            got.push(delimiter);
            got.extend_from_slice(b"x\r\n");
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{format:?}: {field:?}"
            );
        }
    }
}

/// The map rows encoded by hand equal the csv crate's encoding of the same cells (the
/// code they replaced), for CSV and TSV, with and without tail columns.
#[test]
fn direct_map_rows_equal_the_csv_crate() {
    let texts = [
        "",
        "plain",
        "a,b",
        "a\tb",
        "say \"hi\"",
        "\"",
        "cr\rlf\n",
        "=1+1",
        "-x",
        "@y",
        "\t",
        "é,ü\"",
        "https://a.example/p?x=1&y=2#f",
    ];
    let kept = vec!["k,1".to_string(), "k\"2".to_string()];
    for format in [OutputFormat::Csv, OutputFormat::Tsv] {
        for tail in [
            Tail::default(),
            Tail {
                sources: true,
                kept: vec!["c1".into(), "c2".into()],
            },
        ] {
            let mut got = RecordWriter::new(format, Vec::new()).with_tail(tail.clone());
            got.start_map().unwrap();
            let mut want = csv_encoder(format, Vec::new());
            let header: Vec<String> = Table::Map
                .csv_names()
                .into_iter()
                .map(str::to_string)
                .chain(tail.names(Table::Map))
                .collect();
            want.write_record(&header).unwrap();
            for (i, t) in texts.iter().enumerate() {
                let u = texts[(i * 7 + 3) % texts.len()];
                let n = |k: u64| (i % 3 != 0).then_some(k * 1_000_003 + i as u64);
                let row = MapRow {
                    line: i as u64 * 12_345_678_901,
                    observed: t,
                    status: "ok",
                    key: (i % 4 != 0).then_some(u),
                    signature: Some(t),
                    group: n(1),
                    duplicate_of: n(2),
                    duplicates: n(0),
                    variants: Some(u64::MAX - i as u64),
                    classification: "review",
                    removed_tracking: format!("{u};{t}"),
                    error_code: (i % 2 == 0).then_some(t),
                    error: (i % 2 == 0).then_some(u),
                    review: REVIEW,
                    transformations: None,
                    removed_params: None,
                    facts: None,
                    source: Some(u),
                    run_line: (i % 3 != 0).then_some(i as u64 * 7),
                    group_source: (i % 2 == 1).then_some(t),
                    duplicate_of_source: None,
                    kept: &kept,
                };
                got.write_map(&row).unwrap();
                let num = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
                let mut cells: Vec<String> = [
                    row.line.to_string(),
                    spreadsheet_safe(row.observed).into_owned(),
                    row.status.to_string(),
                    spreadsheet_safe(row.key.unwrap_or("")).into_owned(),
                    spreadsheet_safe(row.signature.unwrap_or("")).into_owned(),
                    num(row.group),
                    num(row.duplicate_of),
                    num(row.duplicates),
                    num(row.variants),
                    row.classification.to_string(),
                    spreadsheet_safe(&row.removed_tracking).into_owned(),
                    row.error_code.unwrap_or("").to_string(),
                    spreadsheet_safe(row.error.unwrap_or("")).into_owned(),
                    REVIEW.to_string(),
                ]
                .into();
                if !tail.is_empty() {
                    cells.extend(
                        tail.cells(Table::Map, row.tail())
                            .into_iter()
                            .map(|c| match c {
                                Cell::Text(t) => spreadsheet_safe(t.unwrap_or("")).into_owned(),
                                Cell::Int(n) => num(n),
                            }),
                    );
                }
                want.write_record(&cells).unwrap();
            }
            let got = got.finish().unwrap();
            let want = want.into_inner().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{format:?} {tail:?}"
            );
        }
    }
}

#[test]
fn raw_bytes_come_out_after_everything_written_before_them() {
    // A header in the buffer, a fragment past the flush size, then one written
    // straight through: in that order, each once.
    let mut w = RecordWriter::new(OutputFormat::Csv, Vec::new());
    w.start_key().unwrap();
    let big = "https://a.example/\r\n".repeat(4000);
    w.write_raw(big.as_bytes()).unwrap();
    w.write_raw(b"last\r\n").unwrap();
    let out = String::from_utf8(w.finish().unwrap()).unwrap();
    let (header, rest) = out.split_once("\r\n").unwrap();
    assert!(header.starts_with("line,"), "{header}");
    assert_eq!(rest, format!("{big}last\r\n"));
    // No header: every fragment straight through, in order.
    let mut w = RecordWriter::new(OutputFormat::Key, Vec::new());
    for k in ["a\n", "b\n", "c\n"] {
        w.write_raw(k.as_bytes()).unwrap();
    }
    assert_eq!(w.finish().unwrap(), b"a\nb\nc\n");
}

#[cfg(feature = "parquet")]
mod parquet_files {
    use std::io::{Seek, Write};

    use arrow_array::Array;

    use arrow_array::{RecordBatch, StructArray};

    use super::*;
    use crate::rows::parquet::{schema, BATCH_ROWS};

    fn read_back(
        bytes: &[u8],
    ) -> ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder<std::fs::File> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f.rewind().unwrap();
        ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap()
    }

    #[test]
    fn key_records_round_trip_through_parquet() {
        let set = urlkey::PolicySet::builtin();
        let policy = set.get("citation@1").unwrap();
        let inputs = [
            "https://research.example.net/report/?gclid=example",
            "javascript:alert(1)",
            "HTTPS://Example.com/a?b=2&a=1#frag",
        ];
        let mut w = RecordWriter::new(OutputFormat::Parquet, Vec::new());
        w.start_key().unwrap();
        // Enough rows to cross a batch boundary.
        let total = BATCH_ROWS + 5;
        for i in 0..total {
            let input = inputs[i % inputs.len()];
            let o = policy.key(input);
            w.write_key(&KeyRecord::new(i as u64 + 1, input, policy.id(), &o))
                .unwrap();
        }
        let bytes = w.finish().unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        let reader = read_back(&bytes);
        assert_eq!(reader.schema().fields(), schema(Table::Key).fields());
        let batches: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, total);
        let first = &batches[0];
        let key = first
            .column(4)
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .unwrap();
        assert_eq!(key.value(0), "https://research.example.net/report");
        assert!(key.is_null(1));
        let error = first
            .column(6)
            .as_any()
            .downcast_ref::<StructArray>()
            .unwrap();
        assert!(error.is_null(0));
        assert!(error.is_valid(1));
    }

    #[test]
    fn an_empty_map_still_has_its_schema() {
        let mut w = RecordWriter::new(OutputFormat::Parquet, Vec::new());
        w.start_map().unwrap();
        let bytes = w.finish().unwrap();
        let reader = read_back(&bytes);
        assert_eq!(reader.schema().fields(), schema(Table::Map).fields());
    }

    #[test]
    fn tail_columns_are_nullable_strings_after_the_table() {
        let set = urlkey::PolicySet::builtin();
        let policy = set.get("citation@1").unwrap();
        let tail = Tail {
            sources: true,
            kept: vec!["Status Code".into(), "status".into()],
        };
        let mut w = RecordWriter::new(OutputFormat::Parquet, Vec::new()).with_tail(tail);
        w.start_key().unwrap();
        let o = policy.key("https://a.example/");
        let kept = vec!["301".to_string(), "Indexable".to_string()];
        w.write_key(
            &KeyRecord::new(2, "https://a.example/", policy.id(), &o)
                .with_input(Some("a.csv"), &kept),
        )
        .unwrap();
        let bytes = w.finish().unwrap();
        let reader = read_back(&bytes);
        let names: Vec<String> = reader
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let base = schema(Table::Key).fields().len();
        assert_eq!(names[base..], ["source", "Status Code", "input:status"]);
        let batch = reader.build().unwrap().next().unwrap().unwrap();
        let cell = |i: usize| {
            batch
                .column(base + i)
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap()
                .value(0)
                .to_string()
        };
        assert_eq!(
            (cell(0), cell(1), cell(2)),
            ("a.csv".into(), "301".into(), "Indexable".into())
        );
    }
}

//! Both diff forms' rows with kept columns, in JSONL and in Parquet: a Parquet file holds
//! the JSONL rows, field by field, with its types.

use std::io::{Seek, Write};

use arrow_array::{Array, Int64Array, StringArray};
use arrow_schema::DataType;
use serde_json::{Map, Value};

use super::inventories::InventoryRun;
use super::rows::{DiffRowWrite, DiffRows, RowFormat};
use super::DiffRun;
use crate::input::{records_from, InputError, InputFormat, KeepColumns, ReadOptions, RecordSource};
use crate::pipeline::Pipeline;

/// A row as JSON, and a file's columns with their types.
type Row = Map<String, Value>;
type Fields = Vec<(String, DataType)>;

type Open = Box<dyn Fn() -> Result<Box<dyn RecordSource>, InputError>>;

/// A CSV input whose URLs are in `url`, every other column kept.
fn csv(text: &'static str) -> Open {
    Box::new(move || {
        let opts = ReadOptions {
            format: InputFormat::Csv,
            column: Some("url".into()),
            keep: KeepColumns::All,
            ..ReadOptions::default()
        };
        records_from(Box::new(text.as_bytes()), "in.csv".into(), &opts)
    })
}

/// The rows of one run, written by `run` in `format`.
fn rows(format: RowFormat, run: &dyn Fn(&mut dyn DiffRowWrite)) -> Vec<u8> {
    let mut w = DiffRows::new(format, Vec::new());
    run(&mut w);
    w.into_inner().expect("finish")
}

fn jsonl(bytes: &[u8]) -> Vec<Map<String, Value>> {
    std::str::from_utf8(bytes)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object"))
        .collect()
}

/// The Parquet file's rows as JSON objects, and its columns' names and types.
fn parquet(bytes: &[u8]) -> (Vec<Row>, Fields) {
    let mut f = tempfile::tempfile().expect("temp");
    f.write_all(bytes).expect("write");
    f.rewind().expect("rewind");
    let reader =
        ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).expect("read");
    let fields: Fields = reader
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let mut out = Vec::new();
    for batch in reader.build().expect("reader") {
        let batch = batch.expect("batch");
        for i in 0..batch.num_rows() {
            let mut row = Map::new();
            for (c, (name, _)) in batch.columns().iter().zip(&fields) {
                let v = if c.is_null(i) {
                    Value::Null
                } else if let Some(s) = c.as_any().downcast_ref::<StringArray>() {
                    s.value(i).into()
                } else if let Some(n) = c.as_any().downcast_ref::<Int64Array>() {
                    n.value(i).into()
                } else {
                    panic!("{name}: neither a string nor an int64 column");
                };
                row.insert(name.clone(), v);
            }
            out.push(row);
        }
    }
    (out, fields)
}

fn column_names(fields: &[(String, DataType)]) -> Vec<&str> {
    fields.iter().map(|(n, _)| n.as_str()).collect()
}

fn type_of<'f>(fields: &'f [(String, DataType)], name: &str) -> &'f DataType {
    &fields.iter().find(|(n, _)| n == name).expect(name).1
}

/// `diff --from --to`: a kept column named as one of diff's own (`class`) is renamed, as
/// in `map`; the Parquet rows are the JSONL rows.
#[test]
fn policy_rows_keep_columns_in_jsonl_and_parquet_alike() {
    let input = csv("url,Status,class\nhttps://s.example/a/b,200,x\nhttps://s.example/a/./b,301,\nnot a url,404,y\nhttps://t.example/x#y,200,z\n");
    let set = urlkey::PolicySet::builtin();
    let (from, to) = (
        set.get("whatwg@1").expect("p"),
        set.get("document@1").expect("p"),
    );
    let pipeline = Pipeline::new(2).expect("pipeline");
    let names = ["in.csv".to_string()];
    let run = |w: &mut dyn DiffRowWrite| {
        let run = DiffRun {
            from: &from,
            to: &to,
            pipeline: &pipeline,
            sources: &names,
            notice: None,
            limit: None,
            progress: None,
        };
        run.run(&*input, Some(w)).expect("run");
    };
    let json = jsonl(&rows(RowFormat::Jsonl, &run));
    let (pq, fields) = parquet(&rows(RowFormat::Parquet, &run));
    assert_eq!(json.len(), 4);
    assert_eq!(pq, json);
    let mut want: Vec<&str> = super::rows::POLICY_COLUMNS.to_vec();
    want.extend(["Status", "input:class"]);
    assert_eq!(column_names(&fields), want);
    assert_eq!(type_of(&fields, "line"), &DataType::Int64);
    assert_eq!(type_of(&fields, "Status"), &DataType::Utf8);
    assert_eq!(json[1]["Status"], "301");
    assert_eq!(json[1]["input:class"], "", "an empty cell is an empty text");
    assert_eq!(json[2]["class"], "invalid_both");
    assert_eq!(json[2]["input:class"], "y");
    let csv = String::from_utf8(rows(RowFormat::Csv, &run)).expect("utf-8");
    let header = csv.lines().next().expect("header");
    assert_eq!(header, want.join(","));
    assert!(
        csv.lines().nth(3).expect("row").ends_with(",404,y"),
        "{csv}"
    );
}

/// `diff --policy OLD NEW`: the kept columns are both sides' by name; a side without
/// one has null cells.
#[test]
fn inventory_rows_keep_the_union_of_both_sides_columns() {
    let old = csv("url,Status\nhttps://a.example/x,200\nhttps://a.example/gone,404\n");
    let new = csv("Owner,url,Status\nann,HTTPS://a.example/x,301\nbob,https://a.example/new,200\n");
    let policy = urlkey::PolicySet::builtin().get("citation@1").expect("p");
    let pipeline = Pipeline::new(1).expect("pipeline");
    let run = |w: &mut dyn DiffRowWrite| {
        let run = InventoryRun {
            policy: &policy,
            pipeline: &pipeline,
            names: ["old.csv", "new.csv"],
            notice: None,
            limit: None,
            progress: None,
        };
        run.run([&*old, &*new], Some(w)).expect("run");
    };
    let json = jsonl(&rows(RowFormat::Jsonl, &run));
    let (pq, fields) = parquet(&rows(RowFormat::Parquet, &run));
    assert_eq!(json.len(), 4);
    assert_eq!(pq, json);
    let mut want: Vec<&str> = super::rows::INVENTORY_COLUMNS.to_vec();
    want.extend(["Status", "Owner"]);
    assert_eq!(column_names(&fields), want);
    for n in ["line", "old_line", "new_line", "old_records", "new_records"] {
        assert_eq!(type_of(&fields, n), &DataType::Int64, "{n}");
    }
    let cells =
        |r: &Map<String, Value>| (r["side"].clone(), r["Status"].clone(), r["Owner"].clone());
    assert_eq!(cells(&json[1]), ("old".into(), "404".into(), Value::Null));
    assert_eq!(cells(&json[2]), ("new".into(), "301".into(), "ann".into()));
    assert_eq!(json[2]["old_line"], 2);
    let csv = String::from_utf8(rows(RowFormat::Csv, &run)).expect("utf-8");
    assert_eq!(csv.lines().next(), Some(want.join(",").as_str()));
    assert!(csv.lines().nth(2).expect("row").ends_with(",404,"), "{csv}");
}

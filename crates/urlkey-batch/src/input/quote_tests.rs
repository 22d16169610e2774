//! The stray-quote rule through the whole reader, for every shape of delimited text:
//! CSV, TSV, semicolon CSV, UTF-16LE tab text (Excel's "Unicode text"), each also gzipped.

use std::io::Write;

use super::*;

/// How the test file is delivered to the reader.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Comma,
    Tab,
    Semicolon,
    Utf16Tab,
}

const SHAPES: [Shape; 4] = [Shape::Comma, Shape::Tab, Shape::Semicolon, Shape::Utf16Tab];

impl Shape {
    fn delimiter(self) -> char {
        match self {
            Shape::Comma => ',',
            Shape::Semicolon => ';',
            Shape::Tab | Shape::Utf16Tab => '\t',
        }
    }
    /// `rows` (cells joined by the delimiter, rows by CRLF) as this shape's bytes.
    fn bytes(self, rows: &[&[&str]]) -> Vec<u8> {
        let d = self.delimiter().to_string();
        let text: String = rows.iter().map(|r| r.join(&d) + "\r\n").collect();
        match self {
            Shape::Utf16Tab => {
                let mut b = vec![0xFF, 0xFE];
                b.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                b
            }
            _ => text.into_bytes(),
        }
    }
}

fn opts(quotes: bool) -> ReadOptions {
    ReadOptions {
        // Detected from the header: each shape's own delimiter.
        format: InputFormat::Csv,
        column: Some("url".into()),
        keep: KeepColumns::All,
        quotes,
        ..ReadOptions::default()
    }
}

/// Reads `bytes` as a file (gzipped when `gz`) through the reader every command uses.
fn read(bytes: &[u8], gz: bool, quotes: bool) -> Result<Vec<InputRecord>, InputError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(if gz { "t.txt.gz" } else { "t.txt" });
    let mut f = std::fs::File::create(&path).unwrap();
    if gz {
        let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap();
    } else {
        f.write_all(bytes).unwrap();
    }
    let mut src = ChainSource::new(vec![Source::File(path)], opts(quotes))?;
    let mut out = Vec::new();
    while src.next_batch(&mut out, 2)? {}
    Ok(out)
}

fn each_shape(mut check: impl FnMut(Shape, bool)) {
    for shape in SHAPES {
        for gz in [false, true] {
            check(shape, gz);
        }
    }
}

const HEADER: &[&str] = &["id", "title", "url"];

#[test]
fn a_quote_closed_inside_a_later_cell_refuses_the_input_at_its_line() {
    let rows: &[&[&str]] = &[
        HEADER,
        &["1", "ok", "https://a.example/1"],
        &["2", "\"stray", "https://a.example/2"],
        &["3", "x", "https://a.example/3"],
        &["4", "\"quoted\"", "https://a.example/4"],
        &["5", "y", "https://a.example/5"],
    ];
    each_shape(|shape, gz| {
        let e = read(&shape.bytes(rows), gz, true).unwrap_err();
        assert_eq!(
            e.kind,
            InputErrorKind::Quote { line: 3 },
            "{shape:?} gz {gz}"
        );
        assert!(e.message.contains("line 3:"), "{}", e.message);
        assert!(e.message.contains("lines 4 to 5"), "{}", e.message);
        // Quotes as ordinary characters: every line is a row.
        let recs = read(&shape.bytes(rows), gz, false).unwrap();
        let lines: Vec<u64> = recs.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6], "{shape:?} gz {gz}");
        assert_eq!(recs[1].kept[1], "\"stray");
        assert!(recs.iter().all(|r| r.observed.starts_with("https://")));
    });
}

#[test]
fn a_quote_never_closed_refuses_the_input_at_its_line() {
    let rows: &[&[&str]] = &[
        HEADER,
        &["1", "ok", "https://a.example/1"],
        &["2", "\"stray", "https://a.example/2"],
        &["3", "x", "https://a.example/3"],
        &["4", "y", "https://a.example/4"],
    ];
    each_shape(|shape, gz| {
        let e = read(&shape.bytes(rows), gz, true).unwrap_err();
        assert_eq!(
            e.kind,
            InputErrorKind::Quote { line: 3 },
            "{shape:?} gz {gz}"
        );
        assert!(e.message.contains("never closed"), "{}", e.message);
        assert_eq!(read(&shape.bytes(rows), gz, false).unwrap().len(), 4);
    });
    // On the last line, without a final line end: still refused.
    let e = read(b"id,url\n1,https://a/\n2,\"https://b/", false, true).unwrap_err();
    assert_eq!(e.kind, InputErrorKind::Quote { line: 3 });
    // In the URL's own cell: the blob of the issue.
    let e = read(
        b"id,url\n1,\"https://a/\n2,https://b/\n3,https://c/\n",
        false,
        true,
    )
    .unwrap_err();
    assert_eq!(e.kind, InputErrorKind::Quote { line: 2 });
}

#[test]
fn a_url_cell_spanning_lines_is_refused_even_when_closed() {
    let rows: &[&[&str]] = &[
        HEADER,
        &["1", "ok", "\"https://a.example/1"],
        &["2", "x", "https://a.example/2\""],
    ];
    each_shape(|shape, gz| {
        let e = read(&shape.bytes(rows), gz, true).unwrap_err();
        assert_eq!(
            e.kind,
            InputErrorKind::Quote { line: 2 },
            "{shape:?} gz {gz}"
        );
        assert!(e.message.contains("a URL holds none"), "{}", e.message);
    });
}

#[test]
fn legitimate_quoted_cells_are_read_whole() {
    each_shape(|shape, gz| {
        let d = shape.delimiter();
        let with_delim = format!("\"a{d} b \"\"c\"\"\"");
        let rows: &[&[&str]] = &[
            HEADER,
            &["1", &with_delim, "https://a.example/1"],
            &["2", "\"two\r\nlines\"", "\"https://a.example/2\""],
            &["3", "x", "https://a.example/3"],
        ];
        let recs = read(&shape.bytes(rows), gz, true).unwrap();
        let got: Vec<(u64, &str, &str)> = recs
            .iter()
            .map(|r| (r.line, r.kept[1].as_str(), r.observed.as_str()))
            .collect();
        let want_cell = format!("a{d} b \"c\"");
        assert_eq!(
            got,
            [
                (2, want_cell.as_str(), "https://a.example/1"),
                (3, "two\r\nlines", "https://a.example/2"),
                (5, "x", "https://a.example/3"),
            ],
            "{shape:?} gz {gz}"
        );
    });
}

#[test]
fn a_header_that_folds_lines_is_refused() {
    let e = read(b"id,\"url\n1,https://a/\n", false, true).unwrap_err();
    assert_eq!(e.kind, InputErrorKind::Quote { line: 1 });
}

#[test]
fn plain_lines_never_treat_quotes_specially() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.txt");
    std::fs::write(&path, "\"https://a/\nhttps://b/\"\n\"\n").unwrap();
    let mut src = ChainSource::new(vec![Source::File(path)], ReadOptions::default()).unwrap();
    let mut out = Vec::new();
    while src.next_batch(&mut out, 10).unwrap() {}
    assert_eq!(out.len(), 3);
}

//! The line, CSV/TSV and JSONL readers on arbitrary bytes: never a panic; the line and
//! JSONL readers give exactly one record per line that is neither blank nor a comment,
//! with its 1-based line number; the CSV reader one record per CSV row after the header.
//!
//! Layout: byte 0 picks the format and the line limit, byte 1 the read buffer size,
//! byte 2 the batch size; the rest is the input.
#![no_main]
use std::io::BufReader;

use libfuzzer_sys::fuzz_target;
use urlkey::internals::text::{line_kind, LineKind};
use urlkey::ErrorCode;
use urlkey_batch::input::{
    open_records, records_from, InputFormat, InputRecord, ReadOptions, Source,
};

/// What the line reader must give: (line number, bytes of the line) for each record,
/// and the blank and comment counts. Lines are physical lines: `\n`, `\r\n` and a lone
/// `\r` each end one (docs/cli.md, "Line numbers you can join on"). Whether a line is
/// blank or a comment is the library's `urlkey::internals::text::line_kind` (docs/policies.md, the
/// `mapper` front end), except
/// that a line longer than the limit is a record (`input.too-long`) whatever it holds:
/// docs/cli.md gives every such line a record.
/// `body` is the text the readers split ([`as_read`]: byte-order mark removed).
fn expected_lines(body: &[u8], max: usize) -> (Vec<(u64, Vec<u8>)>, u64, u64) {
    let mut lines: Vec<&[u8]> = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < body.len() {
        match body[i] {
            b'\n' => {
                lines.push(&body[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&body[start..i]);
                if body.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < body.len() {
        lines.push(&body[start..]);
    }
    let mut out = Vec::new();
    let (mut blank, mut comment) = (0, 0);
    for (i, l) in lines.into_iter().enumerate() {
        let kind = if l.len() > max {
            LineKind::Record
        } else {
            line_kind(l)
        };
        match kind {
            LineKind::Blank => blank += 1,
            LineKind::Comment => comment += 1,
            LineKind::Record => out.push((i as u64 + 1, l.to_vec())),
        }
    }
    (out, blank, comment)
}

/// The delimiter docs/cli.md says a CSV without `--delimiter` is read with: the most
/// frequent of `,` `;` tab `|` outside quotes on the header line (the first physical line,
/// however long), `,` when none occurs, the first of that list on a tie.
fn expected_delimiter(body: &[u8]) -> u8 {
    let line = body
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or_default();
    let cands = [b',', b';', b'\t', b'|'];
    let mut counts = [0usize; 4];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if let (false, Some(i)) = (quoted, cands.iter().position(|&c| c == b)) {
            counts[i] += 1;
        }
    }
    let mut best = 0;
    for i in 1..4 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    cands[best]
}

/// The text the readers split: the bytes after a UTF-8 byte-order mark, or after a UTF-16
/// one the bytes decoded to UTF-8 (malformed sequences as U+FFFD), as docs/cli.md says of
/// input with a BOM.
fn as_read(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match encoding_rs::Encoding::for_bom(body) {
        Some((enc, bom)) if enc != encoding_rs::UTF_8 => {
            let (text, _) = enc.decode_without_bom_handling(&body[bom..]);
            // The decoder (encoding_rs_io) also drops one U+FEFF right after the mark.
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            std::borrow::Cow::Owned(text.to_owned().into_bytes())
        }
        // A UTF-8 mark starts the file and no line: a file of the mark alone has none.
        Some(_) => std::borrow::Cow::Borrowed(&body[3..]),
        None => std::borrow::Cow::Borrowed(body),
    }
}

fn read_all(body: &[u8], opts: &ReadOptions, cap: usize, batch: usize) -> Option<Vec<InputRecord>> {
    let reader = Box::new(BufReader::with_capacity(
        cap,
        std::io::Cursor::new(body.to_vec()),
    ));
    let mut src = records_from(reader, "fuzz".into(), opts).ok()?;
    let mut out = Vec::new();
    loop {
        let before = out.len();
        match src.next_batch(&mut out, batch) {
            Ok(more) => {
                assert!(out.len() - before <= batch, "batch larger than asked");
                if !more {
                    break;
                }
            }
            Err(_) => return None,
        }
    }
    if opts.format == InputFormat::Lines || opts.format == InputFormat::Jsonl {
        let (_, blank, comment) = expected_lines(&as_read(body), opts.max_line_bytes);
        assert_eq!(src.skipped().blank, blank, "blank count");
        assert_eq!(src.skipped().comment, comment, "comment count");
        // A file that starts with gzip's or zstd's magic bytes is decompressed when opened
        // (docs/cli.md): another input than the bytes handed over, which may well be a
        // corrupt stream and a read error. The rest is compared on the same body opened as
        // a file, as the CLI opens it (the byte count is of the input file).
        let compressed =
            body.starts_with(&[0x1f, 0x8b]) || body.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
        if compressed {
            let path = urlkey_fuzz::scratch_dir().join("input");
            std::fs::write(&path, body).unwrap();
            if let Ok(mut file) = open_records(&Source::File(path), opts) {
                let mut again = Vec::new();
                while let Ok(true) = file.next_batch(&mut again, batch) {}
            }
            return Some(out);
        }
        let path = urlkey_fuzz::scratch_dir().join("input");
        std::fs::write(&path, body).unwrap();
        let mut file = open_records(&Source::File(path), opts).ok()?;
        let mut again = Vec::new();
        while file.next_batch(&mut again, batch).ok()? {}
        assert_eq!(
            again.len(),
            out.len(),
            "records from the file and from memory"
        );
        assert_eq!(file.bytes_read(), body.len() as u64, "bytes read");
    }
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let format = match data[0] & 3 {
        0 => InputFormat::Lines,
        1 => InputFormat::Csv,
        2 => InputFormat::Tsv,
        _ => InputFormat::Jsonl,
    };
    let max = match (data[0] >> 2) & 3 {
        0 => 4,
        1 => 32,
        2 => 300,
        _ => urlkey_batch::input::DEFAULT_MAX_LINE_BYTES,
    };
    let column = if data[0] & 0x10 == 0 { "url" } else { "2" };
    // Bit 5: the delimiter given (as `--delimiter` does), else detected from the header.
    let delimiter = (data[0] & 0x20 != 0).then_some(b',');
    let cap = usize::from(data[1]).max(1);
    let batch = usize::from(data[2] % 7) + 1;
    let body = &data[3..];
    let opts = ReadOptions {
        format,
        column: Some(column.into()),
        field: Some("u".into()),
        max_line_bytes: max,
        delimiter,
        ..ReadOptions::default()
    };
    let records = read_all(body, &opts, cap, batch);
    match format {
        InputFormat::Lines | InputFormat::Jsonl => {
            let records = records.expect("the line and JSONL readers never fail on bytes");
            let (expected, _, _) = expected_lines(&as_read(body), max);
            assert_eq!(records.len(), expected.len(), "one record per line");
            for (r, (line, bytes)) in records.iter().zip(&expected) {
                assert_eq!(r.line, *line, "line number");
                if format == InputFormat::Jsonl {
                    continue;
                }
                match (&r.problem, std::str::from_utf8(bytes)) {
                    _ if bytes.len() > max => assert_eq!(
                        r.problem.as_ref().map(|p| p.code),
                        Some(ErrorCode::InputTooLong)
                    ),
                    (None, Ok(s)) => assert_eq!(r.observed, s),
                    (Some(p), Err(_)) => assert_eq!(p.code, ErrorCode::InputInvalidUtf8),
                    (p, s) => panic!("line {line}: problem {p:?} for {s:?}"),
                }
            }
        }
        InputFormat::Csv | InputFormat::Tsv => {
            let Some(records) = records else { return };
            // The csv crate's own count of rows after the header.
            let text = as_read(body);
            let d = match (delimiter, format) {
                (Some(d), _) => d,
                (None, InputFormat::Tsv) => b'\t',
                (None, _) => expected_delimiter(&text),
            };
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(d)
                .flexible(true)
                .has_headers(true)
                .from_reader(&*text);
            let mut rec = csv::ByteRecord::new();
            let mut n = 0;
            while rdr.read_byte_record(&mut rec).unwrap() {
                n += 1;
            }
            assert_eq!(records.len(), n, "one record per CSV row");
            for r in &records {
                if let Some(p) = &r.problem {
                    assert!(
                        matches!(
                            p.code,
                            ErrorCode::InputTooLong
                                | ErrorCode::InputInvalidUtf8
                                | ErrorCode::InputMissingField
                        ),
                        "{p:?}"
                    );
                }
            }
        }
        // Spreadsheets are not generated (the format above is lines, CSV, TSV or JSONL).
        InputFormat::Sheet => unreachable!("not generated"),
    }
});

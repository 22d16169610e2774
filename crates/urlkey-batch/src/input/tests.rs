use std::io;

use super::record::decode_record;
use super::*;
use urlkey::ErrorCode;

fn read_all(text: &[u8], opts: &ReadOptions) -> (Vec<InputRecord>, Skipped) {
    let mut src = records_from(Box::new(io::Cursor::new(text.to_vec())), "t".into(), opts).unwrap();
    let mut out = Vec::new();
    while src.next_batch(&mut out, 2).unwrap() {}
    (out, src.skipped())
}

fn csv(column: &str) -> ReadOptions {
    ReadOptions {
        format: InputFormat::Csv,
        column: Some(column.into()),
        ..Default::default()
    }
}

fn lines_of(recs: &[InputRecord]) -> Vec<(u64, &str)> {
    recs.iter().map(|r| (r.line, r.observed.as_str())).collect()
}

#[test]
fn a_blank_or_comment_line_over_the_limit_is_a_too_long_record() {
    // docs/cli.md: a line longer than --max-line-bytes becomes an `input.too-long` record,
    // whatever it holds; one byte over is over. Within the limit it is skipped as before.
    for body in [
        &b"#abcd\n     \n#abc\n    \nlast"[..],
        b"#abcd\r     \r#abc\r    \rlast",
    ] {
        for format in [InputFormat::Lines, InputFormat::Jsonl] {
            let opts = ReadOptions {
                format,
                max_line_bytes: 4,
                field: (format == InputFormat::Jsonl).then(|| "u".into()),
                ..Default::default()
            };
            let (recs, skipped) = read_all(body, &opts);
            let too_long: Vec<u64> = recs
                .iter()
                .filter(|r| r.problem.as_ref().map(|p| p.code) == Some(ErrorCode::InputTooLong))
                .map(|r| r.line)
                .collect();
            assert_eq!(too_long, [1, 2], "{format:?} {body:?}");
            assert_eq!(
                (skipped.blank, skipped.comment),
                (1, 1),
                "{format:?} {body:?}"
            );
            assert_eq!(recs.last().map(|r| r.line), Some(5));
        }
    }
}

#[test]
fn lines_are_numbered_with_skips_counted() {
    let (recs, skipped) = read_all(
        b"\xEF\xBB\xBFa\r\n\n  # c\nb\xFFc\nlast",
        &ReadOptions::default(),
    );
    assert_eq!(recs.len(), 3);
    assert_eq!((recs[0].line, recs[0].observed.as_str()), (1, "a"));
    assert_eq!(recs[1].line, 4);
    assert_eq!(recs[1].observed, "b\\xFFc");
    assert_eq!(
        recs[1].problem.as_ref().unwrap().code,
        ErrorCode::InputInvalidUtf8
    );
    assert_eq!((recs[2].line, recs[2].observed.as_str()), (5, "last"));
    assert_eq!(
        skipped,
        Skipped {
            blank: 1,
            comment: 1
        }
    );
}

#[test]
fn every_line_end_gives_the_same_line_numbers() {
    for text in [
        &b"a\nb\nc\n"[..],
        b"a\r\nb\r\nc\r\n",
        b"a\rb\rc\r",
        b"a\r\nb\nc",
        b"a\rb\r\nc\n",
    ] {
        let (recs, _) = read_all(text, &ReadOptions::default());
        assert_eq!(lines_of(&recs), [(1, "a"), (2, "b"), (3, "c")], "{text:?}");
    }
}

#[test]
fn long_lines_become_records_without_being_held() {
    let opts = ReadOptions {
        max_line_bytes: 10,
        ..ReadOptions::default()
    };
    let (recs, _) = read_all(b"0123456789ABC\nok\n", &opts);
    let p = recs[0].problem.as_ref().unwrap();
    assert_eq!(p.code, ErrorCode::InputTooLong);
    assert!(p.message.contains("13 bytes"), "{}", p.message);
    assert_eq!(recs[0].observed, "0123456789A…");
    assert!(recs[1].problem.is_none());
    assert_eq!(recs[1].line, 2);
}

#[test]
fn csv_line_numbers_are_physical_for_every_line_end() {
    let want = [(2, "https://a.example/1"), (3, "https://a.example/2")];
    for text in [
        &b"Address\nhttps://a.example/1\nhttps://a.example/2\n"[..],
        b"Address\r\nhttps://a.example/1\r\nhttps://a.example/2\r\n",
        b"Address\rhttps://a.example/1\rhttps://a.example/2\r",
        b"Address\nhttps://a.example/1\r\nhttps://a.example/2\r\n",
        b"Address\r\nhttps://a.example/1\nhttps://a.example/2",
    ] {
        let (recs, _) = read_all(text, &csv("Address"));
        assert_eq!(lines_of(&recs), want, "{text:?}");
    }
}

#[test]
fn csv_rows_spanning_lines_and_blank_lines() {
    // A quoted cell spans lines (a note; a URL's cell never does: see quote_tests.rs).
    let text = b"url,note\r\nhttps://a/,\"a\r\nb\"\r\n\r\n\r\nhttps://c/\r\n";
    let mut opts = csv("url");
    opts.keep = KeepColumns::All;
    let (recs, _) = read_all(text, &opts);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].kept[0], "a\r\nb");
    assert_eq!(recs[0].line, 2);
    assert_eq!((recs[1].line, recs[1].observed.as_str()), (6, "https://c/"));
    // A row without the URL's column is a record.
    let text = b"id,url\r\n1,https://a/\r\n2\r\n\r\n3,https://c/\r\n";
    let (recs, _) = read_all(text, &csv("url"));
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0].observed, "https://a/");
    assert_eq!(recs[0].line, 2);
    assert_eq!(
        recs[1].problem.as_ref().unwrap().code,
        ErrorCode::InputMissingField
    );
    assert_eq!(recs[1].line, 3);
    assert_eq!((recs[2].line, recs[2].observed.as_str()), (5, "https://c/"));
}

#[test]
fn csv_column_by_name_case_or_number() {
    let text = b"id,Address\n1,https://a/\n";
    assert_eq!(read_all(text, &csv("Address")).0[0].observed, "https://a/");
    assert_eq!(read_all(text, &csv("address")).0[0].observed, "https://a/");
    assert_eq!(read_all(text, &csv("2")).0[0].observed, "https://a/");
    let err = |text: &[u8], col: &str| {
        records_from(
            Box::new(io::Cursor::new(text.to_vec())),
            "f.csv".into(),
            &csv(col),
        )
        .err()
        .unwrap()
        .message
    };
    let m = err(text, "link");
    assert!(
        m.contains("no column \"link\"") && m.contains("\"Address\""),
        "{m}"
    );
    let m = err(b"url,URL\nx,y\n", "Url");
    assert!(m.contains("matches 2 columns"), "{m}");
}

#[test]
fn delimiters_are_detected_from_the_header_and_said() {
    for (text, d) in [
        (&b"Address;Status\nhttps://a/;200\n"[..], Some("';'")),
        (b"Address|Status\nhttps://a/|200\n", Some("'|'")),
        (b"Address\tStatus\nhttps://a/\t200\n", Some("tab")),
        (b"Address,Status\nhttps://a/,200\n", None),
        (b"\"a;b\",Address\nx,https://a/\n", None),
    ] {
        // The public reader keeps its opening notices for the caller (serve, the ledger).
        let mut src = records_from(
            Box::new(io::Cursor::new(text.to_vec())),
            "f".into(),
            &csv("Address"),
        )
        .unwrap();
        let mut out = Vec::new();
        while src.next_batch(&mut out, 10).unwrap() {}
        assert_eq!(out[0].observed, "https://a/", "{text:?}");
        let notices = src.take_notices();
        match d {
            Some(d) => assert!(notices.iter().any(|n| n.contains(d)), "{notices:?}"),
            None => assert!(notices.is_empty(), "{notices:?}"),
        }
    }
    let opts = ReadOptions {
        delimiter: Some(b';'),
        ..csv("b")
    };
    assert_eq!(read_all(b"a;b\n1,2;x\n", &opts).0[0].observed, "x");
}

#[test]
fn the_delimiter_found_does_not_depend_on_the_read_buffer() {
    // A header line longer than the reader's buffer: detection reads all of it, and the
    // rows read are the same for every buffer size.
    let header = format!("Address;Status;{}\n", "x".repeat(300));
    let text = format!("{header}https://a/;200;n\r\nhttps://b/;301;\"a;b\"\rhttps://c/;404");
    let want = read_all(text.as_bytes(), &csv("Address")).0;
    assert_eq!(
        want.iter().map(|r| r.observed.as_str()).collect::<Vec<_>>(),
        ["https://a/", "https://b/", "https://c/"]
    );
    for capacity in [1, 2, 7, 64, 299, 301, 4096] {
        let buffered =
            io::BufReader::with_capacity(capacity, io::Cursor::new(text.clone().into_bytes()));
        let mut src = records_from(Box::new(buffered), "t".into(), &csv("Address")).unwrap();
        let mut got = Vec::new();
        while src.next_batch(&mut got, 2).unwrap() {}
        assert_eq!(got, want, "buffer {capacity}");
        assert!(
            src.take_notices().iter().any(|n| n.contains("';'")),
            "buffer {capacity}"
        );
    }
}

#[test]
fn a_byte_order_mark_is_found_whatever_the_read_buffer() {
    let text = "https://a.example/\r\n# note\nhttps://b.example/é\n";
    let utf16 = |be: bool| {
        let mut b: Vec<u8> = if be {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in text.encode_utf16() {
            b.extend(if be { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        b
    };
    let utf8 = [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat();
    for body in [utf16(true), utf16(false), utf8] {
        for format in [InputFormat::Lines, InputFormat::Jsonl] {
            let opts = ReadOptions {
                format,
                field: Some("u".into()),
                ..Default::default()
            };
            let want = read_all(&body, &opts).0;
            if format == InputFormat::Lines {
                assert_eq!(
                    lines_of(&want),
                    [(1, "https://a.example/"), (3, "https://b.example/é")],
                    "{body:?}"
                );
            }
            for capacity in [1, 2, 3, 5] {
                let buffered =
                    io::BufReader::with_capacity(capacity, io::Cursor::new(body.clone()));
                let mut src = records_from(Box::new(buffered), "t".into(), &opts).unwrap();
                let mut got = Vec::new();
                while src.next_batch(&mut got, 2).unwrap() {}
                assert_eq!(got, want, "{body:?}, buffer {capacity}");
            }
        }
    }
}

#[test]
fn skip_rows_no_headers_and_kept_columns() {
    let text =
        b"Internal - All\r\nAddress,Status Code,Indexability\r\nhttps://a/,301,Non-Indexable\r\n";
    let opts = ReadOptions {
        skip_rows: 1,
        keep: KeepColumns::All,
        ..csv("Address")
    };
    let mut src =
        records_from(Box::new(io::Cursor::new(text.to_vec())), "t".into(), &opts).unwrap();
    assert_eq!(src.kept_names(), ["Status Code", "Indexability"]);
    let mut out = Vec::new();
    while src.next_batch(&mut out, 10).unwrap() {}
    assert_eq!(out[0].line, 3);
    assert_eq!(out[0].kept, ["301", "Non-Indexable"]);
    let opts = ReadOptions {
        headers: false,
        keep: KeepColumns::Names(vec!["1".into()]),
        ..csv("2")
    };
    let (recs, _) = read_all(b"x,https://a/\ny,https://b/\n", &opts);
    assert_eq!(lines_of(&recs), [(1, "https://a/"), (2, "https://b/")]);
    assert_eq!(recs[1].kept, ["y"]);
}

#[test]
fn utf16_and_legacy_encodings() {
    let text = "Address,Title\r\nhttps://a.example/p\u{e4}ge,T\u{fc}r\r\n";
    for bom_le in [true, false] {
        let mut bytes: Vec<u8> = if bom_le {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for u in text.encode_utf16() {
            bytes.extend(if bom_le {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            });
        }
        let (recs, _) = read_all(&bytes, &csv("Address"));
        assert_eq!(lines_of(&recs), [(2, "https://a.example/p\u{e4}ge")]);
    }
    let opts = ReadOptions {
        encoding: encoding_for_label("windows-1252"),
        ..ReadOptions::default()
    };
    let (recs, _) = read_all(b"https://a.example/p\xE4ge\n", &opts);
    assert_eq!(recs[0].observed, "https://a.example/p\u{e4}ge");
}

#[test]
fn empty_inputs_have_no_records_and_say_so() {
    for opts in [ReadOptions::default(), csv("Address")] {
        // The public reader keeps its opening notices for the caller (serve, the ledger).
        let mut src =
            records_from(Box::new(io::Cursor::new(Vec::new())), "e".into(), &opts).unwrap();
        let mut out = Vec::new();
        assert!(!src.next_batch(&mut out, 10).unwrap());
        assert!(out.is_empty());
        let notices = src.take_notices();
        assert!(notices.iter().any(|n| n.contains("empty")), "{notices:?}");
    }
}

#[test]
fn binary_input_is_flagged_but_read() {
    // The public reader keeps its opening notices for the caller (serve, the ledger).
    let mut src = records_from(
        Box::new(io::Cursor::new(b"\x7fELF\x02\x01\x01\0\0\nx\n".to_vec())),
        "b".into(),
        &ReadOptions::default(),
    )
    .unwrap();
    let mut out = Vec::new();
    while src.next_batch(&mut out, 10).unwrap() {}
    assert_eq!(out.len(), 2);
    let notices = src.take_notices();
    assert!(notices.iter().any(|n| n.contains("ELF")), "{notices:?}");
    assert!(src.take_notices().is_empty(), "notices are taken once");
}

#[test]
fn jsonl_field_and_kept_fields() {
    let text = b"{\"u\":\"https://a/\",\"pos\":3}\n{\"v\":1}\nnot json\n[1]\n{\"u\":5}\n";
    let opts = ReadOptions {
        format: InputFormat::Jsonl,
        field: Some("u".into()),
        keep: KeepColumns::Names(vec!["pos".into()]),
        ..Default::default()
    };
    let (recs, _) = read_all(text, &opts);
    let codes: Vec<_> = recs
        .iter()
        .map(|r| r.problem.as_ref().map(|p| p.code.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            None,
            Some("input.missing-field"),
            Some("input.invalid-json"),
            Some("input.invalid-json"),
            Some("input.missing-field")
        ]
    );
    assert_eq!(recs[0].observed, "https://a/");
    assert_eq!(recs[0].kept, ["3"]);
    assert!(recs.iter().all(|r| r.kept.len() == 1));
}

#[test]
fn validate_catches_settings_that_cannot_work() {
    assert!(ReadOptions::default().validate().is_ok());
    assert!(ReadOptions {
        format: InputFormat::Csv,
        ..Default::default()
    }
    .validate()
    .is_err());
    assert!(ReadOptions {
        headers: false,
        ..csv("Address")
    }
    .validate()
    .is_err());
    assert!(ReadOptions {
        keep: KeepColumns::All,
        ..Default::default()
    }
    .validate()
    .is_err());
    assert!(ReadOptions {
        sheet: Some("1".into()),
        ..csv("a")
    }
    .validate()
    .is_err());
    assert!(ReadOptions {
        max_line_bytes: 0,
        ..Default::default()
    }
    .validate()
    .is_err());
}

#[test]
fn record_refs_pack_source_and_line() {
    let r = RecordRef::new(7, 123_456_789);
    assert_eq!((r.source(), r.line()), (7, 123_456_789));
    assert!(RecordRef::new(0, u64::from(u32::MAX)) < RecordRef::new(1, 1));
}

#[test]
fn lines_read_counts_physical_lines() {
    for (text, n) in [
        (&b"Address\r\nhttps://a/\r\nx\r\n"[..], 3),
        (b"Address\nhttps://a/\nx", 3),
        (b"Address\rhttps://a/\r", 2),
    ] {
        let mut src = records_from(
            Box::new(io::Cursor::new(text.to_vec())),
            "t".into(),
            &csv("1"),
        )
        .unwrap();
        let mut out = Vec::new();
        while src.next_batch(&mut out, 10).unwrap() {}
        assert_eq!(src.lines_read(), n, "{text:?}");
    }
}

#[test]
fn header_and_row_widths_tell_short_rows_from_empty_cells() {
    // UTF-16LE with a BOM, semicolons: the header row as read, and each row's cell count.
    let text = "\u{feff}Observation ID;URL;Note\r\na;https://a/;\r\nb;https://b/\r\nc;https://c/;x;extra\r\n";
    let mut bytes = Vec::new();
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let opts = ReadOptions {
        keep: KeepColumns::All,
        ..csv("1")
    };
    let mut src = records_from(Box::new(io::Cursor::new(bytes)), "t".into(), &opts).unwrap();
    assert_eq!(src.header(), ["Observation ID", "URL", "Note"]);
    let mut out = Vec::new();
    while src.next_batch(&mut out, 10).unwrap() {}
    let widths: Vec<usize> = out.iter().map(|r| r.fields).collect();
    assert_eq!(widths, [3, 2, 4]);
    assert_eq!(out[0].kept, ["https://a/", ""]);
    assert_eq!(out[1].kept, ["https://b/", ""]);
    assert_eq!(out[2].line, 4);
    // The long row's cells past the header are in overflow, the others have none.
    assert_eq!(out[2].kept, ["https://c/", "x"]);
    assert_eq!(out[2].overflow, ["extra"]);
    assert!(out[0].overflow.is_empty() && out[1].overflow.is_empty());
    // Plain lines have no header and no cell count.
    let (recs, _) = read_all(b"https://a/\n", &ReadOptions::default());
    assert_eq!(recs[0].fields, 0);
}

#[test]
fn overflow_only_when_every_column_is_kept() {
    let text = b"id,url,note\na,https://a/,n,x1,x2\n";
    let all = ReadOptions {
        keep: KeepColumns::All,
        ..csv("url")
    };
    let (recs, _) = read_all(text, &all);
    assert_eq!(recs[0].observed, "https://a/");
    assert_eq!(recs[0].kept, ["a", "n"]);
    assert_eq!(recs[0].overflow, ["x1", "x2"]);
    assert_eq!(recs[0].fields, 5);
    // Named kept columns, or none: the overflow stays empty (as before).
    let named = ReadOptions {
        keep: KeepColumns::Names(vec!["note".into()]),
        ..csv("url")
    };
    let (recs, _) = read_all(text, &named);
    assert_eq!(recs[0].kept, ["n"]);
    assert!(recs[0].overflow.is_empty());
    let (recs, _) = read_all(text, &csv("url"));
    assert!(recs[0].overflow.is_empty());
}

/// The plain-line reader as it was before lines were lent from the buffer: one physical
/// line at a time, gathered into a buffer, then classified and decoded.
fn gathered_lines(text: &[u8], max: usize) -> (Vec<InputRecord>, Skipped, u64) {
    let mut lines = PhysicalLines::new(text);
    let (mut buf, mut out, mut skipped, mut line) = (Vec::new(), Vec::new(), Skipped::default(), 0);
    while let Some(full) = lines.next_line(&mut buf, max + 1).unwrap() {
        line += 1;
        if full <= max {
            match urlkey::internals::text::line_kind(&buf) {
                urlkey::internals::text::LineKind::Blank => {
                    skipped.blank += 1;
                    continue;
                }
                urlkey::internals::text::LineKind::Comment => {
                    skipped.comment += 1;
                    continue;
                }
                urlkey::internals::text::LineKind::Record => {}
            }
        }
        out.push(decode_record(line, &buf, full, max));
    }
    (out, skipped, line)
}

/// Bytes from pieces that matter to the reader: line ends of every kind, white space,
/// `#`, multi-byte and invalid UTF-8, plain text.
fn tricky_text(seed: u64, len: usize) -> Vec<u8> {
    const PIECES: [&[u8]; 13] = [
        b"a",
        b"https://a.example/p?q=1",
        b"/",
        b" ",
        b"\t",
        b"#",
        b"\n",
        b"\r",
        b"\r\n",
        "\u{e9}\u{3000}".as_bytes(),
        b"\xFF",
        b"\xE3\x80",
        b"",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::new();
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(PIECES[(x % PIECES.len() as u64) as usize]);
    }
    out
}

#[test]
fn lent_lines_read_as_gathered_lines_for_any_bytes_buffer_and_batch() {
    let mut texts: Vec<Vec<u8>> = (0..400)
        .map(|s| tricky_text(s, (s as usize * 7) % 300))
        .collect();
    // Lines longer than a block, and a block boundary inside a line end.
    let long = lines::TEXT_BLOCK + 100;
    texts.push(
        [
            &b"x".repeat(long)[..],
            b"\nshort\r\n",
            &b"y".repeat(long)[..],
        ]
        .concat(),
    );
    texts.push([&b"z".repeat(lines::TEXT_BLOCK - 1)[..], b"\r\nnext\n"].concat());
    for text in &texts {
        for max in [3, 12, DEFAULT_MAX_LINE_BYTES] {
            let (want, want_skipped, want_lines) = gathered_lines(text, max);
            for capacity in [1, 2, 7, 64, 64 * 1024] {
                for batch in [1, 5, 10_000] {
                    let buffered = io::BufReader::with_capacity(capacity, &text[..]);
                    let mut src = LineReader::new(buffered, "t".into(), max, Arc::default());
                    let mut got = Vec::new();
                    while src.next_batch(&mut got, batch).unwrap() {}
                    let case = format!("{text:?}, limit {max}, buffer {capacity}, batch {batch}");
                    assert_eq!(got, want, "{case}");
                    assert_eq!(src.skipped(), want_skipped, "{case}");
                    assert_eq!(src.lines_read(), want_lines, "{case}");
                }
            }
        }
    }
}

//! The stray-quote rule: a quoted cell may span lines (RFC 4180), but a quote that opens a
//! cell and is never closed where a cell ends folds the lines after it into that one cell,
//! and every row in them would vanish without a word. So a row that spans lines is looked
//! at again, byte by byte, and refused when
//!
//! - a quote opened in it is never closed (it runs to the end of the input),
//! - the quote that closes a cell spanning lines is followed by more text in the same cell
//!   (it was the opening quote of a later cell: the lines between were swallowed), or
//! - the cell spanning lines is the URL's (a URL never holds a line break).
//!
//! A quoted cell of another column that spans lines and closes where a cell ends is kept:
//! that is legitimate CSV (a description with a line break). A row on one line is never
//! refused here: whatever its quotes, it folds no other line.

/// What is wrong with the quote that opens a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrayKind {
    /// Never closed: the cell runs to the end of the input.
    Unclosed,
    /// Closed on `closed_line` in the middle of a cell.
    ClosedMidCell { closed_line: u64 },
    /// Closed where a cell ends, but the cell is the URL's and spans lines.
    UrlCell { closed_line: u64 },
}

/// A quote that folds lines together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StrayQuote {
    /// The physical line where the quote opens its cell.
    pub line: u64,
    /// The 0-based field the quote opens.
    pub field: usize,
    pub kind: StrayKind,
}

/// Checks the raw bytes of one row (from where the CSV parser says it starts to where it
/// ends, line end included). `first_line` is the line of the row's first byte that is not
/// a line end; `url_field` is the URL's column (`None`: no column is the URL's).
pub(crate) fn check_row(
    raw: &[u8],
    delimiter: u8,
    first_line: u64,
    url_field: Option<usize>,
) -> Option<StrayQuote> {
    // A CSV parser skips blank lines before a row but counts their bytes in its position.
    let mut i = raw
        .iter()
        .position(|&b| b != b'\n' && b != b'\r')
        .unwrap_or(raw.len());
    let mut line = first_line;
    let mut field = 0usize;
    while i < raw.len() {
        if raw[i] == b'"' {
            let opened = line;
            let mut spans = false;
            i += 1;
            loop {
                let Some(j) = memchr::memchr3(b'"', b'\n', b'\r', &raw[i..]) else {
                    return Some(StrayQuote {
                        line: opened,
                        field,
                        kind: StrayKind::Unclosed,
                    });
                };
                i += j;
                match raw[i] {
                    b'"' if raw.get(i + 1) == Some(&b'"') => i += 2,
                    b'"' => {
                        i += 1;
                        let ends_cell = matches!(raw.get(i), None | Some(b'\n' | b'\r'))
                            || raw.get(i) == Some(&delimiter);
                        if spans && !ends_cell {
                            return Some(StrayQuote {
                                line: opened,
                                field,
                                kind: StrayKind::ClosedMidCell { closed_line: line },
                            });
                        }
                        if spans && url_field == Some(field) {
                            return Some(StrayQuote {
                                line: opened,
                                field,
                                kind: StrayKind::UrlCell { closed_line: line },
                            });
                        }
                        break;
                    }
                    b'\r' if raw.get(i + 1) == Some(&b'\n') => {
                        (spans, line, i) = (true, line + 1, i + 2);
                    }
                    _ => (spans, line, i) = (true, line + 1, i + 1),
                }
            }
        }
        // The rest of the cell (after a closing quote, or the whole of an unquoted one).
        match memchr::memchr3(delimiter, b'\n', b'\r', &raw[i..]) {
            Some(j) if raw[i + j] == delimiter => {
                i += j + 1;
                field += 1;
            }
            // A line end outside quotes ends the row.
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str, url: Option<usize>) -> Option<StrayQuote> {
        check_row(raw.as_bytes(), b',', 10, url)
    }

    #[test]
    fn legitimate_quoted_cells_pass() {
        for raw in [
            "1,\"a, b\",https://x/\n",
            "1,\"say \"\"hi\"\"\",https://x/\r\n",
            "1,\"two\nlines\",https://x/\n",
            "1,\"two\r\nlines, \"\"quoted\"\"\"\r\n",
            "\n\n1,\"two\nlines\"",
            "1,\"a\"b,https://x/\n",
            "1,x\"y,https://x/\n",
        ] {
            assert_eq!(check(raw, Some(2)), None, "{raw:?}");
        }
    }

    #[test]
    fn an_unclosed_quote_names_its_line() {
        let got = check("2,\"stray\n3,x\n4,y\n", Some(2)).unwrap();
        assert_eq!(got.line, 10, "the quote is on the row's first line");
        let got = check("1,\"a\nb\",\"stray\nc\n", None).unwrap();
        assert_eq!(
            (got.line, got.field, got.kind),
            (11, 2, StrayKind::Unclosed)
        );
        let got = check("1,\"stray", Some(1)).unwrap();
        assert_eq!(got.kind, StrayKind::Unclosed, "at the end of the input");
    }

    #[test]
    fn a_quote_closed_mid_cell_folded_lines() {
        let got = check("1,\"stray,u1\r\n2,\"t2\",u2\n", Some(2)).unwrap();
        assert_eq!(
            got,
            StrayQuote {
                line: 10,
                field: 1,
                kind: StrayKind::ClosedMidCell { closed_line: 11 }
            }
        );
    }

    #[test]
    fn a_url_cell_never_spans_lines() {
        let got = check("1,\"https://a/\nb\"\n", Some(1)).unwrap();
        assert_eq!(got.kind, StrayKind::UrlCell { closed_line: 11 });
        assert_eq!(check("1,\"https://a/\nb\"\n", Some(0)), None);
    }
}

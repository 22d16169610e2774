//! CSV and TSV cells: RFC 4180, UTF-8. A text cell that a spreadsheet would run as a
//! formula (first character `=`, `+`, `-`, `@`, tab or carriage return) is written with a
//! leading `'` (the OWASP "CSV injection" advice), so it shows as text. Map rows are encoded
//! here byte by byte ([`push_map_row`]), as the csv crate encodes them with the writer's
//! settings (a test in `rows/tests.rs` holds the two equal): its per-field state machine
//! cost as much as keying the record.

use super::columns::Tail;
use super::record::{GroupCells, MapRow, REVIEW};

/// Makes a text cell safe to open in a spreadsheet.
pub fn spreadsheet_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if starts_a_formula(s.as_bytes().first()) {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// True when a cell that starts with `first` is one that [`spreadsheet_safe`] prefixes.
pub(crate) fn starts_a_formula(first: Option<&u8>) -> bool {
    matches!(first, Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r'))
}

/// Where a CSV or TSV map row's [`GroupCells`] are, as offsets into its bytes: the
/// `group` to `classification` cells (`groups`) and, when the run names its inputs, the
/// `group_source` and `duplicate_of_source` cells (`sources`, empty otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MapRowHoles {
    pub groups: (usize, usize),
    pub sources: (usize, usize),
}

/// Appends one CSV or TSV map row (with `tail`'s cells) to `b`, and says where its
/// [`GroupCells`] went.
pub(crate) fn push_map_row(b: &mut Vec<u8>, d: u8, r: &MapRow<'_>, tail: &Tail) -> MapRowHoles {
    let (start, _) = push_map_row_head(b, d, r.line, r.observed, r.status);
    for cell in [r.key, r.signature] {
        csv_field(b, d, &spreadsheet_safe(cell.unwrap_or("")));
        b.push(d);
    }
    let rest = RowRest {
        cells: GroupCells::of(r),
        removed_tracking: &r.removed_tracking,
        error_code: r.error_code,
        error: r.error,
        source: r.source,
        run_line: r.run_line,
        kept: r.kept,
    };
    push_map_row_rest(b, d, start, &rest, tail)
}

/// The first cells of a CSV or TSV map row, `line` to `status`, each followed by the
/// delimiter: where the row starts in `b`, and true when the text as read went in without
/// quotes (then a cell cut from it, case folded, with additions that hold no delimiter,
/// `"`, CR or LF, needs none either: `urlkey map`'s pass two skips their scans, which were
/// a fifth of its work: `map/spill.rs`).
pub(crate) fn push_map_row_head(
    b: &mut Vec<u8>,
    d: u8,
    line: u64,
    observed: &str,
    status: &str,
) -> (usize, bool) {
    let start = b.len();
    push_u64(b, line);
    b.push(d);
    let observed_quoted = csv_field(b, d, &spreadsheet_safe(observed));
    b.push(d);
    plain_field(b, d, status);
    b.push(d);
    (start, !observed_quoted)
}

/// The cells of a map row after its signature: its [`GroupCells`], the removed
/// parameters, the error, the review note and the tail's.
pub(crate) struct RowRest<'a> {
    pub cells: GroupCells<'a>,
    pub removed_tracking: &'a str,
    pub error_code: Option<&'a str>,
    pub error: Option<&'a str>,
    pub source: Option<&'a str>,
    pub run_line: Option<u64>,
    pub kept: &'a [String],
}

/// The cells of [`RowRest`] and the row's line end, for a row that started at `start` in
/// `b`, whose cells up to its signature (each with its delimiter) `b` holds.
pub(crate) fn push_map_row_rest(
    b: &mut Vec<u8>,
    d: u8,
    start: usize,
    r: &RowRest<'_>,
    tail: &Tail,
) -> MapRowHoles {
    let groups_at = b.len() - start;
    push_map_groups(b, d, &r.cells);
    let groups = (groups_at, b.len() - start);
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(r.removed_tracking));
    b.push(d);
    csv_field(b, d, r.error_code.unwrap_or(""));
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(r.error.unwrap_or("")));
    b.push(d);
    plain_field(b, d, REVIEW);
    let mut sources = (b.len() - start, b.len() - start);
    if tail.sources {
        b.push(d);
        csv_field(b, d, &spreadsheet_safe(r.source.unwrap_or("")));
        b.push(d);
        if let Some(n) = r.run_line {
            push_u64(b, n);
        }
        let at = b.len() - start;
        push_map_group_sources(b, d, &r.cells);
        sources = (at, b.len() - start);
    }
    if !tail.is_empty() {
        for k in r.kept {
            b.push(d);
            csv_field(b, d, &spreadsheet_safe(k));
        }
    }
    b.extend_from_slice(b"\r\n");
    MapRowHoles { groups, sources }
}

/// The `group` to `classification` cells of a CSV or TSV map row.
pub(crate) fn push_map_groups(b: &mut Vec<u8>, d: u8, c: &GroupCells<'_>) {
    for n in [c.group, c.duplicate_of, c.duplicates, c.variants] {
        if let Some(n) = n {
            push_u64(b, n);
        }
        b.push(d);
    }
    plain_field(b, d, c.classification);
}

/// The `group_source` and `duplicate_of_source` cells of a CSV or TSV map row, each after
/// its delimiter.
pub(crate) fn push_map_group_sources(b: &mut Vec<u8>, d: u8, c: &GroupCells<'_>) {
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(c.group_source.unwrap_or("")));
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(c.duplicate_of_source.unwrap_or("")));
}

/// One CSV/TSV field as the csv crate writes it with the writer's settings (quote
/// style "necessary", `"` doubled): quoted when it holds the delimiter, `"`, CR or LF.
/// True when it was quoted.
pub(super) fn csv_field(out: &mut Vec<u8>, delimiter: u8, field: &str) -> bool {
    let bytes = field.as_bytes();
    // Half of a map row's text fields are empty: no scan, no call to copy nothing.
    if bytes.is_empty() {
        return false;
    }
    if !needs_quotes(bytes, delimiter) {
        out.extend_from_slice(bytes);
        return false;
    }
    out.push(b'"');
    for (i, piece) in bytes.split(|&c| c == b'"').enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\"\"");
        }
        out.extend_from_slice(piece);
    }
    out.push(b'"');
    true
}

/// A field that is one of this crate's own names (a status, a classification, the
/// review note), which never holds a delimiter, `"`, CR or LF: copied without
/// the scan that [`csv_field`] makes.
fn plain_field(out: &mut Vec<u8>, delimiter: u8, field: &str) {
    debug_assert!(!needs_quotes(field.as_bytes(), delimiter), "{field:?}");
    out.extend_from_slice(field.as_bytes());
}

/// True when `bytes` holds `delimiter`, `"`, CR or LF. Sixteen bytes at a time with a
/// test that has no early exit inside the block, which the compiler turns into vector
/// compares; the rest with [`needs_quotes_words`]. The byte-wise test was ~2,000
/// instructions a map row, the word-wise one still a tenth of `map`'s time at 10M rows.
pub(crate) fn needs_quotes(bytes: &[u8], delimiter: u8) -> bool {
    let special = |c: u8| (c == delimiter) | (c == b'"') | (c == b'\r') | (c == b'\n');
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if block.iter().fold(false, |any, &c| any | special(c)) {
            return true;
        }
    }
    needs_quotes_words(blocks.remainder(), delimiter)
}

/// [`needs_quotes`] eight bytes at a time, with the "has a zero byte" word trick on
/// `word ^ splat(v)` (exact as a yes/no answer), then byte by byte in the tail.
fn needs_quotes_words(bytes: &[u8], delimiter: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has = |w: u64, v: u8| {
        let x = w ^ (ONES * u64::from(v));
        x.wrapping_sub(ONES) & !x
    };
    let special = |c: u8| c == delimiter || c == b'"' || c == b'\r' || c == b'\n';
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        if (has(w, delimiter) | has(w, b'"') | has(w, b'\r') | has(w, b'\n')) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| special(c))
}

/// A decimal number, without the formatting machinery.
pub(super) fn push_u64(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        // Most counts in a map row (duplicates, variants) are one digit.
        out.push(b'0' + n as u8);
        return;
    }
    // Up to sixteen digits are built in registers and stored eight bytes at a time, then
    // cut to length: digits stored one by one and read back as a block stalled on the
    // store buffer, and a copy of a length known only at run time was a call to
    // `memmove` (together a twentieth of `map`'s time at 10M rows).
    let len = n.ilog10() as usize + 1;
    let start = out.len();
    match len {
        // The leading zeros are the word's low bytes.
        ..=8 => out.extend_from_slice(&(ascii_digits8(n) >> (8 * (8 - len))).to_le_bytes()),
        9..=16 => {
            let (high, low) = (n / 100_000_000, n % 100_000_000);
            let high = ascii_digits8(high) >> (8 * (16 - len));
            out.extend_from_slice(&high.to_le_bytes());
            out.truncate(start + len - 8);
            out.extend_from_slice(&ascii_digits8(low).to_le_bytes());
        }
        _ => {
            let mut digits = [0u8; 20];
            let mut rest = n;
            for d in digits[..len].iter_mut().rev() {
                *d = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            out.extend_from_slice(&digits[..len]);
        }
    }
    out.truncate(start + len);
}

/// The eight decimal digits of `n` (below 10^8, zero-padded) as ASCII bytes in a
/// little-endian word, the first digit in the lowest byte. Lanes of one word are divided
/// at once: two 4-digit halves split into 2-digit quarters, then into digits, each with a
/// multiply and shift that divide exactly in the lane's range (`x * 10486 >> 20` is
/// `x / 100` below 10^4, `x * 103 >> 10` is `x / 10` below 100), and no lane's product
/// reaches the next lane. A loop of divisions by ten was ~100 instructions a number, a
/// twentieth of `map`'s instructions.
#[inline]
fn ascii_digits8(n: u64) -> u64 {
    debug_assert!(n < 100_000_000);
    let x = (n / 10_000) | ((n % 10_000) << 32);
    let q = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = q | ((x - q * 100) << 16);
    let q = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    let x = q | ((x - q * 10) << 8);
    x + 0x3030_3030_3030_3030
}

pub(super) fn join<'a>(items: impl Iterator<Item = &'a str> + Clone) -> String {
    let mut s = String::new();
    join_into(&mut s, items);
    s
}

/// [`join`] into `out`, after what it holds.
fn join_into<'a>(out: &mut String, items: impl Iterator<Item = &'a str> + Clone) {
    // Sized first: growing from empty cost a realloc or two per map row with removed names.
    let len = items.clone().map(|it| it.len() + 1).sum::<usize>();
    out.reserve(len.saturating_sub(1));
    for (i, it) in items.enumerate() {
        if i > 0 {
            out.push(';');
        }
        out.push_str(it);
    }
}

/// Joins names with `;`.
pub fn join_names(names: &[String]) -> String {
    join(names.iter().map(String::as_str))
}

/// [`join_names`] into `out`, which it empties first: a buffer used again record after
/// record.
pub(crate) fn join_names_into(out: &mut String, names: &[String]) {
    out.clear();
    join_into(out, names.iter().map(String::as_str));
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A xorshift generator, the same sequence every run: for tests over generated text.
    pub(crate) fn xorshift() -> impl FnMut() -> u64 {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn push_u64_equals_display() {
        let mut numbers: Vec<u64> = (0..=10_000).collect();
        for p in 1..=19 {
            let t = 10u64.pow(p);
            numbers.extend([t - 1, t, t + 1]);
        }
        numbers.push(u64::MAX);
        // Every lane of the word-wise digits: each 4-digit half and 2-digit quarter.
        let mut next = xorshift();
        numbers.extend((0..200_000).map(|_| next() % 10u64.pow(1 + (next() % 16) as u32)));
        numbers.extend((0..100_000u64).map(|i| i * 1_000 + 999));
        for n in numbers {
            let mut out = b"x".to_vec();
            push_u64(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes(), "{n}");
        }
    }

    /// The word-at-a-time scan answers as the byte-by-byte test does: every byte value at
    /// every place of fields long enough to cross two words and a tail, for both delimiters.
    #[test]
    fn needs_quotes_equals_the_byte_test() {
        for delimiter in [b',', b'\t'] {
            let special = |c: u8| c == delimiter || c == b'"' || c == b'\r' || c == b'\n';
            for len in 0..=40 {
                let plain = vec![b'a'; len];
                assert!(!needs_quotes(&plain, delimiter), "{len}");
                for at in 0..len {
                    for v in 0..=255u8 {
                        let mut field = plain.clone();
                        field[at] = v;
                        assert_eq!(
                            needs_quotes(&field, delimiter),
                            special(v),
                            "byte {v:#x} at {at} of {len}, delimiter {delimiter:#x}"
                        );
                    }
                }
            }
            // Bytes just above and below the special ones next to one another, where a
            // borrow between the bytes of a word could show: never a false answer.
            let near: Vec<u8> = [delimiter, b'"', b'\r', b'\n']
                .iter()
                .flat_map(|&c| [c.wrapping_sub(1), c.wrapping_add(1), 0x80, 0xff, 0x00])
                .filter(|&c| !special(c))
                .collect();
            assert!(!needs_quotes(&near, delimiter));
            for at in 0..near.len() {
                let mut field = near.clone();
                field[at] = b'"';
                assert!(needs_quotes(&field, delimiter), "at {at}");
            }
        }
    }

    #[test]
    fn formulas_are_neutralized() {
        assert_eq!(spreadsheet_safe("=1+1"), "'=1+1");
        assert_eq!(spreadsheet_safe("@SUM"), "'@SUM");
        assert_eq!(spreadsheet_safe("-2"), "'-2");
        assert_eq!(spreadsheet_safe("https://a/"), "https://a/");
    }
}

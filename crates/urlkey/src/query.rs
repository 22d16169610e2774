//! Query strings: raw `&`-separated pieces (what the policies sort and filter, byte for
//! byte) and form-decoded pairs (what [`query_pairs`] reports, per the URL Standard's
//! `application/x-www-form-urlencoded` parser).

use std::borrow::Cow;

/// One raw piece of a query: the text between two `&`, split at its first `=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawParam<'a> {
    /// The whole piece as written.
    pub piece: &'a str,
    /// The name as written (before the first `=`).
    pub name: &'a str,
    /// The value as written (after the first `=`), empty when there is no `=`.
    pub value: &'a str,
}

impl<'a> RawParam<'a> {
    /// Splits one piece.
    pub fn new(piece: &'a str) -> Self {
        match piece.split_once('=') {
            Some((name, value)) => RawParam { piece, name, value },
            None => RawParam {
                piece,
                name: piece,
                value: "",
            },
        }
    }
}

/// The raw pieces of a query (without `?`), empty pieces included.
pub fn raw_params(query: &str) -> impl Iterator<Item = RawParam<'_>> {
    query.split('&').map(RawParam::new)
}

/// The URL Standard's `application/x-www-form-urlencoded` parser
/// (<https://url.spec.whatwg.org/#urlencoded-parsing>): split on `&`, skip empty
/// sequences, split each at the first `=`, replace `+` with a space, percent-decode,
/// then decode as UTF-8 without BOM or fail (replacing invalid sequences).
///
/// ```
/// let pairs = urlkey::parse_form("tag=one&tag=two&empty=&q=a+b&plus=%2B");
/// assert_eq!(pairs, vec![
///     ("tag".into(), "one".into()), ("tag".into(), "two".into()),
///     ("empty".into(), "".into()), ("q".into(), "a b".into()), ("plus".into(), "+".into()),
/// ]);
/// ```
pub fn parse_form(input: &str) -> Vec<(String, String)> {
    input
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (n, v) = s.split_once('=').unwrap_or((s, ""));
            (form_decode(n).into_owned(), form_decode(v).into_owned())
        })
        .collect()
}

fn form_decode(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|b| b == b'+' || b == b'%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// The URL Standard's percent-decode (<https://url.spec.whatwg.org/#percent-decode>):
/// `%XX` with two hex digits becomes that byte; everything else, `+` included, stays.
pub(crate) fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// The value of an ASCII hex digit.
pub(crate) fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `query_pairs(url)` (docs/policies.md, "Inspecting one URL"): the URL's query as
/// ordered (name, value) pairs, form-decoded (`+` is a space, `%2B` a plus), blank values
/// and repeats kept. It inspects and never rewrites a key.
///
/// ```
/// let pairs = urlkey::query_pairs("https://a.test/?x=&x=2&q=a+b").unwrap();
/// assert_eq!(pairs, vec![("x".into(), "".into()), ("x".into(), "2".into()), ("q".into(), "a b".into())]);
/// ```
pub fn query_pairs(url: &str) -> Result<Vec<(String, String)>, crate::KeyError> {
    let parsed = crate::WebUrl::parse(url, None)?;
    Ok(parsed.query().map(parse_form).unwrap_or_default())
}

//! `%XX` escapes in a path: the one scanner that `decode-unreserved` and `lowercase-path`
//! read a path with, so that both agree on what an escape is (a `%` and two ASCII hex
//! digits; a `%` without them is text, RFC 3986, section 2.1).

use crate::query::hex;

/// A piece of a text: a run without an escape, or one escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece<'a> {
    /// Text with no escape in it (a `%` not followed by two hex digits stays here).
    Text(&'a str),
    /// A `%XX` escape: its two hex digits as written, and the byte they encode.
    Escape {
        /// The digits, as written (either case).
        digits: [u8; 2],
        /// The byte.
        value: u8,
    },
}

/// The pieces of `text`, in order: concatenated, they give `text` back.
pub(super) fn pieces(text: &str) -> Pieces<'_> {
    Pieces { text, at: 0 }
}

/// See [`pieces`].
pub(super) struct Pieces<'a> {
    text: &'a str,
    at: usize,
}

/// The byte the escape at `i` encodes, if `b[i..]` starts with one.
fn escape_at(b: &[u8], i: usize) -> Option<u8> {
    if b[i] != b'%' || i + 2 >= b.len() {
        return None;
    }
    Some(hex(b[i + 1])? << 4 | hex(b[i + 2])?)
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let b = self.text.as_bytes();
        let start = self.at;
        if start >= b.len() {
            return None;
        }
        if let Some(value) = escape_at(b, start) {
            self.at = start + 3;
            return Some(Piece::Escape {
                digits: [b[start + 1], b[start + 2]],
                value,
            });
        }
        // The text runs to the next `%` that starts an escape. Every boundary is an ASCII
        // byte (`%`, or just after a hex digit), so each slice is whole characters.
        let mut end = start + 1;
        loop {
            match memchr::memchr(b'%', &b[end..]) {
                None => {
                    end = b.len();
                    break;
                }
                Some(off) if escape_at(b, end + off).is_some() => {
                    end += off;
                    break;
                }
                Some(off) => end += off + 1,
            }
        }
        self.at = end;
        Some(Piece::Text(&self.text[start..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<Piece<'_>> {
        pieces(text).collect()
    }

    #[test]
    fn escapes_and_the_text_between() {
        let e = |d: &[u8; 2], value| Piece::Escape { digits: *d, value };
        assert_eq!(split(""), []);
        assert_eq!(split("/a"), [Piece::Text("/a")]);
        assert_eq!(
            split("/%41b%2f"),
            [
                Piece::Text("/"),
                e(b"41", 0x41),
                Piece::Text("b"),
                e(b"2f", 0x2f)
            ]
        );
        // A `%` without two hex digits is text, also at the end and before an escape.
        assert_eq!(
            split("%%41%4"),
            [Piece::Text("%"), e(b"41", 0x41), Piece::Text("%4")]
        );
        assert_eq!(split("/%zz%"), [Piece::Text("/%zz%")]);
        assert_eq!(split("%4%41"), [Piece::Text("%4"), e(b"41", 0x41)]);
        // Non-ASCII text is kept whole.
        assert_eq!(
            split("/é%C3%A9é"),
            [
                Piece::Text("/é"),
                e(b"C3", 0xc3),
                e(b"A9", 0xa9),
                Piece::Text("é")
            ]
        );
    }

    /// The pieces give the text back, on every short text over an alphabet that makes
    /// escapes, broken escapes and multi-byte characters.
    #[test]
    fn pieces_concatenate_to_the_text() {
        let alphabet = ["%", "4", "1", "a", "F", "g", "é", "/"];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            texts = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            for t in &texts {
                let mut back = String::new();
                for p in pieces(t) {
                    match p {
                        Piece::Text(s) => {
                            assert!(!s.is_empty());
                            back.push_str(s);
                        }
                        Piece::Escape { digits, .. } => {
                            back.push('%');
                            back.extend(digits.map(char::from));
                        }
                    }
                }
                assert_eq!(&back, t);
            }
        }
    }
}

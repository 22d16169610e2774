//! Whether a text directive's text is on a page: the page's text as a reader sees it, and
//! a simplified form of the spec's "find a range from a text directive".
//!
//! The page text ([`page_text`]): every text node outside `script`, `style`, `noscript`,
//! `template` and `title`, with HTML character references decoded (`&amp;`, `&#233;`,
//! `&#xE9;` and the common named ones), inline elements joined as they are rendered
//! (`<p>foo <b>bar</b></p>` is `foo bar`, `<b>H</b>ello` is `Hello`) and a space at the
//! start and end of every block element (`<li>one</li><li>two</li>` is `one two`); then
//! [`normalize`]d: whitespace runs to one space, trimmed, lowercased.
//!
//! A directive is found ([`find`]) when its terms, normalized the same way, occur in the
//! page text as the spec says: `start` (or, with `end`, a range from `start` to the first
//! `end` after it), `prefix` right before `start` and `suffix` right after the match (a
//! space between them allowed), each term starting and ending at a word boundary except
//! where the spec lets it run into its neighbour (the end of `start` when only a suffix
//! follows; the start of the suffix; the end of the prefix).
//!
//! Simplified against a browser: a word boundary is any place that is not between two
//! letters or digits (the spec uses Unicode word segmentation; here a script written
//! without spaces, Chinese, Japanese, Thai, has a boundary between any two of its
//! characters); terms may cross block elements (a browser keeps each term inside one
//! block); case is folded with Unicode lowercase, and accents are not folded (`café` does
//! not find `cafe`); text hidden by CSS counts (no style is computed).

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::{doc_text, element, EndTagHandler, HtmlRewriter, Settings};
use urlkey::text_fragment::TextDirective;

/// Elements whose text is not shown.
const HIDDEN: &str = "script, style, noscript, template, title";

/// Elements that start and end a block of text (and `br`, `hr`: a line break).
const BLOCKS: &str = "address, article, aside, blockquote, br, caption, dd, details, \
    dialog, div, dl, dt, fieldset, figcaption, figure, footer, form, h1, h2, h3, h4, h5, h6, \
    header, hr, li, main, nav, ol, option, p, pre, section, summary, table, tbody, td, tfoot, \
    th, thead, tr, ul";

/// The page text of an HTML document, normalized for matching (see the module docs).
pub fn page_text(html: &[u8]) -> String {
    #[derive(Default)]
    struct St {
        hidden: usize,
        text: String,
    }
    let st = Rc::new(RefCell::new(St::default()));
    let (s_hide, s_block, s_text) = (Rc::clone(&st), Rc::clone(&st), Rc::clone(&st));
    let settings = Settings::new()
        .append_element_content_handler(element!(HIDDEN, move |el| {
            s_hide.borrow_mut().hidden += 1;
            let s = Rc::clone(&s_hide);
            let end: EndTagHandler<'static> = Box::new(move |_end| {
                let mut s = s.borrow_mut();
                s.hidden = s.hidden.saturating_sub(1);
                Ok(())
            });
            let _ = el.on_end_tag(end);
            Ok(())
        }))
        .append_element_content_handler(element!(BLOCKS, move |el| {
            s_block.borrow_mut().text.push(' ');
            let s = Rc::clone(&s_block);
            let end: EndTagHandler<'static> = Box::new(move |_end| {
                s.borrow_mut().text.push(' ');
                Ok(())
            });
            // Void elements (br, hr) have no end tag: the space before them is enough.
            let _ = el.on_end_tag(end);
            Ok(())
        }))
        .append_document_content_handler(doc_text!(move |t| {
            let mut s = s_text.borrow_mut();
            if s.hidden == 0 {
                s.text.push_str(t.as_str());
            }
            Ok(())
        }));
    let mut rw = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rw.write(html).is_ok() {
        let _ = rw.end();
    }
    let s = st.borrow();
    normalize(&decode_references(&s.text))
}

/// Whitespace runs to one space, trimmed, lowercased: how terms and page text are compared.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The common named character references (the rest of HTML's list stays as written).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("rsquo", '\u{2019}'),
    ("lsquo", '\u{2018}'),
    ("rdquo", '\u{201d}'),
    ("ldquo", '\u{201c}'),
    ("mdash", '\u{2014}'),
    ("ndash", '\u{2013}'),
    ("hellip", '\u{2026}'),
    ("shy", '\u{ad}'),
    ("copy", '\u{a9}'),
    ("reg", '\u{ae}'),
    ("trade", '\u{2122}'),
    ("euro", '\u{20ac}'),
    ("laquo", '\u{ab}'),
    ("raquo", '\u{bb}'),
];

/// Decodes numeric character references and the named ones of `NAMED` (with their `;`).
pub fn decode_references(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(semi) = rest[..rest.len().min(12)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let decoded = if let Some(num) = name.strip_prefix('#') {
            let n = match num.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => num.parse::<u32>().ok(),
            };
            n.map(|n| char::from_u32(n).unwrap_or('\u{fffd}'))
        } else {
            NAMED.iter().find(|(k, _)| *k == name).map(|(_, c)| *c)
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A letter or digit of a script written with spaces between words: two of them side by
/// side are inside one word.
fn word_char(c: char) -> bool {
    c.is_alphanumeric()
        && !matches!(c,
            '\u{0e00}'..='\u{0eff}'     // Thai, Lao
            | '\u{1100}'..='\u{11ff}'   // Hangul Jamo
            | '\u{3040}'..='\u{30ff}'   // Hiragana, Katakana
            | '\u{3400}'..='\u{4dbf}'   // CJK extension A
            | '\u{4e00}'..='\u{9fff}'   // CJK unified ideographs
            | '\u{ac00}'..='\u{d7af}'   // Hangul syllables
            | '\u{f900}'..='\u{faff}'   // CJK compatibility ideographs
            | '\u{20000}'..='\u{2fa1f}')
}

/// True when byte offset `i` of `text` is a word boundary (see the module docs).
fn boundary(text: &str, i: usize) -> bool {
    let before = text[..i].chars().next_back();
    let after = text[i..].chars().next();
    match (before, after) {
        (Some(a), Some(b)) => !(word_char(a) && word_char(b)),
        _ => true,
    }
}

/// Where `term` occurs in `text` at or after `from`, overlapping occurrences included.
fn occurrences<'a>(text: &'a str, term: &'a str, from: usize) -> impl Iterator<Item = usize> + 'a {
    let mut pos = from;
    std::iter::from_fn(move || {
        if term.is_empty() || pos > text.len() {
            return None;
        }
        let i = pos + text[pos..].find(term)?;
        // The next search starts one character further.
        pos = i + text[i..].chars().next().map_or(1, char::len_utf8);
        Some(i)
    })
}

/// True when `prefix` ends at byte `i` of `text` (a space between allowed) and starts at a
/// word boundary.
fn prefix_before(text: &str, i: usize, prefix: &str) -> bool {
    let head = &text[..i];
    let head = head.strip_suffix(' ').unwrap_or(head);
    head.ends_with(prefix) && boundary(text, head.len() - prefix.len())
}

/// True when `suffix` starts at byte `j` of `text` (a space between allowed) and ends at a
/// word boundary.
fn suffix_after(text: &str, j: usize, suffix: &str) -> bool {
    let tail = &text[j..];
    let skip = usize::from(tail.starts_with(' '));
    let tail = &tail[skip..];
    tail.starts_with(suffix) && boundary(text, j + skip + suffix.len())
}

/// True when the directive's text is in `text`, a [`page_text`] (see the module docs).
pub fn find(text: &str, d: &TextDirective) -> bool {
    let start = normalize(&d.start);
    let prefix = d.prefix.as_deref().map(normalize);
    let end = d.end.as_deref().map(normalize);
    let suffix = d.suffix.as_deref().map(normalize);
    if start.is_empty()
        || [&prefix, &end, &suffix]
            .iter()
            .any(|t| t.as_deref() == Some(""))
    {
        return false;
    }
    let start_end_bounded = end.is_some() || suffix.is_none();
    for i in occurrences(text, &start, 0) {
        let ok_start = match &prefix {
            Some(p) => prefix_before(text, i, p),
            None => boundary(text, i),
        };
        let j = i + start.len();
        if !ok_start || (start_end_bounded && !boundary(text, j)) {
            continue;
        }
        let Some(e) = &end else {
            match &suffix {
                Some(x) if !suffix_after(text, j, x) => continue,
                _ => return true,
            }
        };
        // The range's end: any `end` after this start. A later start would only see
        // fewer of them, so the answer for this start is the answer.
        return occurrences(text, e, j).any(|k| {
            let m = k + e.len();
            boundary(text, k)
                && match &suffix {
                    Some(x) => suffix_after(text, m, x),
                    None => boundary(text, m),
                }
        });
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use urlkey::text_fragment::parse_directive;

    fn found(html: &str, directive: &str) -> bool {
        let d = parse_directive(directive).expect("well formed");
        find(&page_text(html.as_bytes()), &d)
    }

    #[test]
    fn page_text_joins_inline_elements_and_separates_blocks() {
        let t = page_text(
            b"<html><head><title>T</title><style>p{}</style></head><body>\
              <p>Foo <b>bar</b>, <i>H</i>ello</p><ul><li>one</li><li>two</li></ul>\
              <script>var x;</script>a&amp;b &#233;t&#xE9; &rsquo;&unknown;</body></html>",
        );
        assert_eq!(t, "foo bar, hello one two a&b été \u{2019}&unknown;");
    }

    #[test]
    fn terms_match_case_and_whitespace_insensitively_across_tags() {
        let page = "<p>The quick  brown <b>fox</b>\n jumps over the lazy dog.</p>";
        assert!(found(page, "text=quick%20brown%20fox"));
        assert!(found(page, "text=QUICK%20Brown%0Afox"));
        assert!(found(page, "text=the%20quick-,brown,-fox"));
        assert!(found(page, "text=quick,lazy"));
        assert!(found(page, "text=quick,lazy,-dog"));
        assert!(found(page, "text=The-,quick,dog"));
        assert!(!found(page, "text=slow%20fox"));
        assert!(
            !found(page, "text=brown-,quick"),
            "a prefix must come before"
        );
        assert!(!found(page, "text=quick,-lazy"), "a suffix must follow");
        assert!(
            !found(page, "text=lazy,quick"),
            "the end comes after the start"
        );
        assert!(!found(page, "text=quick,lazy,-cat"));
    }

    #[test]
    fn terms_start_and_end_at_word_boundaries() {
        let page = "<p>foobar baz. E-mail us.</p>";
        assert!(!found(page, "text=bar"));
        assert!(!found(page, "text=foo"));
        assert!(found(page, "text=foobar"));
        assert!(found(page, "text=mail"), "a dash is a boundary");
        // With a suffix only, the start may run into it (the spec's rule).
        assert!(found(page, "text=foo,-bar"));
        // Scripts without spaces: any two characters are apart.
        assert!(found("<p>東京都の天気</p>", "text=%E5%A4%A9%E6%B0%97"));
    }

    #[test]
    fn a_later_start_is_tried_when_the_first_lacks_its_prefix_or_suffix() {
        let page = "<p>one apple. two apple pie.</p>";
        assert!(found(page, "text=two-,apple"));
        assert!(found(page, "text=apple,-pie"));
        assert!(!found(page, "text=three-,apple"));
    }

    #[test]
    fn decode_references_leaves_what_it_does_not_know() {
        assert_eq!(
            decode_references("a &amp b &#99999999; &"),
            "a &amp b \u{fffd} &"
        );
    }
}

//! What verify keeps of a fetched page's content (length, hashes, title, visible text and
//! its fingerprint); [`super::variants`] compares a key's variants by it.
//!
//! For each 2xx response verify reads the body (up to the size cap) and keeps: its length,
//! the SHA-256 of the bytes read, the `<title>`, and for HTML the *visible text*: every
//! text node outside `script`, `style`, `noscript` and `template`, as written in the
//! document (entities are not decoded), whitespace runs collapsed to one space. Of the
//! visible text it keeps a SHA-256 (equal text, `same`) and a 64-bit SimHash (near-equal
//! text, `similar`):
//!
//! * words: the visible text split on whitespace, each lowercased and trimmed of
//!   non-alphanumeric characters at both ends; empty words dropped;
//! * shingles: every run of [`SHINGLE_WORDS`] consecutive words (a text with fewer
//!   words is one shingle);
//! * each shingle hashed with xxh3-64 (its words joined by one space); for every bit,
//!   +1 when the shingle's hash has it set, -1 otherwise, summed over the shingles; the
//!   fingerprint has the bit set where the sum is positive (Charikar's SimHash).
//!
//! Two texts are `similar` when their fingerprints differ in at most
//! [`SIMILAR_MAX_DISTANCE`] bits. Unrelated texts differ in about 32 bits (each bit is a
//! coin toss); the test pages of `crates/urlkey-cli/tests/ledger/variants.rs` (an article of about 150 words
//! with its date line changed) differ in a few.

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::{doc_text, element, EndTagHandler, HtmlRewriter, Settings};
use sha2::{Digest, Sha256};

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 3;

/// The most bits two fingerprints may differ in and still be `similar`.
pub const SIMILAR_MAX_DISTANCE: u32 = 10;

/// What was read of one 2xx response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Content {
    /// The Content-Type header.
    pub content_type: Option<String>,
    /// Body bytes read (at most the cap).
    pub byte_length: u64,
    /// SHA-256 of the bytes read, lowercase hex.
    pub sha256: String,
    /// The document's `<title>`, whitespace-collapsed (HTML only).
    pub title: Option<String>,
    /// SHA-256 of the visible text (HTML only).
    pub text_sha256: Option<String>,
    /// SimHash of the visible text (HTML only).
    pub simhash: Option<u64>,
    /// Words in the visible text (HTML only).
    pub words: Option<u64>,
    /// Why the page looks like a challenge or block page, when it does.
    pub challenge: Option<String>,
    /// The page text the text fragment check reads (HTML only, and only when the key has
    /// text directives: [`analyse_keeping_text`]; `crate::fragments::matching::page_text`).
    pub page_text: Option<String>,
}

/// Lowercase hex of a digest.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// True for an HTML content type.
pub fn is_html(content_type: Option<&str>) -> bool {
    content_type
        .map(|c| {
            let c = c.trim().to_ascii_lowercase();
            c.starts_with("text/html") || c.starts_with("application/xhtml+xml")
        })
        .unwrap_or(false)
}

/// The title and the visible text of an HTML document.
pub fn visible_text(html: &[u8]) -> (Option<String>, String) {
    #[derive(Default)]
    struct St {
        hidden: usize,
        in_title: bool,
        title: Option<String>,
        text: String,
    }
    let st = Rc::new(RefCell::new(St::default()));
    let (s_hide, s_title, s_text) = (Rc::clone(&st), Rc::clone(&st), Rc::clone(&st));
    let settings = Settings::new()
        .append_element_content_handler(element!("script, style, noscript, template", move |el| {
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
        .append_element_content_handler(element!("title", move |el| {
            {
                let mut s = s_title.borrow_mut();
                if s.title.is_none() {
                    s.in_title = true;
                    s.title = Some(String::new());
                }
            }
            let s = Rc::clone(&s_title);
            let end: EndTagHandler<'static> = Box::new(move |_end| {
                s.borrow_mut().in_title = false;
                Ok(())
            });
            let _ = el.on_end_tag(end);
            Ok(())
        }))
        .append_document_content_handler(doc_text!(move |t| {
            let mut s = s_text.borrow_mut();
            if s.in_title {
                let chunk = t.as_str().to_string();
                if let Some(title) = s.title.as_mut() {
                    title.push_str(&chunk);
                }
            }
            if s.hidden == 0 {
                s.text.push_str(t.as_str());
                if t.last_in_text_node() {
                    // Text nodes are separated by tags: keep their words apart.
                    s.text.push(' ');
                }
            }
            Ok(())
        }));
    let mut rw = HtmlRewriter::new(settings, |_: &[u8]| {});
    let ok = rw.write(html).is_ok();
    if ok {
        let _ = rw.end();
    }
    let s = st.borrow();
    let title = s.title.as_deref().map(collapse).filter(|t| !t.is_empty());
    (title, collapse(&s.text))
}

/// Whitespace runs to one space, trimmed.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words of a visible text, as the fingerprint sees them.
pub fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The 64-bit SimHash of a text over shingles of [`SHINGLE_WORDS`] words (0 for no words).
pub fn simhash(text: &str) -> u64 {
    let w = words(text);
    if w.is_empty() {
        return 0;
    }
    let mut sums = [0i64; 64];
    let mut add = |shingle: &[String]| {
        let h = xxhash_rust::xxh3::xxh3_64(shingle.join(" ").as_bytes());
        for (bit, sum) in sums.iter_mut().enumerate() {
            if h >> bit & 1 == 1 {
                *sum += 1;
            } else {
                *sum -= 1;
            }
        }
    };
    if w.len() < SHINGLE_WORDS {
        add(&w);
    } else {
        for s in w.windows(SHINGLE_WORDS) {
            add(s);
        }
    }
    sums.iter()
        .enumerate()
        .filter(|(_, s)| **s > 0)
        .fold(0u64, |acc, (bit, _)| acc | 1 << bit)
}

/// Bits that differ.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Titles (lowercase) of common challenge and block pages.
const CHALLENGE_TITLES: [&str; 4] = [
    "just a moment",
    "attention required",
    "access denied",
    "checking your browser",
];

/// Markers in the raw body of a Cloudflare challenge.
const CHALLENGE_MARKERS: [&str; 2] = ["cf-chl", "/cdn-cgi/challenge-platform/"];

/// Phrases that, in a short page (under [`CHALLENGE_SHORT_WORDS`] words), say it is a
/// challenge or block page rather than the document.
const CHALLENGE_PHRASES: [&str; 4] = [
    "just a moment",
    "access denied",
    "checking your browser",
    "enable javascript and cookies to continue",
];

/// A page with fewer words than this is "short" for `CHALLENGE_PHRASES`.
pub const CHALLENGE_SHORT_WORDS: usize = 80;

/// Why a 200 looks like a challenge page: a title of `CHALLENGE_TITLES`, a marker of
/// `CHALLENGE_MARKERS` anywhere in the body, or a phrase of `CHALLENGE_PHRASES` in a
/// short page.
pub fn challenge_suspected(body: &[u8], title: Option<&str>, text: &str) -> Option<String> {
    if let Some(t) = title {
        let t = t.to_lowercase();
        if let Some(m) = CHALLENGE_TITLES.iter().find(|m| t.starts_with(**m)) {
            return Some(format!("the title starts with {m:?}"));
        }
    }
    let raw = String::from_utf8_lossy(body).to_ascii_lowercase();
    if let Some(m) = CHALLENGE_MARKERS.iter().find(|m| raw.contains(**m)) {
        return Some(format!("the body contains {m:?}"));
    }
    let lower = text.to_lowercase();
    if lower.split_whitespace().count() < CHALLENGE_SHORT_WORDS {
        if let Some(m) = CHALLENGE_PHRASES.iter().find(|m| lower.contains(**m)) {
            return Some(format!("a short page that says {m:?}"));
        }
    }
    None
}

/// Reads what the comparison needs of a body.
pub fn analyse(body: &[u8], content_type: Option<&str>) -> Content {
    analyse_keeping_text(body, content_type, false)
}

/// [`analyse`], and with `keep_text` the page text of an HTML body for the text fragment
/// check (kept only when asked: a page's text can be as large as the body cap).
pub fn analyse_keeping_text(body: &[u8], content_type: Option<&str>, keep_text: bool) -> Content {
    let mut c = Content {
        content_type: content_type.map(str::to_string),
        byte_length: body.len() as u64,
        sha256: sha256_hex(body),
        ..Content::default()
    };
    if is_html(content_type) {
        let (title, text) = visible_text(body);
        c.challenge = challenge_suspected(body, title.as_deref(), &text);
        c.title = title;
        c.text_sha256 = Some(sha256_hex(text.as_bytes()));
        c.simhash = Some(simhash(&text));
        c.words = Some(words(&text).len() as u64);
        if keep_text {
            c.page_text = Some(crate::fragments::matching::page_text(body));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_skips_script_and_style_and_keeps_words_apart() {
        let (title, text) = visible_text(
            b"<html><head><title> A  page </title><style>p{x:1}</style>\
              <script>var a = 1;</script></head><body><p>one</p><p>two\n\n three</p>\
              <noscript>no</noscript></body></html>",
        );
        assert_eq!(title.as_deref(), Some("A page"));
        assert_eq!(text, "A page one two three");
    }

    #[test]
    fn simhash_is_stable_and_near_for_near_texts() {
        let base: String = (0..150).map(|i| format!("word{} ", i % 97)).collect();
        let a = format!("Updated 1 March 2026. {base}");
        let b = format!("Updated 9 April 2026. {base}");
        assert_eq!(simhash(&a), simhash(&a));
        assert!(distance(simhash(&a), simhash(&b)) <= SIMILAR_MAX_DISTANCE);
        let other: String = (0..150).map(|i| format!("other{} ", i * 7)).collect();
        assert!(distance(simhash(&a), simhash(&other)) > SIMILAR_MAX_DISTANCE);
        assert_eq!(simhash(""), 0);
    }

    #[test]
    fn challenge_pages_are_suspected() {
        assert!(challenge_suspected(b"", Some("Just a moment..."), "").is_some());
        assert!(challenge_suspected(b"<div id=cf-chl-widget>", None, "x").is_some());
        assert!(challenge_suspected(b"", None, "Access denied. Reference 18").is_some());
        let long: String = "access denied ".repeat(60);
        assert!(challenge_suspected(b"", Some("Why access denied errors happen"), &long).is_none());
    }
}

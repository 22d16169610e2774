//! Text fragments: the URL Fragment Text Directive (WICG, "URL Fragment Text Directives",
//! <https://wicg.github.io/scroll-to-text-fragment/>), read from a URL's fragment.
//!
//! A link such as `https://example.org/page#intro:~:text=the%20quick,-fox` asks the browser
//! to highlight "the quick" where " fox" follows it. Answer engines cite pages this way, so
//! the directive is evidence of the sentence an answer pointed at. No policy keeps it in a
//! key (a fragment never reaches the server); this module reads it so that it can be kept
//! beside the key.
//!
//! The fragment is split at the first `:~:` (the *fragment directive delimiter*): what is
//! before it is the page's own fragment ([`FragmentDirective::fragment`]), what is after it
//! is a list of directives joined by `&`. Each directive that starts with `text=` is a text
//! directive, `text=[prefix-,]start[,end][,-suffix]`, parsed as the spec's "parse a text
//! directive" says: the value is split on every `,` into one to four terms, none empty; a
//! first term ending in `-` is the prefix, a last term starting with `-` the suffix; one or
//! two terms must remain (start, and end). Each term is percent-decoded, then read as
//! UTF-8; a literal `-`, `,` or `&` in the text is written `%2D`, `%2C`, `%26`. Other
//! directives (not `text=`) are kept as they are, in [`FragmentDirective::other`]: the
//! spec leaves them to future directives.
//!
//! Where this reading differs from a browser's: a term that is not UTF-8 once decoded is
//! [`DirectiveError::NotUtf8`] (the spec decodes it with replacement characters, which
//! then match nothing); a term written with characters outside ASCII (a URL copied from an
//! address bar that shows them decoded) is read as the URL parser would have percent-encoded
//! it. A malformed directive is reported with its reason, never a panic, and the others of
//! the same fragment are still read.
//!
//! ```
//! use urlkey::text_fragment::{parse_url, TextDirective};
//!
//! let d = parse_url("https://example.org/a#intro:~:text=an%20example-,text,fragment,-end&text=two");
//! assert_eq!(d.fragment, "intro");
//! let first = d.directives[0].as_ref().expect("well formed");
//! assert_eq!(first.prefix.as_deref(), Some("an example"));
//! assert_eq!(first.start, "text");
//! assert_eq!(first.end.as_deref(), Some("fragment"));
//! assert_eq!(first.suffix.as_deref(), Some("end"));
//! assert_eq!(d.directives[1].as_ref().map(|t| t.start.as_str()), Ok("two"));
//!
//! // A literal comma or dash is percent-encoded.
//! let d = parse_url("https://example.org/#:~:text=1%2C000%2D2%2C000");
//! assert_eq!(d.directives[0].as_ref().map(|t| t.start.as_str()), Ok("1,000-2,000"));
//!
//! // Malformed directives are reported, one by one.
//! let d = parse_url("https://example.org/#:~:text=a,b,c&text=&text=ok");
//! assert_eq!(d.directives[0].as_ref().unwrap_err().reason(), "too-many-terms");
//! assert_eq!(d.directives[1].as_ref().unwrap_err().reason(), "empty-term");
//! assert!(d.directives[2].is_ok());
//!
//! // No `:~:`, no directive.
//! assert!(parse_url("https://example.org/#text=a").is_empty());
//! ```

use std::fmt;

/// The fragment directive delimiter.
pub const DELIMITER: &str = ":~:";

/// What a URL's fragment holds: the page's own fragment and the directives after `:~:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FragmentDirective {
    /// The fragment before `:~:` (without `#`), as written; the whole fragment when it has
    /// no `:~:`.
    pub fragment: String,
    /// Whether the fragment has a `:~:` at all.
    pub has_delimiter: bool,
    /// Every `text=` directive in order, parsed or with why it is malformed.
    pub directives: Vec<Result<TextDirective, DirectiveError>>,
    /// The other directives (not `text=`), as written.
    pub other: Vec<String>,
}

impl FragmentDirective {
    /// True when there is no text directive (well formed or not).
    pub fn is_empty(&self) -> bool {
        self.directives.is_empty()
    }
}

/// One text directive, its terms percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextDirective {
    /// The directive as written (`text=...`, still percent-encoded).
    pub raw: String,
    /// Text that must come right before `start` (the term before `-,`).
    pub prefix: Option<String>,
    /// The text to find; with `end`, where the range starts.
    pub start: String,
    /// Where the range ends (the range runs from `start` to the first `end` after it).
    pub end: Option<String>,
    /// Text that must come right after the match (the term after `,-`).
    pub suffix: Option<String>,
}

impl TextDirective {
    /// The directive as a person reads it: `prefix-, start … end ,-suffix`, decoded.
    ///
    /// ```
    /// let d = urlkey::text_fragment::parse_directive("text=a-,b%20c,d,-e").unwrap();
    /// assert_eq!(d.display(), "[a] b c … d [e]");
    /// ```
    pub fn display(&self) -> String {
        let mut s = String::new();
        if let Some(p) = &self.prefix {
            s.push_str(&format!("[{p}] "));
        }
        s.push_str(&self.start);
        if let Some(e) = &self.end {
            s.push_str(&format!(" … {e}"));
        }
        if let Some(x) = &self.suffix {
            s.push_str(&format!(" [{x}]"));
        }
        s
    }
}

/// Why a `text=` directive is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectiveError {
    /// A term is empty (`text=`, `text=a,,b`, `text=-,a`).
    EmptyTerm {
        /// The directive as written.
        raw: String,
    },
    /// More than four terms, or more than two between the prefix and the suffix.
    TooManyTerms {
        /// The directive as written.
        raw: String,
    },
    /// Only a prefix and/or a suffix: no start term (`text=a-`, `text=a-,-b`).
    NoStart {
        /// The directive as written.
        raw: String,
    },
    /// A term is not UTF-8 once percent-decoded (`text=%FF`).
    NotUtf8 {
        /// The directive as written.
        raw: String,
    },
}

impl DirectiveError {
    /// A stable one-word reason: `empty-term`, `too-many-terms`, `no-start`, `not-utf8`.
    pub fn reason(&self) -> &'static str {
        match self {
            DirectiveError::EmptyTerm { .. } => "empty-term",
            DirectiveError::TooManyTerms { .. } => "too-many-terms",
            DirectiveError::NoStart { .. } => "no-start",
            DirectiveError::NotUtf8 { .. } => "not-utf8",
        }
    }

    /// The directive as written.
    pub fn raw(&self) -> &str {
        match self {
            DirectiveError::EmptyTerm { raw }
            | DirectiveError::TooManyTerms { raw }
            | DirectiveError::NoStart { raw }
            | DirectiveError::NotUtf8 { raw } => raw,
        }
    }
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            DirectiveError::EmptyTerm { .. } => "a term is empty",
            DirectiveError::TooManyTerms { .. } => {
                "more terms than text=[prefix-,]start[,end][,-suffix] allows (write a literal comma as %2C)"
            }
            DirectiveError::NoStart { .. } => {
                "no start term, only a prefix or suffix (write a literal dash as %2D)"
            }
            DirectiveError::NotUtf8 { .. } => "a term is not UTF-8 once percent-decoded",
        };
        write!(f, "malformed text directive {:?}: {why}", self.raw())
    }
}

impl std::error::Error for DirectiveError {}

/// The directives of a URL: its fragment (after the first `#`) read by [`parse_fragment`].
/// A URL without `#` has none.
pub fn parse_url(url: &str) -> FragmentDirective {
    match url.split_once('#') {
        Some((_, fragment)) => parse_fragment(fragment),
        None => FragmentDirective::default(),
    }
}

/// The directives of a fragment (without its `#`).
///
/// ```
/// let d = urlkey::text_fragment::parse_fragment(":~:text=hello&note=x");
/// assert_eq!(d.fragment, "");
/// assert_eq!(d.other, vec!["note=x".to_string()]);
/// assert_eq!(d.directives.len(), 1);
/// ```
pub fn parse_fragment(fragment: &str) -> FragmentDirective {
    let Some((before, directive)) = fragment.split_once(DELIMITER) else {
        return FragmentDirective {
            fragment: fragment.to_string(),
            ..FragmentDirective::default()
        };
    };
    let mut out = FragmentDirective {
        fragment: before.to_string(),
        has_delimiter: true,
        ..FragmentDirective::default()
    };
    for part in directive.split('&') {
        if part.starts_with("text=") {
            out.directives.push(parse_directive(part));
        } else if !part.is_empty() {
            out.other.push(part.to_string());
        }
    }
    out
}

/// One `text=...` directive, as the spec's "parse a text directive" reads it.
///
/// ```
/// use urlkey::text_fragment::parse_directive;
/// let d = parse_directive("text=-,foo").unwrap_err();
/// assert_eq!(d.reason(), "empty-term");
/// let d = parse_directive("text=foo-,bar").unwrap();
/// assert_eq!((d.prefix.as_deref(), d.start.as_str()), (Some("foo"), "bar"));
/// ```
pub fn parse_directive(raw: &str) -> Result<TextDirective, DirectiveError> {
    let value = raw.strip_prefix("text=").unwrap_or(raw);
    let mut terms: Vec<&str> = value.split(',').collect();
    if terms.len() > 4 {
        return Err(DirectiveError::TooManyTerms { raw: raw.into() });
    }
    if terms.iter().any(|t| t.is_empty()) {
        return Err(DirectiveError::EmptyTerm { raw: raw.into() });
    }
    let decode = |term: &str| -> Result<String, DirectiveError> {
        let text =
            percent_decode(term).ok_or_else(|| DirectiveError::NotUtf8 { raw: raw.into() })?;
        if text.is_empty() {
            return Err(DirectiveError::EmptyTerm { raw: raw.into() });
        }
        Ok(text)
    };
    let mut prefix = None;
    if let Some(p) = terms.first().and_then(|t| t.strip_suffix('-')) {
        prefix = Some(decode(p)?);
        terms.remove(0);
    }
    let mut suffix = None;
    if let Some(x) = terms.last().and_then(|t| t.strip_prefix('-')) {
        suffix = Some(decode(x)?);
        terms.pop();
    }
    match terms.as_slice() {
        [] => Err(DirectiveError::NoStart { raw: raw.into() }),
        [start] => Ok(TextDirective {
            raw: raw.into(),
            prefix,
            start: decode(start)?,
            end: None,
            suffix,
        }),
        [start, end] => Ok(TextDirective {
            raw: raw.into(),
            prefix,
            start: decode(start)?,
            end: Some(decode(end)?),
            suffix,
        }),
        _ => Err(DirectiveError::TooManyTerms { raw: raw.into() }),
    }
}

/// Percent-decodes `term` with the URL Standard's percent-decode (the crate's one,
/// [`crate::query::percent_decode`]: a `%` not followed by two hex digits stays as it is)
/// and reads the bytes as UTF-8; None when they are not.
fn percent_decode(term: &str) -> Option<String> {
    String::from_utf8(crate::query::percent_decode(term)).ok()
}

/// Writes `text` as a term of a text directive: percent-encodes what would end the term
/// or the directive (`,` `-` `&` `%` `#`), controls, spaces and everything outside ASCII.
///
/// ```
/// use urlkey::text_fragment::{encode_term, parse_directive};
/// let t = encode_term("1,000-2,000 & more");
/// assert_eq!(t, "1%2C000%2D2%2C000%20%26%20more");
/// assert_eq!(parse_directive(&format!("text={t}")).unwrap().start, "1,000-2,000 & more");
/// ```
pub fn encode_term(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b".!~*'()_;:/?=+@$[]".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;

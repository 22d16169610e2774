//! Stable error codes. A code, once published, keeps its meaning: scripts match on them.

use std::fmt;

/// Declares [`ErrorCode`] from one table: each variant with its documentation, its stable
/// code and its one-line description, so that the enum, [`ErrorCode::ALL`],
/// [`ErrorCode::as_str`] and [`ErrorCode::description`] cannot disagree.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $description:literal;)+) => {
        /// Why an input produced no key. Every variant has a stable kebab-case code
        /// (see [`ErrorCode::as_str`]) listed in `docs/cli.md`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in documentation order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The stable code, e.g. `web.invalid-host`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }

            /// A one-line description for documentation and `urlkey codes`.
            pub const fn description(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $description,)+
                }
            }
        }
    };
}

error_codes! {
    /// A special-scheme URL with no host (`https://`, `http:///x`).
    WebHostMissing = "web.host-missing", "a URL with a special scheme has no host";
    /// The host failed the Standard's host parser (or the 4096-unit hardening limit).
    WebInvalidHost = "web.invalid-host", "the host is not valid under the URL Standard's host parser";
    /// The port is not a number in 0..=65535.
    WebInvalidPort = "web.invalid-port", "the port is not a number from 0 to 65535";
    /// Any other WHATWG parse failure, and relative input without a base.
    WebInvalidUrl = "web.invalid-url", "not a valid absolute URL under the URL Standard";
    /// `mapper@1`: whitespace inside the trimmed input.
    MapperWhitespace = "mapper.whitespace", "whitespace inside the URL after trimming";
    /// `mapper@1`: a control character (C0, DEL, C1) anywhere in the trimmed input.
    MapperControlCharacter = "mapper.control-character", "a control character (C0, DEL or C1) in the URL, at either end included";
    /// `mapper@1`: input starting with `//`.
    MapperSchemeRelative = "mapper.scheme-relative", "scheme-relative input (starts with //)";
    /// `mapper@1`: a scheme other than http or https (or none).
    MapperUnsupportedScheme = "mapper.unsupported-scheme", "not http or https, and not a path starting with /";
    /// `document@1`: whitespace, a control character or a backslash.
    DocumentForbiddenCharacter = "document.forbidden-character", "whitespace, a control character or a backslash in the URL";
    /// `document@1`: not `http://` or `https://`.
    DocumentUnsupportedScheme = "document.unsupported-scheme", "not an absolute http:// or https:// URL";
    /// `document@1`: userinfo (`@`) in the authority.
    DocumentCredentials = "document.credentials", "credentials (@) in the authority";
    /// `document@1`: empty or non-ASCII host.
    DocumentInvalidHost = "document.invalid-host", "empty or non-ASCII host";
    /// `document@1`: `host:` with nothing after the colon.
    DocumentEmptyPort = "document.empty-port", "an explicit empty port (host:)";
    /// `document@1`: a port that is not ASCII digits with a value in 0..=65535.
    DocumentInvalidPort = "document.invalid-port", "the port is not ASCII digits with a value from 0 to 65535";
    /// `citation@1` (and policies built on it): a scheme other than http or https.
    CitationUnsupportedScheme = "citation.unsupported-scheme", "not an http or https URL";
    /// A custom policy restricted to http and https met another scheme.
    PolicyUnsupportedScheme = "policy.unsupported-scheme", "the policy accepts only http and https";
    /// The input line is longer than the configured limit.
    InputTooLong = "input.too-long", "the input line is longer than the limit";
    /// The input line is not valid UTF-8.
    InputInvalidUtf8 = "input.invalid-utf8", "the input line is not valid UTF-8";
    /// A structured input row (CSV/JSONL) has no usable URL field.
    InputMissingField = "input.missing-field", "the input row has no value in the URL column or field";
    /// A JSONL line that is not a JSON object.
    InputInvalidJson = "input.invalid-json", "the JSONL line is not a JSON object";
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The message of `input.too-long` for an input of `len` bytes over a limit of `max` bytes:
/// one wording for the library, the command's records (`urlkey key`, `urlkey map`) and the
/// Polars and DuckDB engines, which compare it with the command's in their tests.
pub fn too_long_message(len: usize, max: usize) -> String {
    format!("the line is {len} bytes; the limit is {max} bytes")
}

/// An input that produced no key: a stable code and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyError {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, in words, naming the offending part where known.
    pub message: String,
}

impl KeyError {
    /// An error with the given code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        KeyError {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for KeyError {}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    /// `ALL` is made by the same table as the enum, so it lists every variant by
    /// construction; this checks what the table cannot: the codes are distinct, in
    /// declaration order, kebab-case under a dotted prefix, and described.
    #[test]
    fn all_lists_every_variant_once_with_a_well_formed_code() {
        let mut seen = std::collections::BTreeSet::new();
        for (i, c) in ErrorCode::ALL.iter().enumerate() {
            assert!(seen.insert(c.as_str()), "{c} twice");
            // Declaration order is ALL's order, so the derived Ord agrees with it.
            assert!(i == 0 || ErrorCode::ALL[i - 1] < *c, "{c} out of order");
            let (prefix, name) = c.as_str().split_once('.').expect("a dotted code");
            assert!(!prefix.is_empty() && !name.is_empty(), "{c}");
            assert!(c
                .as_str()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b)));
            assert!(!c.description().is_empty(), "{c}");
        }
    }
}

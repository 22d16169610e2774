//! Stable error codes: one table for every error the library gives. A code, once
//! published, keeps its meaning: scripts match on them.
//!
//! [`KeyError`] (an input that gave no key), [`crate::PolicyError`] (a policy that cannot
//! be had) and [`crate::PslError`] (a Public Suffix List that cannot be used) each have a
//! `code()` that returns an [`ErrorCode`] of this table.

use std::fmt;

/// Declares [`ErrorCode`] from one table: each variant with its documentation, its stable
/// code and its one-line description, so that the enum, [`ErrorCode::ALL`],
/// [`ErrorCode::as_str`] and [`ErrorCode::description`] cannot disagree.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $description:literal;)+) => {
        /// Every stable error code of the library: why an input produced no key
        /// ([`KeyError::code`]), why a policy cannot be had ([`crate::PolicyError::code`]),
        /// why a Public Suffix List cannot be used ([`crate::PslError::code`]). Each
        /// variant has a kebab-case code under a dotted prefix ([`ErrorCode::as_str`]),
        /// listed by `urlkey codes` and in `docs/cli.md`.
        ///
        /// ```
        /// use urlkey::ErrorCode;
        /// let o = urlkey::PolicySet::builtin().get("citation@1").unwrap().key("ftp://example.net/");
        /// let code = o.error.unwrap().code;
        /// assert_eq!(code, ErrorCode::CitationUnsupportedScheme);
        /// assert_eq!(code.as_str(), "citation.unsupported-scheme");
        /// assert_eq!(code.to_string(), "citation.unsupported-scheme");
        /// assert_eq!(code.description(), "not an http or https URL");
        /// assert!(ErrorCode::ALL.contains(&code));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in documentation order.
            ///
            /// ```
            /// let all = urlkey::ErrorCode::ALL;
            /// assert_eq!(all[0].as_str(), "web.host-missing");
            /// assert!(all.iter().any(|c| c.as_str() == "policy.unknown"));
            /// ```
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The stable code, e.g. `web.invalid-host`.
            ///
            /// ```
            /// assert_eq!(urlkey::ErrorCode::WebInvalidHost.as_str(), "web.invalid-host");
            /// ```
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }

            /// A one-line description for documentation and `urlkey codes`.
            ///
            /// ```
            /// assert_eq!(urlkey::ErrorCode::InputTooLong.description(), "the input line is longer than the limit");
            /// ```
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
    /// [`crate::PolicyError::Unknown`]: no policy has this id.
    PolicyUnknown = "policy.unknown", "no policy has this id";
    /// [`crate::PolicyError::UnknownOption`]: an option after `+` the policy does not have.
    PolicyUnknownOption = "policy.unknown-option", "the policy has no such option after +";
    /// [`crate::PolicyError::File`]: a policy file that cannot be used.
    PolicyFile = "policy.file", "the policy file does not parse, or names an unknown rule or parameter";
    /// [`crate::PslError::NotAList`].
    PslNotAList = "psl.not-a-list", "not a Public Suffix List file: no ===BEGIN ICANN DOMAINS=== line";
    /// [`crate::PslError::Unparsable`].
    PslUnparsable = "psl.unparsable", "the Public Suffix List does not parse";
    /// [`crate::PslError::InvalidRule`].
    PslInvalidRule = "psl.invalid-rule", "a rule of the Public Suffix List is not a domain name";
    /// [`crate::PslError::ExceptionAtFirstLabel`].
    PslExceptionAtFirstLabel = "psl.exception-at-first-label", "an exception rule of a single label in the Public Suffix List";
    /// [`crate::PslError::EmptyLabel`].
    PslEmptyLabel = "psl.empty-label", "a rule with an empty label in the Public Suffix List";
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
///
/// ```
/// use urlkey::{ErrorCode, KeyError};
/// let e = urlkey::PolicySet::builtin().get("mapper@1").unwrap().key("//example.net/a").error.unwrap();
/// assert_eq!(e.code(), ErrorCode::MapperSchemeRelative);
/// assert!(e.to_string().starts_with("mapper.scheme-relative: "));
/// let mine = KeyError::new(ErrorCode::InputInvalidJson, "line 3 is an array");
/// assert_eq!(mine.to_string(), "input.invalid-json: line 3 is an array");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyError {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, in words, naming the offending part where known.
    pub message: String,
}

impl KeyError {
    /// An error with the given code and message.
    ///
    /// ```
    /// let e = urlkey::KeyError::new(urlkey::ErrorCode::InputMissingField, "no url column");
    /// assert_eq!((e.code.as_str(), e.message.as_str()), ("input.missing-field", "no url column"));
    /// ```
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        KeyError {
            code,
            message: message.into(),
        }
    }

    /// The stable code (the [`KeyError::code`] field), as every error type of the library
    /// gives it.
    ///
    /// ```
    /// let e = urlkey::KeyError::new(urlkey::ErrorCode::InputTooLong, "too long");
    /// assert_eq!(e.code().as_str(), "input.too-long");
    /// ```
    pub const fn code(&self) -> ErrorCode {
        self.code
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
    use super::{ErrorCode, KeyError};
    use crate::{PolicyError, PslError};

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

    /// One code system: every error type's `code()` is an [`ErrorCode`], and no two
    /// variants of any two error types share a code, so a code names one cause.
    #[test]
    fn codes_are_distinct_across_every_error_type() {
        let s = String::new;
        let policy = [
            PolicyError::Unknown {
                id: s(),
                known: vec![],
            },
            PolicyError::UnknownOption {
                id: s(),
                option: s(),
                allowed: vec![],
            },
            PolicyError::File {
                origin: s(),
                message: s(),
            },
        ];
        let psl = [
            PslError::NotAList,
            PslError::Unparsable(s()),
            PslError::InvalidRule(s()),
            PslError::ExceptionAtFirstLabel(s()),
            PslError::EmptyLabel(s()),
        ];
        let mut codes: Vec<ErrorCode> = policy.iter().map(PolicyError::code).collect();
        codes.extend(psl.iter().map(PslError::code));
        // The rest of the table is what a record's KeyError carries.
        let key_codes: Vec<ErrorCode> = ErrorCode::ALL
            .iter()
            .filter(|c| !codes.contains(c))
            .map(|&c| KeyError::new(c, "").code())
            .collect();
        assert!(key_codes.contains(&ErrorCode::PolicyUnsupportedScheme));
        assert!(key_codes.contains(&ErrorCode::InputTooLong));
        assert_eq!(key_codes.len(), 20, "{key_codes:?}");
        codes.extend(key_codes);
        let distinct: std::collections::BTreeSet<&str> = codes.iter().map(|c| c.as_str()).collect();
        assert_eq!(distinct.len(), codes.len(), "a code shared: {codes:?}");
        assert_eq!(codes.len(), ErrorCode::ALL.len());
        // The released strings are kept (scripts match on them).
        let policy_codes: Vec<&str> = policy.iter().map(|e| e.code().as_str()).collect();
        assert_eq!(
            policy_codes,
            ["policy.unknown", "policy.unknown-option", "policy.file"]
        );
    }

    /// docs/cli.md's error-code tables list every code of the table, with no code
    /// the table lacks (`urlkey codes` prints the table itself).
    #[test]
    fn docs_list_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md");
        let doc = std::fs::read_to_string(path).expect("docs/cli.md");
        let at = doc
            .find("\n## Error codes\n")
            .expect("an Error codes section");
        let section = &doc[at + 1..];
        let section = &section[..section[1..].find("\n## ").map_or(section.len(), |e| e + 1)];
        let documented: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `")?.split_once("` |").map(|(c, _)| c))
            .collect();
        let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            documented, all,
            "docs/cli.md's Error codes against ErrorCode::ALL"
        );
    }
}

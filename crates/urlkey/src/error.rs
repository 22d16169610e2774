//! Stable error codes. A code, once published, keeps its meaning: scripts match on them.

use std::fmt;

/// Why an input produced no key. Every variant has a stable kebab-case code
/// (see [`ErrorCode::as_str`]) listed in `docs/cli.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorCode {
    /// A special-scheme URL with no host (`https://`, `http:///x`).
    WebHostMissing,
    /// The host failed the Standard's host parser (or the 4096-unit hardening limit).
    WebInvalidHost,
    /// The port is not a number in 0..=65535.
    WebInvalidPort,
    /// Any other WHATWG parse failure, and relative input without a base.
    WebInvalidUrl,
    /// `mapper@1`: whitespace inside the trimmed input.
    MapperWhitespace,
    /// `mapper@1`: a control character (C0, DEL, C1) anywhere in the trimmed input.
    MapperControlCharacter,
    /// `mapper@1`: input starting with `//`.
    MapperSchemeRelative,
    /// `mapper@1`: a scheme other than http or https (or none).
    MapperUnsupportedScheme,
    /// `document@1`: whitespace, a control character or a backslash.
    DocumentForbiddenCharacter,
    /// `document@1`: not `http://` or `https://`.
    DocumentUnsupportedScheme,
    /// `document@1`: userinfo (`@`) in the authority.
    DocumentCredentials,
    /// `document@1`: empty or non-ASCII host.
    DocumentInvalidHost,
    /// `document@1`: `host:` with nothing after the colon.
    DocumentEmptyPort,
    /// `document@1`: a port that is not ASCII digits with a value in 0..=65535.
    DocumentInvalidPort,
    /// `citation@1` (and policies built on it): a scheme other than http or https.
    CitationUnsupportedScheme,
    /// A custom policy restricted to http and https met another scheme.
    PolicyUnsupportedScheme,
    /// The input line is longer than the configured limit.
    InputTooLong,
    /// The input line is not valid UTF-8.
    InputInvalidUtf8,
    /// A structured input row (CSV/JSONL) has no usable URL field.
    InputMissingField,
    /// A JSONL line that is not a JSON object.
    InputInvalidJson,
}

impl ErrorCode {
    /// Every code, in documentation order.
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::WebHostMissing,
        ErrorCode::WebInvalidHost,
        ErrorCode::WebInvalidPort,
        ErrorCode::WebInvalidUrl,
        ErrorCode::MapperWhitespace,
        ErrorCode::MapperControlCharacter,
        ErrorCode::MapperSchemeRelative,
        ErrorCode::MapperUnsupportedScheme,
        ErrorCode::DocumentForbiddenCharacter,
        ErrorCode::DocumentUnsupportedScheme,
        ErrorCode::DocumentCredentials,
        ErrorCode::DocumentInvalidHost,
        ErrorCode::DocumentEmptyPort,
        ErrorCode::DocumentInvalidPort,
        ErrorCode::CitationUnsupportedScheme,
        ErrorCode::PolicyUnsupportedScheme,
        ErrorCode::InputTooLong,
        ErrorCode::InputInvalidUtf8,
        ErrorCode::InputMissingField,
        ErrorCode::InputInvalidJson,
    ];

    /// The stable code, e.g. `web.invalid-host`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::WebHostMissing => "web.host-missing",
            ErrorCode::WebInvalidHost => "web.invalid-host",
            ErrorCode::WebInvalidPort => "web.invalid-port",
            ErrorCode::WebInvalidUrl => "web.invalid-url",
            ErrorCode::MapperWhitespace => "mapper.whitespace",
            ErrorCode::MapperControlCharacter => "mapper.control-character",
            ErrorCode::MapperSchemeRelative => "mapper.scheme-relative",
            ErrorCode::MapperUnsupportedScheme => "mapper.unsupported-scheme",
            ErrorCode::DocumentForbiddenCharacter => "document.forbidden-character",
            ErrorCode::DocumentUnsupportedScheme => "document.unsupported-scheme",
            ErrorCode::DocumentCredentials => "document.credentials",
            ErrorCode::DocumentInvalidHost => "document.invalid-host",
            ErrorCode::DocumentEmptyPort => "document.empty-port",
            ErrorCode::DocumentInvalidPort => "document.invalid-port",
            ErrorCode::CitationUnsupportedScheme => "citation.unsupported-scheme",
            ErrorCode::PolicyUnsupportedScheme => "policy.unsupported-scheme",
            ErrorCode::InputTooLong => "input.too-long",
            ErrorCode::InputInvalidUtf8 => "input.invalid-utf8",
            ErrorCode::InputMissingField => "input.missing-field",
            ErrorCode::InputInvalidJson => "input.invalid-json",
        }
    }

    /// A one-line description for documentation and `urlkey codes`.
    pub const fn description(self) -> &'static str {
        match self {
            ErrorCode::WebHostMissing => "a URL with a special scheme has no host",
            ErrorCode::WebInvalidHost => {
                "the host is not valid under the URL Standard's host parser"
            }
            ErrorCode::WebInvalidPort => "the port is not a number from 0 to 65535",
            ErrorCode::WebInvalidUrl => "not a valid absolute URL under the URL Standard",
            ErrorCode::MapperWhitespace => "whitespace inside the URL after trimming",
            ErrorCode::MapperControlCharacter => {
                "a control character (C0, DEL or C1) in the URL, at either end included"
            }
            ErrorCode::MapperSchemeRelative => "scheme-relative input (starts with //)",
            ErrorCode::MapperUnsupportedScheme => {
                "not http or https, and not a path starting with /"
            }
            ErrorCode::DocumentForbiddenCharacter => {
                "whitespace, a control character or a backslash in the URL"
            }
            ErrorCode::DocumentUnsupportedScheme => "not an absolute http:// or https:// URL",
            ErrorCode::DocumentCredentials => "credentials (@) in the authority",
            ErrorCode::DocumentInvalidHost => "empty or non-ASCII host",
            ErrorCode::DocumentEmptyPort => "an explicit empty port (host:)",
            ErrorCode::DocumentInvalidPort => {
                "the port is not ASCII digits with a value from 0 to 65535"
            }
            ErrorCode::CitationUnsupportedScheme => "not an http or https URL",
            ErrorCode::PolicyUnsupportedScheme => "the policy accepts only http and https",
            ErrorCode::InputTooLong => "the input line is longer than the limit",
            ErrorCode::InputInvalidUtf8 => "the input line is not valid UTF-8",
            ErrorCode::InputMissingField => "the input row has no value in the URL column or field",
            ErrorCode::InputInvalidJson => "the JSONL line is not a JSON object",
        }
    }
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

//! Where records come from: standard input or a file ([`Source`]).

use std::path::{Path, PathBuf};

/// Where records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
    /// Standard input kept in a file to be read twice (`urlkey map`); named `-`.
    Spilled(PathBuf),
}

impl Source {
    /// `-` is standard input.
    pub fn from_arg(s: &str) -> Self {
        if s == "-" {
            Source::Stdin
        } else {
            Source::File(PathBuf::from(s))
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin | Source::Spilled(_) => "<stdin>".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The name in output records (`source`): the path as given, `-` for standard input.
    pub fn label(&self) -> String {
        match self {
            Source::Stdin | Source::Spilled(_) => "-".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The file read, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::File(p) | Source::Spilled(p) => Some(p),
        }
    }

    /// The size in bytes, when known (for progress).
    pub fn byte_len(&self) -> Option<u64> {
        std::fs::metadata(self.path()?).ok().map(|m| m.len())
    }

    /// The lowercased extension of a file's name (`""` for standard input).
    pub(super) fn extension(&self) -> String {
        match self {
            Source::File(p) => p
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase(),
            _ => String::new(),
        }
    }
}

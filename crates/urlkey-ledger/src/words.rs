//! What a command's caller draws and words beside the output: the progress of each
//! ingested file ([`Progress`]) and the advice that names the caller's own settings
//! ([`Words`]: the command line's flags, a page's fields). The ledger names no flag; its
//! own words ([`PlainWords`]) say what to do in plain terms.

use std::path::Path;

use crate::ingest::Phase;

/// A setting of a ledger command, named so that each caller can word it: the command line
/// as its flag (`run_timestamp` is `--run-timestamp`), the web page as its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // Each is the field of the same name of the typed options.
pub enum Setting {
    Db,
    Delimiter,
    Columns,
    Encoding,
    Quote,
    Sheet,
    InputFormat,
    Timezone,
    Rejects,
    RunTimestamp,
    AnswerSystem,
    PromptVersion,
    Market,
    Collection,
    Policy,
    By,
    Window,
    Compare,
    ComparePolicies,
    Format,
    MaxVariants,
    CaCert,
    Timeout,
    Concurrency,
    OlderThan,
    AllowLoopback,
    AllowPrivateNetwork,
    Role,
    ClaimSupport,
    Merge,
    Reviewer,
    Observation,
    Key,
}

impl Setting {
    /// The setting's field name (`run_timestamp`, `claim_support`).
    pub fn name(self) -> &'static str {
        use Setting::*;
        match self {
            Db => "db",
            Delimiter => "delimiter",
            Columns => "columns",
            Encoding => "encoding",
            Quote => "quote",
            Sheet => "sheet",
            InputFormat => "input_format",
            Timezone => "timezone",
            Rejects => "rejects",
            RunTimestamp => "run_timestamp",
            AnswerSystem => "answer_system",
            PromptVersion => "prompt_version",
            Market => "market",
            Collection => "collection",
            Policy => "policy",
            By => "by",
            Window => "window",
            Compare => "compare",
            ComparePolicies => "compare_policies",
            Format => "format",
            MaxVariants => "max_variants",
            CaCert => "ca_cert",
            Timeout => "timeout",
            Concurrency => "concurrency",
            OlderThan => "older_than",
            AllowLoopback => "allow_loopback",
            AllowPrivateNetwork => "allow_private_network",
            Role => "role",
            ClaimSupport => "claim_support",
            Merge => "merge",
            Reviewer => "reviewer",
            Observation => "observation",
            Key => "key",
        }
    }
}

/// The progress of an ingest, file by file. Every method has a default that does nothing
/// ([`NoProgress`]).
pub trait Progress {
    /// A file's ingest begins.
    fn start(&self, _file: &Path) {}
    /// `done` of `total` bytes read in `phase` (`total` 0: not known, e.g. standard input).
    fn advance(&self, _phase: Phase, _done: u64, _total: u64) {}
    /// The file's ingest ended (stored or refused).
    fn finish(&self) {}
}

/// A function of `(phase, bytes read, bytes in the file or 0)` is told the advance.
impl<F: Fn(Phase, u64, u64)> Progress for F {
    fn advance(&self, phase: Phase, done: u64, total: u64) {
        self(phase, done, total)
    }
}

/// Draws nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What would let a refused row in, when a setting of the ingest would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Remedy {
    /// A default value of this setting for the rows that have none.
    Default(Setting),
    /// The file's encoding named.
    Encoding,
    /// The time zone of run timestamps without an offset named.
    Timezone,
}

/// A note of a command that says how to do otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hint {
    /// The CSV delimiter was detected: how to give another (ends the note on the
    /// detection, in parentheses).
    OtherDelimiter,
    /// `verify` found no key due (`older_than`: a maximum age was given).
    NothingToVerify {
        /// A maximum age was given.
        older_than: bool,
    },
    /// A loopback target was refused: what allows it (stored with the verification).
    AllowLoopback,
    /// A private target was refused: what allows it (stored with the verification).
    AllowPrivateNetwork,
    /// A target was refused by the resolver, its address class unknown.
    AllowLoopbackOrPrivate,
}

/// How a caller words the advice that names its settings. The defaults are the ledger's
/// plain words ([`PlainWords`]).
pub trait Words {
    /// The remedy, after "…, or ": `give a default market to fill in rows that have none`.
    fn remedy(&self, remedy: Remedy) -> String {
        match remedy {
            Remedy::Default(s) => {
                format!("give a default {} to fill in rows that have none", s.name())
            }
            Remedy::Encoding => "name its encoding".to_string(),
            Remedy::Timezone => "name a time zone (an IANA name such as Europe/Paris or UTC) \
                                 to read such times in that zone"
                .to_string(),
        }
    }

    /// The hint, as the note or line that carries it says it.
    fn hint(&self, hint: Hint) -> String {
        match hint {
            Hint::OtherDelimiter => urlkey_batch::input::OTHER_DELIMITER.to_string(),
            Hint::NothingToVerify { older_than } => format!(
                "nothing to verify: every key has a verification{} (give a maximum age to \
                 re-verify older ones)",
                if older_than {
                    " newer than the maximum age"
                } else {
                    ""
                }
            ),
            Hint::AllowLoopback => {
                "allow loopback targets (loopback only) or private networks to verify it".into()
            }
            Hint::AllowPrivateNetwork => "allow private networks to verify it".into(),
            Hint::AllowLoopbackOrPrivate => {
                "allow loopback targets or private networks to verify it".into()
            }
        }
    }
}

/// The ledger's own words: no flag, no field.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainWords;

impl Words for PlainWords {}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The string literals of Rust source `text` (comments and char literals skipped),
    /// each with its line.
    fn string_literals(text: &str) -> Vec<(usize, String)> {
        let b = text.as_bytes();
        let (mut i, mut line, mut out) = (0, 1, Vec::new());
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        while i < b.len() {
            let c = b[i];
            if c == b'\n' {
                line += 1;
                i += 1;
            } else if b[i..].starts_with(b"//") {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else if b[i..].starts_with(b"/*") {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                line += text[i..end].matches('\n').count();
                i = end;
            } else if c == b'r' && (i == 0 || !ident(b[i - 1])) && {
                let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
                b.get(i + 1 + hashes) == Some(&b'"')
            } {
                let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = text[start..].find(&close).map_or(b.len(), |e| start + e);
                out.push((line, text[start..end].to_string()));
                line += text[start..end].matches('\n').count();
                i = end + close.len();
            } else if c == b'"' {
                let (start, mut j) = (i + 1, i + 1);
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                out.push((line, text[start..end].to_string()));
                line += text[start..end].matches('\n').count();
                i = end + 1;
            } else if c == b'\'' {
                // A char literal ('x', '\n', '"') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        out
    }

    /// `--word` at the start of a literal or after a character that is not part of a word
    /// (`xn--bcher-kva` is a hostname, not a flag).
    fn names_a_flag(s: &str) -> bool {
        let b = s.as_bytes();
        (0..b.len().saturating_sub(2)).any(|i| {
            b[i] == b'-'
                && b[i + 1] == b'-'
                && b[i + 2].is_ascii_lowercase()
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
        })
    }

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("src dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs")
                && p.file_name().is_some_and(|n| n != "tests.rs")
            {
                out.push(p);
            }
        }
    }

    #[test]
    fn the_scanner_finds_flags_in_literals_only() {
        let src = "// \"--in-a-comment\"\nlet a = \"give --market\";\nlet b = 'x';\n\
                   let c = r#\"raw --raw \"q\"\"#; /* \"--block\" */ let d = \"xn--bcher-kva\";\n\
                   let e = \"a \\\" --escaped\";";
        let hits: Vec<(usize, String)> = string_literals(src)
            .into_iter()
            .filter(|(_, s)| names_a_flag(s))
            .collect();
        assert_eq!(
            hits,
            [
                (2, "give --market".to_string()),
                (4, "raw --raw \"q\"".to_string()),
                (5, "a \\\" --escaped".to_string()),
            ]
        );
    }

    /// The ledger names no flag: flags are the command line's (urlkey-cli), which words
    /// the ledger's errors, hints and remedies (`flags::advice`); the web page words its
    /// own. Tests (a `#[cfg(test)]` module, `tests.rs`) may name flags. Nor does
    /// urlkey-fetch, whose refusals the ledger words.
    #[test]
    fn no_string_literal_of_the_library_names_a_flag() {
        let mut files = Vec::new();
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        sources(&manifest.join("src"), &mut files);
        // And the client verify fetches through (it was the ledger's; the rule moved with it).
        sources(&manifest.join("../urlkey-fetch/src"), &mut files);
        assert!(files.len() > 25, "{files:?}");
        let mut found = Vec::new();
        for p in files {
            let text = std::fs::read_to_string(&p).expect("source");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (line, s) in string_literals(code) {
                if names_a_flag(&s) {
                    found.push(format!("{}:{line}: {s:?}", p.display()));
                }
            }
        }
        assert!(
            found.is_empty(),
            "flags named in the ledger library (word the advice in urlkey-cli's \
             flags::advice instead):\n{}",
            found.join("\n")
        );
    }
}

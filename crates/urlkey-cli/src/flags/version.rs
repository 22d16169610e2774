//! `urlkey --version`: the crate's version, then what a key depends on besides the code:
//! the embedded Public Suffix List snapshot and the versions of the tables the builtin
//! policies are pinned to. Every line is read from the library's own tables (no list is
//! kept here), so a new policy, registry or wrapper-list version shows up by itself.
//! `-V` stays one line, as ripgrep's does.

use std::sync::OnceLock;

use urlkey::internals::unwrap::WRAPPERS_VERSION;
use urlkey::policy::BUILTIN_IDS;
use urlkey::{PublicSuffixList, TrackingSet};

/// The label of each line after the first, in order (docs/cli.md shows the output).
pub const LABELS: [&str; 4] = [
    "Public Suffix List:",
    "policies:",
    "tracking registries:",
    "redirect wrappers: list",
];

/// The tracking-parameter registries a policy file can name (`registry@1`, `registry@2`,
/// ...), from [`TrackingSet::NAMES`].
pub fn tracking_registries() -> Vec<&'static str> {
    TrackingSet::NAMES
        .iter()
        .copied()
        .filter(|n| n.starts_with("registry@"))
        .collect()
}

/// The text after `urlkey ` that `urlkey --version` prints, built once per process (clap
/// asks for it each time it builds the command).
pub fn long_version() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let values = [
            PublicSuffixList::embedded_version().to_string(),
            BUILTIN_IDS.join(" "),
            tracking_registries().join(" "),
            WRAPPERS_VERSION.to_string(),
        ];
        let mut text = env!("CARGO_PKG_VERSION").to_string();
        for (label, value) in LABELS.iter().zip(values) {
            text.push_str(&format!("\n{label} {value}"));
        }
        text
    })
}

//! The benchmark corpus: the four files of `../shared/datasets/ada-url-various-datasets`
//! (109,062 lines), read at run time and never copied into the repository.
//!
//! The files are read in SOURCE.md's order (kasztp, userbait, node_files, isaacs_files),
//! split on `\n`, a `\r` before it and kasztp's leading UTF-8 BOM removed. Lines are kept
//! otherwise as written (the policies and ada trim them themselves).

use std::path::{Path, PathBuf};

/// The corpus files, in SOURCE.md's order: (relative path, kind).
pub const FILES: [(&str, Kind); 4] = [
    ("others/kasztp.txt", Kind::Web),
    ("others/userbait.txt", Kind::Web),
    ("files/node_files.txt", Kind::File),
    ("files/isaacs_files.txt", Kind::File),
];

/// Lines in the four files together.
pub const TOTAL_LINES: usize = 109_062;

/// What a corpus file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `http(s)://` web URLs (kasztp, userbait).
    Web,
    /// `file://`, `node:` and `tapmock:` URLs.
    File,
}

/// The directory holding the corpus: `$URLKEY_DATASETS` when set, else
/// `<repo>/../shared/datasets/ada-url-various-datasets`.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("URLKEY_DATASETS") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/ada-url-various-datasets")
}

/// The corpus in memory.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// Every line, in file order.
    pub lines: Vec<String>,
    /// The kind of each line's file.
    pub kinds: Vec<Kind>,
}

impl Corpus {
    /// Reads the four files from `dir`.
    pub fn load(dir: &Path) -> Result<Corpus, String> {
        let mut c = Corpus::default();
        for (rel, kind) in FILES {
            let path = dir.join(rel);
            let bytes = std::fs::read(&path).map_err(|e| {
                format!(
                    "{}: {e} (set URLKEY_DATASETS to the ada-url-various-datasets directory)",
                    path.display()
                )
            })?;
            let text = String::from_utf8(bytes)
                .map_err(|e| format!("{}: not UTF-8: {e}", path.display()))?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let text = text.strip_suffix('\n').unwrap_or(text);
            for line in text.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                c.lines.push(line.to_string());
                c.kinds.push(kind);
            }
        }
        Ok(c)
    }

    /// Reads the corpus from [`default_dir`].
    pub fn load_default() -> Result<Corpus, String> {
        Self::load(&default_dir())
    }

    /// The lines of one kind.
    pub fn of_kind(&self, kind: Kind) -> Vec<String> {
        self.lines
            .iter()
            .zip(&self.kinds)
            .filter(|(_, k)| **k == kind)
            .map(|(l, _)| l.clone())
            .collect()
    }

    /// Every `step`-th line (a small deterministic sample for micro-benchmarks).
    pub fn sample(&self, step: usize) -> Vec<String> {
        self.lines.iter().step_by(step.max(1)).cloned().collect()
    }

    /// Total bytes of the lines (without line ends).
    pub fn bytes(&self) -> usize {
        self.lines.iter().map(String::len).sum()
    }
}

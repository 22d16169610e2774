//! What an inventory gains and loses when it moves from one policy to another
//! (`urlkey diff --from P --to Q`, the Mapper's policy pair in `urlkey serve`), and what
//! changed between two inventories under one policy (`urlkey diff --policy P OLD NEW`,
//! [`inventories`]).
//!
//! Every record is keyed under both policies. A *merge* is a Q-key reached from several
//! P-keys; a *split* is a P-key that becomes several Q-keys; a record is *changed* when its
//! key text changed but its group did not (its P-key and its Q-key correspond one to one).
//! Records valid under one policy only are counted apart. The rules responsible for a
//! merge are those that changed something under Q and not under P on its records (for a
//! split, the reverse).
//!
//! Both forms stream as `map` does ([`crate::map`]): pass one keeps a 128-bit fingerprint
//! per distinct key and whether it meets more than one key of the other side; pass two
//! keys every record again, classifies it, writes its row and gathers the report's
//! examples. Records are never held in memory ([`PolicyDiff`], for a list already in
//! memory, runs the same two passes over it).

pub mod inventories;
mod policies;
pub mod rows;

use std::collections::BTreeMap;

use serde::Serialize;
use urlkey::Policy;

use crate::input::{InputRecord, Skipped};

pub use policies::{Class, DiffError, DiffRun};

/// How many example lines each merge, split or count shows.
const EXAMPLES: usize = 3;

/// An example line.
#[derive(Debug, Serialize)]
pub struct Example {
    /// The input's name.
    pub source: String,
    /// Its line.
    pub line: u64,
    /// The text as read.
    pub observed: String,
    /// Its key under `--from` (`null` when invalid).
    pub key_from: Option<String>,
    /// Its key under `--to` (`null` when invalid).
    pub key_to: Option<String>,
}

/// Several keys of one side that are one key of the other.
#[derive(Debug, Serialize)]
pub struct Group {
    /// The single key (the `--to` key of a merge, the `--from` key of a split).
    pub key: String,
    /// The several keys of the other side, in input order.
    pub keys: Vec<String>,
    /// The records involved.
    pub records: u64,
    /// Rules that changed something under one policy and not the other on those records.
    pub rules: Vec<&'static str>,
    /// The first lines.
    pub examples: Vec<Example>,
}

/// A count with its first lines.
#[derive(Debug, Serialize, Default)]
pub struct Counted {
    /// The records.
    pub records: u64,
    /// By error code (for invalid records).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_code: BTreeMap<&'static str, u64>,
    /// The first lines.
    pub examples: Vec<Example>,
}

/// What `diff --from P --to Q` reports (its JSON form).
#[derive(Debug, Serialize)]
pub struct Report {
    /// `--from`.
    pub from: String,
    /// `--to`.
    pub to: String,
    /// Lines read (records and skipped lines; 0 for [`PolicyDiff`], which reads nothing).
    pub lines_read: u64,
    /// Lines that gave no record (blank, comments).
    pub skipped: Skipped,
    /// Records read.
    pub records: u64,
    /// Records by [`Class`]: every record is in exactly one, so these add up to
    /// `records`.
    pub by_class: BTreeMap<&'static str, u64>,
    /// Distinct keys under `--from`.
    pub keys_from: u64,
    /// Distinct keys under `--to`.
    pub keys_to: u64,
    /// At most this many merges and this many splits are listed; `null`: every one.
    pub limit: Option<u64>,
    /// How many groups merge (`merges` lists them, the first `limit` under a limit).
    pub merge_groups: u64,
    /// How many groups split.
    pub split_groups: u64,
    /// Groups that merge: several `--from` keys become one `--to` key, in input order.
    pub merges: Vec<Group>,
    /// Groups that split: one `--from` key becomes several `--to` keys, in input order.
    pub splits: Vec<Group>,
    /// Records whose key changed while their group did not.
    pub changed: Counted,
    /// Records whose key and group stayed the same.
    pub unchanged: u64,
    /// Invalid under `--from`, valid under `--to`.
    pub invalid_from_only: Counted,
    /// Valid under `--from`, invalid under `--to`.
    pub invalid_to_only: Counted,
    /// Invalid under both.
    pub invalid_both: u64,
}

impl Report {
    /// True when the policies differ on this inventory: some record's key or validity is
    /// not the same under both (every record `unchanged` or `invalid_both`: they do not).
    pub fn differ(&self) -> bool {
        self.records > self.unchanged + self.invalid_both
    }
}

/// Keys records under two policies and compares them, for a list already in memory (the
/// web page's); [`DiffRun`] streams files through the same two passes.
///
/// ```
/// use urlkey::PolicySet;
/// use urlkey_batch::diff::PolicyDiff;
///
/// let set = PolicySet::builtin();
/// let (from, to) = (set.get("citation@1").unwrap(), set.get("webkey@1").unwrap());
/// let mut diff = PolicyDiff::new(&from, &to);
/// diff.add_text(0, 1, "https://www.example.com/A");
/// diff.add_text(0, 2, "https://example.com/a");
/// let report = diff.finish(&["list.txt".to_string()]);
/// assert_eq!((report.keys_from, report.keys_to), (2, 1));
/// assert_eq!(report.merges.len(), 1);
/// assert_eq!(report.by_class["merge"], 2);
/// ```
pub struct PolicyDiff<'p> {
    from: &'p Policy,
    to: &'p Policy,
    records: Vec<InputRecord>,
}

impl<'p> PolicyDiff<'p> {
    /// A diff from `from` to `to`, with no records yet.
    pub fn new(from: &'p Policy, to: &'p Policy) -> Self {
        PolicyDiff {
            from,
            to,
            records: Vec::new(),
        }
    }

    /// Adds one record as read (a reading problem makes it invalid under both).
    pub fn add(&mut self, r: InputRecord) {
        self.records.push(r);
    }

    /// Adds one line of text: `source` is its input's index in the names given to
    /// [`PolicyDiff::finish`], `line` its 1-based line.
    pub fn add_text(&mut self, source: u32, line: u64, text: &str) {
        self.add(InputRecord {
            source,
            line,
            observed: text.to_string(),
            ..InputRecord::default()
        });
    }

    /// The report; `names` are the inputs' names, by source index.
    pub fn finish(self, names: &[String]) -> Report {
        policies::compare_in_memory(self.from, self.to, &self.records, names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{records_from, ReadOptions, RecordSource};
    use crate::pipeline::Pipeline;

    const LIST: &str = "https://s.example/a/b\nhttps://s.example/a/./b\nhttps://s.example/a/b#f\nhttps://t.example/x#y\nnot a url\nhttps://t.example/z\n";

    /// The streamed run (on two workers, chunks of any size) and the in-memory one give
    /// the same report: the web page and the command cannot disagree.
    #[test]
    fn streamed_and_in_memory_reports_are_the_same() {
        let set = urlkey::PolicySet::builtin();
        let (from, to) = (
            set.get("whatwg@1").expect("builtin"),
            set.get("document@1").expect("builtin"),
        );
        let mut mem = PolicyDiff::new(&from, &to);
        for (i, l) in LIST.lines().enumerate() {
            mem.add_text(0, i as u64 + 1, l);
        }
        let names = ["list.txt".to_string()];
        let mem = serde_json::to_value(mem.finish(&names)).expect("json");
        let pipeline = Pipeline::new(2).expect("pipeline");
        let open = || -> Result<Box<dyn RecordSource>, crate::input::InputError> {
            records_from(
                Box::new(LIST.as_bytes()),
                "list.txt".into(),
                &ReadOptions::default(),
            )
        };
        let run = DiffRun {
            from: &from,
            to: &to,
            pipeline: &pipeline,
            sources: &names,
            notice: None,
            limit: None,
        };
        let mut streamed = serde_json::to_value(run.run(&open, None).expect("run")).expect("json");
        // Only the reader counts lines.
        assert_eq!(streamed["lines_read"], 6);
        streamed["lines_read"] = 0.into();
        assert_eq!(streamed, mem);
        assert_eq!(mem["by_class"]["merge_split"], 1);
        assert_eq!(
            mem["by_class"]["changed"], 1,
            "t.example/x#y loses its fragment alone"
        );
        assert_eq!(mem["by_class"]["invalid_both"], 1);
        assert_eq!(mem["unchanged"], 1);
    }
}

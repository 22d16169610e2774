//! What `diff --from P --to Q` reports: its counts, the groups that merge or split, and
//! example lines.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::input::Skipped;

/// How many example lines each merge, split or count shows.
pub(super) const EXAMPLES: usize = 3;

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
    /// Lines read (records and skipped lines; 0 for [`PolicyDiff`](super::PolicyDiff), which
    /// reads nothing).
    pub lines_read: u64,
    /// Lines that gave no record (blank, comments).
    pub skipped: Skipped,
    /// Records read.
    pub records: u64,
    /// Records by [`Class`](super::Class): every record is in exactly one, so these add up to
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

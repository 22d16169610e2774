//! The rows urlkey writes (a `urlkey key` record, a `urlkey map` row, a `--groups` row),
//! the cells of a map row that only the whole input decides ([`GroupCells`]), and where
//! rows go ([`RowSink`]).

use std::io;

use serde::Serialize;
use urlkey::{Fact, Outcome, Transformation};

use super::columns::{Cell, Table};

/// Where rows go: the text and Parquet writers ([`super::RecordWriter`]), or a
/// caller's own collection (the web page's table).
pub trait RowSink: Send {
    /// Begins a table (a header, a schema); an empty input still gets one.
    fn start(&mut self, table: Table) -> io::Result<()>;
    /// One `urlkey key` record.
    fn key_record(&mut self, r: &KeyRecord<'_>) -> io::Result<()>;
    /// One `urlkey map` row.
    fn map_row(&mut self, r: &MapRow<'_>) -> io::Result<()>;
    /// One `urlkey map --groups` row.
    fn group_row(&mut self, g: &GroupRow) -> io::Result<()>;
}

/// What every exported row of `urlkey map` says (the Legacy URL Mapper spec: "Every exported
/// row says MANUAL REVIEW REQUIRED, including unambiguous groups").
pub const REVIEW: &str = "MANUAL REVIEW REQUIRED";

/// One `urlkey key` record, borrowed for writing.
#[derive(Serialize)]
pub struct KeyRecord<'a> {
    /// Line in the input.
    pub line: u64,
    /// The input as read.
    pub observed: &'a str,
    /// The policy id.
    pub policy: &'a str,
    /// `ok` or `invalid`.
    pub status: urlkey::Status,
    /// The key.
    pub key: Option<&'a str>,
    /// The canonical form.
    pub canonical: Option<&'a str>,
    /// The error.
    pub error: Option<&'a urlkey::KeyError>,
    /// The changes.
    pub transformations: &'a [Transformation],
    /// Tracking parameters removed.
    pub removed_params: &'a [String],
    /// Facts.
    pub facts: &'a [Fact],
    /// PSL version when used.
    pub psl: Option<&'a str>,
    /// The input's name, when the run has more than one input (a [`Tail`](super::Tail) column).
    #[serde(skip)]
    pub source: Option<&'a str>,
    /// The kept columns' cells (a [`Tail`](super::Tail)).
    #[serde(skip)]
    pub kept: &'a [String],
}

impl<'a> KeyRecord<'a> {
    /// A record for an outcome.
    pub fn new(line: u64, observed: &'a str, policy: &'a str, o: &'a Outcome) -> Self {
        KeyRecord {
            line,
            observed,
            policy,
            status: o.status(),
            key: o.key.as_deref(),
            canonical: o.canonical.as_deref(),
            error: o.error.as_ref(),
            transformations: &o.transformations,
            removed_params: &o.removed_params,
            facts: &o.facts,
            psl: o.psl.as_deref(),
            source: None,
            kept: &[],
        }
    }

    /// The same record with its source's name and kept cells.
    pub fn with_input(mut self, source: Option<&'a str>, kept: &'a [String]) -> Self {
        self.source = source;
        self.kept = kept;
        self
    }

    pub(crate) fn tail(&self) -> Vec<Cell<'_>> {
        let mut t = Vec::with_capacity(1 + self.kept.len());
        t.push(Cell::Text(self.source));
        t.extend(self.kept.iter().map(|k| Cell::Text(Some(k.as_str()))));
        t
    }
}

/// One row of `urlkey map`, borrowed for writing.
#[derive(Serialize)]
pub struct MapRow<'a> {
    /// Line in the input.
    pub line: u64,
    /// The input as read.
    pub observed: &'a str,
    /// `ok` or `invalid`.
    pub status: &'a str,
    /// The key.
    pub key: Option<&'a str>,
    /// The grouping signature.
    pub signature: Option<&'a str>,
    /// The signature group's id: the line of its first member (with several inputs, its
    /// `run_line`).
    pub group: Option<u64>,
    /// The line of the first record with the same key (none for that record itself; with
    /// several inputs, its `run_line`).
    pub duplicate_of: Option<u64>,
    /// Records sharing this key, itself included.
    pub duplicates: Option<u64>,
    /// Distinct keys sharing this signature.
    pub variants: Option<u64>,
    /// `invalid`, `review`, `duplicate` or `unique`.
    pub classification: &'a str,
    /// Tracking parameter names removed, joined by `;`.
    pub removed_tracking: String,
    /// The error code.
    pub error_code: Option<&'a str>,
    /// The error message.
    pub error: Option<&'a str>,
    /// Always `MANUAL REVIEW REQUIRED`.
    pub review: &'static str,
    /// The changes (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transformations: Option<&'a [Transformation]>,
    /// Tracking parameters removed, as a list (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_params: Option<&'a [String]>,
    /// Facts (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<&'a [Fact]>,
    /// The record's input, when the run has more than one (a [`Tail`](super::Tail) column).
    #[serde(skip)]
    pub source: Option<&'a str>,
    /// The record's line counted through the run's inputs, when it has more than one
    /// ([`crate::input::InputRecord::run_line`]; a [`Tail`](super::Tail) column).
    #[serde(skip)]
    pub run_line: Option<u64>,
    /// The input holding line `group`.
    #[serde(skip)]
    pub group_source: Option<&'a str>,
    /// The input holding line `duplicate_of`.
    #[serde(skip)]
    pub duplicate_of_source: Option<&'a str>,
    /// The kept columns' cells.
    #[serde(skip)]
    pub kept: &'a [String],
}

impl<'a> MapRow<'a> {
    /// Takes these grouping cells.
    pub(crate) fn set_groups(&mut self, c: GroupCells<'a>) {
        self.group = c.group;
        self.duplicate_of = c.duplicate_of;
        self.duplicates = c.duplicates;
        self.variants = c.variants;
        self.classification = c.classification;
        self.group_source = c.group_source;
        self.duplicate_of_source = c.duplicate_of_source;
    }

    pub(crate) fn tail(&self) -> Vec<Cell<'_>> {
        let mut t = Vec::with_capacity(4 + self.kept.len());
        t.extend([
            Cell::Text(self.source),
            Cell::Int(self.run_line),
            Cell::Text(self.group_source),
            Cell::Text(self.duplicate_of_source),
        ]);
        t.extend(self.kept.iter().map(|k| Cell::Text(Some(k.as_str()))));
        t
    }
}

/// One row of `urlkey map --groups`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GroupRow {
    /// The group id: the line of its first member (with several inputs, its `run_line`).
    pub group: u64,
    /// The signature.
    pub signature: String,
    /// Records in the group.
    pub members: u64,
    /// Distinct keys in the group.
    pub distinct_keys: u64,
    /// `review`, `duplicate` or `unique`.
    pub classification: &'static str,
    /// Up to five members' lines (with several inputs, their `run_line`s).
    pub sample_lines: Vec<u64>,
    /// The input holding line `group`, when the run has more than one (a tail column).
    #[serde(skip)]
    pub group_source: Option<String>,
    /// Always `MANUAL REVIEW REQUIRED`.
    pub review: &'static str,
}

/// The cells of a map row that only the whole input decides (`urlkey map`'s pass one
/// writes a row before its groups are known, and pass two fills these in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GroupCells<'a> {
    pub group: Option<u64>,
    pub duplicate_of: Option<u64>,
    pub duplicates: Option<u64>,
    pub variants: Option<u64>,
    pub classification: &'a str,
    pub group_source: Option<&'a str>,
    pub duplicate_of_source: Option<&'a str>,
}

impl<'a> GroupCells<'a> {
    /// A row's own.
    pub fn of(r: &MapRow<'a>) -> Self {
        GroupCells {
            group: r.group,
            duplicate_of: r.duplicate_of,
            duplicates: r.duplicates,
            variants: r.variants,
            classification: r.classification,
            group_source: r.group_source,
            duplicate_of_source: r.duplicate_of_source,
        }
    }
}

/// How a record is classified (the Legacy URL Mapper spec's grouping rules: duplicate
/// grouping, many-to-one review, invalid-line retention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Classification {
    /// The record produced no key.
    Invalid,
    /// Its signature group holds distinct keys: a person must decide.
    Review,
    /// Several records share its key and nothing else shares its signature.
    Duplicate,
    /// Alone.
    Unique,
}

impl Classification {
    /// The name in output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Classification::Invalid => "invalid",
            Classification::Review => "review",
            Classification::Duplicate => "duplicate",
            Classification::Unique => "unique",
        }
    }

    /// The class of a valid record, or of a group, whose signature group holds `distinct`
    /// keys and whose key (or group) `count` records.
    #[inline]
    pub(crate) fn of(distinct: u64, count: u64) -> Self {
        if distinct > 1 {
            Classification::Review
        } else if count > 1 {
            Classification::Duplicate
        } else {
            Classification::Unique
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::columns::{GROUP_TABLE, KEY_TABLE, MAP_TABLE};

    /// The names of a JSON object's fields, in the order written.
    fn field_order(json: &str, table: Table) -> Vec<&'static str> {
        let mut found: Vec<(usize, &'static str)> = table
            .columns()
            .iter()
            .filter_map(|c| json.find(&format!("\"{}\":", c.name)).map(|i| (i, c.name)))
            .collect();
        found.sort();
        found.into_iter().map(|f| f.1).collect()
    }

    #[test]
    fn jsonl_fields_follow_the_column_tables() {
        let set = urlkey::PolicySet::builtin();
        let p = set.get("citation@1").expect("builtin");
        let o = p.key("https://a.example/x/?utm_source=y");
        let k = serde_json::to_string(&KeyRecord::new(1, "x", "citation@1", &o)).expect("json");
        let names: Vec<&str> = KEY_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&k, Table::Key), names);
        let row = MapRow {
            line: 1,
            observed: "x",
            status: "ok",
            key: Some("k"),
            signature: Some("s"),
            group: Some(1),
            duplicate_of: None,
            duplicates: Some(1),
            variants: Some(1),
            classification: "unique",
            removed_tracking: String::new(),
            error_code: None,
            error: None,
            review: REVIEW,
            transformations: Some(&o.transformations),
            removed_params: Some(&o.removed_params),
            facts: Some(&o.facts),
            source: None,
            run_line: None,
            group_source: None,
            duplicate_of_source: None,
            kept: &[],
        };
        let m = serde_json::to_string(&row).expect("json");
        let names: Vec<&str> = MAP_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&m, Table::Map), names);
        let g = GroupRow {
            group: 1,
            signature: "s".into(),
            members: 1,
            distinct_keys: 1,
            classification: "unique",
            sample_lines: vec![1],
            review: REVIEW,
            group_source: None,
        };
        let g = serde_json::to_string(&g).expect("json");
        let names: Vec<&str> = GROUP_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&g, Table::Groups), names);
    }

    /// A JSONL key record's outcome columns hold what the core's readers read
    /// ([`urlkey::fields`]), under the released names.
    #[test]
    fn key_records_hold_the_core_fields_values() {
        use urlkey::fields::{self, Value};
        let set = urlkey::PolicySet::builtin();
        for id in urlkey::policy::BUILTIN_IDS.iter().copied() {
            let p = set.get(id).expect("builtin");
            for input in [
                "HTTPS://www.BBC.co.uk/news/?utm_source=x&b=2#top",
                "https://www.google.com/url?q=https://news.example.org/a%3Fb%3D1&sa=D",
                "mailto:someone@example.net",
            ] {
                let o = p.key(input);
                let json =
                    serde_json::to_value(KeyRecord::new(1, input, p.id(), &o)).expect("json");
                let row = fields::Row {
                    policy: p.id(),
                    outcome: &o,
                    psl: set.psl(),
                };
                let name = |c: &str| match c {
                    "error_code" => "/error/code",
                    "error_message" => "/error/message",
                    _ => "",
                };
                for f in fields::FIELDS {
                    if crate::rows::columns::KEY_LEFT_OUT.contains(&f.name) {
                        continue;
                    }
                    let path = match name(f.name) {
                        "" => format!("/{}", f.name),
                        p => p.to_string(),
                    };
                    let got = json.pointer(&path).cloned().unwrap_or_default();
                    let want = match f.read(&row) {
                        Value::Text(t) => serde_json::json!(t),
                        Value::TextList(l) => serde_json::json!(l.iter().collect::<Vec<_>>()),
                        Value::Transformations(t) => serde_json::json!(t),
                    };
                    assert_eq!(got, want, "{id} {input} {}", f.name);
                }
            }
        }
    }
}

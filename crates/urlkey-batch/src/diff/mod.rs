//! What an inventory gains and loses when it moves from one policy to another
//! (`urlkey diff --from P --to Q`, the Mapper's policy pair in `urlkey serve`).
//!
//! Every record is keyed under both policies. A *merge* is a Q-key reached from several
//! P-keys; a *split* is a P-key that becomes several Q-keys; a record is *changed* when its
//! key text changed but its group did not (its P-key and its Q-key correspond one to one).
//! Records valid under one policy only are counted apart. The rules responsible for a
//! merge are those that changed something under Q and not under P on its records (for a
//! split, the reverse).
//!
//! This first version holds one small entry per record in memory (keys and rule names),
//! which is fine for inventories of a few million lines; it does not yet stream with
//! fingerprints as `map` does.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use urlkey::Policy;

use crate::input::InputRecord;

/// How many example lines each merge, split or count shows.
const EXAMPLES: usize = 3;

/// One record, keyed twice.
pub(crate) struct Row {
    source: u32,
    line: u64,
    observed: String,
    from: Result<String, &'static str>,
    to: Result<String, &'static str>,
    rules_from: Vec<&'static str>,
    rules_to: Vec<&'static str>,
}

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

/// What `diff` reports (its JSON form).
#[derive(Debug, Serialize)]
pub struct Report {
    /// `--from`.
    pub from: String,
    /// `--to`.
    pub to: String,
    /// Records read.
    pub records: u64,
    /// Distinct keys under `--from`.
    pub keys_from: u64,
    /// Distinct keys under `--to`.
    pub keys_to: u64,
    /// Groups that merge: several `--from` keys become one `--to` key.
    pub merges: Vec<Group>,
    /// Groups that split: one `--from` key becomes several `--to` keys.
    pub splits: Vec<Group>,
    /// Records whose key changed while their group did not.
    pub changed: Counted,
    /// Invalid under `--from`, valid under `--to`.
    pub invalid_from_only: Counted,
    /// Valid under `--from`, invalid under `--to`.
    pub invalid_to_only: Counted,
    /// Invalid under both.
    pub invalid_both: u64,
}

/// Keys records under two policies, one at a time, and compares them at the end.
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
/// ```
pub struct PolicyDiff<'p> {
    from: &'p Policy,
    to: &'p Policy,
    rows: Vec<Row>,
}

impl<'p> PolicyDiff<'p> {
    /// A diff from `from` to `to`, with no records yet.
    pub fn new(from: &'p Policy, to: &'p Policy) -> Self {
        PolicyDiff {
            from,
            to,
            rows: Vec::new(),
        }
    }

    /// Keys one record as read (a reading problem makes it invalid under both).
    pub fn add(&mut self, r: InputRecord) {
        let row = row(r, self.from, self.to);
        self.rows.push(row);
    }

    /// Keys one line of text: `source` is its input's index in the names given to
    /// [`PolicyDiff::finish`], `line` its 1-based line.
    pub fn add_text(&mut self, source: u32, line: u64, text: &str) {
        self.add(InputRecord {
            source,
            line,
            observed: text.to_string(),
            problem: None,
            kept: Vec::new(),
            fields: 0,
            overflow: Vec::new(),
        });
    }

    /// The report; `names` are the inputs' names, by source index.
    pub fn finish(self, names: &[String]) -> Report {
        compare(&self.rows, names, self.from.id(), self.to.id())
    }
}

fn row(r: InputRecord, from: &Policy, to: &Policy) -> Row {
    let key = |p: &Policy| match &r.problem {
        Some(e) => (Err(e.code.as_str()), Vec::new()),
        None => {
            let o = p.key(&r.observed);
            let names = o.rule_names();
            match (o.key, o.error) {
                (Some(k), _) => (Ok(k), names),
                (None, e) => (Err(e.map_or("?", |e| e.code.as_str())), names),
            }
        }
    };
    let (f, rules_from) = key(from);
    let (t, rules_to) = key(to);
    Row {
        source: r.source,
        line: r.line,
        observed: r.observed,
        from: f,
        to: t,
        rules_from,
        rules_to,
    }
}

fn example(r: &Row, names: &[String]) -> Example {
    Example {
        source: names.get(r.source as usize).cloned().unwrap_or_default(),
        line: r.line,
        observed: r.observed.clone(),
        key_from: r.from.as_ref().ok().cloned(),
        key_to: r.to.as_ref().ok().cloned(),
    }
}

/// Keys in first-seen order, each with the other side's keys and its rows.
#[derive(Default)]
struct Side<'a> {
    order: Vec<&'a str>,
    other: HashMap<&'a str, (Vec<&'a str>, Vec<usize>)>,
}

impl<'a> Side<'a> {
    fn add(&mut self, key: &'a str, other: &'a str, row: usize) {
        let e = self.other.entry(key).or_insert_with(|| {
            self.order.push(key);
            (Vec::new(), Vec::new())
        });
        if !e.0.contains(&other) {
            e.0.push(other);
        }
        e.1.push(row);
    }
    fn fanout(&self, key: &str) -> usize {
        self.other.get(key).map_or(0, |e| e.0.len())
    }
}

fn compare(rows: &[Row], names: &[String], from: &str, to: &str) -> Report {
    let mut by_from = Side::default();
    let mut by_to = Side::default();
    let mut keys_from: std::collections::HashSet<&str> = Default::default();
    let mut keys_to: std::collections::HashSet<&str> = Default::default();
    let mut invalid_from_only = Counted::default();
    let mut invalid_to_only = Counted::default();
    let mut invalid_both = 0;
    for (i, r) in rows.iter().enumerate() {
        match (&r.from, &r.to) {
            (Ok(f), Ok(t)) => {
                keys_from.insert(f);
                keys_to.insert(t);
                by_from.add(f, t, i);
                by_to.add(t, f, i);
            }
            (Err(code), Ok(t)) => {
                keys_to.insert(t);
                count(&mut invalid_from_only, code, r, names);
            }
            (Ok(f), Err(code)) => {
                keys_from.insert(f);
                count(&mut invalid_to_only, code, r, names);
            }
            (Err(_), Err(_)) => invalid_both += 1,
        }
    }
    let group = |side: &Side<'_>, key: &str, merge: bool| -> Group {
        let (others, idx) = &side.other[key];
        let mut rules: Vec<&'static str> = Vec::new();
        for &i in idx {
            let r = &rows[i];
            let (mine, theirs) = if merge {
                (&r.rules_to, &r.rules_from)
            } else {
                (&r.rules_from, &r.rules_to)
            };
            for n in mine {
                if !theirs.contains(n) && !rules.contains(n) {
                    rules.push(n);
                }
            }
        }
        Group {
            key: key.to_string(),
            keys: others.iter().map(|s| s.to_string()).collect(),
            records: idx.len() as u64,
            rules,
            examples: idx
                .iter()
                .take(EXAMPLES)
                .map(|&i| example(&rows[i], names))
                .collect(),
        }
    };
    let merges = by_to
        .order
        .iter()
        .filter(|k| by_to.fanout(k) > 1)
        .map(|k| group(&by_to, k, true))
        .collect();
    let splits = by_from
        .order
        .iter()
        .filter(|k| by_from.fanout(k) > 1)
        .map(|k| group(&by_from, k, false))
        .collect();
    let mut changed = Counted::default();
    for r in rows {
        if let (Ok(f), Ok(t)) = (&r.from, &r.to) {
            if f != t && by_from.fanout(f) == 1 && by_to.fanout(t) == 1 {
                changed.records += 1;
                if changed.examples.len() < EXAMPLES {
                    changed.examples.push(example(r, names));
                }
            }
        }
    }
    Report {
        from: from.to_string(),
        to: to.to_string(),
        records: rows.len() as u64,
        keys_from: keys_from.len() as u64,
        keys_to: keys_to.len() as u64,
        merges,
        splits,
        changed,
        invalid_from_only,
        invalid_to_only,
        invalid_both,
    }
}

fn count(c: &mut Counted, code: &'static str, r: &Row, names: &[String]) {
    c.records += 1;
    *c.by_code.entry(code).or_default() += 1;
    if c.examples.len() < EXAMPLES {
        c.examples.push(example(r, names));
    }
}

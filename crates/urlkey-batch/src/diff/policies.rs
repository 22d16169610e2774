//! The two passes of `urlkey diff --from P --to Q`.
//!
//! Pass one keys every record under both policies through the lean key path and keeps,
//! per fingerprint of a key, the first key of the other policy it met and whether it met
//! another ([`Tables`]): that is all a record's class needs. Pass two keys each record
//! again with the transformation log, classifies it ([`Class`]), hands its row to the
//! writer and feeds the report ([`Collector`]), which keeps texts only for merges and
//! splits and a few examples.

use std::collections::{BTreeMap, HashSet};

use hashbrown::HashMap;
use urlkey::Policy;

use super::report::{Counted, Example, Group, Report, EXAMPLES};
use super::rows::{DiffRowWrite, PolicyRow};
use crate::input::{InputError, InputRecord, RecordSource, Skipped};
use crate::map::{fingerprint, Fingerprint, FingerprintHasher, Pass};
use crate::pipeline::{Pipeline, RunError};

/// Records per unit of work handed to a worker thread (as in `map`).
const CHUNK: usize = 512;

/// What became of one record between the two policies. Every record has exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Its `--to` key is reached from several `--from` keys (and its `--from` key leads
    /// to one `--to` key).
    Merge,
    /// Its `--from` key leads to several `--to` keys (and its `--to` key comes from one).
    Split,
    /// Both at once: its `--to` key merges and its `--from` key splits.
    MergeSplit,
    /// Its key text changed, its group did not.
    Changed,
    /// The same key under both.
    Unchanged,
    /// Invalid under `--from`, valid under `--to`.
    InvalidFromOnly,
    /// Valid under `--from`, invalid under `--to`.
    InvalidToOnly,
    /// Invalid under both (a reading problem is invalid under both).
    InvalidBoth,
}

impl Class {
    /// Every class, in the order the summary lists them.
    pub const ALL: [Class; 8] = [
        Class::Merge,
        Class::Split,
        Class::MergeSplit,
        Class::Changed,
        Class::Unchanged,
        Class::InvalidFromOnly,
        Class::InvalidToOnly,
        Class::InvalidBoth,
    ];

    /// The name in rows and in the report's `by_class`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Class::Merge => "merge",
            Class::Split => "split",
            Class::MergeSplit => "merge_split",
            Class::Changed => "changed",
            Class::Unchanged => "unchanged",
            Class::InvalidFromOnly => "invalid_from_only",
            Class::InvalidToOnly => "invalid_to_only",
            Class::InvalidBoth => "invalid_both",
        }
    }
}

/// One key's partner on the other side.
#[derive(Clone, Copy)]
struct Partner {
    /// The first key of the other policy met with this one (meaningful when `pairs > 0`).
    other: Fingerprint,
    /// Records valid under both with this key.
    pairs: u64,
    /// It met more than one key of the other policy.
    several: bool,
}

const UNPAIRED: Partner = Partner {
    other: 0,
    pairs: 0,
    several: false,
};

type Table = HashMap<Fingerprint, Partner, FingerprintHasher>;

/// The state of pass one: every distinct key of each policy and whether it fans out.
#[derive(Default)]
pub(crate) struct Tables {
    from: Table,
    to: Table,
}

/// Pass one's view of a record: the fingerprints of its two keys (`None`: invalid).
pub(crate) type Pair = (Option<Fingerprint>, Option<Fingerprint>);

impl Tables {
    pub(crate) fn insert(&mut self, (f, t): Pair) {
        match (f, t) {
            (Some(f), Some(t)) => {
                link(&mut self.from, f, t);
                link(&mut self.to, t, f);
            }
            (Some(f), None) => {
                self.from.entry(f).or_insert(UNPAIRED);
            }
            (None, Some(t)) => {
                self.to.entry(t).or_insert(UNPAIRED);
            }
            (None, None) => {}
        }
    }

    fn several(table: &Table, key: Fingerprint) -> bool {
        table.get(&key).is_some_and(|p| p.several)
    }
}

fn link(table: &mut Table, key: Fingerprint, other: Fingerprint) {
    let p = table.entry(key).or_insert(UNPAIRED);
    if p.pairs == 0 {
        p.other = other;
    } else if p.other != other {
        p.several = true;
    }
    p.pairs += 1;
}

/// Pass one's work on a record, through the lean key path with reused buffers.
pub(crate) fn pair(from: &Policy, to: &Policy, r: &InputRecord, buf: &mut String) -> Pair {
    if r.problem.is_some() {
        return (None, None);
    }
    let mut key = |p: &Policy| p.key_into(&r.observed, buf).ok().map(|()| fingerprint(buf));
    (key(from), key(to))
}

/// A record keyed under one policy in pass two.
pub(crate) struct Side {
    key: Result<String, &'static str>,
    rules: Vec<&'static str>,
}

/// Pass two's view of a record.
pub(crate) struct Keyed {
    class: Class,
    from: Side,
    to: Side,
}

fn side(p: &Policy, r: &InputRecord, with_rules: bool) -> Side {
    if let Some(e) = &r.problem {
        return Side {
            key: Err(e.code.as_str()),
            rules: Vec::new(),
        };
    }
    if !with_rules {
        // The lean path gives the same key byte for byte, without the log.
        let mut key = String::new();
        return Side {
            key: p
                .key_into(&r.observed, &mut key)
                .map(|()| key)
                .map_err(|c| c.as_str()),
            rules: Vec::new(),
        };
    }
    let o = p.key(&r.observed);
    let rules = o.rule_names();
    match (o.key, o.error) {
        (Some(k), _) => Side { key: Ok(k), rules },
        (None, e) => Side {
            key: Err(e.map_or("?", |e| e.code.as_str())),
            rules,
        },
    }
}

/// Pass two's work on a record: both keys, the class, and the rules when it is in a merge
/// or a split (the only records whose rules the report names).
pub(crate) fn keyed(from: &Policy, to: &Policy, tables: &Tables, r: &InputRecord) -> Keyed {
    let (mut f, mut t) = (side(from, r, false), side(to, r, false));
    let class = match (&f.key, &t.key) {
        (Ok(fk), Ok(tk)) => {
            let merge = Tables::several(&tables.to, fingerprint(tk));
            let split = Tables::several(&tables.from, fingerprint(fk));
            match (merge, split) {
                (true, true) => Class::MergeSplit,
                (true, false) => Class::Merge,
                (false, true) => Class::Split,
                (false, false) if fk != tk => Class::Changed,
                (false, false) => Class::Unchanged,
            }
        }
        (Err(_), Ok(_)) => Class::InvalidFromOnly,
        (Ok(_), Err(_)) => Class::InvalidToOnly,
        (Err(_), Err(_)) => Class::InvalidBoth,
    };
    if matches!(class, Class::Merge | Class::Split | Class::MergeSplit) {
        // A second run with the log: only records in a merge or a split pay for it.
        f = side(from, r, true);
        t = side(to, r, true);
    }
    Keyed {
        class,
        from: f,
        to: t,
    }
}

/// One merge or split being gathered.
struct GroupAcc {
    group: Group,
    seen: HashSet<String>,
}

/// The state of pass two: counts, the texts of merges and splits, examples.
pub(crate) struct Collector<'a> {
    names: &'a [String],
    /// Merges (and splits) listed at most; a record of a group past it is counted only.
    limit: usize,
    asked: Option<u64>,
    records: u64,
    by_class: BTreeMap<&'static str, u64>,
    merges: Vec<GroupAcc>,
    merge_at: std::collections::HashMap<String, usize>,
    splits: Vec<GroupAcc>,
    split_at: std::collections::HashMap<String, usize>,
    changed: Counted,
    invalid_from_only: Counted,
    invalid_to_only: Counted,
}

impl<'a> Collector<'a> {
    pub(crate) fn new(names: &'a [String], limit: Option<u64>) -> Self {
        Collector {
            names,
            limit: limit.map_or(usize::MAX, |n| n.try_into().unwrap_or(usize::MAX)),
            asked: limit,
            records: 0,
            by_class: Class::ALL.iter().map(|c| (c.as_str(), 0)).collect(),
            merges: Vec::new(),
            merge_at: Default::default(),
            splits: Vec::new(),
            split_at: Default::default(),
            changed: Counted::default(),
            invalid_from_only: Counted::default(),
            invalid_to_only: Counted::default(),
        }
    }

    fn name(&self, r: &InputRecord) -> &'a str {
        self.names.get(r.source as usize).map_or("", |s| s.as_str())
    }

    fn example(&self, r: &InputRecord, k: &Keyed) -> Example {
        Example {
            source: self.name(r).to_string(),
            line: r.line,
            observed: r.observed.clone(),
            key_from: k.from.key.as_ref().ok().cloned(),
            key_to: k.to.key.as_ref().ok().cloned(),
        }
    }

    pub(crate) fn add(&mut self, r: &InputRecord, k: &Keyed) {
        self.records += 1;
        *self.by_class.entry(k.class.as_str()).or_default() += 1;
        let (fk, tk) = (k.from.key.as_ref(), k.to.key.as_ref());
        match k.class {
            Class::Merge | Class::Split | Class::MergeSplit => {
                let (Ok(fk), Ok(tk)) = (fk, tk) else { return };
                if k.class != Class::Split {
                    let ex = self.example(r, k);
                    if let Some(g) = group(&mut self.merges, &mut self.merge_at, tk, self.limit) {
                        g.add(fk, ex, &k.to.rules, &k.from.rules);
                    }
                }
                if k.class != Class::Merge {
                    let ex = self.example(r, k);
                    if let Some(g) = group(&mut self.splits, &mut self.split_at, fk, self.limit) {
                        g.add(tk, ex, &k.from.rules, &k.to.rules);
                    }
                }
            }
            Class::Changed => {
                self.changed.records += 1;
                if self.changed.examples.len() < EXAMPLES {
                    let ex = self.example(r, k);
                    self.changed.examples.push(ex);
                }
            }
            Class::InvalidFromOnly => {
                let ex = self.example(r, k);
                count(&mut self.invalid_from_only, k.from.key.as_ref(), ex);
            }
            Class::InvalidToOnly => {
                let ex = self.example(r, k);
                count(&mut self.invalid_to_only, k.to.key.as_ref(), ex);
            }
            Class::Unchanged | Class::InvalidBoth => {}
        }
    }

    /// The row of a record.
    pub(crate) fn row<'r>(&self, r: &'r InputRecord, k: &'r Keyed) -> PolicyRow<'r>
    where
        'a: 'r,
    {
        let (fk, tk) = (k.from.key.as_ref().ok(), k.to.key.as_ref().ok());
        PolicyRow {
            source: self.name(r),
            line: r.line,
            observed: &r.observed,
            class: k.class.as_str(),
            key_from: fk.map(String::as_str),
            key_to: tk.map(String::as_str),
            group: match k.class {
                Class::Merge | Class::MergeSplit => tk.map(String::as_str),
                Class::Split => fk.map(String::as_str),
                _ => None,
            },
            error_from: k.from.key.as_ref().err().copied(),
            error_to: k.to.key.as_ref().err().copied(),
            review: crate::rows::REVIEW,
            kept: r.kept.iter().map(|c| Some(c.as_str())).collect(),
        }
    }

    pub(crate) fn finish(self, from: &str, to: &str, tables: &Tables, read: Read) -> Report {
        let by_class = self.by_class;
        let groups = |t: &Table| t.values().filter(|p| p.several).count() as u64;
        Report {
            from: from.to_string(),
            to: to.to_string(),
            lines_read: read.lines_read,
            skipped: read.skipped,
            records: self.records,
            keys_from: tables.from.len() as u64,
            keys_to: tables.to.len() as u64,
            limit: self.asked,
            merge_groups: groups(&tables.to),
            split_groups: groups(&tables.from),
            merges: self.merges.into_iter().map(|g| g.group).collect(),
            splits: self.splits.into_iter().map(|g| g.group).collect(),
            changed: self.changed,
            unchanged: by_class[Class::Unchanged.as_str()],
            invalid_from_only: self.invalid_from_only,
            invalid_to_only: self.invalid_to_only,
            invalid_both: by_class[Class::InvalidBoth.as_str()],
            by_class,
        }
    }
}

/// What the reader counted.
#[derive(Default)]
pub(crate) struct Read {
    pub(crate) lines_read: u64,
    pub(crate) skipped: Skipped,
}

/// The group of `key`, started if there is room for one more under `limit`.
fn group<'g>(
    groups: &'g mut Vec<GroupAcc>,
    at: &mut std::collections::HashMap<String, usize>,
    key: &str,
    limit: usize,
) -> Option<&'g mut GroupAcc> {
    if let Some(&i) = at.get(key) {
        return Some(&mut groups[i]);
    }
    if groups.len() >= limit {
        return None;
    }
    let i = *at.entry(key.to_string()).or_insert_with(|| {
        groups.push(GroupAcc {
            group: Group {
                key: key.to_string(),
                keys: Vec::new(),
                records: 0,
                rules: Vec::new(),
                examples: Vec::new(),
            },
            seen: HashSet::new(),
        });
        groups.len() - 1
    });
    Some(&mut groups[i])
}

impl GroupAcc {
    /// One record: `other` its key on the side with several keys; `mine` the rules of
    /// the side that brought it here, `theirs` the other side's.
    fn add(&mut self, other: &str, ex: Example, mine: &[&'static str], theirs: &[&'static str]) {
        let g = &mut self.group;
        g.records += 1;
        if self.seen.insert(other.to_string()) {
            g.keys.push(other.to_string());
        }
        for n in mine {
            if !theirs.contains(n) && !g.rules.contains(n) {
                g.rules.push(n);
            }
        }
        if g.examples.len() < EXAMPLES {
            g.examples.push(ex);
        }
    }
}

fn count(c: &mut Counted, key: Result<&String, &&'static str>, ex: Example) {
    c.records += 1;
    if let Err(code) = key {
        *c.by_code.entry(code).or_default() += 1;
    }
    if c.examples.len() < EXAMPLES {
        c.examples.push(ex);
    }
}

/// [`PolicyDiff::finish`]: both passes over records in memory, on this thread.
pub(super) fn compare_in_memory(
    from: &Policy,
    to: &Policy,
    records: &[InputRecord],
    names: &[String],
) -> Report {
    let mut tables = Tables::default();
    let mut buf = String::new();
    for r in records {
        tables.insert(pair(from, to, r, &mut buf));
    }
    let mut c = Collector::new(names, None);
    for r in records {
        c.add(r, &keyed(from, to, &tables, r));
    }
    c.finish(from.id(), to.id(), &tables, Read::default())
}

/// Settings of one `diff --from P --to Q` run over files.
pub struct DiffRun<'p> {
    /// `--from`.
    pub from: &'p Policy,
    /// `--to`.
    pub to: &'p Policy,
    /// Workers.
    pub pipeline: &'p Pipeline,
    /// The inputs' names, by source index (rows and examples name them).
    pub sources: &'p [String],
    /// Called with each notice about the input (once: in pass one).
    pub notice: Option<&'p (dyn Fn(&str) + Sync)>,
    /// List at most this many merges and this many splits (`None`: every one).
    pub limit: Option<u64>,
    /// Called after each batch with (pass, lines read, bytes read), as `map`'s
    /// ([`crate::map::MapRun::progress`]).
    pub progress: Option<&'p (dyn Fn(Pass, u64, u64) + Sync)>,
}

impl DiffRun<'_> {
    /// Runs both passes; each record's row goes to `rows` when given. `open` is called
    /// twice and must give the same records each time.
    pub fn run(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        mut rows: Option<&mut dyn DiffRowWrite>,
    ) -> Result<Report, RunError> {
        let (from, to) = (self.from, self.to);
        let mut tables = Tables::default();
        let mut src = open().map_err(RunError::Input)?;
        self.pipeline
            .stream(
                src.as_mut(),
                CHUNK,
                |recs| {
                    let mut buf = String::new();
                    recs.iter()
                        .map(|r| pair(from, to, r, &mut buf))
                        .collect::<Vec<_>>()
                },
                |batch, pairs| {
                    pairs.into_iter().flatten().for_each(|p| tables.insert(p));
                    if let Some(n) = self.notice {
                        batch.notices.iter().for_each(|m| n(m));
                    }
                    if let Some(p) = self.progress {
                        p(Pass::Counting, batch.lines_read, batch.bytes_read);
                    }
                    Ok(())
                },
            )
            .map_err(RunError::from)?;
        let read = Read {
            lines_read: src.lines_read(),
            skipped: src.skipped(),
        };
        drop(src);
        let mut c = Collector::new(self.sources, self.limit);
        let mut src = open().map_err(RunError::Input)?;
        if let Some(w) = rows.as_deref_mut() {
            w.start_policy_rows(src.kept_names())
                .map_err(RunError::Output)?;
        }
        let tables_ref = &tables;
        self.pipeline
            .stream(
                src.as_mut(),
                CHUNK,
                |recs| {
                    recs.iter()
                        .map(|r| keyed(from, to, tables_ref, r))
                        .collect::<Vec<_>>()
                },
                |batch, chunks| {
                    // Keyed records first: zip must not take a record past the chunk's end.
                    let all = chunks.iter().flatten();
                    for (k, r) in all.zip(batch.records.iter()) {
                        c.add(r, k);
                        if let Some(w) = rows.as_deref_mut() {
                            w.policy_row(&c.row(r, k)).map_err(RunError::Output)?;
                        }
                    }
                    if let Some(p) = self.progress {
                        p(Pass::Writing, batch.lines_read, batch.bytes_read);
                    }
                    Ok(())
                },
            )
            .map_err(RunError::from)?;
        Ok(c.finish(from.id(), to.id(), &tables, read))
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
        compare_in_memory(self.from, self.to, &self.records, names)
    }
}

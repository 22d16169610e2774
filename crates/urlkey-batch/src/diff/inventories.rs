//! `urlkey diff --policy P OLD NEW`: two inventories under one policy (a site before and
//! after a migration, two crawls, two months of citations). Each key is only in OLD, only
//! in NEW, or in both; a key in both says whether the two sides spell it the same way.
//!
//! Pass one reads OLD then NEW and keeps, per fingerprint of a key and per side, how many
//! records have it, the first one's line, the fingerprint of that record's text and
//! whether another text had the key too. Pass two reads both again for the rows and the
//! report's lists of keys. Records are never held in memory; the listed keys are (each
//! with its first line of each side), which [`InventoryRun::limit`] bounds.

use std::collections::BTreeMap;

use hashbrown::HashMap;
use serde::Serialize;
use urlkey::Policy;

use super::rows::{union_of_kept, DiffRowWrite, InventoryRow};
use crate::input::{InputError, InputRecord, RecordSource, Skipped};
use crate::map::{fingerprint, Fingerprint, FingerprintHasher, Pass};
use crate::pipeline::{Pipeline, ReadBatch, RunError};

/// Records per unit of work handed to a worker thread (as in `map`).
const CHUNK: usize = 512;

/// The two inputs, in the order they are read.
const SIDES: [&str; 2] = ["old", "new"];

/// How the two sides spell a key they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spellings {
    /// Every record on both sides has the same text.
    Same,
    /// Each side spells it one way, and the two ways differ (a migration that changed
    /// the links, not the pages).
    Differ,
    /// At least one side spells it more than one way (the rows show them).
    Several,
}

impl Spellings {
    /// The name in rows and in the report.
    pub const fn as_str(self) -> &'static str {
        match self {
            Spellings::Same => "same",
            Spellings::Differ => "differ",
            Spellings::Several => "several",
        }
    }
}

/// One key on one side.
#[derive(Clone, Copy, Default)]
struct SideState {
    records: u64,
    first_line: u64,
    spelling: Fingerprint,
    several: bool,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    sides: [SideState; 2],
}

impl Entry {
    fn class(&self) -> &'static str {
        match (self.sides[0].records > 0, self.sides[1].records > 0) {
            (true, true) => "both",
            (true, false) => "only_old",
            _ => "only_new",
        }
    }
    fn spellings(&self) -> Option<Spellings> {
        let [o, n] = &self.sides;
        if o.records == 0 || n.records == 0 {
            None
        } else if o.several || n.several {
            Some(Spellings::Several)
        } else if o.spelling == n.spelling {
            Some(Spellings::Same)
        } else {
            Some(Spellings::Differ)
        }
    }
}

/// One side's counts.
#[derive(Debug, Serialize, Default)]
pub struct SideSummary {
    /// The input's name.
    pub input: String,
    /// Lines read (records and skipped lines).
    pub lines_read: u64,
    /// Lines that gave no record.
    pub skipped: Skipped,
    /// Records: `valid + invalid`.
    pub records: u64,
    /// Records with a key.
    pub valid: u64,
    /// Records without a key.
    pub invalid: u64,
    /// Invalid records by error code.
    pub invalid_by_code: BTreeMap<&'static str, u64>,
    /// Distinct keys.
    pub keys: u64,
}

/// A line of one side.
#[derive(Debug, Serialize, Clone)]
pub struct Line {
    /// Its line.
    pub line: u64,
    /// The text as read.
    pub observed: String,
}

/// A key with the first line of each side that has it.
#[derive(Debug, Serialize)]
pub struct KeyExample {
    /// The key.
    pub key: String,
    /// OLD's first line with it.
    pub old: Option<Line>,
    /// NEW's first line with it.
    pub new: Option<Line>,
    /// For a key in both: `same`, `differ` or `several`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spellings: Option<&'static str>,
    /// OLD's records with it.
    pub old_records: u64,
    /// NEW's records with it.
    pub new_records: u64,
}

/// Keys on one side only.
#[derive(Debug, Serialize, Default)]
pub struct OneSide {
    /// Distinct keys.
    pub keys: u64,
    /// Their records.
    pub records: u64,
    /// Every key (the first [`InventoryReport::limit`] under a limit), in input order.
    pub listed: Vec<KeyExample>,
}

/// Keys on both sides.
#[derive(Debug, Serialize, Default)]
pub struct BothSides {
    /// Distinct keys.
    pub keys: u64,
    /// OLD's records with those keys.
    pub old_records: u64,
    /// NEW's records with those keys.
    pub new_records: u64,
    /// Keys by [`Spellings`]: `same`, `differ`, `several` (they add up to `keys`).
    pub spellings: BTreeMap<&'static str, u64>,
    /// Every key (the first [`InventoryReport::limit`] under a limit), in OLD's order.
    pub listed: Vec<KeyExample>,
}

/// What `diff --policy P OLD NEW` reports (its JSON form). The counts add up: for each
/// side, `records = invalid + (only_old|only_new).records + both.(old|new)_records`.
#[derive(Debug, Serialize)]
pub struct InventoryReport {
    /// The policy.
    pub policy: String,
    /// At most this many keys are listed of each kind; `null`: every key.
    pub limit: Option<u64>,
    /// OLD's counts.
    pub old: SideSummary,
    /// NEW's counts.
    pub new: SideSummary,
    /// Keys only in OLD.
    pub only_old: OneSide,
    /// Keys only in NEW.
    pub only_new: OneSide,
    /// Keys in both.
    pub both: BothSides,
}

type Table = HashMap<Fingerprint, Entry, FingerprintHasher>;

/// Settings of one `diff --policy P OLD NEW` run.
pub struct InventoryRun<'p> {
    /// The policy.
    pub policy: &'p Policy,
    /// Workers.
    pub pipeline: &'p Pipeline,
    /// The names of OLD and NEW.
    pub names: [&'p str; 2],
    /// Called with each notice about the input (in pass one).
    pub notice: Option<&'p (dyn Fn(&str) + Sync)>,
    /// List at most this many keys of each kind (`None`: every key).
    pub limit: Option<u64>,
    /// Called after each batch with (pass, lines read, bytes read), OLD's then NEW's,
    /// counted across both sides (as `map`'s, [`crate::map::MapRun::progress`]).
    pub progress: Option<&'p (dyn Fn(Pass, u64, u64) + Sync)>,
}

impl InventoryReport {
    /// True when the sides differ: a key is only in OLD or only in NEW. How a shared key
    /// is spelled, how many records have it and the invalid records do not count.
    pub fn differ(&self) -> bool {
        self.only_old.keys + self.only_new.keys > 0
    }
}

/// Opens one side; called twice per side, it must give the same records each time.
pub type Open<'a> = &'a dyn Fn() -> Result<Box<dyn RecordSource>, InputError>;

/// A record's key, or its error code.
type Keyed = Result<(Fingerprint, String), &'static str>;

fn key_of(policy: &Policy, r: &InputRecord, buf: &mut String) -> Result<Fingerprint, &'static str> {
    if let Some(p) = &r.problem {
        return Err(p.code.as_str());
    }
    policy
        .key_into(&r.observed, buf)
        .map(|()| fingerprint(buf))
        .map_err(|c| c.as_str())
}

impl InventoryRun<'_> {
    /// Runs both passes over `[old, new]`; each record's row goes to `rows` when given.
    ///
    /// ```
    /// use urlkey::PolicySet;
    /// use urlkey_batch::diff::inventories::InventoryRun;
    /// use urlkey_batch::input::{records_from, RecordSource, ReadOptions};
    /// use urlkey_batch::pipeline::Pipeline;
    ///
    /// let policy = PolicySet::builtin().get("citation@1").unwrap();
    /// let pipeline = Pipeline::new(1).unwrap();
    /// let text = |t: &'static str| move || -> Result<Box<dyn RecordSource>, _> {
    ///     records_from(Box::new(t.as_bytes()), "-".to_string(), &ReadOptions::default())
    /// };
    /// let (old, new) = (text("https://a.example/x\nhttps://a.example/gone\n"),
    ///                   text("HTTPS://a.example/x\nhttps://a.example/new\n"));
    /// let run = InventoryRun { policy: &policy, pipeline: &pipeline,
    ///                          names: ["old.txt", "new.txt"], notice: None, limit: None,
    ///                          progress: None };
    /// let report = run.run([&old, &new], None).unwrap();
    /// assert_eq!((report.only_old.keys, report.only_new.keys, report.both.keys), (1, 1, 1));
    /// assert_eq!(report.both.spellings["differ"], 1);
    /// assert_eq!(report.only_old.listed[0].key, "https://a.example/gone");
    /// assert!(report.differ());
    /// ```
    pub fn run(
        &self,
        open: [Open<'_>; 2],
        mut rows: Option<&mut dyn DiffRowWrite>,
    ) -> Result<InventoryReport, RunError> {
        let policy = self.policy;
        let mut table = Table::with_hasher(FingerprintHasher::default());
        let mut sides: [SideSummary; 2] = Default::default();
        // What the sides before this one read, so that the progress counts across both.
        let mut before = (0, 0);
        let mut kept: [Vec<String>; 2] = Default::default();
        for (s, open) in open.iter().enumerate() {
            let summary = &mut sides[s];
            summary.input = self.names[s].to_string();
            let mut src = open().map_err(RunError::Input)?;
            kept[s] = src.kept_names().to_vec();
            let mut last = before;
            self.pipeline
                .stream(
                    src.as_mut(),
                    CHUNK,
                    |recs| {
                        let mut buf = String::new();
                        recs.iter()
                            .map(|r| {
                                key_of(policy, r, &mut buf)
                                    .map(|k| (k, fingerprint(&r.observed), r.line))
                            })
                            .collect::<Vec<_>>()
                    },
                    |batch, chunks| {
                        for k in chunks.into_iter().flatten() {
                            summary.records += 1;
                            match k {
                                Ok((key, spelling, line)) => {
                                    summary.valid += 1;
                                    let e = &mut table.entry(key).or_default().sides[s];
                                    if e.records == 0 {
                                        (e.first_line, e.spelling) = (line, spelling);
                                    } else if e.spelling != spelling {
                                        e.several = true;
                                    }
                                    e.records += 1;
                                }
                                Err(code) => {
                                    summary.invalid += 1;
                                    *summary.invalid_by_code.entry(code).or_default() += 1;
                                }
                            }
                        }
                        if let Some(n) = self.notice {
                            batch.notices.iter().for_each(|m| n(m));
                        }
                        self.report_progress(Pass::Counting, &mut last, before, batch);
                        Ok(())
                    },
                )
                .map_err(RunError::from)?;
            summary.lines_read = src.lines_read();
            summary.skipped = src.skipped();
            before = last;
        }
        before = (0, 0);
        let mut report = self.counts(&table, sides);
        // Pass two: the rows and the examples.
        let (kept, places) = union_of_kept([&kept[0], &kept[1]]);
        if let Some(w) = rows.as_deref_mut() {
            w.start_inventory_rows(&kept).map_err(RunError::Output)?;
        }
        let mut examples = Examples {
            limit: self
                .limit
                .map_or(usize::MAX, |n| n.try_into().unwrap_or(usize::MAX)),
            ..Examples::default()
        };
        for (s, open) in open.iter().enumerate() {
            let mut src = open().map_err(RunError::Input)?;
            let table = &table;
            let places = &places[s];
            let mut last = before;
            self.pipeline
                .stream(
                    src.as_mut(),
                    CHUNK,
                    |recs| {
                        let mut buf = String::new();
                        recs.iter()
                            .map(|r| -> Keyed {
                                key_of(policy, r, &mut buf).map(|fp| (fp, buf.clone()))
                            })
                            .collect::<Vec<_>>()
                    },
                    |batch, chunks| {
                        for (k, r) in chunks.iter().flatten().zip(batch.records.iter()) {
                            let entry = k.as_ref().ok().and_then(|(fp, _)| table.get(fp));
                            if let (Ok((fp, key)), Some(e)) = (k, entry) {
                                if e.sides[s].first_line == r.line {
                                    examples.first_line(&mut report, s, *fp, key, e, r);
                                }
                            }
                            if let Some(w) = rows.as_deref_mut() {
                                let row = InventoryRow {
                                    side: SIDES[s],
                                    source: self.names[s],
                                    line: r.line,
                                    observed: &r.observed,
                                    class: entry.map_or("invalid", Entry::class),
                                    key: k.as_ref().ok().map(|(_, key)| key.as_str()),
                                    old_line: entry.and_then(|e| first(&e.sides[0])),
                                    new_line: entry.and_then(|e| first(&e.sides[1])),
                                    old_records: entry.map(|e| e.sides[0].records),
                                    new_records: entry.map(|e| e.sides[1].records),
                                    spellings: entry
                                        .and_then(Entry::spellings)
                                        .map(Spellings::as_str),
                                    error: k.as_ref().err().copied(),
                                    review: crate::rows::REVIEW,
                                    kept: places
                                        .iter()
                                        .map(|p| p.and_then(|i| r.kept.get(i)))
                                        .map(|c| c.map(String::as_str))
                                        .collect(),
                                };
                                w.inventory_row(&row).map_err(RunError::Output)?;
                            }
                        }
                        self.report_progress(Pass::Writing, &mut last, before, batch);
                        Ok(())
                    },
                )
                .map_err(RunError::from)?;
            before = last;
        }
        Ok(report)
    }

    /// Reports a batch's progress, counted across both sides: `before` is what the sides
    /// before this one read, `last` what has been reported so far.
    fn report_progress(
        &self,
        pass: Pass,
        last: &mut (u64, u64),
        before: (u64, u64),
        batch: &ReadBatch,
    ) {
        *last = (before.0 + batch.lines_read, before.1 + batch.bytes_read);
        if let Some(p) = self.progress {
            p(pass, last.0, last.1);
        }
    }

    /// The report's counts, from pass one.
    fn counts(&self, table: &Table, sides: [SideSummary; 2]) -> InventoryReport {
        let [mut old, mut new] = sides;
        let mut r = InventoryReport {
            policy: self.policy.id().to_string(),
            limit: self.limit,
            old: SideSummary::default(),
            new: SideSummary::default(),
            only_old: OneSide::default(),
            only_new: OneSide::default(),
            both: BothSides {
                spellings: [Spellings::Same, Spellings::Differ, Spellings::Several]
                    .iter()
                    .map(|s| (s.as_str(), 0))
                    .collect(),
                ..BothSides::default()
            },
        };
        for e in table.values() {
            let [o, n] = &e.sides;
            old.keys += u64::from(o.records > 0);
            new.keys += u64::from(n.records > 0);
            match e.spellings() {
                Some(s) => {
                    r.both.keys += 1;
                    r.both.old_records += o.records;
                    r.both.new_records += n.records;
                    *r.both.spellings.entry(s.as_str()).or_default() += 1;
                }
                None if o.records > 0 => {
                    r.only_old.keys += 1;
                    r.only_old.records += o.records;
                }
                None => {
                    r.only_new.keys += 1;
                    r.only_new.records += n.records;
                }
            }
        }
        (r.old, r.new) = (old, new);
        r
    }
}

fn first(s: &SideState) -> Option<u64> {
    (s.records > 0).then_some(s.first_line)
}

/// The lists being gathered in pass two: a key in both is started on OLD's first line
/// and finished on NEW's.
#[derive(Default)]
struct Examples {
    both_at: std::collections::HashMap<Fingerprint, usize>,
    limit: usize,
}

impl Examples {
    fn first_line(
        &mut self,
        report: &mut InventoryReport,
        side: usize,
        fp: Fingerprint,
        key: &str,
        e: &Entry,
        r: &InputRecord,
    ) {
        let line = Line {
            line: r.line,
            observed: r.observed.clone(),
        };
        let example = |old, new| KeyExample {
            key: key.to_string(),
            old,
            new,
            spellings: e.spellings().map(Spellings::as_str),
            old_records: e.sides[0].records,
            new_records: e.sides[1].records,
        };
        match (e.class(), side) {
            ("only_old", _) if report.only_old.listed.len() < self.limit => {
                report.only_old.listed.push(example(Some(line), None))
            }
            ("only_new", _) if report.only_new.listed.len() < self.limit => {
                report.only_new.listed.push(example(None, Some(line)))
            }
            ("both", 0) if report.both.listed.len() < self.limit => {
                self.both_at.insert(fp, report.both.listed.len());
                report.both.listed.push(example(Some(line), None));
            }
            ("both", 1) => {
                if let Some(&i) = self.both_at.get(&fp) {
                    report.both.listed[i].new = Some(line);
                }
            }
            _ => {}
        }
    }
}

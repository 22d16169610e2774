//! The grouping engine of `urlkey map`: which signature group a key is in. Duplicates,
//! variants and a classification for every record (the Legacy URL Mapper spec's grouping
//! rules), with compact state per distinct key. Pass one (`map/mod.rs`) feeds it; pass two
//! asks it for each row's grouping cells through [`GroupLookup`], and the row module
//! (`rows/`) builds and writes the row.
//!
//! Per 128-bit fingerprint of the key it counts how many records share it and where the
//! first one was, and keeps the key's signature fingerprint beside it, in key order. After
//! pass one ([`Grouping::close`]) it sorts those to find each signature's group: its first
//! record and how many distinct keys share it, written into the keys' states. There is no
//! table of signatures: a key's signature is one fingerprint kept in key order, never probed
//! (109 MiB less memory at 10M lines, docs/benchmarks.md, "no signature table").
//!
//! A key's fingerprint is taken with its signature's ([`record_fingerprints`]): the
//! signature is written from the same final parts as the key, so one key always has one
//! signature, and the signature kept with a key's first record is every record's.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashMap;
use urlkey::{ErrorCode, Outcome};

use super::close::{deal, for_each_run, group_share, on_threads};
use super::counted::{CountError, Counted, FingerprintCollision};
use super::dense::Dense;
use super::fingerprint::{record_fingerprints, Fingerprint, FingerprintHasher};
use super::key_state::{
    add_one, ordinal_of, sig_bits, sig_entry, total, Counter, Fp, Group, GroupOf, KeyState,
};
use super::places::Places;
use super::slots::Slots;
use crate::input::{InputRecord, RecordRef, Skipped};
use crate::rows::{group_row, Classification, GroupCells, GroupLookup, GroupRow};

/// What `--groups` shows of a key's records: its signature's text and its first five
/// records' places (a group shows its first five records, its keys' merged).
#[derive(Default)]
struct KeyDetail {
    signature: String,
    firsts: Vec<RecordRef>,
}

/// The ordinal in `states` of the key whose fingerprint is `fp`. The table holds
/// ordinals, not states, so that pass one can note where each record's state is
/// ([`Places`]) and pass two read it there.
fn find(table: &Slots, states: &Dense<KeyState>, fp: Fp) -> Option<usize> {
    table.find(fp.0, |i| states.get(i).is_some_and(|s| s.fp == fp))
}

/// Reads, for each fingerprint, the slot where its probe starts, then the state that slot
/// names: a run of reads that depend on nothing before them, so their cache misses are in
/// flight together, and the probes that follow find their slots and states in the cache.
/// A probe alone waits for its slot, then its state, and the next probe waits its turn:
/// at 5M keys that wait was most of the counting thread's time.
/// The loop that reads the slots keeps them as read: a test of each slot's tag there is a
/// branch on a load still in flight, and its mispredictions cost the overlap (`map` 5-15%
/// slower, measured). Each loop is a short body over a flat array, so that many of its
/// loads fit in the processor's window at once: the hashes are copied out of the chunk's
/// records first (counting alone, in one process, was faster so in 7 of 8 runs, by up
/// to 17%: docs/benchmarks.md, "Slot tables probed a chunk at a time").
fn warm_probes(
    table: &Slots,
    states: &Dense<KeyState>,
    fps: impl Iterator<Item = Fp>,
    probes: &mut Probes,
) {
    let Probes { hashes, slots } = probes;
    hashes.clear();
    hashes.extend(fps.map(|f| f.0));
    slots.clear();
    slots.extend(hashes.iter().map(|&h| table.home(h)));
    for (slot, &h) in slots.iter_mut().zip(hashes.iter()) {
        *slot = Slots::named(*slot, h).map_or(u64::MAX, |i| i as u64);
    }
    let mut read = 0;
    for &i in slots.iter() {
        if let Some(s) = usize::try_from(i).ok().and_then(|i| states.get(i)) {
            read ^= s.fp.0;
        }
    }
    std::hint::black_box(read);
}

/// [`warm_probes`]' buffers: a chunk's hashes, and the slots where their probes start
/// (then the ordinals those slots name).
#[derive(Default)]
struct Probes {
    hashes: Vec<u64>,
    slots: Vec<u64>,
}

/// A valid record's key fingerprint.
fn valid_key_fp(c: &Counted) -> Option<Fp> {
    c.fingerprints.as_ref().ok().map(|&(key, _)| Fp::of(key))
}

/// Counts for the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct MapSummary {
    /// The policy used.
    pub policy: String,
    /// Lines read (records and skipped lines).
    pub lines_read: u64,
    /// Lines skipped.
    pub skipped: Skipped,
    /// Records (one per non-skipped line or row).
    pub records: u64,
    /// Records with a key.
    pub valid: u64,
    /// Records without a key.
    pub invalid: u64,
    /// Invalid records by error code.
    pub invalid_by_code: BTreeMap<String, u64>,
    /// Distinct keys.
    pub distinct_keys: u64,
    /// Distinct signatures.
    pub signature_groups: u64,
    /// Keys shared by more than one record in a signature group of one key.
    pub duplicate_groups: u64,
    /// Signature groups with more than one distinct key.
    pub review_groups: u64,
    /// Worker threads.
    pub threads: usize,
    /// Wall time.
    pub elapsed_seconds: f64,
    /// Lines per second.
    pub lines_per_second: f64,
}

/// The state of pass one.
pub struct Grouping {
    /// Ordinals in `key_states`, hashed by the low half of the key's fingerprint.
    keys: Slots,
    key_states: Dense<KeyState>,
    /// Pass one: each key's signature fingerprint, by key ordinal. [`Grouping::close`]
    /// turns each block into sorted entries ([`sig_entry`]), read to find a signature's
    /// group. There is no signature table: a key's signature is one fingerprint, kept in
    /// order and never probed, and the groups are found once, after pass one (120 MB less
    /// fresh memory at 5M keys, no probe for a new key's
    /// signature, one state read a row for a key alone in its signature).
    signatures: Dense<u128>,
    closed: bool,
    places: Places,
    /// Counters past 32 bits ([`Counter`]), by key ordinal.
    beyond: HashMap<u32, u64>,
    /// Note where each record's state is ([`Places`]): off while pass one keeps its rows in
    /// a temporary file ([`super::spill`]), whose entries carry their states' ordinals.
    placing: bool,
    /// [`Grouping::insert_chunk`]'s buffers.
    found: Vec<Option<usize>>,
    probes: Probes,
    /// Only with `--groups`: per key ordinal, its signature's text and first records.
    key_detail: Vec<KeyDetail>,
    verify: Option<HashMap<Fingerprint, Box<str>, FingerprintHasher>>,
    keep_detail: bool,
    /// With several inputs, per input the lines of those before it
    /// ([`crate::input::RecordSource::run_line_offsets`]): the ids in `group`,
    /// `duplicate_of` and `sample_lines` are run lines then, which name one record across
    /// the inputs as a line names one in its file. Empty for one input: the ids are lines.
    run_offsets: Vec<u64>,
    /// Summary counts so far.
    pub summary: MapSummary,
}

impl Grouping {
    /// Empty state. `verify` keeps every key's text to prove fingerprints distinct;
    /// `groups` keeps signature texts and sample lines for `--groups`.
    pub fn new(policy: &str, verify: bool, groups: bool) -> Self {
        Grouping {
            keys: Slots::default(),
            key_states: Dense::default(),
            signatures: Dense::default(),
            closed: false,
            places: Places::default(),
            beyond: HashMap::new(),
            placing: true,
            found: Vec::new(),
            probes: Probes::default(),
            key_detail: Vec::new(),
            verify: verify.then(|| HashMap::with_hasher(FingerprintHasher::default())),
            keep_detail: groups,
            run_offsets: Vec::new(),
            summary: MapSummary {
                policy: policy.to_string(),
                ..MapSummary::default()
            },
        }
    }

    /// Counts one record.
    pub fn insert(&mut self, at: RecordRef, o: &Outcome) -> Result<(), CountError> {
        let c = Counted::of(at, o, self.verify.is_some(), self.keep_detail);
        self.insert_counted(c)
    }

    /// Counts one record whose fingerprints a worker computed ([`Counted::of`]).
    pub fn insert_counted(&mut self, c: Counted) -> Result<(), CountError> {
        self.insert_found(c, None).map(|_| ())
    }

    /// Counts a worker's chunk of records, in order: [`Grouping::insert_counted`] for each,
    /// with the table probed for the whole chunk before any of its records is inserted.
    /// At millions of distinct keys each probe is a few cache misses; one record's probe
    /// after another's insert waits for them in turn, while a run of probes that depend on
    /// nothing but their own fingerprints has them in flight together.
    pub fn insert_chunk(&mut self, chunk: Vec<Counted>) -> Result<(), CountError> {
        self.insert_chunk_placed(chunk, &mut |_| {})
    }

    /// [`Grouping::insert_chunk`], handing each record's key ordinal (or `None` for an
    /// invalid record) to `placed`, in order.
    pub(crate) fn insert_chunk_placed(
        &mut self,
        chunk: Vec<Counted>,
        placed: &mut dyn FnMut(Option<usize>),
    ) -> Result<(), CountError> {
        let mut found = std::mem::take(&mut self.found);
        let mut probes = std::mem::take(&mut self.probes);
        found.clear();
        let key_fps = chunk.iter().filter_map(valid_key_fp);
        warm_probes(&self.keys, &self.key_states, key_fps, &mut probes);
        self.probes = probes;
        found.extend(
            chunk
                .iter()
                .map(|c| valid_key_fp(c).and_then(|kf| self.find_key(kf))),
        );
        let result = chunk
            .into_iter()
            .zip(found.iter())
            .try_for_each(|(c, &f)| self.insert_found(c, f).map(&mut *placed));
        self.found = found;
        result
    }

    /// The key's ordinal, where the key table has it. Found before the records ahead of
    /// it in a chunk are inserted, a `None` may since have turned into an ordinal; an
    /// ordinal stays right, since states are never removed or moved.
    fn find_key(&self, kf: Fp) -> Option<usize> {
        find(&self.keys, &self.key_states, kf)
    }

    /// [`Grouping::insert_counted`] with the key's ordinal that [`Grouping::insert_chunk`]
    /// found before the records ahead of it in its chunk were inserted; the ordinal of the
    /// record's key state, for a valid record.
    fn insert_found(
        &mut self,
        c: Counted,
        found: Option<usize>,
    ) -> Result<Option<usize>, CountError> {
        debug_assert!(!self.closed, "a record counted after close");
        self.summary.records += 1;
        let (kf, sf) = match c.fingerprints {
            Ok(f) => f,
            Err(code) => {
                self.summary.invalid += 1;
                let code = code.map_or("unknown", ErrorCode::as_str);
                *self
                    .summary
                    .invalid_by_code
                    .entry(code.to_string())
                    .or_default() += 1;
                return Ok(None);
            }
        };
        self.summary.valid += 1;
        if let (Some(v), Some(key)) = (&mut self.verify, c.key) {
            let known = v.entry(kf).or_insert_with(|| key.clone());
            if *known != key {
                return Err(CountError::Collision(FingerprintCollision {
                    first: known.to_string(),
                    second: key.to_string(),
                }));
            }
        }
        let (at, kf) = (c.at, Fp::of(kf));
        let key = match found.or_else(|| self.find_key(kf)) {
            Some(k) => {
                let count = &mut self.key_states[k].count;
                add_one(count, &mut self.beyond, k as u32);
                if let Some(d) = self.key_detail.get_mut(k) {
                    if d.firsts.len() < 5 {
                        d.firsts.push(at);
                    }
                }
                k
            }
            None => {
                let n = self.key_states.len();
                let ordinal = ordinal_of(n)?;
                self.key_states.push(KeyState {
                    fp: kf,
                    first: at,
                    count: Counter(1),
                    // Until close: the signature fingerprint's low 32 bits, which its
                    // entry does not keep ([`sig_entry`]).
                    group: Group::new(sf as u32),
                });
                // A key has one signature ([`record_fingerprints`]): kept with its first
                // record's, which the key's fingerprint was taken with.
                self.signatures.push(sf);
                let states = &self.key_states;
                self.keys.insert(kf.0, ordinal, |i| states[i as usize].fp.0);
                if self.keep_detail {
                    self.key_detail.push(KeyDetail {
                        signature: c.signature.map(str::into_string).unwrap_or_default(),
                        firsts: vec![at],
                    });
                }
                n
            }
        };
        if self.placing {
            self.places.note(at, key);
        }
        Ok(Some(key))
    }

    /// The inputs' run line offsets, once pass one has read them all
    /// ([`crate::input::RecordSource::run_line_offsets`]).
    pub(crate) fn set_run_offsets(&mut self, offsets: &[u64]) {
        self.run_offsets = offsets.to_vec();
    }

    /// The id a row gives the record at `at`: its line, or with several inputs its run
    /// line. Only pass one's records are named, whose inputs all have an offset; the
    /// `min` keeps any other place from panicking.
    fn id_of(&self, at: RecordRef) -> u64 {
        match self.run_offsets.len() {
            0 => at.line(),
            n => self.run_offsets[(at.source() as usize).min(n - 1)] + at.line(),
        }
    }

    /// Stops or starts noting [`Places`]; a record counted while off is probed in pass two.
    pub(crate) fn set_placing(&mut self, on: bool) {
        self.placing = on;
    }

    /// The state of a valid record's key: where pass one noted it ([`Places`]) when it is
    /// its own, else from the table.
    fn key_of(&self, at: RecordRef, kf: Fp) -> Option<usize> {
        let own = |k: usize| (self.key_states.get(k)?.fp == kf).then_some(k);
        self.places
            .get(at)
            .and_then(own)
            .or_else(|| self.find_key(kf))
    }

    /// Reads the states pass one placed for `recs` (`places.rs`), before their rows are
    /// made: one record's row after another's waits for its cache misses in turn, while
    /// this loop has them in flight together. What it reads goes to `black_box`, so that
    /// the reads are not optimized away.
    pub fn warm(&self, recs: &[InputRecord]) {
        let ordinals: Vec<usize> = recs
            .iter()
            .filter_map(|r| self.places.get(RecordRef::of(r)))
            .collect();
        self.warm_keys(&ordinals, &mut Vec::new());
    }

    /// Finds the signature groups and fills in the group counts of the summary; call
    /// after pass one. Each block of signatures is sorted in place (`sig_entry`) and the
    /// blocks are read merged: the keys of one signature come together, least ordinal
    /// (its lead, whose first record is the group's) first. Only the states of keys that
    /// share their signature are written: every key starts as a group of one.
    pub fn close(&mut self) {
        self.close_on(1);
    }

    /// [`Grouping::close`] on up to `threads` threads (the run's): the blocks are sorted
    /// side by side, then each thread reads merged the entries of its share of the
    /// fingerprints' range (a signature's entries are all in one share) and the key states
    /// are finished block by block. On one thread this step took 0.5 s of a 7 s two-thread
    /// `map` of 10M lines while the second core sat idle; now 0.26-0.29 s (docs/benchmarks.md,
    /// "the step between the passes on both threads").
    pub fn close_on(&mut self, threads: usize) {
        if self.closed {
            return;
        }
        self.closed = true;
        let threads = threads.max(1);
        let Grouping {
            signatures,
            key_states,
            ..
        } = self;
        let blocks: Vec<(usize, &mut Vec<u128>)> = signatures.blocks_mut().enumerate().collect();
        on_threads(deal(blocks, threads), |share| {
            for (b, block) in share {
                let base = b * super::dense::BLOCK;
                for (i, e) in block.iter_mut().enumerate() {
                    // Ordinals went through `ordinal_of`: they fit.
                    *e = sig_entry(*e, (base + i) as u32);
                }
                block.sort_unstable();
            }
        });
        // Keys whose group a share wrote: the rest are groups of one.
        let grouped: Vec<AtomicU64> = (0..key_states.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let (blocks, states, marks) = (signatures.blocks(), &*key_states, &grouped[..]);
        let shares = on_threads((0..threads).collect(), |t| {
            group_share(blocks, states, marks, t, threads)
        });
        let groups = shares.iter().map(|s| s.0).sum();
        let review = shares.iter().map(|s| s.1).sum();
        // Every other key is alone in its signature; one of those seen more than once is a
        // duplicate group.
        let blocks: Vec<(usize, &mut Vec<KeyState>)> =
            key_states.blocks_mut().enumerate().collect();
        let duplicates: u64 = on_threads(deal(blocks, threads), |share| {
            let mut duplicates = 0;
            for (b, block) in share {
                let base = b * super::dense::BLOCK;
                for (i, state) in block.iter_mut().enumerate() {
                    let k = base + i;
                    if marks[k / 64].load(Ordering::Relaxed) & (1 << (k % 64)) == 0 {
                        state.group.set(Group::ALONE);
                        duplicates += u64::from(state.count.0 > 1);
                    }
                }
            }
            duplicates
        })
        .into_iter()
        .sum();
        self.summary.distinct_keys = self.key_states.len() as u64;
        self.summary.signature_groups = groups;
        self.summary.review_groups = review;
        self.summary.duplicate_groups = duplicates;
    }

    /// After [`Grouping::close`]: calls `each` with the key ordinals of each signature
    /// group, its lead first.
    fn for_each_group(&self, mut each: impl FnMut(&[u32])) {
        let lead_of = |k: u32| match self.key_states.get(k as usize).map(|s| s.group.read()) {
            Some(Err(lead)) => lead as u32,
            _ => k,
        };
        let (mut by_lead, mut keys): (Vec<(u32, u32)>, Vec<u32>) = (Vec::new(), Vec::new());
        for_each_run(self.signatures.blocks(), |run| {
            if run.len() == 1 {
                return each(run);
            }
            by_lead.clear();
            by_lead.extend(run.iter().map(|&k| (lead_of(k), k)));
            by_lead.sort_unstable();
            for group in by_lead.chunk_by(|a, b| a.0 == b.0) {
                keys.clear();
                keys.extend(group.iter().map(|&(_, k)| k));
                each(&keys);
            }
        });
    }

    /// The signature group of the key state at `k` (after [`Grouping::close`]).
    fn group_of(&self, k: &KeyState) -> Option<GroupOf> {
        debug_assert!(self.closed, "groups read before close");
        match k.group.read() {
            Ok(distinct) => Some(GroupOf {
                first: k.first,
                distinct,
            }),
            Err(lead) => {
                let l = self.key_states.get(lead)?;
                let distinct = l.group.read().ok()?;
                Some(GroupOf {
                    first: l.first,
                    distinct,
                })
            }
        }
    }

    /// The signature group of a signature fingerprint, for a record whose key pass one did
    /// not see (an input changed between the passes): a search of the sorted blocks. The
    /// entries keep 96 bits of the fingerprint: where two signatures pass one saw agree in
    /// those (odds of about n^2 / 2^97), this takes the group of the one seen first.
    fn group_of_signature(&self, sf: Fingerprint) -> Option<GroupOf> {
        let bits = sig_bits(sig_entry(sf, 0));
        let lead = self
            .signatures
            .blocks()
            .iter()
            .filter_map(|b| {
                let i = b.partition_point(|&e| sig_bits(e) < bits);
                b.get(i)
                    .filter(|&&e| sig_bits(e) == bits)
                    .map(|&e| e as u32)
            })
            .min()?;
        self.key_states
            .get(lead as usize)
            .and_then(|k| self.group_of(k))
    }

    /// The grouping cells of the valid record at `here` whose key state is `k` (none: a
    /// record pass one did not see, alone in its key) in signature group `group` (none:
    /// one pass one did not see, alone in it too).
    fn cells_of<'a>(
        &self,
        here: RecordRef,
        k: Option<(usize, &KeyState)>,
        group: Option<GroupOf>,
        sources: &'a [String],
    ) -> GroupCells<'a> {
        let name = |r: RecordRef| sources.get(r.source() as usize).map(String::as_str);
        let count = k.map_or(1, |(i, k)| total(k.count, &self.beyond, i as u32));
        let k = k.map(|(_, k)| k);
        let distinct = group.map_or(1, |g| u64::from(g.distinct));
        let first = k.map(|k| k.first).filter(|&f| f != here);
        let classification = Classification::of(distinct, count);
        GroupCells {
            group: group.map(|g| self.id_of(g.first)),
            duplicate_of: first.map(|f| self.id_of(f)),
            duplicates: Some(count),
            variants: Some(distinct),
            classification: classification.as_str(),
            group_source: group.and_then(|g| name(g.first)),
            duplicate_of_source: first.and_then(name),
        }
    }

    /// Reads the key states at `ordinals`, then the states of the leads of those whose
    /// group has more than one key, before rows are made from them: each loop has its
    /// cache misses in flight together ([`Grouping::warm`]). Ordinals this grouping does
    /// not have (an invalid record's `u32::MAX` among them) are skipped. `leads` is a
    /// buffer.
    pub(crate) fn warm_keys(&self, ordinals: &[usize], leads: &mut Vec<usize>) {
        let mut read = 0;
        leads.clear();
        for &k in ordinals {
            if let Some(k) = self.key_states.get(k) {
                read ^= k.count.0;
                if let Err(lead) = k.group.read() {
                    leads.push(lead);
                }
            }
        }
        for &l in leads.iter() {
            read ^= self.key_states.get(l).map_or(0, |k| k.group.get());
        }
        std::hint::black_box(read);
    }

    /// Key states so far: the ordinal the next new key gets.
    pub(crate) fn key_states_len(&self) -> usize {
        self.key_states.len()
    }

    /// One row per signature group (needs `groups` at creation), ordered by input and
    /// group id; `sources` names the run's inputs when it has more than one, else is empty.
    pub fn group_rows(&self, sources: &[String]) -> Vec<GroupRow> {
        if !self.keep_detail {
            return Vec::new();
        }
        let groups = usize::try_from(self.summary.signature_groups).unwrap_or(0);
        let mut rows: Vec<(RecordRef, GroupRow)> = Vec::with_capacity(groups);
        self.for_each_group(|run| {
            let keys: Vec<(usize, &KeyState, &KeyDetail)> = run
                .iter()
                .filter_map(|&k| {
                    let k = k as usize;
                    Some((k, self.key_states.get(k)?, self.key_detail.get(k)?))
                })
                .collect();
            let Some(&(_, lead, lead_detail)) = keys.first() else {
                return;
            };
            let members: u64 = keys
                .iter()
                .map(|&(i, k, _)| total(k.count, &self.beyond, i as u32))
                .sum();
            // The group's first five records: the least of its keys' first five each.
            let mut firsts: Vec<RecordRef> = keys
                .iter()
                .flat_map(|(_, _, d)| d.firsts.iter().copied())
                .collect();
            firsts.sort_unstable();
            firsts.truncate(5);
            let first = lead.first;
            rows.push((
                first,
                group_row(
                    self.id_of(first),
                    sources.get(first.source() as usize).cloned(),
                    lead_detail.signature.clone(),
                    members,
                    keys.len() as u64,
                    firsts.iter().map(|&r| self.id_of(r)).collect(),
                ),
            ));
        });
        rows.sort_by_key(|r| r.0);
        rows.into_iter().map(|r| r.1).collect()
    }
}

/// The grouping's answer for a row: which signature group its key is in.
impl GroupLookup for Grouping {
    fn cells<'s>(
        &self,
        here: RecordRef,
        key: &str,
        signature: &str,
        sources: &'s [String],
    ) -> GroupCells<'s> {
        let (kf, sf) = record_fingerprints(key, signature);
        let cells = self
            .key_of(here, Fp::of(kf))
            .and_then(|k| self.cells_at(here, k, sources));
        // A key pass one did not see (the input changed between the passes) is alone in
        // its key; its signature may still have a group.
        cells.unwrap_or_else(|| self.cells_of(here, None, self.group_of_signature(sf), sources))
    }

    /// [`Grouping::insert_chunk_placed`] gives the ordinals.
    fn cells_at<'s>(
        &self,
        here: RecordRef,
        k: usize,
        sources: &'s [String],
    ) -> Option<GroupCells<'s>> {
        let ks = self.key_states.get(k)?;
        let group = self.group_of(ks)?;
        Some(self.cells_of(here, Some((k, ks)), Some(group), sources))
    }
}

#[cfg(test)]
mod tests;

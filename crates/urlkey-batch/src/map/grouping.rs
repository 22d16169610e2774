//! The grouping engine of `urlkey map` (seed 000): duplicates, variants and a
//! classification for every record, with compact state per distinct key. Pass one
//! ([`super::MapRun`]) feeds it; pass two reads its counts.
//!
//! Per 128-bit fingerprint of the key it counts how many records share it and where the
//! first one was, and keeps the key's signature fingerprint beside it, in key order. After
//! pass one ([`Grouping::close`]) it sorts those to find each signature's group: its first
//! record and how many distinct keys share it, written into the keys' states. There is no
//! table of signatures (issue 19, fourteenth round).
//!
//! A key's fingerprint is taken with its signature's ([`record_fingerprints`]): the
//! signature is written from the same final parts as the key, so one key always has one
//! signature, and the signature kept with a key's first record is every record's.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use hashbrown::HashMap;
use urlkey::{ErrorCode, Outcome, Policy};

use super::dense::Dense;
use super::slots::Slots;
use crate::input::{InputRecord, RecordRef, Skipped};
use crate::output::{join_names, GroupCells};
pub use crate::rows::GroupRow;
use crate::rows::{MapRow, REVIEW};

/// A 128-bit fingerprint (XXH3-128).
pub type Fingerprint = u128;

/// The fingerprint of a key or signature.
#[inline]
pub fn fingerprint(text: &str) -> Fingerprint {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// A valid record's key and signature fingerprints, as `map` counts them: the key's is
/// taken with the signature's as its seed, so that equal key fingerprints mean equal
/// signatures too (with the odds of a 128-bit collision). The signature is written from
/// the same final parts as the key (`host[:port]`, the path, the query's names), so a
/// key has one signature and this is one fingerprint per key; were a key ever written
/// with two signatures, it would be counted as two keys, each in its own signature group,
/// rather than put in a group its signature is not.
#[inline]
pub fn record_fingerprints(key: &str, signature: &str) -> (Fingerprint, Fingerprint) {
    let sig = fingerprint(signature);
    let key = xxhash_rust::xxh3::xxh3_128_with_seed(key.as_bytes(), sig as u64);
    (key, sig)
}

/// The fingerprints are already uniform: hash tables use their low 64 bits as is.
#[derive(Clone, Copy, Default)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl BuildHasher for FingerprintHasher {
    type Hasher = FingerprintHasher;
    fn build_hasher(&self) -> FingerprintHasher {
        FingerprintHasher(0)
    }
}

/// A fingerprint in a state: two 64-bit halves, so that a state is aligned to 8 bytes,
/// not 16 (a `u128` padded a 24-byte state to 48 bytes). The tables hash by its low half.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Fp(u64, u64);

impl Fp {
    #[inline]
    fn of(f: Fingerprint) -> Self {
        Fp(f as u64, (f >> 64) as u64)
    }
}

/// Per distinct key, in a dense vector (`Grouping::key_states`, 32 bytes) that the key
/// table indexes ([`Slots`]: 8 bytes a slot, the ordinal and 32 bits of the hash). Every
/// state is memory the process touches for the first time, which is what `map` waits for
/// most (issue 19): 32 bytes, not 40, with the count in 32 bits ([`Counter`]). 32 bytes,
/// not 28 or 24: a smaller state lies across two cache lines now and then, and the random
/// reads cost more than the memory saves (docs/benchmarks.md, issue 19's fourteenth round).
struct KeyState {
    fp: Fp,
    first: RecordRef,
    count: Counter,
    /// Its signature group ([`Group`]), once [`Grouping::close`] has found the groups;
    /// until then the low 32 bits of its signature's fingerprint.
    group: Group,
}

/// A key's signature group, as its state holds it: the key that leads the group (the
/// group's first key) holds [`Group::LEAD`] and the group's distinct keys; any other key
/// its group's lead's ordinal. The group's first record is its lead's first record (a key
/// state is made with its first record, in input order). So a row of a key alone in its
/// signature reads one state, and any other row two (issue 19, fourteenth round).
///
/// An atomic cell (relaxed loads and stores, plain moves on x86) so that the threads of
/// [`Grouping::close_on`] write the groups of their own keys through a shared reference:
/// each key is in one signature's run, which one thread reads, and the threads are joined
/// before anything else reads a group. A list of the writes, applied after, cost 8 bytes
/// for each key that shares its signature (issue 19, fifteenth round).
#[derive(Debug)]
struct Group(AtomicU32);

impl Group {
    /// The flag of a group's lead; ordinals stay below it ([`MAX_STATES`]).
    const LEAD: u32 = 1 << 31;
    /// The lead of a group of one key.
    const ALONE: u32 = Self::LEAD | 1;

    fn new(v: u32) -> Self {
        Group(AtomicU32::new(v))
    }

    /// A lead's group: `distinct` keys, at least one and below [`Group::LEAD`].
    fn lead(distinct: u32) -> u32 {
        Self::LEAD | distinct
    }

    fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, v: u32) {
        self.0.store(v, Ordering::Relaxed);
    }

    /// The distinct keys of a lead's group, or the ordinal of the group's lead.
    fn read(&self) -> Result<u32, usize> {
        let v = self.get();
        if v & Self::LEAD != 0 {
            Ok(v & !Self::LEAD)
        } else {
            Err(v as usize)
        }
    }
}

/// A key's signature group, as a row shows it: its first record and its distinct keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GroupOf {
    first: RecordRef,
    distinct: u32,
}

/// A signature's place in the sorted blocks [`Grouping::close`] makes: its fingerprint's
/// high 96 bits above the ordinal of a key with that signature. Sorted, a signature's keys
/// come together, least ordinal first.
fn sig_entry(sig: Fingerprint, ordinal: u32) -> u128 {
    (sig & !0xffff_ffff) | u128::from(ordinal)
}

/// The 96 bits of a signature's fingerprint that its entry keeps ([`sig_entry`]).
fn sig_bits(entry: u128) -> u128 {
    entry >> 32
}

/// What `--groups` shows of a key's records: its signature's text and its first five
/// records' places (a group shows its first five records, its keys' merged).
#[derive(Default)]
struct KeyDetail {
    signature: String,
    firsts: Vec<RecordRef>,
}

/// A count in 32 bits that goes on in [`Grouping::beyond`] once it is full: a key seen more
/// than 4,294,967,295 times is rare, and a state twice as wide for it would cost every run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counter(u32);

/// Adds one to `c`, the count of the key state at ordinal `which`, or, when it is full, to
/// its continuation in `beyond`.
fn add_one(c: &mut Counter, beyond: &mut HashMap<u32, u64>, which: u32) {
    match c.0.checked_add(1) {
        Some(n) => c.0 = n,
        None => *beyond.entry(which).or_default() += 1,
    }
}

/// The whole count of `c`.
fn total(c: Counter, beyond: &HashMap<u32, u64>, which: u32) -> u64 {
    let past = if c.0 == u32::MAX {
        beyond.get(&which).copied().unwrap_or(0)
    } else {
        0
    };
    u64::from(c.0) + past
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
/// at 5M keys that wait was most of the counting thread's time (issue 19, ninth round).
/// The loop that reads the slots keeps them as read: a test of each slot's tag there is a
/// branch on a load still in flight, and its mispredictions cost the overlap (`map` 5-15%
/// slower, measured). Each loop is a short body over a flat array, so that many of its
/// loads fit in the processor's window at once: the hashes are copied out of the chunk's
/// records first (counting alone, in one process, was faster so in 7 of 8 rounds, by up
/// to 17%: docs/benchmarks.md, issue 19's tenth round).
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

/// An unused place in [`Places`].
const UNPLACED: u32 = u32::MAX;

/// Where pass one left each record's key state (its ordinal), by source and line. Pass
/// two reads a record's state there instead of hashing its way through the table again:
/// at 10M records those probes were random reads into ~0.5 GB, the cost that made `map`
/// memory-bound. Only a hint: pass two takes the state found here when it holds the
/// record's own fingerprint, and probes the table otherwise, so a line number seen twice
/// or an input that changed between the passes still gets the probed row. 4 bytes a line.
#[derive(Default)]
struct Places {
    by_source: Vec<Dense<u32>>,
    /// Places held, used or not.
    held: usize,
    records: usize,
    /// Given up (an ordinal past `u32`, or far more line numbers than records): pass two
    /// probes every record.
    off: bool,
}

impl Places {
    fn note(&mut self, at: RecordRef, key: usize) {
        if self.off {
            return;
        }
        self.records += 1;
        let (Ok(k), Ok(line)) = (u32::try_from(key), usize::try_from(at.line())) else {
            return self.give_up();
        };
        if k == UNPLACED {
            return self.give_up();
        }
        let source = at.source() as usize;
        if source >= self.by_source.len() {
            self.by_source.resize_with(source + 1, Dense::default);
        }
        let places = &mut self.by_source[source];
        if line >= places.len() {
            let more = line + 1 - places.len();
            // Line numbers count skipped lines too; an input of mostly blank lines is not
            // worth 4 bytes a line.
            if self.held + more > 2 * self.records + 4096 {
                return self.give_up();
            }
            self.held += more;
            places.grow_to(line + 1, UNPLACED);
        }
        places[line] = k;
    }

    fn give_up(&mut self) {
        self.off = true;
        self.by_source = Vec::new();
    }

    /// The key ordinal noted at `at`.
    fn get(&self, at: RecordRef) -> Option<usize> {
        let line = usize::try_from(at.line()).ok()?;
        let k = *self.by_source.get(at.source() as usize)?.get(line)?;
        (k != UNPLACED).then_some(k as usize)
    }
}

/// How a record is classified (seed 000).
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
}

/// Two different keys with one fingerprint (only detectable with `--verify-fingerprints`).
#[derive(Debug)]
pub struct FingerprintCollision {
    /// The first key.
    pub first: String,
    /// The second key.
    pub second: String,
}

/// Why a record could not be counted.
#[derive(Debug)]
pub enum CountError {
    /// Two keys share a fingerprint.
    Collision(FingerprintCollision),
    /// More distinct keys than one run counts ([`MAX_STATES`]).
    TooManyKeys,
}

/// Distinct keys one run can count: the table holds 32-bit ordinals, half the size of
/// `usize` ones (at 5M keys 40 MB a table instead of 72), and a key state names its
/// group's lead by an ordinal below [`Group::LEAD`] (2^31). Some 2.1 billion keys: at
/// 60 bytes and more a key (docs/scale.md) more than a machine of 128 GB holds.
pub const MAX_STATES: usize = (1 << 31) - 1;

/// The table ordinal of the `n`th state, counted from 0: below [`MAX_STATES`], so never
/// `u32::MAX`, which the spill's entries take for "no ordinal", nor [`Group::LEAD`].
fn ordinal_of(n: usize) -> Result<u32, CountError> {
    u32::try_from(n)
        .ok()
        .filter(|&o| (o as usize) < MAX_STATES)
        .ok_or(CountError::TooManyKeys)
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

/// What pass one keeps of a record, computed on a worker thread so that the thread that
/// owns the table only inserts.
#[derive(Debug, Clone)]
pub struct Counted {
    at: RecordRef,
    fingerprints: Result<(Fingerprint, Fingerprint), Option<ErrorCode>>,
    key: Option<Box<str>>,
    signature: Option<Box<str>>,
}

impl Counted {
    /// The fingerprints of a record's key and signature (or its error code); the key's
    /// text only when `verify`, the signature's only when `groups`.
    pub fn of(at: RecordRef, o: &Outcome, verify: bool, groups: bool) -> Self {
        match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => Counted {
                at,
                fingerprints: Ok(record_fingerprints(key, sig)),
                key: verify.then(|| key.into()),
                signature: groups.then(|| sig.into()),
            },
            _ => Counted {
                at,
                fingerprints: Err(o.error.as_ref().map(|e| e.code)),
                key: None,
                signature: None,
            },
        }
    }
}

/// Reused buffers for [`Counted::key`].
#[derive(Debug, Default)]
pub struct KeyBuffers {
    key: String,
    signature: String,
}

impl Counted {
    /// [`Counted::of`] through the lean key path ([`Policy::key_signature_into`]): the
    /// same fingerprints and error code without building an `Outcome`.
    pub fn key(
        policy: &Policy,
        r: &InputRecord,
        verify: bool,
        groups: bool,
        buf: &mut KeyBuffers,
    ) -> Self {
        let fingerprints = match &r.problem {
            Some(p) => Err(Some(p.code)),
            None => policy
                .key_signature_into(&r.observed, &mut buf.key, &mut buf.signature)
                .map(|()| record_fingerprints(&buf.key, &buf.signature))
                .map_err(Some),
        };
        let valid = fingerprints.is_ok();
        Counted {
            at: RecordRef::of(r),
            fingerprints,
            key: (valid && verify).then(|| buf.key.as_str().into()),
            signature: (valid && groups).then(|| buf.signature.as_str().into()),
        }
    }
}

/// Reused buffers for a pass-two row on the lean path ([`Policy::key_row_into`]): the key,
/// the signature and the removed tracking parameters, which is all a CSV or TSV row shows
/// of a valid record.
#[derive(Debug, Default)]
pub struct LeanRow {
    key: String,
    signature: String,
    removed: Vec<String>,
}

impl LeanRow {
    /// Keys `r` into the buffers; false when it has no key (a reading problem or the
    /// policy's error), whose row needs the error message: take [`super::outcome_of`].
    pub fn key(&mut self, policy: &Policy, r: &InputRecord) -> bool {
        r.problem.is_none()
            && policy
                .key_row_into(
                    &r.observed,
                    &mut self.key,
                    &mut self.signature,
                    &mut self.removed,
                )
                .is_ok()
    }
}

impl LeanRow {
    /// The key, the signature and the removed parameters [`LeanRow::key`] left.
    pub(crate) fn parts(&self) -> (&str, &str, &[String]) {
        (&self.key, &self.signature, &self.removed)
    }

    /// What pass one counts of the valid record `r` that [`LeanRow::key`] keyed: as
    /// [`Counted::key`] gives it, the key's text only when `verify`, no signature text.
    pub(crate) fn counted(&self, r: &InputRecord, verify: bool) -> Counted {
        Counted {
            at: RecordRef::of(r),
            fingerprints: Ok(record_fingerprints(&self.key, &self.signature)),
            key: verify.then(|| self.key.as_str().into()),
            signature: None,
        }
    }
}

/// The state of pass one.
pub struct Grouping {
    /// Ordinals in `key_states`, hashed by the low half of the key's fingerprint.
    keys: Slots,
    key_states: Dense<KeyState>,
    /// Pass one: each key's signature fingerprint, by key ordinal. [`Grouping::close`]
    /// turns each block into sorted entries ([`sig_entry`]), read to find a signature's
    /// group. There is no signature table: a key's signature is one fingerprint, kept in
    /// order and never probed, and the groups are found once, after pass one (issue 19,
    /// fourteenth round: 120 MB less fresh memory at 5M keys, no probe for a new key's
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
            verify: verify.then(|| HashMap::with_hasher(FingerprintHasher(0))),
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

    /// Reads the states pass one placed for `recs` ([`Places`]), before their rows are
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
    /// after pass one. Each block of signatures is sorted in place ([`sig_entry`]) and the
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
    /// `map` of 10M lines while the second core sat idle; now 0.26-0.29 s (issue 19,
    /// fifteenth round).
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

    /// The row of one record, after pass one. `sources` names the run's inputs when it has
    /// more than one (for the tail columns), else is empty.
    pub fn row<'a>(
        &self,
        rec: &'a InputRecord,
        o: &'a Outcome,
        with_detail: bool,
        sources: &'a [String],
    ) -> MapRow<'a> {
        let keyed = match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => Some((key, sig)),
            _ => None,
        };
        let mut row = self.row_of(rec, keyed, &o.removed_params, sources);
        row.status = if o.is_valid() { "ok" } else { "invalid" };
        row.error_code = o.error.as_ref().map(|e| e.code.as_str());
        row.error = o.error.as_ref().map(|e| e.message.as_str());
        if with_detail {
            row.transformations = Some(&o.transformations[..]);
            row.removed_params = Some(&o.removed_params[..]);
            row.facts = Some(&o.facts[..]);
        }
        row
    }

    /// The row of a valid record from the lean path ([`LeanRow::key`]): the same row as
    /// [`Grouping::row`] without the detail fields (CSV and TSV have none).
    pub fn lean_row<'a>(
        &self,
        rec: &'a InputRecord,
        lean: &'a LeanRow,
        sources: &'a [String],
    ) -> MapRow<'a> {
        self.row_of(
            rec,
            Some((&lean.key, &lean.signature)),
            &lean.removed,
            sources,
        )
    }

    /// The row of `rec` keyed now, without detail, handed to `write`: from the lean path
    /// ([`LeanRow::key`]) when it gives a key, else from the outcome, whose error message
    /// an invalid record's row shows. `lean` is a buffer.
    pub(crate) fn keyed_row<T>(
        &self,
        policy: &Policy,
        rec: &InputRecord,
        sources: &[String],
        lean: &mut LeanRow,
        write: impl FnOnce(&MapRow<'_>) -> T,
    ) -> T {
        if lean.key(policy, rec) {
            write(&self.lean_row(rec, lean, sources))
        } else {
            let o = super::outcome_of(policy, rec);
            write(&self.row(rec, &o, false, sources))
        }
    }

    /// A row with its grouping columns; valid (`ok`, no error) and without detail.
    fn row_of<'a>(
        &self,
        rec: &'a InputRecord,
        keyed: Option<(&'a str, &'a str)>,
        removed: &[String],
        sources: &'a [String],
    ) -> MapRow<'a> {
        let mut row = ungrouped_row(rec, keyed, removed, sources);
        if let Some((key, sig)) = keyed {
            let here = RecordRef::of(rec);
            let (kf, sf) = record_fingerprints(key, sig);
            let cells = self
                .key_of(here, Fp::of(kf))
                .and_then(|k| self.cells_at(here, k, sources));
            // A key pass one did not see (the input changed between the passes) is alone
            // in its key; its signature may still have a group.
            let cells = cells
                .unwrap_or_else(|| self.cells_of(here, None, self.group_of_signature(sf), sources));
            row.set_groups(cells);
        }
        row
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
        let classification = if distinct > 1 {
            Classification::Review
        } else if count > 1 {
            Classification::Duplicate
        } else {
            Classification::Unique
        };
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

    /// The grouping cells of the valid record at `here` whose key state pass one found at
    /// ordinal `k` ([`Grouping::insert_chunk_placed`]); `None` for an ordinal this grouping
    /// does not have.
    pub(crate) fn cells_at<'a>(
        &self,
        here: RecordRef,
        k: usize,
        sources: &'a [String],
    ) -> Option<GroupCells<'a>> {
        let ks = self.key_states.get(k)?;
        let group = self.group_of(ks)?;
        Some(self.cells_of(here, Some((k, ks)), Some(group), sources))
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
    /// group id; `sources` as for [`Grouping::row`].
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
                GroupRow {
                    group: self.id_of(first),
                    group_source: sources.get(first.source() as usize).cloned(),
                    signature: lead_detail.signature.clone(),
                    members,
                    distinct_keys: keys.len() as u64,
                    classification: if keys.len() > 1 {
                        "review"
                    } else if members > 1 {
                        "duplicate"
                    } else {
                        "unique"
                    },
                    sample_lines: firsts.iter().map(|&r| self.id_of(r)).collect(),
                    review: REVIEW,
                },
            ));
        });
        rows.sort_by_key(|r| r.0);
        rows.into_iter().map(|r| r.1).collect()
    }
}

/// Calls `each` with the key ordinals of each run of entries that agree in their 96 bits
/// ([`sig_entry`]), least first, from the sorted blocks of [`Grouping::close`]: a
/// signature's keys, and in a run of more than one key, now and then, another signature's
/// that agrees in those bits.
fn for_each_run<B: AsRef<[u128]>>(blocks: &[B], mut each: impl FnMut(&[u32])) {
    let mut run: Vec<u32> = Vec::new();
    let mut run_bits = 0;
    for e in Merged::new(blocks) {
        let bits = sig_bits(e);
        if !run.is_empty() && bits != run_bits {
            each(&run);
            run.clear();
        }
        run_bits = bits;
        // The low 32 bits: the ordinal.
        run.push(e as u32);
    }
    if !run.is_empty() {
        each(&run);
    }
}

/// The share, of `shares`, that an entry's fingerprint falls in: its high 32 bits scaled,
/// so that the shares are contiguous ranges of the sorted blocks and a signature's
/// entries (which agree in those bits) are all in one.
fn share_of(entry: u128, shares: usize) -> usize {
    (((entry >> 96) as u64 * shares as u64) >> 32) as usize
}

/// The groups of the signatures in share `t` of `shares` ([`share_of`]): the entries of
/// each sorted block in that share, read merged. Each key in a run of more than one gets
/// its group written, the lead the group's distinct keys and every other key its lead,
/// and its bit set in `grouped`. Gives the share's signature groups and review groups.
fn group_share(
    blocks: &[Vec<u128>],
    states: &Dense<KeyState>,
    grouped: &[AtomicU64],
    t: usize,
    shares: usize,
) -> (u64, u64) {
    let slices: Vec<&[u128]> = blocks
        .iter()
        .map(|b| {
            let from = b.partition_point(|&e| share_of(e, shares) < t);
            let to = b.partition_point(|&e| share_of(e, shares) <= t);
            &b[from..to]
        })
        .collect();
    let (mut groups, mut review) = (0, 0);
    let mut members: Vec<(u32, u32)> = Vec::new();
    for_each_run(&slices, |run| {
        if run.len() == 1 {
            groups += 1;
            return;
        }
        // The run's keys agree in the 96 bits their entries keep; the low 32, in their
        // states until now, tell their signatures apart.
        members.clear();
        members.extend(run.iter().map(|&k| (states[k as usize].group.get(), k)));
        members.sort_unstable();
        for sig in members.chunk_by(|a, b| a.0 == b.0) {
            groups += 1;
            if sig.len() == 1 {
                continue;
            }
            review += 1;
            // Sorted by ordinal within the signature: the first is its lead.
            let lead = sig[0].1;
            for &(_, k) in sig {
                let g = if k == lead {
                    // At most the number of keys, below MAX_STATES.
                    Group::lead(sig.len() as u32)
                } else {
                    lead
                };
                states[k as usize].group.set(g);
                let k = k as usize;
                grouped[k / 64].fetch_or(1 << (k % 64), Ordering::Relaxed);
            }
        }
    });
    (groups, review)
}

/// `items` dealt out in turn into `hands` hands (none empty past the items).
fn deal<T>(items: Vec<T>, hands: usize) -> Vec<Vec<T>> {
    let mut dealt: Vec<Vec<T>> = (0..hands.min(items.len()).max(1))
        .map(|_| Vec::new())
        .collect();
    let n = dealt.len();
    for (i, item) in items.into_iter().enumerate() {
        dealt[i % n].push(item);
    }
    dealt
}

/// `work` on each of `jobs`, on this thread and on one helper thread for each job but
/// one, each thread taking the next job left; their results in the jobs' order. A helper
/// the system refuses to start (a limit on threads) is no error: the threads that run take
/// its jobs, this one at least.
fn on_threads<J: Send, R: Send>(jobs: Vec<J>, work: impl Fn(J) -> R + Sync) -> Vec<R> {
    let helpers = jobs.len().saturating_sub(1);
    on_helpers(jobs, work, helpers)
}

/// [`on_threads`] with up to `helpers` helper threads (fewer when the system refuses one;
/// none: every job on this thread).
fn on_helpers<J: Send, R: Send>(
    jobs: Vec<J>,
    work: impl Fn(J) -> R + Sync,
    helpers: usize,
) -> Vec<R> {
    let n = jobs.len();
    let left = std::sync::Mutex::new(jobs.into_iter().enumerate().rev().collect::<Vec<_>>());
    let done = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<R>>>());
    let run = || loop {
        let next = left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let Some((i, job)) = next else { break };
        let r = work(job);
        done.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(r);
    };
    std::thread::scope(|s| {
        for _ in 0..helpers {
            // Refused: its jobs wait for a thread that runs.
            let _ = std::thread::Builder::new().spawn_scoped(s, run);
        }
        run();
    });
    // A helper's panic came out of `scope` above; every job ran.
    done.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|r| r.expect("every job ran on a thread"))
        .collect()
}

/// The entries of sorted blocks, merged in order: a heap of each block's next entry.
struct Merged<'a, B> {
    blocks: &'a [B],
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize, usize)>>,
}

impl<'a, B: AsRef<[u128]>> Merged<'a, B> {
    fn new(blocks: &'a [B]) -> Self {
        let heap = blocks
            .iter()
            .enumerate()
            .filter_map(|(b, v)| v.as_ref().first().map(|&e| std::cmp::Reverse((e, b, 0))))
            .collect();
        Merged { blocks, heap }
    }
}

impl<B: AsRef<[u128]>> Iterator for Merged<'_, B> {
    type Item = u128;

    fn next(&mut self) -> Option<u128> {
        let std::cmp::Reverse((e, b, i)) = self.heap.pop()?;
        if let Some(&next) = self.blocks.get(b).and_then(|v| v.as_ref().get(i + 1)) {
            self.heap.push(std::cmp::Reverse((next, b, i + 1)));
        }
        Some(e)
    }
}

/// A map row as pass one can write it: valid (`ok`, classification and grouping cells
/// still empty) with `keyed`'s key and signature, or `invalid` without them (whose row is
/// whole: the caller sets the error). Without detail.
pub(crate) fn ungrouped_row<'a>(
    rec: &'a InputRecord,
    keyed: Option<(&'a str, &'a str)>,
    removed: &[String],
    sources: &'a [String],
) -> MapRow<'a> {
    let mut row = row_from_parts(
        RecordRef::of(rec),
        &rec.observed,
        keyed,
        join_names(removed),
        &rec.kept,
        sources,
    );
    row.line = rec.line;
    row.run_line = (!sources.is_empty()).then_some(rec.run_line);
    row
}

/// [`ungrouped_row`] from a record's parts: its place, the input as read, its key and
/// signature (none for an invalid record), the removed parameters' names joined, its
/// kept cells. `urlkey map`'s spill keeps these instead of the record.
pub(crate) fn row_from_parts<'a>(
    at: RecordRef,
    observed: &'a str,
    keyed: Option<(&'a str, &'a str)>,
    removed_tracking: String,
    kept: &'a [String],
    sources: &'a [String],
) -> MapRow<'a> {
    MapRow {
        line: at.line(),
        observed,
        status: "ok",
        key: keyed.map(|k| k.0),
        signature: keyed.map(|k| k.1),
        group: None,
        duplicate_of: None,
        duplicates: None,
        variants: None,
        classification: if keyed.is_some() {
            ""
        } else {
            Classification::Invalid.as_str()
        },
        removed_tracking,
        error_code: None,
        error: None,
        review: REVIEW,
        transformations: None,
        removed_params: None,
        facts: None,
        source: sources.get(at.source() as usize).map(String::as_str),
        group_source: None,
        run_line: None,
        duplicate_of_source: None,
        kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::outcome_of;
    use crate::map::tests::corpus;

    fn fields(c: &Counted) -> (RecordRef, String, Option<&str>, Option<&str>) {
        (
            c.at,
            format!("{:?}", c.fingerprints),
            c.key.as_deref(),
            c.signature.as_deref(),
        )
    }

    /// What [`record_fingerprints`] rests on: under every builtin policy, one key has one
    /// signature, over the corpus, the WHATWG test inputs and inputs made to write the
    /// same key from different parts (path-only, opaque, other schemes, ports, userinfo).
    #[test]
    fn a_key_has_one_signature_under_every_builtin_policy() {
        let set = urlkey::PolicySet::builtin();
        let wpt: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/wpt/urltestdata.json"
            ))
            .expect("the WPT data"),
        )
        .expect("WPT JSON");
        let mut inputs: Vec<String> = [
            "http://mailto:25/x?a=1",
            "mailto:25/x?a=1",
            "foo:/p?b",
            "foo://h/p?b",
            "//h/p",
            "/h/p",
            "h/p",
            "https://h/p",
            "http://h/p",
            "http://u:p@h/p",
            "http://h:80/p",
            "http://h:8080/p",
            "h:8080/p",
            "http://h/p?b=1&a=2#f",
            "http://h/p?a=2&b=1",
            "http://[::1]/p",
            "file:///p",
            "file://h/p",
            "javascript:alert(1)",
            "http://h/p?utm_source=x",
            "http://h/p?",
            "http://h/p#",
            "/p?a&a&b",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for f in ["userbait.txt", "kasztp.txt"] {
            inputs.extend(corpus(f).lines().map(str::to_string));
        }
        let cases = wpt.as_array().expect("WPT cases");
        inputs.extend(
            cases
                .iter()
                .filter_map(|c| c["input"].as_str().map(str::to_string)),
        );
        for info in set.list() {
            let p = set.get(&info.id).expect("builtin policy");
            let mut seen: HashMap<String, String> = HashMap::new();
            let (mut key, mut sig) = (String::new(), String::new());
            for input in &inputs {
                if p.key_signature_into(input, &mut key, &mut sig).is_ok() {
                    let first = seen.entry(key.clone()).or_insert_with(|| sig.clone());
                    assert_eq!(*first, sig, "{}: key {key:?} ({input:?})", info.id);
                }
            }
            assert!(seen.len() > 1000, "{}: {} keys", info.id, seen.len());
        }
    }

    /// A key written with two signatures (none is, above) would be two keys, each in
    /// its own signature group.
    #[test]
    fn a_key_with_two_signatures_counts_as_two() {
        let mut g = Grouping::new("test", false, false);
        for (line, sig) in [(1, "s1"), (2, "s2"), (3, "s1")] {
            g.insert_counted(Counted {
                at: RecordRef::new(0, line),
                fingerprints: Ok(record_fingerprints("k", sig)),
                key: None,
                signature: None,
            })
            .expect("counted");
        }
        g.close();
        assert_eq!(
            (g.summary.distinct_keys, g.summary.signature_groups),
            (2, 2)
        );
        assert_eq!(g.summary.duplicate_groups, 1);
    }

    /// A slot holds 32 bits of a fingerprint (its tag) and the state all 128: fingerprints
    /// that differ only in the tag's bits, only in the bits below them, or only in the
    /// high half are distinct keys and signatures; equal ones are one. Record by record
    /// and a chunk at a time (whose probes read the slots before any insert).
    #[test]
    fn fingerprints_that_differ_in_any_part_are_told_apart() {
        let base: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let variants = [base, base ^ (1 << 40), base ^ 1, base ^ (1 << 100), base];
        let counted = |line: usize, fps| Counted {
            at: RecordRef::new(0, line as u64 + 1),
            fingerprints: Ok(fps),
            key: None,
            signature: None,
        };
        for chunked in [false, true] {
            // Keys apart under one signature; then signatures apart, and so keys (a key's
            // fingerprint is taken with its signature's, [`record_fingerprints`]).
            let by_key: Vec<_> = variants.iter().map(|&k| (k, 7)).collect();
            let by_sig: Vec<_> = variants.iter().map(|&s| (s.rotate_left(64), s)).collect();
            for (fps, keys, sigs) in [(by_key, 4, 1), (by_sig, 4, 4)] {
                let mut g = Grouping::new("test", false, false);
                let records: Vec<Counted> = fps
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| counted(i, f))
                    .collect();
                if chunked {
                    g.insert_chunk(records).unwrap();
                } else {
                    for c in records {
                        g.insert_counted(c).unwrap();
                    }
                }
                g.close();
                let s = &g.summary;
                let got = (s.distinct_keys, s.signature_groups);
                assert_eq!(got, (keys, sigs), "chunked: {chunked}");
                // The last record is the first's key.
                assert_eq!(g.key_states[0].count, Counter(2), "chunked: {chunked}");
            }
        }
    }

    /// Sorted blocks come out merged in order, each run of entries that agree in their 96
    /// bits once, least ordinal first: runs within a block, across blocks, and of one
    /// entry; empty blocks and none.
    #[test]
    fn runs_of_sorted_blocks_are_merged_in_order() {
        // (the 96 bits, the ordinal)
        let e = |(bits, ordinal): (u128, u32)| sig_entry(bits << 32, ordinal);
        let mut blocks: Vec<Vec<u128>> = [
            vec![(1, 0), (3, 1), (3, 2), (9, 3)],
            vec![(2, 4), (3, 5), (9, 6)],
            vec![],
            vec![(0, 7), (3, 8), (10, 9)],
        ]
        .into_iter()
        .map(|b| b.into_iter().map(e).collect())
        .collect();
        for b in &mut blocks {
            b.sort_unstable();
        }
        let mut runs = Vec::new();
        for_each_run(&blocks, |r| runs.push(r.to_vec()));
        let want: Vec<Vec<u32>> = vec![
            vec![7],
            vec![0],
            vec![4],
            vec![1, 2, 5, 8],
            vec![3, 6],
            vec![9],
        ];
        assert_eq!(runs, want);
        let all: Vec<u128> = Merged::new(&blocks).collect();
        assert!(all.windows(2).all(|w| w[0] <= w[1]) && all.len() == 10);
        for_each_run::<Vec<u128>>(&[], |_| panic!("no runs in no blocks"));
    }

    /// The groups [`Grouping::close`] finds are those of a plain map from each key's
    /// signature fingerprint: each key's group's first record and distinct keys, the
    /// summary's counts and `--groups`' rows, with signatures that agree in the 96 bits
    /// the sorted entries keep and differ below them, keys out of order, repeats and
    /// chunked counting.
    #[test]
    fn groups_are_those_of_a_plain_map_of_signatures() {
        for threads in [1, 2, 3] {
            groups_of_a_plain_map_closed_on(threads);
        }
    }

    /// [`groups_are_those_of_a_plain_map_of_signatures`] with the grouping closed on
    /// `threads` threads: fingerprints spread over the high bits, so that each thread's
    /// share of them holds signatures, and some of the twins that agree in 96 bits.
    fn groups_of_a_plain_map_closed_on(threads: usize) {
        let mut next = crate::output::tests::xorshift();
        let spread = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let base = |i: u64| (u128::from(spread(i)) << 64) | 0xaaaa_0000_0000;
        // 300 signatures: some share their 96 high bits with another (differ in the low 32).
        let sigs: Vec<u128> = (0..300u64)
            .map(|i| {
                if i % 7 == 3 {
                    base(i - 1) | 5
                } else {
                    base(i) | 9
                }
            })
            .collect();
        // 1200 keys, each with one signature; records of random keys, 6000 of them.
        let keys: Vec<(u128, u128)> = (0..1200u64)
            .map(|k| {
                let sig = sigs[(next() % 300) as usize];
                (u128::from(next()) << 64 | u128::from(k), sig)
            })
            .collect();
        let records: Vec<(u128, u128)> =
            (0..6000).map(|_| keys[(next() % 1200) as usize]).collect();
        let mut g = Grouping::new("test", false, true);
        let counted: Vec<Counted> = records
            .iter()
            .enumerate()
            .map(|(i, &f)| Counted {
                at: RecordRef::new(0, i as u64 + 1),
                fingerprints: Ok(f),
                key: None,
                signature: Some(format!("{:x}", f.1).into()),
            })
            .collect();
        for chunk in counted.chunks(512) {
            g.insert_chunk(chunk.to_vec()).unwrap();
        }
        g.close_on(threads);
        let mut shares = vec![0; threads];
        sigs.iter()
            .for_each(|&s| shares[share_of(sig_entry(s, 0), threads)] += 1);
        assert!(shares.iter().all(|&n| n > 0), "{shares:?}");
        // The plain map: per signature, its first record and its keys; per key its first
        // record and count.
        let mut by_key: HashMap<u128, (u64, u64)> = HashMap::new();
        let mut by_sig: HashMap<u128, (u64, std::collections::HashSet<u128>, Vec<u64>)> =
            HashMap::new();
        for (i, &(k, s)) in records.iter().enumerate() {
            let line = i as u64 + 1;
            by_key.entry(k).or_insert((line, 0)).1 += 1;
            let e = by_sig
                .entry(s)
                .or_insert((line, Default::default(), Vec::new()));
            e.1.insert(k);
            e.2.push(line);
        }
        assert!(by_sig.values().any(|s| s.1.len() > 1));
        let s = &g.summary;
        assert_eq!(s.distinct_keys, by_key.len() as u64);
        assert_eq!(s.signature_groups, by_sig.len() as u64);
        let review = by_sig.values().filter(|s| s.1.len() > 1).count();
        assert_eq!(s.review_groups, review as u64);
        let key_sig: HashMap<u128, u128> = keys.iter().copied().collect();
        let duplicates = by_key
            .iter()
            .filter(|(k, v)| v.1 > 1 && by_sig[&key_sig[*k]].1.len() == 1)
            .count();
        assert_eq!(s.duplicate_groups, duplicates as u64);
        for (i, &(k, sig)) in records.iter().enumerate() {
            let here = RecordRef::new(0, i as u64 + 1);
            let ordinal = g.find_key(Fp::of(k)).expect("a key pass one saw");
            let cells = g.cells_at(here, ordinal, &[]).expect("cells");
            let (first, keys, _) = &by_sig[&sig];
            assert_eq!(cells.group, Some(*first), "record {i}");
            assert_eq!(cells.variants, Some(keys.len() as u64), "record {i}");
            assert_eq!(cells.duplicates, Some(by_key[&k].1), "record {i}");
            // A signature found by its fingerprint (a key pass one did not see): its
            // group, or, where another signature agrees in its 96 high bits, one of the two.
            let found = g.group_of_signature(sig).expect("a signature pass one saw");
            let twins: Vec<u64> = by_sig
                .iter()
                .filter(|(t, _)| sig_bits(sig_entry(**t, 0)) == sig_bits(sig_entry(sig, 0)))
                .map(|(_, v)| v.0)
                .collect();
            if twins.len() == 1 {
                assert_eq!(found.first.line(), *first, "record {i}");
            } else {
                assert!(twins.contains(&found.first.line()), "record {i}");
            }
        }
        let rows = g.group_rows(&[]);
        assert_eq!(rows.len(), by_sig.len());
        for row in &rows {
            let (_, keys, lines) = by_sig
                .values()
                .find(|s| s.0 == row.group)
                .expect("a group per signature");
            assert_eq!(row.distinct_keys, keys.len() as u64);
            assert_eq!(row.members, lines.len() as u64);
            assert_eq!(row.sample_lines, lines[..lines.len().min(5)]);
        }
        assert!(rows.windows(2).all(|w| w[0].group < w[1].group));
    }

    /// [`deal`] gives every item once, in turn, to no more hands than items; [`on_threads`]
    /// gives each job's result in the jobs' order, also with fewer helper threads than jobs
    /// or none (a system that refuses to start them).
    #[test]
    fn jobs_are_dealt_and_run_in_order() {
        for (items, hands) in [(0, 2), (1, 2), (5, 2), (6, 3), (2, 5), (7, 1)] {
            let dealt = deal((0..items).collect::<Vec<usize>>(), hands);
            assert_eq!(dealt.len(), hands.min(items).max(1), "{items} {hands}");
            let n = dealt.len();
            for (h, hand) in dealt.iter().enumerate() {
                assert!(hand.iter().all(|&i| i % n == h), "{items} {hands}");
                assert!(hand.windows(2).all(|w| w[0] < w[1]));
            }
            assert_eq!(dealt.iter().map(Vec::len).sum::<usize>(), items);
            let sums = on_threads(dealt, |hand| hand.iter().sum::<usize>());
            assert_eq!(sums.iter().sum::<usize>(), (0..items).sum::<usize>());
            let ids = on_threads((0..hands).collect(), |j| j * 10);
            assert_eq!(ids, (0..hands).map(|j| j * 10).collect::<Vec<_>>());
            // Helpers the system refused, or fewer than the jobs: the same results.
            for helpers in [0, 1] {
                let ids = on_helpers((0..hands).collect(), |j| j * 10, helpers);
                assert_eq!(ids, (0..hands).map(|j| j * 10).collect::<Vec<_>>());
            }
        }
    }

    /// Pass one's lean path counts exactly what the `Outcome` path counts.
    #[test]
    fn lean_counting_equals_outcome_counting() {
        let set = urlkey::PolicySet::builtin();
        let inputs = [
            "https://Example.com/a/?utm_source=x&b=2&a=1#f",
            "/path/only?x=1",
            "//scheme-relative/x",
            "mailto:a@b.example",
            "https://u:p@h.example:8080/x/index.html?&&z",
            "http://[::1]/",
            "not a url",
            "",
        ];
        let mut records: Vec<InputRecord> = inputs
            .iter()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 + 1,
                observed: s.to_string(),
                ..InputRecord::default()
            })
            .collect();
        records.push(InputRecord {
            line: 99,
            observed: "bad".into(),
            problem: Some(urlkey::KeyError::new(ErrorCode::InputInvalidUtf8, "x")),
            ..InputRecord::default()
        });
        let mut buf = KeyBuffers::default();
        for id in urlkey::policy::BUILTIN_IDS.iter().copied() {
            let p = set.get(id).unwrap();
            for r in &records {
                for (verify, groups) in [(false, false), (true, true)] {
                    let lean = Counted::key(&p, r, verify, groups, &mut buf);
                    let full = Counted::of(RecordRef::of(r), &outcome_of(&p, r), verify, groups);
                    assert_eq!(fields(&lean), fields(&full), "{id} {:?}", r.observed);
                }
            }
        }
    }
    /// Pass two's rows from the places pass one noted ([`Places`]) equal the rows from
    /// probing the table, also when a line number comes twice in one source (two records,
    /// one place) and when records changed between the passes (their places hold other
    /// keys' states); and pass two does read most rows from their places.
    #[test]
    fn placed_rows_equal_probed_rows() {
        let text = corpus("kasztp.txt");
        let mut records: Vec<InputRecord> = text
            .lines()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 / 2 + 1,
                observed: s.to_string(),
                source: (i % 2) as u32,
                ..InputRecord::default()
            })
            .collect();
        // A third of the records once more (duplicates), after each source's lines.
        let n = records.len();
        for i in 0..n / 3 {
            let mut r = records[i * 3].clone();
            r.line += n as u64 / 2 + 1;
            records.push(r);
        }
        // One place for two records with different keys.
        let mut twice = records[11].clone();
        twice.observed = "https://twice.example/a?b=1".into();
        records.push(twice);
        let sources = ["a".to_string(), "b".to_string()];
        let p = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let count = |r: &[InputRecord]| {
            let mut g = Grouping::new("mapper@1", false, false);
            let mut buf = KeyBuffers::default();
            for r in r {
                g.insert_counted(Counted::key(&p, r, false, false, &mut buf))
                    .unwrap();
            }
            g.close();
            g
        };
        let placed = count(&records);
        assert!(!placed.places.off);
        let mut probed = count(&records);
        probed.places.give_up();
        let mut second = records.clone();
        for r in second.iter_mut().step_by(97) {
            r.observed = format!("https://changed.example/{}", r.line);
        }
        let json = |m: &MapRow<'_>| serde_json::to_string(m).unwrap();
        let (mut valid, mut from_places) = (0, 0);
        for r in &second {
            let o = outcome_of(&p, r);
            let (a, b) = (
                placed.row(r, &o, false, &sources),
                probed.row(r, &o, false, &sources),
            );
            assert_eq!(json(&a), json(&b), "{:?}", r.observed);
            if let (Some(key), Some(sig)) = (o.key.as_deref(), o.signature.as_deref()) {
                valid += 1;
                let kf = Fp::of(record_fingerprints(key, sig).0);
                let at = RecordRef::of(r);
                from_places += usize::from(
                    placed
                        .places
                        .get(at)
                        .is_some_and(|k| placed.key_states[k].fp == kf),
                );
            }
        }
        assert!(from_places * 10 > valid * 9, "{from_places} of {valid}");
        assert!(from_places < valid, "no record fell back to the table");
    }

    /// Counting a chunk at a time ([`Grouping::insert_chunk`], probes first) gives the
    /// same counts and rows as counting record by record, also when a new key comes back
    /// later in its own chunk (the probe found nothing; the insert must find the key).
    #[test]
    fn chunked_counting_equals_record_by_record() {
        let text = corpus("kasztp.txt");
        let mut lines: Vec<&str> = text.lines().take(3000).collect();
        // Repeats within one 512-record chunk, and an invalid record.
        let again: Vec<&str> = lines.iter().step_by(7).copied().collect();
        lines.splice(100..100, again.iter().take(200).copied());
        lines.push("not a url");
        let records: Vec<InputRecord> = lines
            .iter()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 + 1,
                observed: s.to_string(),
                ..InputRecord::default()
            })
            .collect();
        let p = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let mut buf = KeyBuffers::default();
        let mut counted: Vec<Counted> = records
            .iter()
            .map(|r| Counted::key(&p, r, true, true, &mut buf))
            .collect();
        let mut one = Grouping::new("mapper@1", true, true);
        for c in counted.clone() {
            one.insert_counted(c).unwrap();
        }
        let mut chunked = Grouping::new("mapper@1", true, true);
        while !counted.is_empty() {
            let rest = counted.split_off(counted.len().min(512));
            chunked.insert_chunk(counted).unwrap();
            counted = rest;
        }
        one.close();
        chunked.close();
        fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
            serde_json::to_string(v).expect("serializable")
        }
        assert_eq!(json(&one.summary), json(&chunked.summary));
        assert!(one.summary.duplicate_groups > 0 && one.summary.invalid >= 1);
        assert_eq!(json(&one.group_rows(&[])), json(&chunked.group_rows(&[])));
        for r in &records {
            let o = outcome_of(&p, r);
            assert_eq!(
                json(&one.row(r, &o, false, &[])),
                json(&chunked.row(r, &o, false, &[])),
                "{:?}",
                r.observed
            );
        }
    }

    /// Places are given up, not grown without bound, for line numbers far past the
    /// records (an input of mostly skipped lines); rows then come from the table.
    /// Ordinals stop short of the table's 32 bits with an error, never a wrapped ordinal.
    #[test]
    fn ordinals_end_at_max_states() {
        assert_eq!(ordinal_of(0).ok(), Some(0));
        assert_eq!(ordinal_of(MAX_STATES - 1).ok(), Some(Group::LEAD - 2));
        for n in [MAX_STATES, MAX_STATES + 1, usize::MAX] {
            assert!(matches!(ordinal_of(n), Err(CountError::TooManyKeys)), "{n}");
        }
    }

    /// Tables that grow from 16 slots through every doubling, counted a chunk at a time,
    /// give each record the counts and first line that a plain map of key texts gives.
    #[test]
    fn tables_that_grow_count_every_key() {
        let recs: Vec<_> = (0..12_000u64)
            .map(|i| InputRecord {
                line: i + 1,
                observed: format!("https://example.com/{}?utm_source=x&a={}", i % 1700, i % 3),
                ..InputRecord::default()
            })
            .collect();
        let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let mut g = Grouping::new("mapper@1", true, false);
        let mut buf = KeyBuffers::default();
        for chunk in recs.chunks(512) {
            let counted = chunk
                .iter()
                .map(|r| Counted::key(&policy, r, true, false, &mut buf))
                .collect();
            g.insert_chunk(counted).unwrap();
        }
        g.close();
        // (i % 1700, i % 3) repeats only after 5100 records.
        assert_eq!(g.summary.distinct_keys, 5100);
        let mut plain: std::collections::HashMap<String, (u64, u64)> = Default::default();
        for r in &recs {
            let key = policy.key(&r.observed).key.unwrap();
            plain.entry(key).or_insert((0, r.line)).0 += 1;
        }
        for r in &recs {
            let o = policy.key(&r.observed);
            let (count, first) = plain[o.key.as_deref().unwrap()];
            let row = g.row(r, &o, false, &[]);
            assert_eq!(row.duplicates, Some(count), "{}", r.line);
            assert_eq!(
                row.duplicate_of,
                (first != r.line).then_some(first),
                "{}",
                r.line
            );
        }
    }

    /// A count that fills its 32 bits goes on beside its state: rows, group rows and
    /// the summary see it whole.
    #[test]
    fn counts_go_on_past_32_bits() {
        let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let rec = |line| InputRecord {
            line,
            observed: "https://example.com/a?utm_source=x".into(),
            ..InputRecord::default()
        };
        let o = policy.key(&rec(1).observed);
        let mut g = Grouping::new("mapper@1", false, true);
        g.insert(RecordRef::of(&rec(1)), &o).unwrap();
        g.key_states[0].count = Counter(u32::MAX - 1);
        for line in 2..=4 {
            g.insert(RecordRef::of(&rec(line)), &o).unwrap();
        }
        g.close();
        let whole = u64::from(u32::MAX) + 2;
        let last = rec(4);
        let row = g.row(&last, &o, false, &[]);
        assert_eq!(row.duplicates, Some(whole));
        assert_eq!(row.duplicate_of, Some(1));
        assert_eq!(row.classification, "duplicate");
        let groups = g.group_rows(&[]);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].members, whole);
        assert_eq!(groups[0].classification, "duplicate");
        assert_eq!(g.summary.duplicate_groups, 1);
        assert_eq!(std::mem::size_of::<KeyState>(), 32);
    }

    #[test]
    fn places_give_up_on_sparse_lines() {
        let mut places = Places::default();
        places.note(RecordRef::new(0, 1), 0);
        places.note(RecordRef::new(1, 3), 1);
        assert_eq!(places.get(RecordRef::new(1, 3)), Some(1));
        assert_eq!(places.get(RecordRef::new(1, 2)), None);
        assert_eq!(places.get(RecordRef::new(2, 1)), None);
        places.note(RecordRef::new(0, 10_000_000), 2);
        assert!(places.off);
        assert_eq!(places.get(RecordRef::new(0, 1)), None);
        assert!(places.by_source.is_empty());
    }

    /// Pass two's lean rows ([`Grouping::lean_row`], what CSV and TSV write) equal the
    /// `Outcome` rows without detail, field for field (tail cells included), for every
    /// builtin policy on the corpus and the inputs above; a record the lean path refuses
    /// takes the `Outcome` row, so only its code must agree.
    #[test]
    fn lean_rows_equal_outcome_rows() {
        let mut lines: Vec<String> = [
            "https://Example.com/a/?utm_source=x&b=2&a=1&gclid=1#f",
            "https://example.com/a/?b=3&a=1",
            "https://example.com/a/?a=1&b=2",
            "/path/only?x=1&fbclid=2",
            "mailto:a@b.example",
            "not a url",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for f in ["kasztp.txt", "userbait.txt"] {
            let text = corpus(f);
            lines.extend(text.lines().map(str::to_string));
        }
        assert!(lines.len() > 50_000, "{} corpus lines", lines.len());
        let records: Vec<InputRecord> = lines
            .into_iter()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 + 1,
                observed: s,
                source: (i % 2) as u32,
                kept: vec![format!("k{i}")],
                ..InputRecord::default()
            })
            .collect();
        let sources = ["a".to_string(), "b".to_string()];
        let set = urlkey::PolicySet::builtin();
        for id in urlkey::policy::builtin_variants() {
            let p = set.get(&id).unwrap();
            let mut g = Grouping::new(&id, false, false);
            let mut buf = KeyBuffers::default();
            for r in &records {
                g.insert_counted(Counted::key(&p, r, false, false, &mut buf))
                    .unwrap();
            }
            g.close();
            let (mut lean, mut valid) = (LeanRow::default(), 0);
            for r in &records {
                let o = outcome_of(&p, r);
                let full = g.row(r, &o, false, &sources);
                if lean.key(&p, r) {
                    valid += 1;
                    let row = g.lean_row(r, &lean, &sources);
                    let json = |m: &MapRow<'_>| serde_json::to_string(m).unwrap();
                    assert_eq!(json(&row), json(&full), "{id} {:?}", r.observed);
                    assert_eq!(row.tail(), full.tail(), "{id} {:?}", r.observed);
                } else {
                    assert!(o.key.is_none(), "{id} {:?}", r.observed);
                }
            }
            assert!(valid > 10_000, "{id}: {valid} valid");
        }
    }
}

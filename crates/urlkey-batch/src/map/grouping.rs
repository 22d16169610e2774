//! The grouping engine of `urlkey map` (seed 000): duplicates, variants and a
//! classification for every record, with compact state per distinct key. Pass one
//! ([`super::MapRun`]) feeds it; pass two reads its counts.
//!
//! Per 128-bit fingerprint of the key it counts how many records share it and where the
//! first one was; per fingerprint of the signature, how many distinct keys share it.
//!
//! A key's fingerprint is taken with its signature's ([`record_fingerprints`]): the
//! signature is written from the same final parts as the key, so one key always has one
//! signature, and a key state found by that fingerprint names the record's signature
//! state without a read of it to check (issue 19, tenth round).

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};

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

    /// A record's key and signature fingerprints ([`record_fingerprints`]) as two `Fp`s.
    #[inline]
    fn pair((key, sig): (Fingerprint, Fingerprint)) -> (Self, Self) {
        (Fp::of(key), Fp::of(sig))
    }
}

/// Per distinct key, in a dense vector (`Grouping::key_states`, 32 bytes) that the key
/// table indexes ([`Slots`]: 8 bytes a slot, the ordinal and 32 bits of the hash). Every
/// state is memory the process touches for the first time, which is what `map` waits for
/// most (issue 19): 32 bytes, not 40, with the count in 32 bits ([`Counter`]).
#[derive(Clone, Copy)]
struct KeyState {
    fp: Fp,
    first: RecordRef,
    count: Counter,
    /// The ordinal of its signature (`Grouping::sig_states`): one per key
    /// ([`record_fingerprints`]).
    signature: u32,
}

/// Per distinct signature, in a dense vector (32 bytes) that the signature table indexes.
#[derive(Clone, Copy)]
struct SigState {
    fp: Fp,
    first: RecordRef,
    /// At most the number of key states, so below [`MAX_STATES`].
    distinct_keys: u32,
    /// Records with this signature: counted only for `--groups`, which shows it.
    members: Counter,
}

/// A count in 32 bits that goes on in [`Grouping::beyond`] once it is full: a key seen more
/// than 4,294,967,295 times is rare, and a state twice as wide for it would cost every run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counter(u32);

/// Which counter of which state [`Grouping::beyond`] continues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Full {
    Count(u32),
    Members(u32),
}

/// Adds one to `c`, or, when it is full, to its continuation in `beyond`.
fn add_one(c: &mut Counter, beyond: &mut HashMap<Full, u64>, which: Full) {
    match c.0.checked_add(1) {
        Some(n) => c.0 = n,
        None => *beyond.entry(which).or_default() += 1,
    }
}

/// The whole count of `c`.
fn total(c: Counter, beyond: &HashMap<Full, u64>, which: Full) -> u64 {
    let past = if c.0 == u32::MAX {
        beyond.get(&which).copied().unwrap_or(0)
    } else {
        0
    };
    u64::from(c.0) + past
}

/// The ordinal in `states` of the one whose fingerprint is `fp`. The tables hold
/// ordinals, not states, so that pass one can note where each record's states are
/// ([`Places`]) and pass two read them there.
fn find<S>(table: &Slots, states: &Dense<S>, fp_of: impl Fn(&S) -> Fp, fp: Fp) -> Option<usize> {
    table.find(fp.0, |i| states.get(i).is_some_and(|s| fp_of(s) == fp))
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
fn warm_probes<S>(
    table: &Slots,
    states: &Dense<S>,
    fp_of: impl Fn(&S) -> Fp,
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
            read ^= fp_of(s).0;
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

/// The ordinals of a record's key and signature states, where the tables have them.
#[derive(Clone, Copy, Default)]
struct Found {
    key: Option<usize>,
    sig: Option<usize>,
}

/// A valid record's key and signature fingerprints.
fn valid_fps(c: &Counted) -> Option<(Fp, Fp)> {
    c.fingerprints.as_ref().ok().map(|&f| Fp::pair(f))
}

/// An unused place in [`Places`].
const UNPLACED: u32 = u32::MAX;

/// Where pass one left each record's key and signature states (their ordinals), by
/// source and line. Pass two reads a record's states there instead of hashing its way
/// through both tables again: at 10M records those probes were random reads into
/// ~0.5 GB, the cost that made `map` memory-bound. Only a hint: pass two takes the
/// states found here when they hold the record's own fingerprints, and probes the tables
/// otherwise, so a line number seen twice or an input that changed between the passes
/// still gets the probed row. 8 bytes a line.
#[derive(Default)]
struct Places {
    by_source: Vec<Dense<[u32; 2]>>,
    /// Places held, used or not.
    held: usize,
    records: usize,
    /// Given up (an ordinal past `u32`, or far more line numbers than records): pass two
    /// probes every record.
    off: bool,
}

impl Places {
    fn note(&mut self, at: RecordRef, key: usize, sig: usize) {
        if self.off {
            return;
        }
        self.records += 1;
        let (Ok(k), Ok(s), Ok(line)) = (
            u32::try_from(key),
            u32::try_from(sig),
            usize::try_from(at.line()),
        ) else {
            return self.give_up();
        };
        if k == UNPLACED || s == UNPLACED {
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
            // worth 8 bytes a line.
            if self.held + more > 2 * self.records + 4096 {
                return self.give_up();
            }
            self.held += more;
            places.grow_to(line + 1, [UNPLACED; 2]);
        }
        places[line] = [k, s];
    }

    fn give_up(&mut self) {
        self.off = true;
        self.by_source = Vec::new();
    }

    /// The key and signature ordinals noted at `at`.
    fn get(&self, at: RecordRef) -> Option<(usize, usize)> {
        let line = usize::try_from(at.line()).ok()?;
        let [k, s] = *self.by_source.get(at.source() as usize)?.get(line)?;
        (k != UNPLACED).then_some((k as usize, s as usize))
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
    /// More distinct keys or signatures than the tables' 32-bit ordinals hold
    /// ([`MAX_STATES`]).
    TooManyKeys,
}

/// Distinct keys, and distinct signatures, one run can count: the tables hold 32-bit
/// ordinals, half the size of `usize` ones (at 5M keys 40 MB a table instead of 72).
pub const MAX_STATES: usize = u32::MAX as usize;

/// The table ordinal of the `n`th state, counted from 0: below [`MAX_STATES`], so never
/// `u32::MAX`, which the spill's entries take for "no ordinal".
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
/// owns the tables only inserts.
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
    /// Ordinals in `sig_states`, hashed by the low half of the signature's fingerprint.
    sigs: Slots,
    sig_states: Dense<SigState>,
    places: Places,
    /// Counters past 32 bits ([`Counter`]).
    beyond: HashMap<Full, u64>,
    /// Note where each record's states are ([`Places`]): off while pass one keeps its rows
    /// in a temporary file ([`super::spill`]), whose entries carry their states' ordinals.
    placing: bool,
    /// [`Grouping::insert_chunk`]'s buffers.
    found: Vec<Found>,
    probes: Probes,
    /// Only with `--groups`: per signature ordinal, its text and up to five member lines.
    sig_detail: Vec<(String, Vec<u64>)>,
    verify: Option<HashMap<Fingerprint, Box<str>, FingerprintHasher>>,
    keep_detail: bool,
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
            sigs: Slots::default(),
            sig_states: Dense::default(),
            places: Places::default(),
            beyond: HashMap::new(),
            placing: true,
            found: Vec::new(),
            probes: Probes::default(),
            sig_detail: Vec::new(),
            verify: verify.then(|| HashMap::with_hasher(FingerprintHasher(0))),
            keep_detail: groups,
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
        self.insert_found(c, Found::default()).map(|_| ())
    }

    /// Counts a worker's chunk of records, in order: [`Grouping::insert_counted`] for each,
    /// with the tables probed for the whole chunk before any of its records is inserted.
    /// At millions of distinct keys each probe is a few cache misses; one record's probe
    /// after another's insert waits for them in turn, while a run of probes that depend on
    /// nothing but their own fingerprints has them in flight together.
    pub fn insert_chunk(&mut self, chunk: Vec<Counted>) -> Result<(), CountError> {
        self.insert_chunk_placed(chunk, &mut |_| {})
    }

    /// [`Grouping::insert_chunk`], handing each record's key and signature ordinals (or
    /// `None` for an invalid record) to `placed`, in order.
    pub(crate) fn insert_chunk_placed(
        &mut self,
        chunk: Vec<Counted>,
        placed: &mut dyn FnMut(Option<(usize, usize)>),
    ) -> Result<(), CountError> {
        let mut found = std::mem::take(&mut self.found);
        let mut probes = std::mem::take(&mut self.probes);
        found.clear();
        let key_fps = chunk.iter().filter_map(|c| valid_fps(c).map(|f| f.0));
        warm_probes(&self.keys, &self.key_states, |k| k.fp, key_fps, &mut probes);
        // A known key's state names its signature's ([`record_fingerprints`]): the
        // signature table is probed for new keys only.
        found.extend(chunk.iter().map(|c| {
            let key = valid_fps(c).and_then(|(kf, _)| self.find_key(kf));
            Found {
                key,
                sig: self.signature_of_key(key),
            }
        }));
        let unknown = |(c, f): (&Counted, &Found)| valid_fps(c).filter(|_| f.sig.is_none());
        let sig_fps = chunk.iter().zip(found.iter()).filter_map(unknown);
        warm_probes(
            &self.sigs,
            &self.sig_states,
            |s| s.fp,
            sig_fps.map(|f| f.1),
            &mut probes,
        );
        self.probes = probes;
        for (f, c) in found.iter_mut().zip(&chunk) {
            if let (None, Some((_, sf))) = (f.sig, valid_fps(c)) {
                f.sig = find(&self.sigs, &self.sig_states, |s| s.fp, sf);
            }
        }
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
        find(&self.keys, &self.key_states, |k| k.fp, kf)
    }

    /// The signature's ordinal: a known key's state names it, else the signature table.
    fn find_signature(&self, key: Option<usize>, sf: Fp) -> Option<usize> {
        self.signature_of_key(key)
            .or_else(|| find(&self.sigs, &self.sig_states, |s| s.fp, sf))
    }

    /// The ordinal of a known key's signature: a key fingerprint holds its signature's
    /// ([`record_fingerprints`]), so the key state's is the record's.
    fn signature_of_key(&self, key: Option<usize>) -> Option<usize> {
        key.and_then(|k| self.signature_ordinal(k))
    }

    /// [`Grouping::insert_counted`] with what [`Grouping::insert_chunk`] found before the
    /// records ahead of it in its chunk were inserted; the ordinals of the record's key
    /// and signature states, for a valid record.
    fn insert_found(
        &mut self,
        c: Counted,
        found: Found,
    ) -> Result<Option<(usize, usize)>, CountError> {
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
        let (at, kf, sf) = (c.at, Fp::of(kf), Fp::of(sf));
        let key = found.key.or_else(|| self.find_key(kf));
        let sig = found.sig.or_else(|| self.find_signature(key, sf));
        let sig = match sig {
            Some(s) => s,
            None => {
                let n = self.sig_states.len();
                let ordinal = ordinal_of(n)?;
                self.sig_states.push(SigState {
                    fp: sf,
                    first: at,
                    distinct_keys: 0,
                    members: Counter::default(),
                });
                let states = &self.sig_states;
                self.sigs.insert(sf.0, ordinal, |i| states[i as usize].fp.0);
                if self.keep_detail {
                    let text = c.signature.map(str::into_string).unwrap_or_default();
                    self.sig_detail.push((text, Vec::new()));
                }
                n
            }
        };
        // Fits: every ordinal went through `ordinal_of`, below MAX_STATES.
        let sig_ordinal = sig as u32;
        // Members and sample lines are shown by `--groups` only: without it, a record of
        // a known key does not touch its signature's state.
        if self.keep_detail {
            add_one(
                &mut self.sig_states[sig].members,
                &mut self.beyond,
                Full::Members(sig_ordinal),
            );
            if let Some(d) = self.sig_detail.get_mut(sig) {
                if d.1.len() < 5 {
                    d.1.push(at.line());
                }
            }
        }
        let key = match key {
            Some(k) => {
                let count = &mut self.key_states[k].count;
                add_one(count, &mut self.beyond, Full::Count(k as u32));
                k
            }
            None => {
                let n = self.key_states.len();
                let ordinal = ordinal_of(n)?;
                // One per key state, so below MAX_STATES too.
                self.sig_states[sig].distinct_keys += 1;
                self.key_states.push(KeyState {
                    fp: kf,
                    first: at,
                    count: Counter(1),
                    signature: sig_ordinal,
                });
                let states = &self.key_states;
                self.keys.insert(kf.0, ordinal, |i| states[i as usize].fp.0);
                n
            }
        };
        if self.placing {
            self.places.note(at, key, sig);
        }
        Ok(Some((key, sig)))
    }

    /// Stops or starts noting [`Places`]; a record counted while off is probed in pass two.
    pub(crate) fn set_placing(&mut self, on: bool) {
        self.placing = on;
    }

    /// The states of a valid record's key and signature: where pass one noted them
    /// ([`Places`]) when they are its own, else from the tables.
    fn states_of(&self, at: RecordRef, key: &str, sig: &str) -> (Option<usize>, Option<usize>) {
        let (kf, sf) = Fp::pair(record_fingerprints(key, sig));
        let own = |(k, s): (usize, usize)| {
            let (ks, ss) = (self.key_states.get(k)?, self.sig_states.get(s)?);
            (ks.fp == kf && ss.fp == sf).then_some((k, s))
        };
        match self.places.get(at).and_then(own) {
            Some((k, s)) => (Some(k), Some(s)),
            None => (
                find(&self.keys, &self.key_states, |k| k.fp, kf),
                find(&self.sigs, &self.sig_states, |s| s.fp, sf),
            ),
        }
    }

    /// Reads the states pass one placed for `recs` ([`Places`]), before their rows are
    /// made: one record's row after another's waits for its two cache misses in turn,
    /// while this loop has them in flight together. What it reads goes to `black_box`,
    /// so that the reads are not optimized away.
    pub fn warm(&self, recs: &[InputRecord]) {
        self.warm_ordinals(
            recs.iter()
                .filter_map(|r| self.places.get(RecordRef::of(r))),
        );
    }

    /// Fills in the group counts of the summary; call after pass one.
    pub fn close(&mut self) {
        self.summary.distinct_keys = self.key_states.len() as u64;
        self.summary.signature_groups = self.sig_states.len() as u64;
        self.summary.review_groups = self
            .sig_states
            .iter()
            .filter(|s| s.distinct_keys > 1)
            .count() as u64;
        self.summary.duplicate_groups = self
            .key_states
            .iter()
            .filter(|k| k.count.0 > 1 && self.sig_states[k.signature as usize].distinct_keys == 1)
            .count() as u64;
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
            let (k, s) = self.states_of(RecordRef::of(rec), key, sig);
            let k = k.and_then(|k| Some((k, self.key_states.get(k)?)));
            let s = s.and_then(|s| self.sig_states.get(s));
            row.set_groups(self.cells_of(RecordRef::of(rec), k, s, sources));
        }
        row
    }

    /// The grouping cells of the valid record at `here` whose key and signature states
    /// are at ordinals `k` and `s` (none: a record pass one did not see, alone in its
    /// groups).
    fn cells_of<'a>(
        &self,
        here: RecordRef,
        k: Option<(usize, &KeyState)>,
        s: Option<&SigState>,
        sources: &'a [String],
    ) -> GroupCells<'a> {
        let name = |r: RecordRef| sources.get(r.source() as usize).map(String::as_str);
        let count = k.map_or(1, |(i, k)| {
            total(k.count, &self.beyond, Full::Count(i as u32))
        });
        let k = k.map(|(_, k)| k);
        let distinct = s.map_or(1, |s| u64::from(s.distinct_keys));
        let first = k.map(|k| k.first).filter(|&f| f != here);
        let classification = if distinct > 1 {
            Classification::Review
        } else if count > 1 {
            Classification::Duplicate
        } else {
            Classification::Unique
        };
        GroupCells {
            group: s.map(|s| s.first.line()),
            duplicate_of: first.map(RecordRef::line),
            duplicates: Some(count),
            variants: Some(distinct),
            classification: classification.as_str(),
            group_source: s.and_then(|s| name(s.first)),
            duplicate_of_source: first.and_then(name),
        }
    }

    /// The grouping cells of the valid record at `here` whose states pass one found at
    /// ordinals `k` and `s` ([`Grouping::insert_chunk_placed`]); `None` for ordinals this
    /// grouping does not have.
    pub(crate) fn cells_at<'a>(
        &self,
        here: RecordRef,
        k: usize,
        s: usize,
        sources: &'a [String],
    ) -> Option<GroupCells<'a>> {
        let (ks, ss) = (self.key_states.get(k)?, self.sig_states.get(s)?);
        Some(self.cells_of(here, Some((k, ks)), Some(ss), sources))
    }

    /// Reads the states at these ordinals, before rows are made from them: the loop of
    /// [`Grouping::warm`], for ordinals from anywhere.
    pub(crate) fn warm_ordinals(&self, ordinals: impl Iterator<Item = (usize, usize)>) {
        let mut read = 0;
        for (k, s) in ordinals {
            read ^= self.key_states.get(k).map_or(0, |k| k.count.0);
            read ^= self.sig_states.get(s).map_or(0, |s| s.distinct_keys);
        }
        std::hint::black_box(read);
    }

    /// The ordinal of the signature of the key state at `k`, if there is one.
    pub(crate) fn signature_ordinal(&self, k: usize) -> Option<usize> {
        self.key_states.get(k).map(|k| k.signature as usize)
    }

    /// Key states so far: the ordinal the next new key gets.
    pub(crate) fn key_states_len(&self) -> usize {
        self.key_states.len()
    }

    /// Fills in the signature ordinal of each pair from the key ordinal beside it: a key
    /// state names its signature's ([`record_fingerprints`]); a key ordinal this grouping
    /// does not have (an invalid record's `u32::MAX` among them) gets `usize::MAX`. Reads
    /// the key states, then the signature states, each loop with its cache misses in
    /// flight together, before rows are made from them.
    pub(crate) fn add_signatures(&self, ordinals: &mut [(usize, usize)]) {
        for (k, s) in ordinals.iter_mut() {
            *s = self.signature_ordinal(*k).unwrap_or(usize::MAX);
        }
        let mut read = 0;
        for &(_, s) in ordinals.iter() {
            read ^= self.sig_states.get(s).map_or(0, |s| s.distinct_keys);
        }
        std::hint::black_box(read);
    }

    /// One row per signature group (needs `groups` at creation), ordered by input and
    /// group id; `sources` as for [`Grouping::row`].
    pub fn group_rows(&self, sources: &[String]) -> Vec<GroupRow> {
        let mut rows: Vec<(RecordRef, GroupRow)> = self
            .sig_states
            .iter()
            .zip(&self.sig_detail)
            .enumerate()
            .map(|(i, (s, d))| {
                let members = total(s.members, &self.beyond, Full::Members(i as u32));
                (
                    s.first,
                    GroupRow {
                        group: s.first.line(),
                        group_source: sources.get(s.first.source() as usize).cloned(),
                        signature: d.0.clone(),
                        members,
                        distinct_keys: u64::from(s.distinct_keys),
                        classification: if s.distinct_keys > 1 {
                            "review"
                        } else if members > 1 {
                            "duplicate"
                        } else {
                            "unique"
                        },
                        sample_lines: d.1.clone(),
                        review: REVIEW,
                    },
                )
            })
            .collect();
        rows.sort_by_key(|r| r.0);
        rows.into_iter().map(|r| r.1).collect()
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
    /// probing the tables, also when a line number comes twice in one source (two records,
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
                let (kf, sf) = Fp::pair(record_fingerprints(key, sig));
                let at = RecordRef::of(r);
                from_places += usize::from(placed.places.get(at).is_some_and(|(k, s)| {
                    placed.key_states[k].fp == kf && placed.sig_states[s].fp == sf
                }));
            }
        }
        assert!(from_places * 10 > valid * 9, "{from_places} of {valid}");
        assert!(from_places < valid, "no record fell back to the tables");
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
    /// records (an input of mostly skipped lines); rows then come from the tables.
    /// Ordinals stop short of the table's 32 bits with an error, never a wrapped ordinal.
    #[test]
    fn ordinals_end_at_max_states() {
        assert_eq!(ordinal_of(0).ok(), Some(0));
        assert_eq!(ordinal_of(MAX_STATES - 1).ok(), Some(u32::MAX - 1));
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
        g.sig_states[0].members = Counter(u32::MAX - 1);
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
        assert_eq!(std::mem::size_of::<SigState>(), 32);
    }

    #[test]
    fn places_give_up_on_sparse_lines() {
        let mut places = Places::default();
        places.note(RecordRef::new(0, 1), 0, 0);
        places.note(RecordRef::new(1, 3), 1, 0);
        assert_eq!(places.get(RecordRef::new(1, 3)), Some((1, 0)));
        assert_eq!(places.get(RecordRef::new(1, 2)), None);
        assert_eq!(places.get(RecordRef::new(2, 1)), None);
        places.note(RecordRef::new(0, 10_000_000), 2, 1);
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

//! What the grouping keeps per distinct key ([`KeyState`], 32 bytes): its fingerprint, its
//! first record, its count and its signature group.

use std::sync::atomic::{AtomicU32, Ordering};

use hashbrown::HashMap;

use super::counted::CountError;
use super::fingerprint::Fingerprint;
use crate::input::RecordRef;

/// A fingerprint in a state: two 64-bit halves, so that a state is aligned to 8 bytes,
/// not 16 (a `u128` padded a 24-byte state to 48 bytes). The tables hash by its low half.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Fp(pub(super) u64, pub(super) u64);

impl Fp {
    #[inline]
    pub(super) fn of(f: Fingerprint) -> Self {
        Fp(f as u64, (f >> 64) as u64)
    }
}

/// Per distinct key, in a dense vector (`Grouping::key_states`, 32 bytes) that the key
/// table indexes ([`Slots`]: 8 bytes a slot, the ordinal and 32 bits of the hash). Every
/// state is memory the process touches for the first time, which is what `map` waits for
/// most: 32 bytes, not 40, with the count in 32 bits ([`Counter`]). 32 bytes,
/// not 28 or 24: a smaller state lies across two cache lines now and then, and the random
/// reads cost more than the memory saves (docs/benchmarks.md, "no signature table").
pub(super) struct KeyState {
    pub(super) fp: Fp,
    pub(super) first: RecordRef,
    pub(super) count: Counter,
    /// Its signature group ([`Group`]), once [`Grouping::close`] has found the groups;
    /// until then the low 32 bits of its signature's fingerprint.
    pub(super) group: Group,
}

/// A key's signature group, as its state holds it: the key that leads the group (the
/// group's first key) holds [`Group::LEAD`] and the group's distinct keys; any other key
/// its group's lead's ordinal. The group's first record is its lead's first record (a key
/// state is made with its first record, in input order). So a row of a key alone in its
/// signature reads one state, and any other row two.
///
/// An atomic cell (relaxed loads and stores, plain moves on x86) so that the threads of
/// [`Grouping::close_on`] write the groups of their own keys through a shared reference:
/// each key is in one signature's run, which one thread reads, and the threads are joined
/// before anything else reads a group. A list of the writes, applied after, cost 8 bytes
/// for each key that shares its signature.
#[derive(Debug)]
pub(super) struct Group(AtomicU32);

impl Group {
    /// The flag of a group's lead; ordinals stay below it ([`MAX_STATES`]).
    pub(super) const LEAD: u32 = 1 << 31;
    /// The lead of a group of one key.
    pub(super) const ALONE: u32 = Self::LEAD | 1;

    pub(super) fn new(v: u32) -> Self {
        Group(AtomicU32::new(v))
    }

    /// A lead's group: `distinct` keys, at least one and below [`Group::LEAD`].
    pub(super) fn lead(distinct: u32) -> u32 {
        Self::LEAD | distinct
    }

    pub(super) fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    pub(super) fn set(&self, v: u32) {
        self.0.store(v, Ordering::Relaxed);
    }

    /// The distinct keys of a lead's group, or the ordinal of the group's lead.
    pub(super) fn read(&self) -> Result<u32, usize> {
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
pub(super) struct GroupOf {
    pub(super) first: RecordRef,
    pub(super) distinct: u32,
}

/// A signature's place in the sorted blocks [`Grouping::close`] makes: its fingerprint's
/// high 96 bits above the ordinal of a key with that signature. Sorted, a signature's keys
/// come together, least ordinal first.
pub(super) fn sig_entry(sig: Fingerprint, ordinal: u32) -> u128 {
    (sig & !0xffff_ffff) | u128::from(ordinal)
}

/// The 96 bits of a signature's fingerprint that its entry keeps ([`sig_entry`]).
pub(super) fn sig_bits(entry: u128) -> u128 {
    entry >> 32
}

/// A count in 32 bits that goes on in [`Grouping::beyond`] once it is full: a key seen more
/// than 4,294,967,295 times is rare, and a state twice as wide for it would cost every run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counter(pub(super) u32);

/// Adds one to `c`, the count of the key state at ordinal `which`, or, when it is full, to
/// its continuation in `beyond`.
pub(super) fn add_one(c: &mut Counter, beyond: &mut HashMap<u32, u64>, which: u32) {
    match c.0.checked_add(1) {
        Some(n) => c.0 = n,
        None => *beyond.entry(which).or_default() += 1,
    }
}

/// The whole count of `c`.
pub(super) fn total(c: Counter, beyond: &HashMap<u32, u64>, which: u32) -> u64 {
    let past = if c.0 == u32::MAX {
        beyond.get(&which).copied().unwrap_or(0)
    } else {
        0
    };
    u64::from(c.0) + past
}

/// Distinct keys one run can count: the table holds 32-bit ordinals, half the size of
/// `usize` ones (at 5M keys 40 MB a table instead of 72), and a key state names its
/// group's lead by an ordinal below `Group::LEAD` (2^31). Some 2.1 billion keys: at
/// 60 bytes and more a key (docs/scale.md) more than a machine of 128 GB holds.
pub const MAX_STATES: usize = (1 << 31) - 1;

/// The table ordinal of the `n`th state, counted from 0: below [`MAX_STATES`], so never
/// `u32::MAX`, which the spill's entries take for "no ordinal", nor [`Group::LEAD`].
pub(super) fn ordinal_of(n: usize) -> Result<u32, CountError> {
    u32::try_from(n)
        .ok()
        .filter(|&o| (o as usize) < MAX_STATES)
        .ok_or(CountError::TooManyKeys)
}

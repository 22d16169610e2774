//! [`Slots`]: the table from a fingerprint to the ordinal of its state, for `map`'s key
//! states.
//!
//! Why not `hashbrown`'s table: at millions of distinct keys a
//! probe there is three dependent cache misses, the control bytes, then the bucket beside
//! them in another line, then the state the bucket names. A slot here holds the ordinal
//! and 32 more bits of the fingerprint together, so a probe is one miss for the slot and
//! one for the state, and where the probe starts depends on nothing but the fingerprint:
//! a caller reads the first slots of a run of records ([`Slots::home`]) before it needs
//! any, and has their misses in flight together.
//!
//! Open addressing with linear probing, at most three quarters full, so that a probe
//! that finds nothing meets an empty slot soon. A slot is `0` when empty, else the tag
//! (the hash's high 32 bits) above the ordinal plus one: ordinals are below `u32::MAX`
//! (`super::grouping::MAX_STATES`). A probe starts at the slot the hash's high bits
//! name, so the tag holds them: the table grows in one pass over its slots, in place
//! ([`Slots::grow_in_place`]), without reading a state (up to 2^32 slots, 3 billion
//! entries; past that it reads the states' hashes). It grows with its entries rather than
//! being sized for the input's records ahead: every slot is memory the process touches for
//! the first time, which on this kind of machine costs about as much per byte as the work
//! of a record.

/// Slots in an empty table: a probe never needs a special case for no slots.
const MIN_SLOTS: usize = 16;

/// A table this big (slots) or bigger is grown in room set aside for it ([`ROOM`]).
const RESERVE_FROM: usize = 1 << 16;

/// How many times its new size a table past [`RESERVE_FROM`] sets aside when it moves,
/// where the system gives it: address space, which costs nothing until a slot is used, so
/// that the next three doublings happen in place ([`Slots::grow`]). A table of 5M keys
/// (8M slots) is then moved at 64K and 1M slots and touches 8.5M slots for the first time
/// on its way, against 16M when every growth moved it. Eight times, not a fixed gigabyte:
/// a process under a limit on its address space (`ulimit -v`), or on a system that counts
/// every mapping against its memory (strict overcommit), must not run out for room it may
/// never use.
const ROOM: usize = 8;

/// The table: slots for hashes (64 bits, uniform), each with an ordinal.
pub(super) struct Slots {
    /// `1 << bits` slots; its capacity may be more, room to grow into.
    slots: Vec<u64>,
    /// Of the hash, the high bits that say where a probe starts: `slots` has `1 << bits`.
    bits: u32,
    len: usize,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            slots: vec![0; MIN_SLOTS],
            bits: MIN_SLOTS.trailing_zeros(),
            len: 0,
        }
    }
}

/// The 32 bits of `hash` a slot keeps.
#[inline]
pub(super) fn tag_of(hash: u64) -> u32 {
    (hash >> 32) as u32
}

/// Where the probe for `hash` starts in `1 << bits` slots.
#[inline]
fn home_of(hash: u64, bits: u32) -> usize {
    // `bits` is at least 4: the shift is below 64.
    (hash >> (64 - bits)) as usize
}

/// Slots for `n` entries at most three quarters full: a power of two.
fn slots_for(n: usize) -> usize {
    n.saturating_add(n / 3)
        .saturating_add(1)
        .next_power_of_two()
        .max(MIN_SLOTS)
}

impl Slots {
    /// The slot where the probe for `hash` starts.
    #[inline]
    pub(super) fn home(&self, hash: u64) -> u64 {
        self.slots[home_of(hash, self.bits)]
    }

    /// The ordinal `slot` holds, when it is `hash`'s: the first candidate of a probe
    /// that starts at that slot.
    #[inline]
    pub(super) fn named(slot: u64, hash: u64) -> Option<usize> {
        (slot != 0 && (slot >> 32) as u32 == tag_of(hash)).then(|| (slot as u32 - 1) as usize)
    }

    /// The ordinal stored for `hash` for which `is` is true (`is` tells a state's whole
    /// fingerprint), if any.
    #[inline]
    pub(super) fn find(&self, hash: u64, is: impl Fn(usize) -> bool) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = home_of(hash, self.bits);
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return None;
            }
            if let Some(o) = Self::named(slot, hash).filter(|&o| is(o)) {
                return Some(o);
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `ordinal` for `hash`, which the table does not hold. `hash_of` gives the
    /// hash of a stored ordinal, for a table grown past 2^32 slots.
    pub(super) fn insert(&mut self, hash: u64, ordinal: u32, hash_of: impl Fn(u32) -> u64) {
        if slots_for(self.len + 1) > self.slots.len() {
            self.grow(&hash_of);
        }
        let slot = (u64::from(tag_of(hash)) << 32) | (u64::from(ordinal) + 1);
        Self::put(&mut self.slots, self.bits, hash, slot);
        self.len += 1;
    }

    /// Twice the slots, with the entries in their new places ([`Slots::grow_in_place`]).
    /// A table without the room is first copied into a new allocation, with room set
    /// aside once it is big ([`ROOM`]; where the system refuses that, room for this
    /// growth only).
    fn grow(&mut self, hash_of: &impl Fn(u32) -> u64) {
        let bits = self.bits + 1;
        let size = 1usize << bits;
        if self.slots.capacity() < size {
            let room = if size >= RESERVE_FROM {
                size.saturating_mul(ROOM)
            } else {
                size
            };
            let mut moved = Vec::new();
            if moved.try_reserve_exact(room).is_err() {
                moved.reserve_exact(size);
            }
            moved.extend_from_slice(&self.slots);
            self.slots = moved;
        }
        self.grow_in_place(bits, |slot| {
            if bits <= 32 {
                // The tag holds the hash's high 32 bits: all a start needs.
                slot & !0xffff_ffff
            } else {
                hash_of(slot as u32 - 1)
            }
        });
    }

    /// [`Slots::grow`] within the slots' capacity: the new half is added and the entries
    /// moved within the table, so that a growth with room touches only the new half for
    /// the first time (a table doubled into a new allocation touched its whole new size,
    /// and at 5M keys the thread that counts waited for those pages: fresh memory costs
    /// 1-15 ms a megabyte on this kind of machine, docs/benchmarks.md, "the cost of fresh
    /// memory measured").
    ///
    /// A probe starts where the hash's high bits say, so an entry whose probe started at
    /// `h` starts at `2h` or `2h + 1` in the grown table: at or past where it is, unless
    /// it is further from its start than the start is from slot 0 (an entry that went
    /// round the end has its start past it). The entries are moved from the last slot to
    /// the first, each to the first empty slot from its new start, past which every
    /// entry is one already moved; the few that cannot be so moved (a new start before
    /// the place, a probe that would go round the end) are put in last, when every other
    /// entry is in its new place.
    fn grow_in_place(&mut self, bits: u32, hash_at: impl Fn(u64) -> u64) {
        let old = self.slots.len();
        let size = 1usize << bits;
        self.slots.resize(size, 0);
        self.bits = bits;
        let slots = &mut self.slots[..];
        let mut last = Vec::new();
        for p in (0..old).rev() {
            let slot = std::mem::take(&mut slots[p]);
            if slot == 0 {
                continue;
            }
            let mut q = home_of(hash_at(slot), bits);
            if q < p {
                last.push(slot);
                continue;
            }
            // Past `p`, only entries in their new places.
            while q < size && slots[q] != 0 {
                q += 1;
            }
            match slots.get_mut(q) {
                Some(s) => *s = slot,
                None => last.push(slot),
            }
        }
        for slot in last {
            Self::put(slots, bits, hash_at(slot), slot);
        }
    }

    /// Puts `slot` in the first empty slot from where the probe for `hash` starts.
    fn put(slots: &mut [u64], bits: u32, hash: u64, slot: u64) {
        let mask = slots.len() - 1;
        let mut i = home_of(hash, bits);
        while slots[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = slot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries come back after the table grows, with hashes that share their home slot,
    /// their tag or all their bits; a probe for a missing entry ends.
    #[test]
    fn slots_find_what_was_inserted() {
        let mut next = crate::rows::csv::tests::xorshift();
        let hashes: Vec<u64> = (0..20_000)
            .map(|i| match i % 4 {
                // The same high bits: one home slot at every size, the same tag.
                0 => 0xabcd_ef01_0000_0000 | (next() & 0xffff_ffff),
                // The same hash: told apart by `is` only.
                1 => 0x1234_5678_9abc_def0,
                _ => next(),
            })
            .collect();
        let mut t = Slots::default();
        let no_states = |_: u32| -> u64 { unreachable!("below 2^32 slots, growth reads no state") };
        for (o, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == o), None);
            t.insert(h, o as u32, no_states);
            assert!(t.len * 4 <= t.slots.len() * 3);
        }
        assert_eq!(t.slots.len(), slots_for(hashes.len()));
        for (o, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == o), Some(o), "{o}");
            if let Some(first) = Slots::named(t.home(h), h) {
                assert_eq!(tag_of(hashes[first]), tag_of(h));
            }
        }
        assert_eq!(t.find(0xabcd_ef01_0000_0000, |_| false), None);
        assert_eq!(t.find(5, |_| true), None);
    }

    /// Past [`RESERVE_FROM`] the table grows in place: entries come back after every
    /// growth, among them runs that start at the last slot (and go round the end), at
    /// slot 0, near it in runs longer than their start's distance from it, and on one
    /// hash. Fails if the entries put in last are not (a test of the fallback alone).
    #[test]
    fn slots_grown_in_place_find_what_was_inserted() {
        let mut next = crate::rows::csv::tests::xorshift();
        let n = 3 * RESERVE_FROM + 1000;
        let hashes: Vec<u64> = (0..n)
            .map(|i| match (i % 400, i % 4000) {
                // Starts at the last slot at every size, then wraps.
                (0, _) => u64::MAX - (next() & 0xffff_ffff),
                // Starts at slot 0 at every size.
                (1, _) => next() & 0xffff_ffff,
                // One hash: told apart by `is` only.
                (_, 2) => 0x1234_5678_9abc_def0,
                // Start at one slot near the first (2^(bits - 9)), in a run longer than
                // that: further from their start than it is from slot 0.
                (3..=5, _) => (0x0080_0000 | (next() & 0x3ff)) << 32 | (next() & 0xffff_ffff),
                _ => next(),
            })
            .collect();
        let mut t = Slots::default();
        let no_states = |_: u32| -> u64 { unreachable!("below 2^32 slots, growth reads no state") };
        let (mut in_place, mut moved) = (0, 0);
        for (o, &h) in hashes.iter().enumerate() {
            let (before, at) = (t.slots.len(), t.slots.as_ptr());
            t.insert(h, o as u32, no_states);
            if t.slots.len() != before {
                if t.slots.as_ptr() == at {
                    in_place += 1;
                } else {
                    moved += 1;
                }
                for (o, &h) in hashes[..=o].iter().enumerate() {
                    assert_eq!(
                        t.find(h, |x| x == o),
                        Some(o),
                        "{o} after growing to {}",
                        t.slots.len()
                    );
                }
            }
        }
        // Moved from 16 up to 64K slots (12 growths), with room for 512K then: the growths
        // to 128K, 256K and 512K are in place.
        assert!(t.slots.capacity() >= ROOM * RESERVE_FROM, "room set aside");
        assert_eq!((in_place, moved), (3, 12));
        for (o, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == o), Some(o), "{o}");
        }
    }

    #[test]
    fn slots_for_keeps_a_quarter_empty() {
        for n in [0, 1, 11, 12, 13, 1000, 10_000_000] {
            let s = slots_for(n);
            assert!(
                s.is_power_of_two() && s >= MIN_SLOTS && n + n / 3 < s,
                "{n} {s}"
            );
        }
        assert_eq!(slots_for(5_000_000), 1 << 23);
    }
}

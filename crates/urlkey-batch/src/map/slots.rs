//! [`Slots`]: the table from a fingerprint to the ordinal of its state, for `map`'s key
//! and signature states.
//!
//! Why not `hashbrown`'s table (issue 19, ninth round): at millions of distinct keys a
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
//! name, so the tag holds them: the table grows in one pass over its slots in order,
//! without reading a state (up to 2^32 slots, 3 billion entries; past that it reads the
//! states' hashes). It grows with its entries rather than being sized for the input's
//! records ahead: every slot is memory the process touches for the first time, which on
//! this kind of machine costs about as much per byte as the work of a record.

/// Slots in an empty table: a probe never needs a special case for no slots.
const MIN_SLOTS: usize = 16;

/// The table: slots for hashes (64 bits, uniform), each with an ordinal.
pub(super) struct Slots {
    slots: Box<[u64]>,
    /// Of the hash, the high bits that say where a probe starts: `slots` has `1 << bits`.
    bits: u32,
    len: usize,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            slots: vec![0; MIN_SLOTS].into_boxed_slice(),
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

    /// Twice the slots, with the entries in their new places. The slots are read in
    /// order, and each entry's place is found from its tag: where the probe for the high
    /// bits starts moves with them, so the new places come in order too.
    fn grow(&mut self, hash_of: &impl Fn(u32) -> u64) {
        let bits = self.bits + 1;
        let mut bigger = vec![0; 1 << bits].into_boxed_slice();
        for &slot in self.slots.iter().filter(|&&s| s != 0) {
            let hash = if bits <= 32 {
                slot & !0xffff_ffff
            } else {
                hash_of(slot as u32 - 1)
            };
            Self::put(&mut bigger, bits, hash, slot);
        }
        self.slots = bigger;
        self.bits = bits;
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
        let mut next = crate::output::tests::xorshift();
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

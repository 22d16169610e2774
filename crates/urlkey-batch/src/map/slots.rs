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
//! name, so the tag holds them: the table grows in one pass over its slots, in place
//! ([`Slots::grow`]), without reading a state (up to 2^32 slots, 3 billion entries; past that it reads the
//! states' hashes). It grows with its entries rather than being sized for the input's
//! records ahead: every slot is memory the process touches for the first time, which on
//! this kind of machine costs about as much per byte as the work of a record.

/// Slots in an empty table: a probe never needs a special case for no slots.
const MIN_SLOTS: usize = 16;

/// Slots in a segment, as a power of two (2 MB): a table this big or bigger is held in
/// segments of this size, and grows by adding segments ([`Slots::grow`]).
const SEGMENT_BITS: u32 = 18;
const SEGMENT: usize = 1 << SEGMENT_BITS;

/// The table: slots for hashes (64 bits, uniform), each with an ordinal.
///
/// Held in segments, so that growing adds the new half and moves the entries within the
/// memory the table already has (issue 19, eleventh round). A table that doubled into a
/// new allocation touched its final size again in fresh memory on the way (at 5M keys,
/// 64 MB a table besides the final 64 MB), and the thread that counts waited for those
/// pages while the others ran out of work: on this kind of machine fresh memory costs
/// 1-15 ms a megabyte on first touch (docs/benchmarks.md).
pub(super) struct Slots {
    /// `1 << bits` slots: segments of [`SEGMENT`] slots, or one smaller segment.
    segments: Vec<Box<[u64]>>,
    /// Of the hash, the high bits that say where a probe starts.
    bits: u32,
    len: usize,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            segments: vec![vec![0; MIN_SLOTS].into_boxed_slice()],
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
    /// Slots in the table.
    fn capacity(&self) -> usize {
        1 << self.bits
    }

    /// The slot at `i`, below [`Slots::capacity`]. A table of one segment smaller than
    /// [`SEGMENT`] has `i` below its size, so the same two indexes hold.
    #[inline]
    fn at(&self, i: usize) -> u64 {
        self.segments[i >> SEGMENT_BITS][i & (SEGMENT - 1)]
    }

    #[inline]
    fn at_mut(&mut self, i: usize) -> &mut u64 {
        &mut self.segments[i >> SEGMENT_BITS][i & (SEGMENT - 1)]
    }

    /// The slot where the probe for `hash` starts.
    #[inline]
    pub(super) fn home(&self, hash: u64) -> u64 {
        self.at(home_of(hash, self.bits))
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
        let mask = self.capacity() - 1;
        let mut i = home_of(hash, self.bits);
        loop {
            let slot = self.at(i);
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
        if slots_for(self.len + 1) > self.capacity() {
            self.grow(&hash_of);
        }
        let slot = (u64::from(tag_of(hash)) << 32) | (u64::from(ordinal) + 1);
        self.put(hash, slot);
        self.len += 1;
    }

    /// Puts `slot` in the first empty slot from where the probe for `hash` starts.
    fn put(&mut self, hash: u64, slot: u64) {
        let mask = self.capacity() - 1;
        let mut i = home_of(hash, self.bits);
        while self.at(i) != 0 {
            i = (i + 1) & mask;
        }
        *self.at_mut(i) = slot;
    }

    /// Twice the slots, with the entries in their new places. A probe starts where the
    /// hash's high bits say, so an entry whose probe started at `h` starts at `2h` or
    /// `2h + 1` in the grown table: at or past where it is, unless it is further from
    /// its start than the start is from slot 0 (an entry that went round the end has
    /// its start past it). The grown table's new half is new segments; the entries are
    /// moved from the last slot to the first, each to the first empty slot from its new
    /// start, past which every entry is one already moved. The few that cannot be so
    /// moved (a new start before the place, a probe that would go round the end) are
    /// put in last, when every other entry is in its new place.
    fn grow(&mut self, hash_of: &impl Fn(u32) -> u64) {
        let bits = self.bits + 1;
        let hash_at = |slot: u64| {
            if bits <= 32 {
                // The tag holds the hash's high 32 bits: all a start needs.
                slot & !0xffff_ffff
            } else {
                hash_of(slot as u32 - 1)
            }
        };
        let old = self.capacity();
        if 2 * old <= SEGMENT {
            let small = std::mem::replace(
                &mut self.segments,
                vec![vec![0; 2 * old].into_boxed_slice()],
            );
            self.bits = bits;
            for &slot in small.iter().flat_map(|s| s.iter()).filter(|&&s| s != 0) {
                self.put(hash_at(slot), slot);
            }
            return;
        }
        self.segments
            .extend((0..old / SEGMENT).map(|_| vec![0; SEGMENT].into_boxed_slice()));
        self.bits = bits;
        let mut last = Vec::new();
        for p in (0..old).rev() {
            let slot = std::mem::take(self.at_mut(p));
            if slot == 0 {
                continue;
            }
            let mut q = home_of(hash_at(slot), bits);
            if q < p {
                last.push(slot);
                continue;
            }
            // Past `p`, only entries in their new places.
            while q < 2 * old && self.at(q) != 0 {
                q += 1;
            }
            match q < 2 * old {
                true => *self.at_mut(q) = slot,
                false => last.push(slot),
            }
        }
        for slot in last {
            self.put(hash_at(slot), slot);
        }
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
            assert!(t.len * 4 <= t.capacity() * 3);
        }
        assert_eq!(t.capacity(), slots_for(hashes.len()));
        for (o, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == o), Some(o), "{o}");
            if let Some(first) = Slots::named(t.home(h), h) {
                assert_eq!(tag_of(hashes[first]), tag_of(h));
            }
        }
        assert_eq!(t.find(0xabcd_ef01_0000_0000, |_| false), None);
        assert_eq!(t.find(5, |_| true), None);
    }

    /// Past one segment the table grows in place: entries come back after every growth,
    /// among them runs that start at the last slot (and go round the end), at slot 0,
    /// near it in runs longer than their start's distance from it, and on one hash.
    #[test]
    fn slots_grown_in_place_find_what_was_inserted() {
        let mut next = crate::output::tests::xorshift();
        let n = 3 * SEGMENT + 1000;
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
        let mut grown = 0;
        for (o, &h) in hashes.iter().enumerate() {
            let before = t.capacity();
            t.insert(h, o as u32, no_states);
            if t.capacity() != before {
                grown += 1;
                for (o, &h) in hashes[..=o].iter().enumerate() {
                    assert_eq!(
                        t.find(h, |x| x == o),
                        Some(o),
                        "{o} after growing to {}",
                        t.capacity()
                    );
                }
            }
        }
        assert!(
            t.segments.len() > 4 && grown > 12,
            "{} segments",
            t.segments.len()
        );
        assert_eq!(t.capacity(), slots_for(n));
        for (o, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == o), Some(o), "{o}");
        }
        assert_eq!(t.find(u64::MAX, |_| false), None);
        let full = (0..t.capacity()).filter(|&i| t.at(i) != 0).count();
        assert_eq!(full, n);
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

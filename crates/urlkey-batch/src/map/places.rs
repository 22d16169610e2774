//! Where pass one left each record's key state ([`Places`]), so that pass two reads it
//! there instead of probing the key table again.

use super::dense::Dense;
use crate::input::RecordRef;

/// An unused place in [`Places`].
pub(super) const UNPLACED: u32 = u32::MAX;

/// Where pass one left each record's key state (its ordinal), by source and line. Pass
/// two reads a record's state there instead of hashing its way through the table again:
/// at 10M records those probes were random reads into ~0.5 GB, the cost that made `map`
/// memory-bound. Only a hint: pass two takes the state found here when it holds the
/// record's own fingerprint, and probes the table otherwise, so a line number seen twice
/// or an input that changed between the passes still gets the probed row. 4 bytes a line.
#[derive(Default)]
pub(super) struct Places {
    by_source: Vec<Dense<u32>>,
    /// Places held, used or not.
    held: usize,
    records: usize,
    /// Given up (an ordinal past `u32`, or far more line numbers than records): pass two
    /// probes every record.
    off: bool,
}

impl Places {
    pub(super) fn note(&mut self, at: RecordRef, key: usize) {
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

    pub(super) fn give_up(&mut self) {
        self.off = true;
        self.by_source = Vec::new();
    }

    /// True once the places are given up.
    #[cfg(test)]
    pub(super) fn is_off(&self) -> bool {
        self.off
    }

    /// The key ordinal noted at `at`.
    pub(super) fn get(&self, at: RecordRef) -> Option<usize> {
        let line = usize::try_from(at.line()).ok()?;
        let k = *self.by_source.get(at.source() as usize)?.get(line)?;
        (k != UNPLACED).then_some(k as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

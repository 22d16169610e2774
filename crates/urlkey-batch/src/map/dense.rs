//! [`Dense`]: the vector of `map`'s per-key states, in fixed blocks.

use std::ops::{Index, IndexMut};

/// Elements per block: 32 MB of 32-byte states, reserved at once and touched as they
/// fill. The allocator puts a header before a block, so a block of 2 MB (as it was
/// once) lay across two of the process's 2 MB huge pages, and the allocations placed
/// between blocks took huge pages of their own: with 2 MB blocks `map`'s peak memory on
/// 10M lines was 498-500 MB, with 32 MB blocks 452-461 (docs/benchmarks.md, "pass one
/// touches 9% less fresh memory"). A short input touches one huge page of its first block.
pub(super) const BLOCK: usize = 1 << 20;

/// A vector that grows by whole blocks, never by moving what it holds. A `Vec` of 5M
/// states doubles into a new 320 MB allocation and copies 160 MB into it, faulting in
/// fresh pages for the copy while the old ones are still held; at 10M records that
/// growth was a twentieth of `map`'s time and a good part of its peak memory.
pub(super) struct Dense<T> {
    blocks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Dense<T> {
    fn default() -> Self {
        Dense {
            blocks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Dense<T> {
    /// Elements held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Appends `v`.
    pub(super) fn push(&mut self, v: T) {
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        if let Some(b) = self.blocks.last_mut() {
            b.push(v);
            self.len += 1;
        }
    }

    /// The element at `i`.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<&T> {
        self.blocks.get(i / BLOCK)?.get(i % BLOCK)
    }

    /// The blocks: [`BLOCK`] elements each, the last one the rest.
    pub(super) fn blocks(&self) -> &[Vec<T>] {
        &self.blocks
    }

    /// The blocks, to change in place ([`Dense::blocks`]).
    pub(super) fn blocks_mut(&mut self) -> impl Iterator<Item = &mut Vec<T>> {
        self.blocks.iter_mut()
    }
}

impl<T: Clone> Dense<T> {
    /// Appends copies of `fill` until it holds `len` elements.
    pub(super) fn grow_to(&mut self, len: usize, fill: T) {
        while self.len < len {
            self.push(fill.clone());
        }
    }
}

impl<T> Index<usize> for Dense<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.blocks[i / BLOCK][i % BLOCK]
    }
}

impl<T> IndexMut<usize> for Dense<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.blocks[i / BLOCK][i % BLOCK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Indexing, `get`, the blocks (also to change) and `grow_to` see what a `Vec` would, across
    /// blocks.
    #[test]
    fn dense_equals_a_vec() {
        let mut d = Dense::default();
        let mut v = Vec::new();
        assert!(d.len() == 0 && d.get(0).is_none());
        for i in 0..(2 * BLOCK + 5) {
            d.push(i * 3);
            v.push(i * 3);
        }
        d.grow_to(3 * BLOCK + 1, 7);
        v.resize(3 * BLOCK + 1, 7);
        d.grow_to(10, 9);
        assert_eq!(d.len(), v.len());
        for (i, want) in v.iter().enumerate() {
            assert_eq!(d[i], *want);
            assert_eq!(d.get(i), Some(want));
        }
        assert_eq!(d.get(v.len()), None);
        let all = |d: &Dense<usize>| d.blocks().iter().flatten().copied().collect::<Vec<_>>();
        assert_eq!(all(&d), v);
        assert!(d.blocks().iter().flatten().eq(v.iter()));
        d.blocks_mut().flatten().for_each(|x| *x += 1);
        assert!(all(&d).iter().zip(&v).all(|(a, b)| *a == b + 1));
        d.blocks_mut().flatten().for_each(|x| *x -= 1);
        assert_eq!(d.blocks().len(), 4);
        assert!(d.blocks()[..3].iter().all(|b| b.len() == BLOCK));
        d[BLOCK] = 1;
        assert_eq!(
            (d[BLOCK - 1], d[BLOCK], d[BLOCK + 1]),
            (v[BLOCK - 1], 1, v[BLOCK + 1])
        );
    }
}

//! The indexes of the new inventory: from a value (a key, a last segment, a word) to the
//! pages that have it. A value is stored as 80 bits of its XXH3-128 fingerprint (a 64-bit
//! table key and a 16-bit check), and the pages of one value as a chain through one array,
//! so that an index costs about 20 bytes per distinct value and 4 per page, whatever the
//! values' lengths. Two values that share the 64 bits (odds about 3 in 10^8 for a million
//! values) cannot share an entry: the later one is left out of the index, so a collision
//! can lose a piece of evidence but never invent one.

use std::hash::{BuildHasherDefault, Hasher};

use hashbrown::HashMap;

/// The most pages one value may name for `propose` to look at them: a value shared by
/// more (the last segment `index.html`, the word `products` on a shop) tells no page from
/// another, and looking at every one of them would make one old URL cost as much as the
/// whole new inventory. Measured on 1M x 1M (docs/benchmarks.md): 1,000 cost a third
/// more CPU than 100 for 0.7% more candidates, each one of over 100 look-alikes.
pub const COMMON: u32 = 100;

/// The most pages one word may name for `propose` to look at them (`Words`; a
/// candidate must share two such words with the old URL, which narrows them down); a
/// word on more pages (a shop's `products`, a blog's year) still counts in the similarity
/// of the candidates the other values find.
pub const COMMON_WORD: u32 = 200;

/// A value's fingerprint.
pub fn fingerprint(value: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(value.as_bytes())
}

/// The table key of a fingerprint: its low 64 bits, which are already a hash.
fn table_key(fp: u128) -> u64 {
    fp as u64
}

/// The check of a fingerprint: 16 more of its bits.
fn check(fp: u128) -> u16 {
    (fp >> 64) as u16
}

/// A hasher for keys that are hashes already: the key itself.
#[derive(Default)]
pub struct Passthrough(u64);

impl Hasher for Passthrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys come here; anything else is folded in, as a plain hasher would.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map from hashes.
pub type HashTable<V> = HashMap<u64, V, BuildHasherDefault<Passthrough>>;

/// One value's entry: the last page added with it, how many pages have it (saturating),
/// and its check.
#[derive(Clone, Copy)]
struct Head {
    last: u32,
    count: u16,
    check: u16,
}

/// Page numbers by value, for values each page has at most once (a key, a title).
#[derive(Default)]
pub struct Index {
    heads: HashTable<Head>,
    /// Per page: the previous page with the same value (`u32::MAX`: none).
    next: Vec<u32>,
}

const END: u32 = u32::MAX;

impl Index {
    /// Adds `page` (pages are added in order, each once) under `value`, or under nothing.
    pub fn add(&mut self, page: u32, value: Option<u128>) {
        debug_assert_eq!(self.next.len(), page as usize);
        let prev = match value {
            Some(v) => {
                let e = self.heads.entry(table_key(v)).or_insert(Head {
                    last: END,
                    count: 0,
                    check: check(v),
                });
                if e.check == check(v) {
                    let prev = e.last;
                    e.last = page;
                    e.count = e.count.saturating_add(1);
                    prev
                } else {
                    // Another value with the same 64 bits: this page stays out.
                    END
                }
            }
            None => END,
        };
        self.next.push(prev);
    }

    /// The pages with `value`, the last added first; none when more than [`COMMON`] have
    /// it. A walk of the chain, with nothing allocated: the caller orders what it keeps
    /// (`rank` sorts its candidates by score, then by page).
    pub fn each(&self, value: u128) -> Chain<'_> {
        let at = match self.heads.get(&table_key(value)) {
            Some(h) if h.check == check(value) && u32::from(h.count) <= COMMON => h.last,
            _ => END,
        };
        Chain {
            next: &self.next,
            at,
        }
    }

    /// The pages with `value`, in the order they were added ([`Index::each`] reversed).
    #[cfg(test)]
    pub fn pages(&self, value: u128) -> Vec<u32> {
        let mut out: Vec<u32> = self.each(value).collect();
        out.reverse();
        out
    }

    /// Room for `values` more values and `pages` more pages.
    pub fn reserve(&mut self, values: usize, pages: usize) {
        self.heads.reserve(values);
        self.next.reserve(pages);
    }

    /// Frees the chain's spare capacity (the table is left as it is: shrinking it would
    /// rehash every value).
    pub fn shrink(&mut self) {
        self.next.shrink_to_fit();
    }
}

/// The pages of one value ([`Index::each`]), the last added first.
pub struct Chain<'a> {
    next: &'a [u32],
    at: u32,
}

impl Iterator for Chain<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.at == END {
            return None;
        }
        let page = self.at;
        self.at = self.next[page as usize];
        Some(page)
    }
}

/// Pages by word: an inverted index whose lists stop growing at [`COMMON_WORD`] + 1 pages
/// (such a word is common: it names no page, and its list is not kept whole).
#[derive(Default)]
pub struct Words {
    lists: HashTable<Vec<u32>>,
}

impl Words {
    /// Adds `page` under each of its (distinct) words.
    pub fn add(&mut self, page: u32, words: &[u64]) {
        for w in words {
            let list = self.lists.entry(*w).or_default();
            if list.len() <= COMMON_WORD as usize {
                list.push(page);
            }
        }
    }

    /// The pages with `word`, in the order they were added; none for a common word.
    pub fn pages(&self, word: u64) -> &[u32] {
        match self.lists.get(&word) {
            Some(l) if l.len() <= COMMON_WORD as usize => l,
            _ => &[],
        }
    }

    /// Frees the spare capacity of the lists (after the last page). A common word keeps
    /// its [`COMMON_WORD`] + 1 entries: few words are common, and the length is the mark.
    pub fn shrink(&mut self) {
        for l in self.lists.values_mut() {
            l.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_give_pages_in_order_and_common_values_give_none() {
        let mut ix = Index::default();
        let (a, b) = (fingerprint("a"), fingerprint("b"));
        for p in 0..=COMMON + 1 {
            ix.add(p, Some(if p < 3 { a } else { b }));
        }
        ix.add(COMMON + 2, None);
        assert_eq!(ix.pages(a), [0, 1, 2]);
        assert_eq!(ix.pages(b).len() as u32, COMMON - 1);
        assert!(ix.pages(fingerprint("c")).is_empty());
        ix.add(COMMON + 3, Some(b));
        ix.add(COMMON + 4, Some(b));
        assert!(ix.pages(b).is_empty(), "a common value names no page");
    }

    /// Two values with the same 64 bits and another check: the second is left out, and
    /// neither lookup names the other's page.
    #[test]
    fn a_collision_loses_evidence_and_invents_none() {
        let mut ix = Index::default();
        let a: u128 = 7;
        let b: u128 = 7 | (1 << 64);
        ix.add(0, Some(a));
        ix.add(1, Some(b));
        ix.add(2, Some(a));
        assert_eq!(ix.pages(a), [0, 2]);
        assert!(ix.pages(b).is_empty());
    }

    #[test]
    fn a_common_word_names_no_page() {
        let mut w = Words::default();
        let (common, rare) = (1u64, 2u64);
        for p in 0..COMMON_WORD + 5 {
            w.add(p, &[common]);
        }
        w.add(7, &[rare]);
        w.shrink();
        assert!(w.pages(common).is_empty());
        assert_eq!(w.pages(rare), [7]);
    }
}

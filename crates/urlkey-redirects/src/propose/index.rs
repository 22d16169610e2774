//! The indexes of the new inventory: from a value (a key, a last segment, a word) to the
//! pages that have it. A value is stored as its XXH3-128 fingerprint (as `urlkey map`
//! stores keys: a collision among 10^9 values has odds below 10^-20), and the pages of one
//! value as a chain through one array, so that an index costs about 40 bytes per distinct
//! value and 4 per page, whatever the values' lengths.

use hashbrown::HashMap;

/// The most pages one value may name for `propose` to look at them: a value shared by
/// more (the last segment `index.html`, the word `products` on a shop) tells no page from
/// another, and looking at every one of them would make one old URL cost as much as the
/// whole new inventory.
pub const COMMON: u32 = 1000;

/// A value's fingerprint.
pub fn fingerprint(value: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(value.as_bytes())
}

/// Page numbers by value, for values each page has at most once (a key, a title).
#[derive(Default)]
pub struct Index {
    /// Per value: the last page added with it, and how many pages have it.
    heads: HashMap<u128, (u32, u32)>,
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
                let e = self.heads.entry(v).or_insert((END, 0));
                let prev = e.0;
                *e = (page, e.1.saturating_add(1));
                prev
            }
            None => END,
        };
        self.next.push(prev);
    }

    /// The pages with `value`, in the order they were added; none when more than
    /// [`COMMON`] have it.
    pub fn pages(&self, value: u128) -> Vec<u32> {
        let Some(&(head, count)) = self.heads.get(&value) else {
            return Vec::new();
        };
        if count > COMMON {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(count as usize);
        let mut at = head;
        while at != END {
            out.push(at);
            at = self.next[at as usize];
        }
        out.reverse();
        out
    }
}

/// Pages by word: an inverted index whose lists stop growing at [`COMMON`] + 1 pages
/// (such a word is common: it names no page, and its list is not kept whole).
#[derive(Default)]
pub struct Words {
    lists: HashMap<u128, Vec<u32>>,
}

impl Words {
    /// Adds `page` under each of its (distinct) words.
    pub fn add(&mut self, page: u32, words: &[u128]) {
        for w in words {
            let list = self.lists.entry(*w).or_default();
            if list.len() <= COMMON as usize {
                list.push(page);
            }
        }
    }

    /// The pages with `word`, in the order they were added; none for a common word.
    pub fn pages(&self, word: u128) -> &[u32] {
        match self.lists.get(&word) {
            Some(l) if l.len() <= COMMON as usize => l,
            _ => &[],
        }
    }

    /// Frees the spare capacity of the lists (after the last page). A common word keeps
    /// its [`COMMON`] + 1 entries: few words are common, and the length is the mark.
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

    #[test]
    fn a_common_word_names_no_page() {
        let mut w = Words::default();
        let (common, rare) = (fingerprint("products"), fingerprint("widget"));
        for p in 0..COMMON + 5 {
            w.add(p, &[common]);
        }
        w.add(7, &[rare]);
        w.shrink();
        assert!(w.pages(common).is_empty());
        assert_eq!(w.pages(rare), [7]);
    }
}

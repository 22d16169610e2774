//! Spare text buffers for the key path, kept per thread, so that the lean and fast paths
//! allocate nothing per URL (`tests/allocations.rs` counts).
//!
//! A rule that rewrites a component (a query without its tracking parameters, a sorted
//! query, a lowercased path) and the fast parse's serialization when it differs from the
//! input build their text in an owned `String`. Taking that `String` from here, and
//! handing it back once the key is written ([`give`], [`give_cow`]), means a thread that
//! keys many URLs allocates only while its few buffers grow to the longest text it has
//! seen. Nothing here changes a result: a buffer is always handed out empty, and a
//! thread whose pool is empty (or in use) simply allocates.

use std::borrow::Cow;
use std::cell::RefCell;

/// How many spare buffers a thread keeps: the most a key path holds at once is one per
/// component plus the fast parse's serialization.
const KEEP: usize = 8;
/// The largest buffer kept: one very long URL should not pin its memory for the life of
/// the thread.
const KEEP_CAPACITY: usize = 16 * 1024;
/// The least a new buffer holds, so that a short first URL does not leave a buffer that
/// every longer one has to grow.
const FIRST_CAPACITY: usize = 256;

thread_local! {
    static SPARE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// An empty `String` with room for `len` bytes: a spare one when the thread has one,
/// one already large enough when there is such (so that buffers handed back in a
/// different order than they were taken do not grow again).
#[inline]
pub(crate) fn string(len: usize) -> String {
    let mut s = SPARE
        .try_with(|spare| {
            let mut spare = spare.try_borrow_mut().ok()?;
            match spare.iter().rposition(|s| s.capacity() >= len) {
                Some(i) => Some(spare.swap_remove(i)),
                None => spare.pop(),
            }
        })
        .ok()
        .flatten()
        .unwrap_or_default();
    if s.capacity() < len {
        s.reserve(len.max(FIRST_CAPACITY));
    }
    s
}

/// `s` lowercased (ASCII), in a buffer from [`string`].
#[inline]
pub(crate) fn lowercase(s: &str) -> String {
    let mut out = string(s.len());
    out.push_str(s);
    out.make_ascii_lowercase();
    out
}

/// Hands a buffer back for the next [`string`]. Not inlined: only a URL that a rule
/// rewrote has a buffer to give, and the key path's callers test for one inline.
#[inline(never)]
pub(crate) fn give(mut s: String) {
    if s.capacity() == 0 || s.capacity() > KEEP_CAPACITY {
        return;
    }
    s.clear();
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut() {
            if spare.len() < KEEP {
                if spare.capacity() == 0 {
                    spare.reserve_exact(KEEP);
                }
                spare.push(s);
            }
        }
    });
}

/// Hands back the buffer of an owned text; a borrowed one has none.
#[inline]
pub(crate) fn give_cow(c: Cow<'_, str>) {
    if let Cow::Owned(s) = c {
        give(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_comes_back_empty_and_keeps_its_room() {
        let mut s = string(10);
        s.push_str("https://example.com/");
        let room = s.capacity();
        give(s);
        let again = string(5);
        assert!(again.is_empty());
        assert_eq!(again.capacity(), room);
    }

    #[test]
    fn the_pool_is_bounded_in_count_and_size() {
        // Drain whatever this thread holds.
        let held: Vec<String> = (0..KEEP).map(|_| string(1)).collect();
        for s in held {
            give(s);
        }
        give(String::with_capacity(KEEP_CAPACITY + 1));
        let spare = SPARE.with(|s| s.borrow().len());
        assert!(spare <= KEEP);
        let sizes: Vec<usize> = SPARE.with(|s| s.borrow().iter().map(String::capacity).collect());
        assert!(sizes.iter().all(|&c| c <= KEEP_CAPACITY), "{sizes:?}");
    }

    #[test]
    fn lowercase_lowercases_ascii_only() {
        assert_eq!(lowercase("HTTP://Ex.COM/É"), "http://ex.com/É");
    }
}

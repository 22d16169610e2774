//! A counting allocator: a `#[global_allocator]` wrapper around [`System`] that counts
//! allocation calls (`alloc`, `alloc_zeroed`, `realloc`) and the bytes they ask for.
//!
//! Counting is off until [`set_counting`] turns it on, so timed rounds pay only one
//! relaxed load and a predictable branch per call; the macro benchmark measures
//! allocations in a separate, untimed pass.
//!
//! The binary installs it with:
//! ```
//! #[global_allocator]
//! static GLOBAL: urlkey_bench::alloc::CountingAlloc = urlkey_bench::alloc::CountingAlloc;
//!
//! fn main() {
//!     let v = vec![1u8; 16];
//!     assert_eq!(v.len(), 16);
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The allocator. Zero-sized; all state is in statics.
pub struct CountingAlloc;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static FREES: AtomicU64 = AtomicU64::new(0);

/// Counts so far (since the last [`reset`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// `alloc` + `alloc_zeroed` + `realloc` calls.
    pub calls: u64,
    /// Bytes requested by those calls (for `realloc`, the new size).
    pub bytes: u64,
    /// `dealloc` calls.
    pub frees: u64,
}

/// Turns counting on or off (process-wide).
pub fn set_counting(on: bool) {
    COUNTING.store(on, Relaxed);
}

/// Zeroes the counters.
pub fn reset() {
    CALLS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    FREES.store(0, Relaxed);
}

/// The counters now.
pub fn counts() -> Counts {
    Counts {
        calls: CALLS.load(Relaxed),
        bytes: BYTES.load(Relaxed),
        frees: FREES.load(Relaxed),
    }
}

/// Runs `f` with counting on and returns what it allocated. Meant for one thread: other
/// threads allocating at the same time are counted too.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Counts) {
    reset();
    set_counting(true);
    let out = f();
    set_counting(false);
    (out, counts())
}

#[inline]
fn count(size: usize) {
    if COUNTING.load(Relaxed) {
        CALLS.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counters are atomics and
// never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Relaxed) {
            FREES.fetch_add(1, Relaxed);
        }
        System.dealloc(ptr, layout)
    }
}

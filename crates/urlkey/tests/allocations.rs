//! Allocations on the lean key path: none per URL on the fast path (the key path takes its
//! buffers from `urlkey::scratch`'s per-thread spares).
//!
//! A counting global allocator counts the calls made by this test's own thread. For every
//! corpus line the fast parse takes (`urlkey::internals::fast::FastUrl::parse`), `key_into` and
//! `key_signature_into` into reused buffers must make no allocation once the thread has
//! keyed the lines once: what is left then is buffer growth, which stops at the longest
//! text seen. `clean@1` is left out: its `unwrap-redirect` rule parses the wrapped target
//! with ada and keeps owned parts of it.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use urlkey::internals::PolicyInternals;

mod common;

/// [`System`], counting the calls of threads that turned counting on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the allocator also runs while a thread's locals are torn down.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = CALLS.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded unchanged to `System`; the counters are thread-locals
// with constant initializers, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocation calls `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    CALLS.with(|c| c.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    CALLS.with(Cell::get)
}

/// The corpus lines the fast parse takes.
fn fast_corpus_lines() -> Vec<String> {
    let out: Vec<String> = common::corpus_lines()
        .into_iter()
        .map(|(_, line)| line)
        .filter(|line| urlkey::internals::fast::FastUrl::parse(line).is_some())
        .collect();
    // 58,966 when this test was written: a fast parse that stops accepting fails here.
    assert!(out.len() > 58_000, "{} fast-parsed corpus lines", out.len());
    out
}

#[test]
fn the_fast_path_allocates_nothing_per_url() {
    let lines = fast_corpus_lines();
    for id in ["citation@1", "mapper@1", "whatwg@1", "webkey@1"] {
        let policy = urlkey::PolicySet::builtin().get(id).expect("a builtin");
        assert!(policy.has_fast_path(), "{id}");
        // Sized once for the longest line, as a caller that reuses them would.
        let mut key = String::with_capacity(2 * urlkey::policy::DEFAULT_MAX_INPUT_BYTES);
        let mut signature = String::with_capacity(2 * urlkey::policy::DEFAULT_MAX_INPUT_BYTES);
        let mut run = |line: &str| {
            let a = allocations(|| {
                let _ = policy.key_into(line, &mut key);
            });
            let b = allocations(|| {
                let _ = policy.key_signature_into(line, &mut key, &mut signature);
            });
            (a, b, key.clone())
        };
        for line in &lines {
            run(line);
        }
        let mut allocating = Vec::new();
        let mut keyed = 0;
        for line in &lines {
            let (a, b, k) = run(line);
            keyed += usize::from(!k.is_empty());
            if a + b > 0 {
                allocating.push((a, b, line.as_str()));
            }
        }
        assert!(keyed > 58_000, "{id}: {keyed} keys");
        assert!(
            allocating.is_empty(),
            "{id}: {} of {} fast-parsed lines allocate (key_into, key_signature_into, line); first: {:?}",
            allocating.len(),
            lines.len(),
            &allocating[..allocating.len().min(5)]
        );
    }
}

/// The counter counts: a test that could never fail would prove nothing.
#[test]
fn the_counter_sees_an_allocation() {
    let n = allocations(|| {
        std::hint::black_box(String::with_capacity(10));
    });
    assert_eq!(n, 1);
    // The full outcome allocates (its key, canonical form, log): counted too.
    let p = urlkey::PolicySet::builtin()
        .get("citation@1")
        .expect("a builtin");
    assert!(allocations(|| drop(std::hint::black_box(p.key("https://example.com/a?b=1")))) > 0);
}

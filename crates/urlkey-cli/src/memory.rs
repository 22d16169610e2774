//! How the allocator hands freed memory back to the system.
//!
//! mimalloc returns memory that has stayed free for a second (`purge_delay`) to the
//! system. A batch command frees and allocates again all through its run (batches of
//! records, `map`'s pieces), so on a run longer than a second every purged page is faulted
//! in and zeroed by the kernel again when it is reused: `map` on 10M lines took 11,405 to
//! 26,306 page faults with purging and 692 to 701 without, and 2.6-4.8 s of system time
//! instead of 3.9-8.3 (docs/benchmarks.md, thirteenth round). A batch command ends within
//! minutes and gives everything back then; `urlkey serve` runs for days and keeps the
//! default.
// The one call into C that the binary makes: `deny`, not `forbid`, so that this module
// alone may allow it.
#![allow(unsafe_code)]

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`, v2 and v3 alike), which
/// `libmimalloc-sys` does not name.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The environment variable with which a user sets the delay anyway.
const PURGE_DELAY_VAR: &str = "MIMALLOC_PURGE_DELAY";

/// Keeps freed memory in the process until it exits, unless `MIMALLOC_PURGE_DELAY` says
/// otherwise. Call it before any thread starts: mimalloc's option table is not
/// synchronized.
pub fn keep_freed_memory() {
    if std::env::var_os(PURGE_DELAY_VAR).is_some() {
        return;
    }
    // SAFETY: `mi_option_set` stores two integers in mimalloc's static option table
    // (options.c); it takes no pointer, and no other thread runs yet to read the table.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}

/// The purge delay in force, in milliseconds (-1: never).
#[cfg(test)]
fn purge_delay() -> i64 {
    // SAFETY: reads an integer from mimalloc's option table.
    i64::from(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_is_kept_unless_the_user_says() {
        match std::env::var(PURGE_DELAY_VAR) {
            Ok(theirs) => {
                keep_freed_memory();
                assert_eq!(purge_delay().to_string(), theirs.trim());
            }
            Err(_) => {
                // mimalloc v3's default: the option at this index is the purge delay.
                assert_eq!(purge_delay(), 1000);
                keep_freed_memory();
                assert_eq!(purge_delay(), -1);
            }
        }
    }
}

//! Which cores the pipeline's threads run on: on a busy machine, the default thread count
//! must not run slower than `--threads 1`.
//!
//! On a machine with one core free and the others busy with another process, the
//! scheduler tends to leave that process alone on its core and to put the calling thread
//! and its helper together on the free one: the two then get one core between them, as
//! one thread would, and pay for their handovers besides. We measured 97-115%
//! of a core for the two, where a fair share of two cores among three threads is 133%, and
//! the default run 1.07-1.12x slower than `--threads 1`. So a helper that finds itself on
//! the core the calling thread last ran on moves to the other cores the process may use,
//! where it shares with the other process instead of with its own run. On an idle machine
//! the threads are on different cores already and nothing moves.
//!
//! Only on Linux (`sched_getcpu`, `sched_setaffinity`); elsewhere nothing moves.

#[cfg(target_os = "linux")]
mod imp {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use nix::sched::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};
    use nix::unistd::Pid;

    /// No core noted yet.
    const UNKNOWN: usize = usize::MAX;

    /// The cores the process may use, and the one the calling thread last ran on.
    pub(crate) struct Cores {
        allowed: Option<CpuSet>,
        caller: AtomicUsize,
    }

    impl Cores {
        /// The calling thread's allowed cores, which its helpers inherit.
        pub(crate) fn of_caller() -> Self {
            Cores {
                allowed: sched_getaffinity(Pid::from_raw(0)).ok(),
                caller: AtomicUsize::new(UNKNOWN),
            }
        }

        /// Notes the core the calling thread runs on now: before each batch it computes.
        pub(crate) fn note_caller(&self) {
            if let Ok(cpu) = sched_getcpu() {
                self.caller.store(cpu, Ordering::Relaxed);
            }
        }

        /// For a helper, before each batch it computes: when it runs on the calling
        /// thread's core, restricts itself to the allowed cores but that one (when there
        /// are others). True when it moved.
        pub(crate) fn keep_apart(&self) -> bool {
            let caller = self.caller.load(Ordering::Relaxed);
            let (Some(allowed), Ok(here)) = (&self.allowed, sched_getcpu()) else {
                return false;
            };
            if caller == UNKNOWN || caller != here {
                return false;
            }
            let mut others = CpuSet::new();
            let mut any = false;
            for cpu in (0..CpuSet::count()).filter(|&c| c != caller) {
                if allowed.is_set(cpu).unwrap_or(false) && others.set(cpu).is_ok() {
                    any = true;
                }
            }
            any && sched_setaffinity(Pid::from_raw(0), &others).is_ok()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A helper on the calling thread's core moves off it, where the process may use
        /// another core; one elsewhere stays.
        #[test]
        fn a_helper_on_the_callers_core_moves_off_it() {
            let cores = Cores::of_caller();
            let allowed = cores.allowed.expect("sched_getaffinity works here");
            let usable: Vec<usize> = (0..CpuSet::count())
                .filter(|&c| allowed.is_set(c).unwrap_or(false))
                .collect();
            std::thread::scope(|s| {
                s.spawn(|| {
                    let this = Pid::from_raw(0);
                    let here = sched_getcpu().unwrap();
                    // Held on its core, so that the scheduler cannot move it between the
                    // checks (the test threads run beside each other).
                    let mut only_here = CpuSet::new();
                    only_here.set(here).unwrap();
                    sched_setaffinity(this, &only_here).unwrap();
                    // The caller noted elsewhere: no move.
                    cores
                        .caller
                        .store(usize::MAX - 1, std::sync::atomic::Ordering::Relaxed);
                    assert!(!cores.keep_apart());
                    // The caller noted here: a move, where there is another core.
                    cores
                        .caller
                        .store(here, std::sync::atomic::Ordering::Relaxed);
                    let moved = cores.keep_apart();
                    assert_eq!(moved, usable.len() > 1, "{usable:?}");
                    if moved {
                        let now = sched_getaffinity(this).unwrap();
                        assert!(!now.is_set(here).unwrap());
                        assert_ne!(sched_getcpu().unwrap(), here);
                    }
                });
            });
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    /// Nothing to note or move off this system.
    pub(crate) struct Cores;

    impl Cores {
        pub(crate) fn of_caller() -> Self {
            Cores
        }
        pub(crate) fn note_caller(&self) {}
        pub(crate) fn keep_apart(&self) -> bool {
            false
        }
    }
}

pub(crate) use imp::Cores;

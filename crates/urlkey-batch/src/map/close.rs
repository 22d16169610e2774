//! The step between `urlkey map`'s passes ([`super::Grouping::close_on`]): the sorted blocks
//! of signature entries read merged, a signature's keys found together, the groups written
//! into the key states, on the run's threads.

use std::sync::atomic::{AtomicU64, Ordering};

use super::dense::Dense;
use super::key_state::{sig_bits, Group, KeyState};

/// Calls `each` with the key ordinals of each run of entries that agree in their 96 bits
/// ([`sig_entry`]), least first, from the sorted blocks of [`Grouping::close`]: a
/// signature's keys, and in a run of more than one key, now and then, another signature's
/// that agrees in those bits.
pub(super) fn for_each_run<B: AsRef<[u128]>>(blocks: &[B], mut each: impl FnMut(&[u32])) {
    let mut run: Vec<u32> = Vec::new();
    let mut run_bits = 0;
    for e in Merged::new(blocks) {
        let bits = sig_bits(e);
        if !run.is_empty() && bits != run_bits {
            each(&run);
            run.clear();
        }
        run_bits = bits;
        // The low 32 bits: the ordinal.
        run.push(e as u32);
    }
    if !run.is_empty() {
        each(&run);
    }
}

/// The share, of `shares`, that an entry's fingerprint falls in: its high 32 bits scaled,
/// so that the shares are contiguous ranges of the sorted blocks and a signature's
/// entries (which agree in those bits) are all in one.
pub(super) fn share_of(entry: u128, shares: usize) -> usize {
    (((entry >> 96) as u64 * shares as u64) >> 32) as usize
}

/// The groups of the signatures in share `t` of `shares` ([`share_of`]): the entries of
/// each sorted block in that share, read merged. Each key in a run of more than one gets
/// its group written, the lead the group's distinct keys and every other key its lead,
/// and its bit set in `grouped`. Gives the share's signature groups and review groups.
pub(super) fn group_share(
    blocks: &[Vec<u128>],
    states: &Dense<KeyState>,
    grouped: &[AtomicU64],
    t: usize,
    shares: usize,
) -> (u64, u64) {
    let slices: Vec<&[u128]> = blocks
        .iter()
        .map(|b| {
            let from = b.partition_point(|&e| share_of(e, shares) < t);
            let to = b.partition_point(|&e| share_of(e, shares) <= t);
            &b[from..to]
        })
        .collect();
    let (mut groups, mut review) = (0, 0);
    let mut members: Vec<(u32, u32)> = Vec::new();
    for_each_run(&slices, |run| {
        if run.len() == 1 {
            groups += 1;
            return;
        }
        // The run's keys agree in the 96 bits their entries keep; the low 32, in their
        // states until now, tell their signatures apart.
        members.clear();
        members.extend(run.iter().map(|&k| (states[k as usize].group.get(), k)));
        members.sort_unstable();
        for sig in members.chunk_by(|a, b| a.0 == b.0) {
            groups += 1;
            if sig.len() == 1 {
                continue;
            }
            review += 1;
            // Sorted by ordinal within the signature: the first is its lead.
            let lead = sig[0].1;
            for &(_, k) in sig {
                let g = if k == lead {
                    // At most the number of keys, below MAX_STATES.
                    Group::lead(sig.len() as u32)
                } else {
                    lead
                };
                states[k as usize].group.set(g);
                let k = k as usize;
                grouped[k / 64].fetch_or(1 << (k % 64), Ordering::Relaxed);
            }
        }
    });
    (groups, review)
}

/// `items` dealt out in turn into `hands` hands (none empty past the items).
pub(super) fn deal<T>(items: Vec<T>, hands: usize) -> Vec<Vec<T>> {
    let mut dealt: Vec<Vec<T>> = (0..hands.min(items.len()).max(1))
        .map(|_| Vec::new())
        .collect();
    let n = dealt.len();
    for (i, item) in items.into_iter().enumerate() {
        dealt[i % n].push(item);
    }
    dealt
}

/// `work` on each of `jobs`, on this thread and on one helper thread for each job but
/// one, each thread taking the next job left; their results in the jobs' order. A helper
/// the system refuses to start (a limit on threads) is no error: the threads that run take
/// its jobs, this one at least.
pub(super) fn on_threads<J: Send, R: Send>(jobs: Vec<J>, work: impl Fn(J) -> R + Sync) -> Vec<R> {
    let helpers = jobs.len().saturating_sub(1);
    on_helpers(jobs, work, helpers)
}

/// [`on_threads`] with up to `helpers` helper threads (fewer when the system refuses one;
/// none: every job on this thread).
pub(super) fn on_helpers<J: Send, R: Send>(
    jobs: Vec<J>,
    work: impl Fn(J) -> R + Sync,
    helpers: usize,
) -> Vec<R> {
    let n = jobs.len();
    let left = std::sync::Mutex::new(jobs.into_iter().enumerate().rev().collect::<Vec<_>>());
    let done = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<R>>>());
    let run = || loop {
        let next = left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let Some((i, job)) = next else { break };
        let r = work(job);
        done.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(r);
    };
    std::thread::scope(|s| {
        for _ in 0..helpers {
            // Refused: its jobs wait for a thread that runs.
            let _ = std::thread::Builder::new().spawn_scoped(s, run);
        }
        run();
    });
    // A helper's panic came out of `scope` above; every job ran.
    done.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|r| r.expect("every job ran on a thread"))
        .collect()
}

/// The entries of sorted blocks, merged in order: a heap of each block's next entry.
pub(super) struct Merged<'a, B> {
    blocks: &'a [B],
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize, usize)>>,
}

impl<'a, B: AsRef<[u128]>> Merged<'a, B> {
    pub(super) fn new(blocks: &'a [B]) -> Self {
        let heap = blocks
            .iter()
            .enumerate()
            .filter_map(|(b, v)| v.as_ref().first().map(|&e| std::cmp::Reverse((e, b, 0))))
            .collect();
        Merged { blocks, heap }
    }
}

impl<B: AsRef<[u128]>> Iterator for Merged<'_, B> {
    type Item = u128;

    fn next(&mut self) -> Option<u128> {
        let std::cmp::Reverse((e, b, i)) = self.heap.pop()?;
        if let Some(&next) = self.blocks.get(b).and_then(|v| v.as_ref().get(i + 1)) {
            self.heap.push(std::cmp::Reverse((next, b, i + 1)));
        }
        Some(e)
    }
}

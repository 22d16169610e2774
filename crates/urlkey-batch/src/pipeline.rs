//! An order-keeping parallel map over batches of records. Output is byte-identical
//! whatever the thread count: every thread reads and computes, one thread writes, in
//! input order.
//!
//! Why not a pool with a fork/join per batch (what this was until issue 19): on a
//! machine whose other core is busy, a batch split across the workers waits for its
//! slowest part, and the separate reading, dispatching and writing threads compete with
//! the workers for the one free core. Two threads then ran 1.1-1.9x slower than one.
//! Here each thread takes a whole batch, reads it, computes it and hands it in; the
//! calling thread writes whatever batch is next in order and computes when there is
//! nothing to write. No thread ever waits for another's part of a batch, and there are
//! exactly `threads` threads: a descheduled helper delays only the batch it holds, while
//! the others run ahead by at most [`AHEAD_PER_THREAD`] batches per thread.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::input::{InputError, InputRecord, RecordSource};

/// One batch as read, with the reader's counters after it.
pub struct ReadBatch<R = InputRecord> {
    /// The records (or other items), in input order.
    pub records: Vec<R>,
    /// Lines read so far (records and skipped lines).
    pub lines_read: u64,
    /// Bytes read so far.
    pub bytes_read: u64,
    /// Notices about the input that arose while reading this batch.
    pub notices: Vec<String>,
}

/// Why [`Pipeline::stream`] stopped.
#[derive(Debug)]
pub enum StreamError<E> {
    /// The input could not be read.
    Input(InputError),
    /// The sink failed.
    Sink(E),
    /// A pipeline thread could not be started.
    Spawn(ThreadError),
}

/// A thread the pipeline needs could not be started (the system's limit on threads or
/// memory). The command line adds what to do about it (fewer threads).
#[derive(Debug)]
#[non_exhaustive]
pub enum ThreadError {
    /// A worker thread could not be started.
    Workers {
        /// The threads asked for.
        threads: usize,
        /// Why not.
        source: std::io::Error,
    },
    /// Another thread of a multi-threaded run could not start (a one-thread run needs
    /// none). Kept for callers that match on it; the pipeline itself starts only workers.
    Stage(std::io::Error),
}

impl std::fmt::Display for ThreadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThreadError::Workers { threads, source } => {
                write!(f, "cannot start {threads} worker threads ({source})")
            }
            ThreadError::Stage(e) => write!(f, "cannot start a pipeline thread ({e})"),
        }
    }
}

impl std::error::Error for ThreadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ThreadError::Workers { source, .. } => Some(source),
            ThreadError::Stage(e) => Some(e),
        }
    }
}

/// What [`Pipeline::stream_batches`] reads, batch by batch, in order: the input's records
/// ([`Pipeline::stream`]), or items that an earlier pass left (`urlkey map`'s pass two).
pub trait BatchSource: Send {
    /// What a batch holds.
    type Item: Send;
    /// The next batch of at most `max` items, and whether more may follow.
    fn read_batch(&mut self, max: usize) -> Result<(ReadBatch<Self::Item>, bool), InputError>;
    /// Items per batch: with one thread, and with more.
    fn batch_sizes(&self) -> (usize, usize) {
        (BATCH, PARALLEL_BATCH)
    }
}

/// The input's records as a [`BatchSource`].
struct Records<'a>(&'a mut dyn RecordSource);

impl BatchSource for Records<'_> {
    type Item = InputRecord;
    fn read_batch(&mut self, max: usize) -> Result<(ReadBatch, bool), InputError> {
        let src = &mut *self.0;
        let mut records = Vec::with_capacity(max);
        let more = src.next_batch(&mut records, max)?;
        let batch = ReadBatch {
            records,
            lines_read: src.lines_read(),
            bytes_read: src.bytes_read(),
            notices: src.take_notices(),
        };
        Ok((batch, more))
    }
}

/// Records per batch on one thread: large enough to amortize the per-batch work, small
/// enough to bound memory.
pub const BATCH: usize = 16 * 1024;

/// Records per batch with more than one thread. Smaller than [`BATCH`] so that a helper
/// the system has descheduled holds back little, and so that the first batch, which the
/// calling thread keys alone before deciding to start helpers, is short.
pub const PARALLEL_BATCH: usize = 4 * 1024;

/// How far, in batches per thread, the threads may run ahead of the writer: bounds the
/// memory held while one batch is late.
pub const AHEAD_PER_THREAD: usize = 4;

/// Runs a per-record function on one or more threads.
pub struct Pipeline {
    threads: usize,
}

impl Pipeline {
    /// `threads` workers; 0 means every core. Threads start only when a run needs them
    /// (an input longer than one batch), so this cannot fail today; it returns a
    /// `Result` so that a pipeline that reserves threads up front stays a compatible change.
    pub fn new(threads: usize) -> Result<Self, ThreadError> {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        Ok(Pipeline { threads })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Reads `src` batch by batch, runs `work` over chunks of `chunk` records of each
    /// batch, and hands every batch with its results to `sink` on the calling thread, in
    /// input order. With one thread, or an input of one batch, everything runs in turn on
    /// the calling thread and no thread is started. Otherwise `threads - 1` helpers start
    /// after the first batch is read, and every thread reads, computes and hands in whole
    /// batches while the calling thread also writes them out in order.
    pub fn stream<T: Send, E>(
        &self,
        src: &mut dyn RecordSource,
        chunk: usize,
        work: impl Fn(&[InputRecord]) -> T + Sync + Send,
        sink: impl FnMut(&ReadBatch, Vec<T>) -> Result<(), E>,
    ) -> Result<(), StreamError<E>> {
        self.stream_batches(&mut Records(src), chunk, work, sink)
    }

    /// [`Pipeline::stream`] over any [`BatchSource`].
    pub fn stream_batches<S: BatchSource + ?Sized, T: Send, E>(
        &self,
        src: &mut S,
        chunk: usize,
        work: impl Fn(&[S::Item]) -> T + Sync + Send,
        mut sink: impl FnMut(&ReadBatch<S::Item>, Vec<T>) -> Result<(), E>,
    ) -> Result<(), StreamError<E>> {
        let chunk = chunk.max(1);
        let (single, parallel) = src.batch_sizes();
        let compute = |batch: &ReadBatch<S::Item>| batch.records.chunks(chunk).map(&work).collect();
        if self.threads <= 1 {
            loop {
                let (batch, more) = src.read_batch(single).map_err(StreamError::Input)?;
                let out = compute(&batch);
                sink(&batch, out).map_err(StreamError::Sink)?;
                if !more {
                    return Ok(());
                }
            }
        }
        // The first batch decides: an input that fits in it never starts a thread.
        let (first, more) = src.read_batch(parallel).map_err(StreamError::Input)?;
        if !more {
            let out = compute(&first);
            return sink(&first, out).map_err(StreamError::Sink);
        }
        let shared = Shared {
            reader: Mutex::new(Reader { src, next: 1 }),
            state: Mutex::new(State {
                done: BTreeMap::new(),
                written: 0,
                batches: None,
                stop: false,
            }),
            changed: Condvar::new(),
            limit: (AHEAD_PER_THREAD * self.threads) as u64,
            batch: parallel,
        };
        std::thread::scope(|scope| {
            // Whatever ends this thread's part (a sink or input error, a helper's panic,
            // a helper that cannot start), the helpers must stop too, or the scope would
            // wait for them forever.
            let _stop = StopOnDrop(&shared);
            for i in 1..self.threads {
                let (shared, compute) = (&shared, &compute);
                // Named for profiles (bench/thread_cpu.sh).
                std::thread::Builder::new()
                    .name(format!("urlkey-work-{i}"))
                    .spawn_scoped(scope, move || helper(shared, compute))
                    .map_err(|source| {
                        StreamError::Spawn(ThreadError::Workers {
                            threads: self.threads,
                            source,
                        })
                    })?;
            }
            let out = compute(&first);
            sink(&first, out).map_err(StreamError::Sink)?;
            shared.wrote_one();
            writer(&shared, &compute, &mut sink)
        })
    }
}

/// A batch as handed in: read and computed, or the error that ended the input.
type Done<T, R> = Result<(ReadBatch<R>, Vec<T>), InputError>;

/// The input, and the sequence number of its next batch: numbered under the same lock
/// that reads, so batch numbers follow the input's order.
struct Reader<'s, S: ?Sized> {
    src: &'s mut S,
    next: u64,
}

struct State<T, R> {
    /// Batches handed in and not yet written, by sequence number.
    done: BTreeMap<u64, Done<T, R>>,
    /// Batches written so far: the sequence number the writer waits for.
    written: u64,
    /// How many batches the input had, once its last one (or an error) was read.
    batches: Option<u64>,
    /// The run is over (the writer stopped, or a helper panicked).
    stop: bool,
}

/// Lock order: `reader` before `state`, never the other way round.
struct Shared<'s, T, S: BatchSource + ?Sized> {
    reader: Mutex<Reader<'s, S>>,
    state: Mutex<State<T, S::Item>>,
    /// Signalled when a batch is read, handed in or written, or the run stops.
    changed: Condvar,
    /// Batches that may be read past the one the writer waits for.
    limit: u64,
    /// Items per batch.
    batch: usize,
}

impl<T, S: BatchSource + ?Sized> Shared<'_, T, S> {
    fn lock_state(&self) -> MutexGuard<'_, State<T, S::Item>> {
        // Poisoning needs a panic while the lock is held, and no code here panics then;
        // a panic in `work` is reported through `stop`.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stop(&self) {
        self.lock_state().stop = true;
        self.changed.notify_all();
    }

    fn wrote_one(&self) {
        self.lock_state().written += 1;
        self.changed.notify_all();
    }

    /// Reads the next batch and computes it, and hands it in; false when there is
    /// nothing more to read, the run stopped, or (with `wait` false) the threads are
    /// already `limit` batches ahead of the writer.
    fn key_next(&self, wait: bool, compute: &Compute<'_, T, S::Item>) -> bool {
        let (seq, read) = loop {
            let mut reader = self.reader.lock().unwrap_or_else(|p| p.into_inner());
            let state = self.lock_state();
            if state.stop || state.batches.is_some() {
                return false;
            }
            if reader.next < state.written + self.limit {
                drop(state);
                let seq = reader.next;
                reader.next += 1;
                let read = reader.src.read_batch(self.batch);
                if !matches!(read, Ok((_, true))) {
                    self.lock_state().batches = Some(seq + 1);
                }
                drop(reader);
                // The writer may be waiting to read the next batch itself.
                self.changed.notify_all();
                break (seq, read);
            }
            if !wait {
                return false;
            }
            drop(reader);
            // Too far ahead: wait until the writer catches up (the check and the wait
            // are under one lock, so the wake-up cannot be missed).
            drop(self.changed.wait(state).unwrap_or_else(|p| p.into_inner()));
        };
        let done = read.map(|(batch, _)| {
            let out = compute(&batch);
            (batch, out)
        });
        self.lock_state().done.insert(seq, done);
        self.changed.notify_all();
        true
    }
}

/// What the threads run on each batch.
type Compute<'c, T, R> = dyn Fn(&ReadBatch<R>) -> Vec<T> + Sync + 'c;

struct StopOnDrop<'a, 's, T, S: BatchSource + ?Sized>(&'a Shared<'s, T, S>);

impl<T, S: BatchSource + ?Sized> Drop for StopOnDrop<'_, '_, T, S> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// A helper thread: read a batch, compute it, hand it in, until the input ends or the
/// run stops.
fn helper<T: Send, S: BatchSource + ?Sized>(
    shared: &Shared<'_, T, S>,
    compute: &Compute<'_, T, S::Item>,
) {
    struct StopIfPanicking<'a, 's, T, S: BatchSource + ?Sized>(&'a Shared<'s, T, S>);
    impl<T, S: BatchSource + ?Sized> Drop for StopIfPanicking<'_, '_, T, S> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.stop();
            }
        }
    }
    // A panic in `work` stops the run instead of leaving the writer waiting for a batch
    // that never comes; the scope then passes the panic on.
    let _guard = StopIfPanicking(shared);
    while shared.key_next(true, compute) {}
}

/// The calling thread after the first batch: write every batch in order; key one itself
/// when the next to write is not in yet.
fn writer<T: Send, E, S: BatchSource + ?Sized>(
    shared: &Shared<'_, T, S>,
    compute: &Compute<'_, T, S::Item>,
    sink: &mut impl FnMut(&ReadBatch<S::Item>, Vec<T>) -> Result<(), E>,
) -> Result<(), StreamError<E>> {
    loop {
        let next = {
            let mut state = shared.lock_state();
            let want = state.written;
            state.done.remove(&want)
        };
        if let Some(done) = next {
            let (batch, out) = done.map_err(StreamError::Input)?;
            sink(&batch, out).map_err(StreamError::Sink)?;
            shared.wrote_one();
            continue;
        }
        if shared.key_next(false, compute) {
            continue;
        }
        let state = shared.lock_state();
        if state.stop || state.batches == Some(state.written) {
            // Every batch written; or a helper panicked, which the scope reports.
            return Ok(());
        }
        if !state.done.contains_key(&state.written) {
            drop(
                shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(|p| p.into_inner()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{InputErrorKind, Skipped};
    use std::collections::BTreeSet;
    use std::time::Duration;

    /// `n` records numbered from 0; fails with a read error at record `fail_at`.
    struct Numbers {
        n: u64,
        at: u64,
        fail_at: Option<u64>,
    }

    impl RecordSource for Numbers {
        fn next_batch(
            &mut self,
            out: &mut Vec<InputRecord>,
            max: usize,
        ) -> Result<bool, InputError> {
            for _ in 0..max {
                if Some(self.at) == self.fail_at {
                    return Err(InputError {
                        kind: InputErrorKind::Read,
                        message: format!("record {} is unreadable", self.at),
                    });
                }
                if self.at == self.n {
                    return Ok(false);
                }
                out.push(InputRecord {
                    line: self.at + 1,
                    observed: self.at.to_string(),
                    ..InputRecord::default()
                });
                self.at += 1;
            }
            Ok(self.at < self.n)
        }
        fn skipped(&self) -> Skipped {
            Skipped::default()
        }
        fn lines_read(&self) -> u64 {
            self.at
        }
        fn bytes_read(&self) -> u64 {
            self.at
        }
    }

    fn numbers(n: u64) -> Numbers {
        Numbers {
            n,
            at: 0,
            fail_at: None,
        }
    }

    /// Waits until `flag` is set, or 30 s: the calling thread holds its first batch until
    /// a helper has started one, so that on a loaded machine it cannot key every batch
    /// before the helper is scheduled (without helpers the wait runs out).
    fn wait_for(flag: &std::sync::atomic::AtomicBool) {
        let give_up = std::time::Instant::now() + Duration::from_secs(30);
        while !flag.load(std::sync::atomic::Ordering::SeqCst) && std::time::Instant::now() < give_up
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Keys every record (with an uneven delay, so threads finish out of order) and
    /// returns what the sink saw, in order, with the names of the threads that worked.
    fn run(threads: usize, n: u64) -> (Vec<u64>, BTreeSet<String>) {
        let names = Mutex::new(BTreeSet::new());
        let mut seen = Vec::new();
        let mut src = numbers(n);
        let r: Result<(), StreamError<()>> = Pipeline::new(threads).expect("pipeline").stream(
            &mut src,
            100,
            |recs| {
                let name = std::thread::current().name().unwrap_or("?").to_string();
                names.lock().expect("names").insert(name);
                let first: u64 = recs[0].observed.parse().expect("number");
                if first.is_multiple_of(7) {
                    std::thread::sleep(Duration::from_micros(200));
                }
                recs.iter()
                    .map(|r| r.observed.parse::<u64>().expect("number") * 2)
                    .collect::<Vec<_>>()
            },
            |batch, chunks| {
                let values: Vec<u64> = chunks.into_iter().flatten().collect();
                assert_eq!(values.len(), batch.records.len(), "one result per record");
                seen.extend(values);
                Ok(())
            },
        );
        assert!(r.is_ok(), "the run failed");
        (seen, names.into_inner().expect("names"))
    }

    #[test]
    fn every_record_comes_out_once_in_input_order_whatever_the_threads() {
        let n = 20 * PARALLEL_BATCH as u64 + 17;
        let want: Vec<u64> = (0..n).map(|i| i * 2).collect();
        for threads in [1, 2, 3, 4] {
            let (seen, names) = run(threads, n);
            assert_eq!(seen, want, "{threads} threads");
            if threads > 1 {
                assert!(
                    names.iter().any(|n| n.starts_with("urlkey-work-")),
                    "{threads} threads: no helper worked: {names:?}"
                );
                assert!(names.len() <= threads, "{threads} threads: {names:?}");
            }
        }
    }

    #[test]
    fn an_input_of_one_batch_starts_no_thread() {
        let here = std::thread::current().name().unwrap_or("?").to_string();
        for n in [0, 1, PARALLEL_BATCH as u64] {
            let (seen, names) = run(4, n);
            assert_eq!(seen.len() as u64, n);
            let others: Vec<_> = names.iter().filter(|x| **x != here).collect();
            assert!(others.is_empty(), "{n} records: threads {others:?} worked");
        }
        // One record more than a batch: the helpers start. The calling thread keys the
        // first batch; it waits there (up to a generous bound) until a helper has keyed
        // something, so that on a loaded machine it cannot take the second batch too
        // before the helper is scheduled. Without helpers the wait runs out and the
        // assertion fails.
        let helper_worked = std::sync::atomic::AtomicBool::new(false);
        let mut src = numbers(PARALLEL_BATCH as u64 + 1);
        let r: Result<(), StreamError<()>> = Pipeline::new(2).expect("pipeline").stream(
            &mut src,
            100,
            |recs| {
                let me = std::thread::current().name().unwrap_or("?").to_string();
                if me.starts_with("urlkey-work-") {
                    helper_worked.store(true, std::sync::atomic::Ordering::SeqCst);
                } else if recs[0].observed == "0" {
                    wait_for(&helper_worked);
                }
                recs.len()
            },
            |_, _| Ok(()),
        );
        assert!(r.is_ok(), "the run failed");
        assert!(
            helper_worked.load(std::sync::atomic::Ordering::SeqCst),
            "no helper thread keyed a batch"
        );
    }

    #[test]
    fn a_read_error_comes_after_every_batch_before_it() {
        for threads in [1, 2, 3] {
            let fail_at = 9 * PARALLEL_BATCH as u64 + 5;
            let mut src = Numbers {
                n: 100 * PARALLEL_BATCH as u64,
                at: 0,
                fail_at: Some(fail_at),
            };
            let mut written = 0u64;
            let r: Result<(), StreamError<()>> = Pipeline::new(threads).expect("pipeline").stream(
                &mut src,
                64,
                |recs| recs.len(),
                |_, lens| {
                    written += lens.iter().sum::<usize>() as u64;
                    Ok(())
                },
            );
            match r {
                Err(StreamError::Input(e)) => assert!(e.message.contains("unreadable")),
                _ => panic!("{threads} threads: the read error was lost"),
            }
            // Everything before the failing batch was written, nothing after it.
            let batch = if threads == 1 { BATCH } else { PARALLEL_BATCH } as u64;
            assert_eq!(written, fail_at / batch * batch, "{threads} threads");
        }
    }

    #[test]
    fn a_failing_sink_stops_every_thread() {
        for threads in [2, 4] {
            let mut src = numbers(1000 * PARALLEL_BATCH as u64);
            let mut calls = 0;
            let r = Pipeline::new(threads).expect("pipeline").stream(
                &mut src,
                512,
                |recs| recs.len(),
                |_, _| {
                    calls += 1;
                    if calls == 3 {
                        Err("disk full")
                    } else {
                        Ok(())
                    }
                },
            );
            assert!(matches!(r, Err(StreamError::Sink("disk full"))));
            // The run stopped early: the readers did not go on to the end of the input.
            assert!(
                src.at < 100 * PARALLEL_BATCH as u64,
                "read {} records",
                src.at
            );
        }
    }

    #[test]
    fn a_panic_in_a_helper_is_passed_on_not_waited_for() {
        // The calling thread waits in its first batch (bounded) until the helper has
        // started one, so that on a loaded machine it cannot key all 50 batches before the
        // helper is scheduled.
        let helper_started = std::sync::atomic::AtomicBool::new(false);
        let r = std::panic::catch_unwind(|| {
            let mut src = numbers(50 * PARALLEL_BATCH as u64);
            let _ = Pipeline::new(2).expect("pipeline").stream(
                &mut src,
                512,
                |recs| {
                    let on_helper = std::thread::current()
                        .name()
                        .is_some_and(|n| n.starts_with("urlkey-work-"));
                    if on_helper {
                        helper_started.store(true, std::sync::atomic::Ordering::SeqCst);
                    } else if recs[0].observed == "0" {
                        wait_for(&helper_started);
                    }
                    assert!(!on_helper, "work failed on a helper");
                    recs.len()
                },
                |_, _| Ok::<(), ()>(()),
            );
        });
        assert!(r.is_err(), "the helper's panic was swallowed");
    }
}

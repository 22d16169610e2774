//! An order-keeping parallel map over batches of records. Output is byte-identical
//! whatever the thread count: every thread reads and computes, and batches are written
//! one at a time, in input order.
//!
//! Why not a pool with a fork/join per batch: on a
//! machine whose other core is busy, a batch split across the workers waits for its
//! slowest part, and the separate reading, dispatching and writing threads compete with
//! the workers for the one free core. Two threads then ran 1.1-1.9x slower than one.
//! Here each thread takes a whole batch, reads it, computes it and hands it in. No
//! thread ever waits for another's part of a batch, and there are exactly `threads`
//! threads: a descheduled thread delays only the batch it holds, while the others run
//! ahead by at most [`AHEAD_PER_THREAD`] batches per thread (or the pipeline's own lead,
//! [`Pipeline::with_lead`]).
//!
//! Why any thread writes: when only the calling thread wrote,
//! a calling thread that shared its core with another process held every batch the
//! helper had finished until the scheduler ran it again, and the helper, `limit`
//! batches ahead, waited for it (up to 5 ms a run, measured). Now
//! the thread that hands in the batch next in order writes it, so a descheduled thread
//! delays only the batch it holds. docs/benchmarks.md ("Threads that never wait for each
//! other") has what this did and did not change in wall time.
//!
//! Why a helper may move to another core: beside a process that
//! keeps a core busy, the scheduler put the calling thread and its helper on the same
//! free core, where two threads run no faster than one; `cores.rs` has the helper leave
//! the calling thread's core.

mod cores;

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use self::cores::Cores;
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

/// What stops a run that streams records through the pipeline into a writer
/// (`urlkey key`, `urlkey diff`): the input, the output or a thread.
#[derive(Debug)]
pub enum RunError {
    /// An input could not be read.
    Input(InputError),
    /// Writing the output failed.
    Output(std::io::Error),
    /// A pipeline thread could not be started.
    Thread(ThreadError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(e) => write!(f, "{e}"),
            RunError::Output(e) => write!(f, "cannot write the output: {e}"),
            RunError::Thread(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Input(e) => Some(e),
            RunError::Output(e) => Some(e),
            RunError::Thread(e) => Some(e),
        }
    }
}

impl From<StreamError<RunError>> for RunError {
    fn from(e: StreamError<RunError>) -> Self {
        match e {
            StreamError::Input(e) => RunError::Input(e),
            StreamError::Sink(e) => e,
            StreamError::Spawn(e) => RunError::Thread(e),
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

/// How far, in batches per thread, the threads may run ahead of the batch to write next:
/// bounds the memory held while one batch is late.
pub const AHEAD_PER_THREAD: usize = 4;

/// Runs a per-record function on one or more threads.
#[derive(Clone, Debug)]
pub struct Pipeline {
    threads: usize,
    /// Batches per thread the threads may read past the one to write next.
    lead: usize,
    /// The sink gets each batch's records (false: [`Pipeline::dropping_records`]).
    keep_records: bool,
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
        Ok(Pipeline {
            threads,
            lead: AHEAD_PER_THREAD,
            keep_records: true,
        })
    }

    /// This pipeline with threads that may run `batches_per_thread` batches per thread
    /// ahead of the batch to write next ([`AHEAD_PER_THREAD`] unless set; at least one).
    /// A longer lead holds more batches in memory, and lets the other threads go on
    /// computing while the sink is slow on one batch: `urlkey map`'s counting waits for
    /// fresh memory now and then, for tens to hundreds of milliseconds on this kind of
    /// machine (docs/benchmarks.md, "why runs that start cold cost more").
    pub fn with_lead(&self, batches_per_thread: usize) -> Pipeline {
        Pipeline {
            lead: batches_per_thread.max(1),
            ..self.clone()
        }
    }

    /// This pipeline with each batch's records dropped by the thread that computed them as
    /// soon as `work` is done with them: the sink gets the batch's counters and notices
    /// and no records (with any number of threads). For a sink that needs only `work`'s
    /// results. Each record is then freed by the thread that read it, whose next batch
    /// reuses the memory, and the batches waiting for the sink hold only their results.
    /// `urlkey map`'s pass one keeps 32 batches a thread ahead: with their records it held
    /// 58 MB 0.4 s into a 10M-line run (9 MB without), and its peak memory was 480-487 MB
    /// against 452-461 (docs/benchmarks.md, "pass one touches 9% less fresh memory").
    pub fn dropping_records(&self) -> Pipeline {
        Pipeline {
            keep_records: false,
            ..self.clone()
        }
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Reads `src` batch by batch, runs `work` over chunks of `chunk` records of each
    /// batch, and hands every batch with its results to `sink`, in input order, one batch
    /// at a time. With one thread, or an input of one batch, everything runs in turn on
    /// the calling thread and no thread is started. Otherwise `threads - 1` helpers start
    /// after the first batch is read; every thread reads, computes and hands in whole
    /// batches, and the thread that hands in the batch next in order (or finishes writing
    /// the one before it) writes it. `sink` is therefore called on any of the threads,
    /// never on two at once.
    pub fn stream<T: Send, E: Send>(
        &self,
        src: &mut dyn RecordSource,
        chunk: usize,
        work: impl Fn(&[InputRecord]) -> T + Sync + Send,
        sink: impl FnMut(&ReadBatch, Vec<T>) -> Result<(), E> + Send,
    ) -> Result<(), StreamError<E>> {
        self.stream_batches(&mut Records(src), chunk, work, sink)
    }

    /// [`Pipeline::stream`] over any [`BatchSource`].
    pub fn stream_batches<S: BatchSource + ?Sized, T: Send, E: Send>(
        &self,
        src: &mut S,
        chunk: usize,
        work: impl Fn(&[S::Item]) -> T + Sync + Send,
        mut sink: impl FnMut(&ReadBatch<S::Item>, Vec<T>) -> Result<(), E> + Send,
    ) -> Result<(), StreamError<E>> {
        let chunk = chunk.max(1);
        let (single, parallel) = src.batch_sizes();
        let keep_records = self.keep_records;
        let compute = |batch: &mut ReadBatch<S::Item>| {
            let out = batch.records.chunks(chunk).map(&work).collect();
            if !keep_records {
                batch.records = Vec::new();
            }
            out
        };
        if self.threads <= 1 {
            loop {
                let (mut batch, more) = src.read_batch(single).map_err(StreamError::Input)?;
                let out = compute(&mut batch);
                sink(&batch, out).map_err(StreamError::Sink)?;
                if !more {
                    return Ok(());
                }
            }
        }
        // The first batch decides: an input that fits in it never starts a thread.
        let (mut first, more) = src.read_batch(parallel).map_err(StreamError::Input)?;
        if !more {
            let out = compute(&mut first);
            return sink(&first, out).map_err(StreamError::Sink);
        }
        let shared = Shared {
            reader: Mutex::new(Reader { src, next: 1 }),
            state: Mutex::new(State {
                done: BTreeMap::new(),
                written: 0,
                writing: false,
                batches: None,
                stop: false,
                failed: None,
            }),
            sink: Mutex::new(&mut sink),
            changed: Condvar::new(),
            limit: (self.lead * self.threads) as u64,
            batch: parallel,
            cores: Cores::of_caller(),
        };
        shared.cores.note_caller();
        std::thread::scope(|scope| {
            // A panic here, or a helper that cannot start, must stop the helpers too, or
            // the scope would wait for them forever.
            let _stop = StopIfPanicking(&shared);
            for i in 1..self.threads {
                let (shared, compute) = (&shared, &compute);
                // Named for profiles (bench/thread_cpu.sh).
                let started = std::thread::Builder::new()
                    .name(format!("urlkey-work-{i}"))
                    .spawn_scoped(scope, move || helper(shared, compute));
                if let Err(source) = started {
                    shared.stop();
                    return Err(StreamError::Spawn(ThreadError::Workers {
                        threads: self.threads,
                        source,
                    }));
                }
            }
            let out = compute(&mut first);
            shared.hand_in(0, Ok((first, out)));
            while shared.key_next(&compute) {
                shared.cores.note_caller();
            }
            Ok(())
        })?;
        // Every thread has ended: every batch is written, or the run failed.
        let failed = shared.lock_state().failed.take();
        failed.map_or(Ok(()), Err)
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

struct State<T, R, E> {
    /// Batches handed in and not yet written, by sequence number.
    done: BTreeMap<u64, Done<T, R>>,
    /// Batches written so far: the sequence number to write next.
    written: u64,
    /// A thread is writing batch `written` now.
    writing: bool,
    /// How many batches the input had, once its last one (or an error) was read.
    batches: Option<u64>,
    /// The run is over (every batch written, the sink or the input failed, or a thread
    /// panicked).
    stop: bool,
    /// Why the run failed, for the calling thread to return.
    failed: Option<StreamError<E>>,
}

/// The sink, as every thread may call it (one at a time).
type SharedSink<'s, T, R, E> = dyn FnMut(&ReadBatch<R>, Vec<T>) -> Result<(), E> + Send + 's;

/// Lock order: `reader` before `state` before `sink`; `sink` is taken only by the thread
/// that set `writing`, so it is never contended.
struct Shared<'s, T, S: BatchSource + ?Sized, E> {
    reader: Mutex<Reader<'s, S>>,
    state: Mutex<State<T, S::Item, E>>,
    sink: Mutex<&'s mut SharedSink<'s, T, S::Item, E>>,
    /// Signalled when a batch is read or written, or the run stops.
    changed: Condvar,
    /// Batches that may be read past the one to write next.
    limit: u64,
    /// Items per batch.
    batch: usize,
    /// Where the calling thread runs, so that a helper does not share its core.
    cores: Cores,
}

impl<T, S: BatchSource + ?Sized, E> Shared<'_, T, S, E> {
    fn lock_state(&self) -> MutexGuard<'_, State<T, S::Item, E>> {
        // Poisoning needs a panic while the lock is held, and no code here panics then;
        // a panic in `work` or the sink is reported through `stop`.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stop(&self) {
        self.lock_state().stop = true;
        self.changed.notify_all();
    }

    /// Reads the next batch, computes it and hands it in (writing what is then next in
    /// order); waits while the threads are `limit` batches ahead of the writing. False
    /// when there is nothing more to read or the run stopped.
    fn key_next(&self, compute: &Compute<'_, T, S::Item>) -> bool {
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
                break (seq, read);
            }
            drop(reader);
            // Too far ahead: wait until a batch is written (the check and the wait are
            // under one lock, so the wake-up cannot be missed).
            drop(self.changed.wait(state).unwrap_or_else(|p| p.into_inner()));
        };
        let done = read.map(|(mut batch, _)| {
            let out = compute(&mut batch);
            (batch, out)
        });
        self.hand_in(seq, done);
        true
    }

    /// Hands in batch `seq`; then, unless another thread is writing, writes every batch
    /// that is next in order and in. Whoever is writing checks for the next batch under
    /// the same lock that this insert takes, so a batch handed in is never left unwritten.
    fn hand_in(&self, seq: u64, done: Done<T, S::Item>) {
        let mut state = self.lock_state();
        state.done.insert(seq, done);
        if state.writing {
            return;
        }
        loop {
            if state.stop {
                return;
            }
            let want = state.written;
            let Some(next) = state.done.remove(&want) else {
                return;
            };
            state.writing = true;
            drop(state);
            let wrote = match next {
                Ok((batch, out)) => {
                    let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
                    (*sink)(&batch, out).map_err(StreamError::Sink)
                }
                Err(e) => Err(StreamError::Input(e)),
            };
            state = self.lock_state();
            state.writing = false;
            state.written += 1;
            match wrote {
                Err(e) => {
                    state.failed = Some(e);
                    state.stop = true;
                }
                Ok(()) if state.batches == Some(state.written) => state.stop = true,
                Ok(()) => {}
            }
            // Threads waiting to read past the limit may go on.
            self.changed.notify_all();
        }
    }
}

/// What the threads run on each batch (which may drop its records).
type Compute<'c, T, R> = dyn Fn(&mut ReadBatch<R>) -> Vec<T> + Sync + 'c;

/// Stops the run if its thread panics (in `work` or the sink), instead of leaving the
/// others waiting for a batch that never comes; the scope then passes the panic on.
struct StopIfPanicking<'a, 's, T, S: BatchSource + ?Sized, E>(&'a Shared<'s, T, S, E>);

impl<T, S: BatchSource + ?Sized, E> Drop for StopIfPanicking<'_, '_, T, S, E> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// A helper thread: read a batch, compute it, hand it in, until the input ends or the
/// run stops.
fn helper<T: Send, S: BatchSource + ?Sized, E>(
    shared: &Shared<'_, T, S, E>,
    compute: &Compute<'_, T, S::Item>,
) {
    let _guard = StopIfPanicking(shared);
    loop {
        shared.cores.keep_apart();
        if !shared.key_next(compute) {
            return;
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
    fn a_helper_writes_the_batch_it_hands_in_when_that_batch_is_next() {
        // The helper is slow on every batch; the calling thread keys the batches after the
        // helper's and then waits, too far ahead. When the helper hands in its batch, that
        // batch is next in order, and the helper writes it and the ones after it: the
        // calling thread, which may share its core with another process, does not hold
        // them. The sink is never called on two threads at once.
        use std::sync::atomic::{AtomicBool, Ordering};
        let helper_started = AtomicBool::new(false);
        let in_sink = AtomicBool::new(false);
        let mut writers = BTreeSet::new();
        let mut seen = Vec::new();
        let mut src = numbers(30 * PARALLEL_BATCH as u64);
        let r: Result<(), StreamError<()>> = Pipeline::new(2).expect("pipeline").stream(
            &mut src,
            PARALLEL_BATCH,
            |recs| {
                let on_helper = std::thread::current()
                    .name()
                    .is_some_and(|n| n.starts_with("urlkey-work-"));
                if on_helper {
                    helper_started.store(true, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                } else if recs[0].observed == "0" {
                    wait_for(&helper_started);
                }
                recs[0].observed.parse::<u64>().expect("number")
            },
            |_, firsts| {
                assert!(
                    !in_sink.swap(true, Ordering::SeqCst),
                    "two threads in the sink"
                );
                let name = std::thread::current().name().unwrap_or("?").to_string();
                writers.insert(name);
                seen.extend(firsts);
                std::thread::sleep(Duration::from_micros(100));
                in_sink.store(false, Ordering::SeqCst);
                Ok(())
            },
        );
        assert!(r.is_ok(), "the run failed");
        let want: Vec<u64> = (0..30).map(|b| b * PARALLEL_BATCH as u64).collect();
        assert_eq!(seen, want, "batches out of order");
        assert!(
            writers.iter().any(|n| n.starts_with("urlkey-work-")),
            "only {writers:?} wrote"
        );
    }

    /// While the sink holds the first batch, the threads compute the batches up to the
    /// lead and no further: [`AHEAD_PER_THREAD`] per thread, or what `with_lead` says.
    #[test]
    fn threads_run_as_far_ahead_of_a_slow_sink_as_the_lead() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pipeline = Pipeline::new(2).expect("pipeline");
        for (p, lead) in [
            (pipeline.clone(), AHEAD_PER_THREAD),
            (pipeline.with_lead(12), 12),
        ] {
            let computed = AtomicUsize::new(0);
            let mut held = None;
            let mut src = numbers(40 * PARALLEL_BATCH as u64);
            let r: Result<(), StreamError<()>> = p.stream(
                &mut src,
                PARALLEL_BATCH,
                |_| {
                    computed.fetch_add(1, Ordering::SeqCst);
                },
                |_, _| {
                    if held.is_none() {
                        // The first batch: wait (up to a generous bound) for the others
                        // to reach the lead, then a little longer for any past it.
                        let limit = 2 * lead;
                        let start = std::time::Instant::now();
                        while computed.load(Ordering::SeqCst) < limit
                            && start.elapsed() < Duration::from_secs(20)
                        {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        std::thread::sleep(Duration::from_millis(30));
                        held = Some(computed.load(Ordering::SeqCst));
                    }
                    Ok(())
                },
            );
            assert!(r.is_ok(), "the run failed");
            assert_eq!(held, Some(2 * lead), "lead {lead}");
        }
    }

    /// A pipeline dropping records computes every record once and hands the sink every
    /// batch, in order, with its counters and no records, on any number of threads.
    #[test]
    fn a_pipeline_dropping_records_hands_the_sink_their_results_only() {
        let n = 20 * PARALLEL_BATCH as u64 + 17;
        for threads in [1, 2, 3] {
            let p = Pipeline::new(threads).expect("pipeline").dropping_records();
            let mut src = numbers(n);
            let (mut seen, mut lines) = (Vec::new(), 0);
            let r: Result<(), StreamError<()>> = p.stream(
                &mut src,
                100,
                |recs| recs.iter().map(|r| r.line).collect::<Vec<_>>(),
                |batch, out| {
                    assert!(batch.records.is_empty(), "{threads} threads");
                    assert!(batch.lines_read > lines, "{threads} threads");
                    lines = batch.lines_read;
                    seen.extend(out.into_iter().flatten());
                    Ok(())
                },
            );
            assert!(r.is_ok(), "{threads} threads");
            assert_eq!(lines, n, "{threads} threads");
            let want: Vec<u64> = (1..=n).collect();
            assert_eq!(seen, want, "{threads} threads");
        }
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

//! An order-keeping parallel map over batches of records. Output is byte-identical
//! whatever the thread count: workers compute, one thread writes, in input order.

use std::sync::mpsc::sync_channel;

use rayon::prelude::*;

use crate::input::{InputError, InputRecord, RecordSource};

/// One batch as read, with the reader's counters after it.
pub struct ReadBatch {
    /// The records, in input order.
    pub records: Vec<InputRecord>,
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
    /// The pool of worker threads could not be built.
    Workers {
        /// The threads asked for.
        threads: usize,
        /// Why not.
        source: rayon::ThreadPoolBuildError,
    },
    /// The reading or the dispatching thread of a multi-threaded run could not start
    /// (a one-thread run needs neither).
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

fn read_batch(src: &mut dyn RecordSource) -> Result<(ReadBatch, bool), InputError> {
    let mut records = Vec::with_capacity(BATCH);
    let more = src.next_batch(&mut records, BATCH)?;
    let batch = ReadBatch {
        records,
        lines_read: src.lines_read(),
        bytes_read: src.bytes_read(),
        notices: src.take_notices(),
    };
    Ok((batch, more))
}

/// Records per batch: large enough to amortize the fork/join, small enough to bound memory.
pub const BATCH: usize = 16 * 1024;

/// Runs a per-record function on one or more threads.
pub struct Pipeline {
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

impl Pipeline {
    /// `threads` workers; 0 means every core.
    pub fn new(threads: usize) -> Result<Self, ThreadError> {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|source| ThreadError::Workers { threads, source })?,
            )
        } else {
            None
        };
        Ok(Pipeline { pool, threads })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Reads `src` batch by batch, runs `work` over chunks of each batch on the workers,
    /// and hands every batch with its results to `sink` on the calling thread, in input
    /// order. With more than one thread the three stages overlap: a reading thread and
    /// the workers run ahead of the sink by at most two batches each, so the serial work
    /// (reading, counting, writing) runs beside the parallel work instead of between its
    /// steps. With one thread everything runs in turn on the calling thread.
    pub fn stream<T: Send, E>(
        &self,
        src: &mut dyn RecordSource,
        chunk: usize,
        work: impl Fn(&[InputRecord]) -> T + Sync + Send,
        mut sink: impl FnMut(&ReadBatch, Vec<T>) -> Result<(), E>,
    ) -> Result<(), StreamError<E>> {
        let chunk = chunk.max(1);
        let Some(pool) = &self.pool else {
            loop {
                let (batch, more) = read_batch(src).map_err(StreamError::Input)?;
                let out = batch.records.chunks(chunk).map(&work).collect();
                sink(&batch, out).map_err(StreamError::Sink)?;
                if !more {
                    return Ok(());
                }
            }
        };
        type Read = Result<(ReadBatch, bool), InputError>;
        std::thread::scope(|scope| {
            let (read_tx, read_rx) = sync_channel::<Read>(2);
            let (done_tx, done_rx) = sync_channel::<Result<(ReadBatch, Vec<T>), InputError>>(2);
            // A failed send means the sink stopped: every stage then ends.
            let reader = move || loop {
                let r = read_batch(src);
                let last = !matches!(r, Ok((_, true)));
                if read_tx.send(r).is_err() || last {
                    return;
                }
            };
            let work = &work;
            let dispatch = move || {
                for r in read_rx {
                    let item = r.map(|(batch, _)| {
                        let out =
                            pool.install(|| batch.records.par_chunks(chunk).map(work).collect());
                        (batch, out)
                    });
                    if done_tx.send(item).is_err() {
                        return;
                    }
                }
            };
            // Named for profiles (bench/thread_cpu.sh).
            let spawn = |name: &str| std::thread::Builder::new().name(name.into());
            let failed = |e: std::io::Error| StreamError::Spawn(ThreadError::Stage(e));
            spawn("urlkey-read")
                .spawn_scoped(scope, reader)
                .map_err(failed)?;
            spawn("urlkey-work")
                .spawn_scoped(scope, dispatch)
                .map_err(failed)?;
            for item in done_rx {
                let (batch, out) = item.map_err(StreamError::Input)?;
                sink(&batch, out).map_err(StreamError::Sink)?;
            }
            Ok(())
        })
    }
}

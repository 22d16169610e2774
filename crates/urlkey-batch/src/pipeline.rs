//! An order-keeping parallel map over batches of records. Output is byte-identical
//! whatever the thread count: workers compute, one thread writes, in input order.

use rayon::prelude::*;

/// Records per batch: large enough to amortize the fork/join, small enough to bound memory.
pub const BATCH: usize = 16 * 1024;

/// Runs a per-record function on one or more threads.
pub struct Pipeline {
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

impl Pipeline {
    /// `threads` workers; 0 means every core.
    pub fn new(threads: usize) -> Result<Self, String> {
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
                    .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?,
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

    /// `f` over consecutive chunks of `items`, results in the same order: for work whose
    /// result is per chunk (formatted bytes), so that the writing thread only joins them.
    pub fn map_chunks<I: Sync, T: Send>(
        &self,
        items: &[I],
        chunk: usize,
        f: impl Fn(&[I]) -> T + Sync + Send,
    ) -> Vec<T> {
        match &self.pool {
            None => items.chunks(chunk.max(1)).map(f).collect(),
            Some(pool) => pool.install(|| items.par_chunks(chunk.max(1)).map(f).collect()),
        }
    }

    /// `f` over `items`, results in the same order.
    pub fn map<I: Sync, T: Send>(&self, items: &[I], f: impl Fn(&I) -> T + Sync + Send) -> Vec<T> {
        match &self.pool {
            None => items.iter().map(f).collect(),
            Some(pool) => pool.install(|| items.par_iter().with_min_len(256).map(f).collect()),
        }
    }
}

//! `urlkey map` (seed 000): two passes over the input with the grouping engine
//! ([`grouping`]) between them.
//!
//! Pass one runs the policy on every record and counts, per 128-bit fingerprint of the
//! key, how many records share it and where the first one was; per fingerprint of the
//! signature, how many distinct keys share it. Pass two runs the policy again and writes
//! each row with those counts, in input order: CSV and TSV rows from the lean path
//! ([`LeanRow`]: key, signature, removed parameters), JSONL and Parquet rows, which carry
//! the transformation log and the facts, from the full `Outcome`. Records are never held
//! in memory.

mod dense;
mod grouping;

use std::io::Write;
use std::time::Instant;

use urlkey::{Outcome, Policy};

use crate::input::{InputError, InputRecord, RecordSource};
use crate::output::RecordWriter;
use crate::pipeline::{Pipeline, StreamError, ThreadError};
use crate::rows::{RowSink, Table};

/// Records per unit of work handed to a worker thread.
const CHUNK: usize = 512;

pub use grouping::*;

/// What can stop a map run.
#[derive(Debug)]
pub enum MapError {
    /// The input could not be read.
    Input(InputError),
    /// Writing failed.
    Output(std::io::Error),
    /// Verifying fingerprints found two keys with one fingerprint.
    Collision(FingerprintCollision),
    /// A pipeline thread could not be started.
    Thread(ThreadError),
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Input(e) => write!(f, "{e}"),
            MapError::Output(e) => write!(f, "cannot write the output: {e}"),
            MapError::Collision(c) => write!(
                f,
                "fingerprint collision: {:?} and {:?} share a 128-bit fingerprint; please report this input",
                c.first, c.second
            ),
            MapError::Thread(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for MapError {}

/// Settings of one map run.
pub struct MapRun<'p> {
    /// The policy.
    pub policy: &'p Policy,
    /// Workers.
    pub pipeline: &'p Pipeline,
    /// Keep key texts to prove fingerprints distinct.
    pub verify_fingerprints: bool,
    /// One row per group instead of per record.
    pub groups: bool,
    /// Called after each batch with (pass, lines read, bytes read), for progress.
    pub progress: Option<&'p (dyn Fn(Pass, u64, u64) + Sync)>,
    /// Called with each notice about the input (once: in pass one).
    pub notice: Option<&'p (dyn Fn(&str) + Sync)>,
    /// The inputs' names (`source`) when the run reads more than one, else empty.
    pub sources: &'p [String],
}

/// Which pass of a map run is under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Pass one: every record keyed and counted.
    Counting,
    /// Pass two: every row written.
    Writing,
}

impl MapRun<'_> {
    /// Runs both passes. `open` is called twice and must give the same records each time.
    pub fn run<W: Write>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        writer: &mut RecordWriter<W>,
    ) -> Result<MapSummary, MapError> {
        let start = Instant::now();
        let grouping = self.count(open)?;
        if self.groups {
            writer.start_map_groups().map_err(MapError::Output)?;
            for g in grouping.group_rows(self.sources) {
                writer.write_group(&g).map_err(MapError::Output)?;
            }
        } else {
            self.write_rows(open, &grouping, writer)?;
        }
        Ok(self.finish(grouping, start))
    }

    /// Runs both passes into any [`RowSink`], one row at a time on this thread (the web
    /// page keeps its rows so); `detail` adds the JSONL-only fields to map rows.
    pub fn run_rows(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        sink: &mut dyn RowSink,
        detail: bool,
    ) -> Result<MapSummary, MapError> {
        let start = Instant::now();
        let grouping = self.count(open)?;
        let table = if self.groups {
            Table::Groups
        } else {
            Table::Map
        };
        sink.start(table).map_err(MapError::Output)?;
        if self.groups {
            for g in grouping.group_rows(self.sources) {
                sink.group_row(&g).map_err(MapError::Output)?;
            }
        } else {
            let mut src = open().map_err(MapError::Input)?;
            let (grouping, sources) = (&grouping, self.sources);
            self.pipeline
                .stream(
                    src.as_mut(),
                    CHUNK,
                    |recs| {
                        recs.iter()
                            .map(|r| outcome_of(self.policy, r))
                            .collect::<Vec<_>>()
                    },
                    |batch, chunks| {
                        let mut recs = batch.records.iter();
                        for outcomes in chunks {
                            // Outcomes first: zip must not take a record past the chunk's end.
                            for (o, r) in outcomes.iter().zip(recs.by_ref()) {
                                sink.map_row(&grouping.row(r, o, detail, sources))
                                    .map_err(MapError::Output)?;
                            }
                        }
                        if let Some(p) = self.progress {
                            p(Pass::Writing, batch.lines_read, batch.bytes_read);
                        }
                        Ok(())
                    },
                )
                .map_err(stream_error)?;
        }
        Ok(self.finish(grouping, start))
    }

    fn finish(&self, grouping: Grouping, start: Instant) -> MapSummary {
        let mut summary = grouping.summary;
        summary.threads = self.pipeline.threads();
        summary.elapsed_seconds = start.elapsed().as_secs_f64();
        summary.lines_per_second = if summary.elapsed_seconds > 0.0 {
            summary.lines_read as f64 / summary.elapsed_seconds
        } else {
            0.0
        };
        summary
    }

    /// Pass one: count. Workers compute fingerprints; this thread only inserts.
    fn count(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
    ) -> Result<Grouping, MapError> {
        let mut grouping = Grouping::new(self.policy.id(), self.verify_fingerprints, self.groups);
        let mut src = open().map_err(MapError::Input)?;
        let (verify, groups) = (self.verify_fingerprints, self.groups);
        self.pipeline
            .stream(
                src.as_mut(),
                CHUNK,
                |recs| {
                    let mut buf = KeyBuffers::default();
                    recs.iter()
                        .map(|r| Counted::key(self.policy, r, verify, groups, &mut buf))
                        .collect::<Vec<_>>()
                },
                |batch, counted| {
                    for chunk in counted {
                        grouping.insert_chunk(chunk).map_err(MapError::Collision)?;
                    }
                    if let Some(p) = self.progress {
                        p(Pass::Counting, batch.lines_read, batch.bytes_read);
                    }
                    if let Some(n) = self.notice {
                        batch.notices.iter().for_each(|m| n(m));
                    }
                    Ok(())
                },
            )
            .map_err(stream_error)?;
        grouping.summary.lines_read = src.lines_read();
        grouping.summary.skipped = src.skipped();
        grouping.close();
        Ok(grouping)
    }

    /// Pass two into a [`RecordWriter`].
    fn write_rows<W: Write>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        grouping: &Grouping,
        writer: &mut RecordWriter<W>,
    ) -> Result<(), MapError> {
        {
            // Pass two: write. Workers format the rows (or, for Parquet, build the
            // outcomes); this thread only joins them, in input order.
            writer.start_map().map_err(MapError::Output)?;
            let mut src = open().map_err(MapError::Input)?;
            let detail = writer.is_jsonl();
            let format = writer.format();
            let fragments = writer.supports_fragments();
            let tail = writer.tail().clone();
            let (sources, tail) = (self.sources, &tail);
            self.pipeline
                .stream(
                    src.as_mut(),
                    CHUNK,
                    |recs| -> Result<Rows, std::io::Error> {
                        if fragments && !detail {
                            // CSV and TSV rows show the key, the signature and the removed
                            // parameters of a valid record: the lean path gives them. An
                            // invalid record's row needs the error message: its outcome.
                            grouping.warm(recs);
                            let mut w = RecordWriter::fragment(format, tail);
                            let mut lean = LeanRow::default();
                            for r in recs {
                                if lean.key(self.policy, r) {
                                    w.write_map(&grouping.lean_row(r, &lean, sources))?;
                                } else {
                                    let o = outcome_of(self.policy, r);
                                    w.write_map(&grouping.row(r, &o, detail, sources))?;
                                }
                            }
                            w.into_bytes().map(Rows::Bytes)
                        } else if fragments {
                            let mut w = RecordWriter::fragment(format, tail);
                            for r in recs {
                                let o = outcome_of(self.policy, r);
                                w.write_map(&grouping.row(r, &o, detail, sources))?;
                            }
                            w.into_bytes().map(Rows::Bytes)
                        } else {
                            Ok(Rows::Outcomes(
                                recs.iter().map(|r| outcome_of(self.policy, r)).collect(),
                            ))
                        }
                    },
                    |batch, chunks| {
                        let mut recs = batch.records.iter();
                        for c in chunks {
                            match c.map_err(MapError::Output)? {
                                Rows::Bytes(bytes) => {
                                    writer.write_raw(&bytes).map_err(MapError::Output)?
                                }
                                Rows::Outcomes(outcomes) => {
                                    // Outcomes first: zip must not take a record past
                                    // the chunk's end.
                                    for (o, r) in outcomes.iter().zip(recs.by_ref()) {
                                        writer
                                            .write_map(&grouping.row(r, o, detail, sources))
                                            .map_err(MapError::Output)?;
                                    }
                                }
                            }
                        }
                        if let Some(p) = self.progress {
                            p(Pass::Writing, batch.lines_read, batch.bytes_read);
                        }
                        Ok(())
                    },
                )
                .map_err(stream_error)?;
        }
        Ok(())
    }
}

/// What the workers make of a chunk in pass two.
enum Rows {
    /// Formatted rows.
    Bytes(Vec<u8>),
    /// Outcomes, for a writer that takes rows one by one (Parquet).
    Outcomes(Vec<Outcome>),
}

fn stream_error(e: StreamError<MapError>) -> MapError {
    match e {
        StreamError::Input(e) => MapError::Input(e),
        StreamError::Sink(e) => e,
        StreamError::Spawn(e) => MapError::Thread(e),
    }
}

/// The outcome of one input record: its reading problem, or the policy's outcome.
pub fn outcome_of(policy: &Policy, r: &InputRecord) -> Outcome {
    match &r.problem {
        Some(p) => Outcome::invalid(p.clone()),
        None => policy.key(&r.observed),
    }
}

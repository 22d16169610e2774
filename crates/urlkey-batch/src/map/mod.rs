//! `urlkey map` (the Legacy URL Mapper spec's grouping, on inputs of any size): two passes
//! over the input with the grouping engine (`grouping.rs`) between them.
//!
//! Pass one runs the policy on every record and counts, per 128-bit fingerprint of the
//! key, how many records share it and where the first one was; between the passes the
//! grouping finds, per fingerprint of the signature, how many distinct keys share it.
//! Pass two writes each row with those counts, in input order. CSV and TSV rows come from
//! the input read again beside what pass one kept of each record's keying in a temporary
//! file (`spill.rs`; where it cannot be written, from the lean path again: [`LeanRow`],
//! key, signature, removed parameters); JSONL and Parquet rows, which carry the
//! transformation log and the facts, from the full `Outcome`, pass two running the policy
//! again. Records are never held in memory. The table that finds the key states grows with
//! the distinct keys (`slots.rs`).
//!
//! Every path of pass two (rows from the spill, [`MapRun::run`] keying again,
//! [`MapRun::run_rows`] for the web page) builds its rows with the row module's builders
//! (`rows/build.rs`, `rows/kept.rs`), which ask the grouping for each row's grouping cells
//! ([`crate::rows`]). The other files: `counted.rs` (what pass one keeps of a record),
//! `fingerprint.rs`, `key_state.rs` (a key's 32-byte state), `places.rs` (where pass one
//! left each record's state), `close.rs` (the step between the passes), `dense.rs` (the
//! blocks that hold the states).

mod close;
mod counted;
mod dense;
mod fingerprint;
mod grouping;
mod key_state;
mod places;
mod slots;
mod spill;

use std::io::Write;
use std::time::Instant;

use urlkey::{Outcome, Policy};

use crate::input::{InputError, InputRecord, RecordRef, RecordSource};
use crate::pipeline::{Pipeline, StreamError, ThreadError};
use crate::rows::{
    keyed_row, outcome_of, outcome_row, push_kept_row, push_keyed_again, LeanRow, OutputFormat,
    RecordWriter, RowShape, RowSink, Table,
};

/// Records per unit of work handed to a worker thread.
const CHUNK: usize = 512;

/// Batches per thread that pass one's threads may key ahead of the batch being counted
/// ([`Pipeline::with_lead`]). Counting waits now and then for fresh memory (a 2 MB block
/// of states, the new half of a grown table: 10-600 ms where the first touch of a
/// megabyte costs 1-15 ms, as it does on this kind of machine); with the pipeline's
/// usual lead of 4 batches (about 11 ms of keying) the other thread then sat idle. 32
/// batches hold about 12 MB more (docs/benchmarks.md, "why runs that start cold cost more").
const COUNT_LEAD: usize = 32;

pub use counted::{CountError, Counted, FingerprintCollision, KeyBuffers};
pub use fingerprint::{fingerprint, record_fingerprints, Fingerprint, FingerprintHasher};
pub use grouping::{Grouping, MapSummary};
pub use key_state::MAX_STATES;

/// What can stop a map run.
#[derive(Debug)]
pub enum MapError {
    /// The input could not be read.
    Input(InputError),
    /// Writing failed.
    Output(std::io::Error),
    /// Verifying fingerprints found two keys with one fingerprint.
    Collision(FingerprintCollision),
    /// The input has more distinct keys than one run counts ([`MAX_STATES`]).
    TooManyKeys,
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
            MapError::TooManyKeys => write!(
                f,
                "the input has more than {MAX_STATES} distinct keys, more than one map run \
                 counts; split it and map the parts"
            ),
            MapError::Thread(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for MapError {}

impl From<CountError> for MapError {
    fn from(e: CountError) -> Self {
        match e {
            CountError::Collision(c) => MapError::Collision(c),
            CountError::TooManyKeys => MapError::TooManyKeys,
        }
    }
}

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
    /// With CSV or TSV rows: keep what pass one's keying gave in a temporary file, so
    /// that pass two does not key every record again (`map/spill.rs`; where the file cannot be
    /// made or written, the run says so through `notice` and keys again).
    pub spill: bool,
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
    pub fn run<W: Write + Send>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        writer: &mut RecordWriter<W>,
    ) -> Result<MapSummary, MapError> {
        self.run_with_spill(open, writer, &spill::Spill::create)
    }

    /// [`MapRun::run`] with the spill that `make_spill` gives, when the run spills.
    fn run_with_spill<W: Write + Send>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        writer: &mut RecordWriter<W>,
        make_spill: &dyn Fn() -> std::io::Result<spill::Spill>,
    ) -> Result<MapSummary, MapError> {
        let start = Instant::now();
        let rows = matches!(writer.format(), OutputFormat::Csv | OutputFormat::Tsv);
        if self.spill && rows && !self.groups {
            match make_spill() {
                Ok(spill) => return self.run_spilling(open, writer, spill, start),
                Err(e) => self.say(&format!(
                    "cannot make a temporary file for map's rows ({e}); every record is keyed \
                     again to write its row (slower). Set TMPDIR to a writable directory"
                )),
            }
        }
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
                                sink.map_row(&outcome_row(grouping, r, o, detail, sources))
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

    fn say(&self, message: &str) {
        if let Some(n) = self.notice {
            n(message);
        }
    }

    /// Pass one: count. Workers compute fingerprints; this thread only inserts.
    fn count(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
    ) -> Result<Grouping, MapError> {
        let (verify, groups) = (self.verify_fingerprints, self.groups);
        self.count_by(
            self.grouping(),
            open,
            |recs| {
                let mut buf = KeyBuffers::default();
                recs.iter()
                    .map(|r| Counted::key(self.policy, r, verify, groups, &mut buf))
                    .collect::<Vec<_>>()
            },
            |grouping, chunk| grouping.insert_chunk(chunk),
        )
    }

    /// An empty grouping for this run.
    fn grouping(&self) -> Grouping {
        Grouping::new(self.policy.id(), self.verify_fingerprints, self.groups)
    }

    /// Pass one into `grouping` with workers' results of any kind: `work` makes a chunk's,
    /// `insert` counts it on this thread.
    fn count_by<T: Send>(
        &self,
        mut grouping: Grouping,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        work: impl Fn(&[InputRecord]) -> T + Sync + Send,
        mut insert: impl FnMut(&mut Grouping, T) -> Result<(), CountError> + Send,
    ) -> Result<Grouping, MapError> {
        let mut src = open().map_err(MapError::Input)?;
        // The sink counts the workers' results: the records can go where they were read.
        self.pipeline
            .with_lead(COUNT_LEAD)
            .dropping_records()
            .stream(src.as_mut(), CHUNK, work, |batch, counted| {
                for chunk in counted {
                    insert(&mut grouping, chunk).map_err(MapError::from)?;
                }
                if let Some(p) = self.progress {
                    p(Pass::Counting, batch.lines_read, batch.bytes_read);
                }
                if let Some(n) = self.notice {
                    batch.notices.iter().for_each(|m| n(m));
                }
                Ok(())
            })
            .map_err(stream_error)?;
        grouping.summary.lines_read = src.lines_read();
        grouping.summary.skipped = src.skipped();
        grouping.set_run_offsets(src.run_line_offsets());
        grouping.close_on(close_threads(
            grouping.key_states_len(),
            self.pipeline.threads(),
        ));
        Ok(grouping)
    }

    /// Both passes with what pass one's keying gave kept in `spill` ([`spill`]): pass two
    /// reads it back beside the input instead of keying the input again. Where the spill
    /// cannot be written, pass two keys the input again.
    fn run_spilling<W: Write + Send>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        writer: &mut RecordWriter<W>,
        spill: spill::Spill,
        start: Instant,
    ) -> Result<MapSummary, MapError> {
        let tail = writer.tail().clone();
        let shape = RowShape {
            delimiter: delimiter(writer.format()),
            tail: &tail,
            sources: self.sources,
        };
        let verify = self.verify_fingerprints;
        let mut places = Vec::new();
        let (mut ordinals, mut head) = (Vec::with_capacity(CHUNK), Vec::new());
        // The spill's entries carry their states' ordinals: no places to note while it holds.
        let mut grouping = self.grouping();
        grouping.set_placing(false);
        let grouping = self.count_by(
            grouping,
            open,
            |recs| {
                let mut piece = spill::piece(self.policy, recs, verify, &shape);
                spill.put_piece(&mut piece);
                piece
            },
            |grouping, mut piece: spill::Piece| {
                if spill.is_broken() {
                    return grouping.insert_chunk(piece.counted);
                }
                ordinals.clear();
                let counted = std::mem::take(&mut piece.counted);
                let base = grouping.key_states_len();
                // Pass two takes a record's signature group from its key's state.
                grouping.insert_chunk_placed(counted, &mut |o| ordinals.push(o))?;
                match spill.put_head(&mut piece, &ordinals, base, &mut head) {
                    Ok(place) => places.push(place),
                    Err(e) => {
                        spill.give_up();
                        places = Vec::new();
                        // Records counted from here on are placed for pass two; those
                        // before are found by probing the table.
                        grouping.set_placing(true);
                        self.say(&format!(
                            "cannot write map's temporary file ({e}); every record is keyed \
                             again to write its row (slower). Set TMPDIR to a directory with room"
                        ));
                    }
                }
                Ok(())
            },
        )?;
        if spill.is_broken() {
            self.write_rows(open, &grouping, writer)?;
        } else {
            let again = self.write_spilled(open, &spill, places, &grouping, &shape, writer)?;
            if again > 0 {
                self.say(&format!(
                    "the input changed while map ran: {again} records differ between its two \
                     passes (changed, moved, added or gone); those still there were keyed again, \
                     and the grouping columns count what the first pass read. Map a copy that \
                     does not change while map runs for columns that count the input as it is"
                ));
            }
        }
        Ok(self.finish(grouping, start))
    }

    /// Pass two from the spill: workers read the input again beside pass one's entries
    /// and write the rows; they are written in order. Returns how many records were keyed
    /// again ([`kept_rows`]).
    fn write_spilled<W: Write + Send>(
        &self,
        open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
        spill: &spill::Spill,
        places: Vec<spill::Place>,
        grouping: &Grouping,
        shape: &RowShape,
        writer: &mut RecordWriter<W>,
    ) -> Result<u64, MapError> {
        writer.start_map().map_err(MapError::Output)?;
        let mut src = open().map_err(MapError::Input)?;
        let mut reader = spill::SpillReader::new(places, src.as_mut(), CHUNK);
        let mut again = 0;
        self.pipeline
            .stream_batches(
                &mut reader,
                spill::CHUNKS_PER_TASK,
                |chunks| -> std::io::Result<(Vec<u8>, u64)> {
                    let mut entry = Vec::new();
                    let mut scratch = RowScratch::default();
                    // Sized once: grown entry by entry, it was copied once over.
                    let mut out = Vec::with_capacity(spill::SpillReader::row_bytes(chunks));
                    let mut again = 0;
                    for c in chunks {
                        again += spilled_rows(
                            c,
                            spill,
                            self.policy,
                            grouping,
                            shape,
                            &mut entry,
                            &mut scratch,
                            &mut out,
                        )?;
                    }
                    Ok((out, again))
                },
                |batch, chunks| {
                    for c in chunks {
                        let (bytes, n) = c.map_err(|e| MapError::Output(spill_error(e)))?;
                        again += n;
                        writer.write_raw(&bytes).map_err(MapError::Output)?;
                    }
                    if let Some(p) = self.progress {
                        p(Pass::Writing, batch.lines_read, batch.bytes_read);
                    }
                    Ok(())
                },
            )
            .map_err(stream_error)?;
        Ok(again)
    }

    /// Pass two into a [`RecordWriter`].
    fn write_rows<W: Write + Send>(
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
                                keyed_row(grouping, self.policy, r, sources, &mut lean, |row| {
                                    w.write_map(row)
                                })?;
                            }
                            w.into_bytes().map(Rows::Bytes)
                        } else if fragments {
                            let mut w = RecordWriter::fragment(format, tail);
                            for r in recs {
                                let o = outcome_of(self.policy, r);
                                w.write_map(&outcome_row(grouping, r, &o, detail, sources))?;
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
                                            .write_map(&outcome_row(
                                                grouping, r, o, detail, sources,
                                            ))
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

/// The threads of the step between the passes ([`Grouping::close_on`]) for `keys`
/// distinct keys in a run of `threads`: one below a block of keys ([`dense::BLOCK`],
/// 2^20), where a thread costs more than it saves (docs/cli.md says so).
fn close_threads(keys: usize, threads: usize) -> usize {
    if keys < dense::BLOCK {
        1
    } else {
        threads
    }
}

/// What the workers make of a chunk in pass two.
enum Rows {
    /// Formatted rows.
    Bytes(Vec<u8>),
    /// Outcomes, for a writer that takes rows one by one (Parquet).
    Outcomes(Vec<Outcome>),
}

/// The CSV or TSV delimiter of `format`.
fn delimiter(format: OutputFormat) -> u8 {
    if format == OutputFormat::Tsv {
        b'\t'
    } else {
        b','
    }
}

/// A failure to read the spill back, told as such.
fn spill_error(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        e.kind(),
        format!("cannot read back map's temporary file ({e}); set TMPDIR to another directory"),
    )
}

fn stream_error(e: StreamError<MapError>) -> MapError {
    match e {
        StreamError::Input(e) => MapError::Input(e),
        StreamError::Sink(e) => e,
        StreamError::Spawn(e) => MapError::Thread(e),
    }
}

/// Pass two's buffers, reused from record to record.
#[derive(Default)]
pub(crate) struct RowScratch {
    key: String,
    lean: LeanRow,
    /// A chunk's key ordinals ([`kept_rows`]), and the leads of their groups.
    ordinals: Vec<usize>,
    leads: Vec<usize>,
}

/// One chunk of pass two from the spill: its rows ([`kept_rows`]; every record keyed
/// again where pass one left no entry), appended to `out`; how many records were keyed
/// again. `entry` is a buffer.
#[allow(clippy::too_many_arguments)]
fn spilled_rows(
    chunk: &spill::Spilled,
    spill: &spill::Spill,
    policy: &Policy,
    grouping: &Grouping,
    shape: &RowShape,
    entry: &mut Vec<u8>,
    scratch: &mut RowScratch,
    out: &mut Vec<u8>,
) -> std::io::Result<u64> {
    match &chunk.place {
        Some(place) => {
            spill.read_entry(place, entry)?;
            kept_rows(entry, &chunk.records, policy, grouping, shape, scratch, out)
        }
        None => {
            for r in &chunk.records {
                push_keyed_again(grouping, policy, r, shape, &mut scratch.lean, out);
            }
            Ok(chunk.records.len() as u64)
        }
    }
}

/// Pass two on one chunk: its rows, from its entry and its records read again, appended
/// to `out`; how many records were keyed again (read with another place or text than
/// pass one kept, or never seen by it).
pub(crate) fn kept_rows(
    entry: &[u8],
    records: &[InputRecord],
    policy: &Policy,
    grouping: &Grouping,
    shape: &RowShape,
    scratch: &mut RowScratch,
    out: &mut Vec<u8>,
) -> std::io::Result<u64> {
    let mut kept = spill::Entry::open(entry, &mut scratch.ordinals)?;
    let n = kept.records();
    // One record's row after another's waits for its states' cache misses in turn; this
    // has them in flight together.
    grouping.warm_keys(&scratch.ordinals, &mut scratch.leads);
    let mut again = 0;
    for i in 0..n {
        let k = scratch
            .ordinals
            .get(i)
            .copied()
            .ok_or_else(crate::rows::damaged)?;
        let (place, check, row) = kept.next(k)?;
        let Some(r) = records.get(i) else {
            // The input ended sooner than in pass one.
            again += 1;
            continue;
        };
        if RecordRef::of(r).to_bits() == place && spill::check_of(&r.observed) == check {
            push_kept_row(row, r, k, grouping, shape, &mut scratch.key, out)?;
        } else {
            push_keyed_again(grouping, policy, r, shape, &mut scratch.lean, out);
            again += 1;
        }
    }
    kept.finish()?;
    for r in records.iter().skip(n) {
        push_keyed_again(grouping, policy, r, shape, &mut scratch.lean, out);
        again += 1;
    }
    Ok(again)
}

#[cfg(test)]
pub(crate) mod tests;

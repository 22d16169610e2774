//! Pass one's rows, kept in a temporary file, for `urlkey map` with CSV or TSV rows.
//!
//! Without it, pass two keys every record again to write its row: at 10M records that
//! second keying was 29% of `map`'s instructions (docs/benchmarks.md, issue 19). With it,
//! pass one's workers write each row whole but for its grouping cells, which only the
//! whole input decides; the thread that counts adds the ordinals of each record's key and
//! signature states; pass two reads the rows back in order and fills those cells in. The
//! input is read once, and the rows are the bytes [`push_map_row`] writes either way.
//!
//! The file is made by [`tempfile::tempfile`] in the system's temporary directory
//! (`TMPDIR`) and is unlinked from the start: nothing is left behind, however the run
//! ends. It takes about the output's size plus 36 bytes a record. Where it cannot be
//! made or written (no such directory, a full disk), `map` says so and keys every record
//! again in pass two: the output is the same.
//!
//! A chunk's entry has two parts, each where the file had room when it was written (the
//! index, in input order, says where): the worker that keyed the chunk writes per record
//! its place, its row's length and where its grouping cells go ([`META`] bytes), then the
//! rows; the counting thread writes the record count (`u32`) and per record the ordinals
//! of its key and signature states (`u32` each, [`WHOLE`] for an invalid record's row).
//! Workers write and read their own parts, so that neither the counting thread of pass
//! one nor the reading lock of pass two copies the rows. Integers are little-endian.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use urlkey::Policy;

use super::grouping::{ungrouped_row, Counted, Grouping, LeanRow};
use super::outcome_of;
use crate::input::{InputError, InputRecord, RecordRef};
use crate::output::{push_map_group_sources, push_map_groups, push_map_row, Tail};
use crate::pipeline::{BatchSource, ReadBatch};

/// Bytes per record in an entry's second table: the record's place (`u64`), its row's
/// length and the start and end of its two holes (`u32` each).
const META: usize = 8 + 4 * 5;

/// An ordinal or offset that marks a row with no grouping cells to fill: an invalid
/// record's, which pass one writes whole.
const WHOLE: u32 = u32::MAX;

/// Chunks per batch in pass two: with one thread, and with more (the records per batch
/// of [`crate::pipeline::BATCH`] and [`crate::pipeline::PARALLEL_BATCH`] at 512 a chunk).
const BATCH_CHUNKS: (usize, usize) = (32, 8);

/// Entries a pass-two task reads and fills in: a thread's whole batch with more than one.
pub(crate) const CHUNKS_PER_TASK: usize = BATCH_CHUNKS.1;

/// What a pass-one worker makes of a chunk of records.
pub(crate) struct Piece {
    /// What the grouping counts.
    pub counted: Vec<Counted>,
    /// [`META`] bytes a record.
    meta: Vec<u8>,
    /// The rows, one after another.
    rows: Vec<u8>,
    /// A row too long for the entry's `u32` lengths: the spill gives up.
    too_long: bool,
    /// Records in the chunk.
    records: usize,
    /// Where [`Spill::put_piece`] wrote `meta` and `rows`: offset and length.
    written: Option<io::Result<(u64, usize)>>,
}

/// How pass one writes rows: the settings of the output's rows.
pub(crate) struct RowShape<'a> {
    /// `,` or a tab.
    pub delimiter: u8,
    /// The output's tail columns.
    pub tail: &'a Tail,
    /// The run's inputs' names, when it has more than one.
    pub sources: &'a [String],
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Keys a chunk of records and writes their rows, grouping cells empty.
pub(crate) fn piece(
    policy: &Policy,
    recs: &[InputRecord],
    verify: bool,
    shape: &RowShape,
) -> Piece {
    let mut p = Piece {
        counted: Vec::with_capacity(recs.len()),
        meta: Vec::with_capacity(recs.len() * META),
        rows: Vec::with_capacity(recs.len() * 256),
        too_long: false,
        records: recs.len(),
        written: None,
    };
    let mut lean = LeanRow::default();
    let d = shape.delimiter;
    for r in recs {
        let start = p.rows.len();
        let holes = if lean.key(policy, r) {
            let (key, sig, removed) = lean.parts();
            let row = ungrouped_row(r, Some((key, sig)), removed, shape.sources);
            p.counted.push(lean.counted(r, verify));
            Some(push_map_row(&mut p.rows, d, &row, shape.tail))
        } else {
            // A reading problem or the policy's error: the row shows the error message,
            // which only the outcome has. It has no grouping cells, and is whole now.
            let o = outcome_of(policy, r);
            p.counted
                .push(Counted::of(RecordRef::of(r), &o, verify, false));
            let keyed = o.key.as_deref().zip(o.signature.as_deref());
            let mut row = ungrouped_row(r, keyed, &o.removed_params, shape.sources);
            row.status = if o.is_valid() { "ok" } else { "invalid" };
            row.error_code = o.error.as_ref().map(|e| e.code.as_str());
            row.error = o.error.as_ref().map(|e| e.message.as_str());
            let holes = push_map_row(&mut p.rows, d, &row, shape.tail);
            keyed.map(|_| holes)
        };
        let at = RecordRef::of(r).to_bits();
        p.meta.extend_from_slice(&at.to_le_bytes());
        let fields = [
            p.rows.len() - start,
            holes.map_or(WHOLE as usize, |h| h.groups.0),
            holes.map_or(WHOLE as usize, |h| h.groups.1),
            holes.map_or(WHOLE as usize, |h| h.sources.0),
            holes.map_or(WHOLE as usize, |h| h.sources.1),
        ];
        for f in fields {
            match u32::try_from(f) {
                Ok(v) if v != WHOLE || holes.is_none() => put_u32(&mut p.meta, v),
                _ => {
                    p.too_long = true;
                    put_u32(&mut p.meta, WHOLE);
                }
            }
        }
    }
    p
}

/// Writes all of `buf` at `offset`.
#[cfg(unix)]
fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

/// Reads all of `buf` from `offset`.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn write_at(file: &File, mut buf: &[u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, buf, offset)?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        buf = &buf[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(file, buf, offset)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}

/// The temporary file. Shared: workers and the counting thread each write their parts
/// at places they take from `end`.
pub(crate) struct Spill {
    file: File,
    /// Bytes taken so far.
    end: AtomicU64,
    /// A write failed: the run keys again, and workers write nothing more.
    broken: AtomicBool,
}

/// Where a chunk's entry is, and the input's counters after its batch (for pass two's
/// progress).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    head: (u64, usize),
    body: (u64, usize),
    lines_read: u64,
    bytes_read: u64,
}

impl Spill {
    /// A new, empty temporary file in the system's temporary directory.
    pub fn create() -> io::Result<Self> {
        tempfile::tempfile().map(Spill::in_file)
    }

    /// Spills into `file`, which must be readable and writable; what it holds is
    /// written over.
    pub fn in_file(file: File) -> Self {
        Spill {
            file,
            end: AtomicU64::new(0),
            broken: AtomicBool::new(false),
        }
    }

    /// Writes `parts` one after another at a place of their own: its offset and length.
    fn put(&self, parts: [&[u8]; 2]) -> io::Result<(u64, usize)> {
        let len = parts[0].len() + parts[1].len();
        let at = self.end.fetch_add(len as u64, Ordering::Relaxed);
        write_at(&self.file, parts[0], at)?;
        write_at(&self.file, parts[1], at + parts[0].len() as u64)?;
        Ok((at, len))
    }

    /// A worker's part of a chunk's entry: writes the piece's rows and lets them go.
    pub fn put_piece(&self, piece: &mut Piece) {
        if self.is_broken() || piece.too_long {
            return;
        }
        piece.written = Some(self.put([&piece.meta, &piece.rows]));
        piece.meta = Vec::new();
        piece.rows = Vec::new();
    }

    /// Gives up: workers write nothing more, and pass two keys again.
    pub fn give_up(&self) {
        self.broken.store(true, Ordering::Relaxed);
    }

    /// True after [`Spill::give_up`].
    pub fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    /// The counting thread's part of a chunk's entry, for a piece whose records' state
    /// ordinals `ordinals` gives, in order (`None`: an invalid record); `lines_read` and
    /// `bytes_read` are the input's counters after the chunk's batch. `head` is a buffer.
    pub fn put_head(
        &self,
        piece: &mut Piece,
        ordinals: &[Option<(usize, usize)>],
        lines_read: u64,
        bytes_read: u64,
        head: &mut Vec<u8>,
    ) -> io::Result<Place> {
        let too_big = || io::Error::other("a row or an ordinal too large for the temporary file");
        let body = match piece.written.take() {
            Some(Ok(body)) if ordinals.len() == piece.records => body,
            Some(Err(e)) => return Err(e),
            _ => return Err(too_big()),
        };
        head.clear();
        put_u32(head, u32::try_from(ordinals.len()).map_err(|_| too_big())?);
        for o in ordinals {
            let (k, s) = o.unwrap_or((WHOLE as usize, WHOLE as usize));
            match (u32::try_from(k), u32::try_from(s)) {
                (Ok(k), Ok(s)) if (k != WHOLE && s != WHOLE) || o.is_none() => {
                    put_u32(head, k);
                    put_u32(head, s);
                }
                _ => return Err(too_big()),
            }
        }
        let head = self.put([head, &[]])?;
        Ok(Place {
            head,
            body,
            lines_read,
            bytes_read,
        })
    }

    /// Reads the entry at `place` into `entry`, which takes its length: head, then body.
    pub fn read_entry(&self, place: &Place, entry: &mut Vec<u8>) -> io::Result<()> {
        let (h, b) = (place.head.1, place.body.1);
        // Grown only: a zeroed buffer for each entry cost a memset of every byte.
        if entry.len() < h + b {
            entry.resize(h + b, 0);
        }
        entry.truncate(h + b);
        read_at(&self.file, &mut entry[..h], place.head.0)?;
        read_at(&self.file, &mut entry[h..], place.body.0)
    }
}

/// Pass two's input: the entries' places, in order.
pub(crate) struct SpillReader {
    places: Vec<Place>,
    next: usize,
}

impl SpillReader {
    /// The places pass one wrote, in input order.
    pub fn new(places: Vec<Place>) -> Self {
        SpillReader { places, next: 0 }
    }
}

impl BatchSource for SpillReader {
    type Item = Place;

    fn read_batch(&mut self, max: usize) -> Result<(ReadBatch<Place>, bool), InputError> {
        let end = self.places.len().min(self.next + max.max(1));
        let records = self.places[self.next..end].to_vec();
        let (lines_read, bytes_read) = records
            .last()
            .map_or((0, 0), |p| (p.lines_read, p.bytes_read));
        self.next = end;
        let batch = ReadBatch {
            records,
            lines_read,
            bytes_read,
            notices: Vec::new(),
        };
        Ok((batch, end < self.places.len()))
    }

    fn batch_sizes(&self) -> (usize, usize) {
        BATCH_CHUNKS
    }
}

fn damaged() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "map's temporary file was changed while map ran",
    )
}

fn u32_at(b: &[u8], at: usize) -> io::Result<usize> {
    let bytes = b.get(at..at + 4).ok_or_else(damaged)?;
    let mut v = [0; 4];
    v.copy_from_slice(bytes);
    Ok(u32::from_le_bytes(v) as usize)
}

fn u64_at(b: &[u8], at: usize) -> io::Result<u64> {
    let bytes = b.get(at..at + 8).ok_or_else(damaged)?;
    let mut v = [0; 8];
    v.copy_from_slice(bytes);
    Ok(u64::from_le_bytes(v))
}

/// Pass two on one chunk's entry: its rows with their grouping cells, appended to `out`.
pub(crate) fn rows_of(
    entry: &[u8],
    grouping: &Grouping,
    shape: &RowShape,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    const WHOLE_AT: usize = WHOLE as usize;
    let n = u32_at(entry, 0)?;
    let ordinals = entry.get(4..4 + 8 * n).ok_or_else(damaged)?;
    let meta = entry
        .get(4 + 8 * n..4 + (8 + META) * n)
        .ok_or_else(damaged)?;
    let mut rows = &entry[4 + (8 + META) * n..];
    let ordinal = |i: usize| -> io::Result<(usize, usize)> {
        Ok((u32_at(ordinals, 8 * i)?, u32_at(ordinals, 8 * i + 4)?))
    };
    // One record's row after another's waits for its states' cache misses in turn; this
    // loop has them in flight together.
    grouping.warm_ordinals((0..n).filter_map(|i| ordinal(i).ok()));
    out.reserve(rows.len() + 16 * n);
    let d = shape.delimiter;
    for i in 0..n {
        let m = &meta[i * META..(i + 1) * META];
        let (len, g0, g1, s0, s1) = (
            u32_at(m, 8)?,
            u32_at(m, 12)?,
            u32_at(m, 16)?,
            u32_at(m, 20)?,
            u32_at(m, 24)?,
        );
        let row = rows.get(..len).ok_or_else(damaged)?;
        rows = &rows[len..];
        let (k, s) = ordinal(i)?;
        if k == WHOLE_AT || g0 == WHOLE_AT {
            out.extend_from_slice(row);
            continue;
        }
        if !(g0 <= g1 && g1 <= s0 && s0 <= s1 && s1 <= len) {
            return Err(damaged());
        }
        let here = RecordRef::from_bits(u64_at(m, 0)?);
        let cells = grouping
            .cells_at(here, k, s, shape.sources)
            .ok_or_else(damaged)?;
        out.extend_from_slice(&row[..g0]);
        push_map_groups(out, d, &cells);
        out.extend_from_slice(&row[g1..s0]);
        if shape.tail.sources {
            push_map_group_sources(out, d, &cells);
        }
        out.extend_from_slice(&row[s1..]);
    }
    if rows.is_empty() {
        Ok(())
    } else {
        Err(damaged())
    }
}

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
//! A chunk's entry: the record count (`u32`), per record the ordinals of its key and
//! signature states (`u32` each, [`WHOLE`] for an invalid record's row), per record its
//! place, its row's length and where its grouping cells go ([`META`] bytes), then the
//! rows. Integers are little-endian.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use urlkey::Policy;

use super::grouping::{ungrouped_row, Counted, Grouping, LeanRow};
use super::outcome_of;
use crate::input::{InputError, InputErrorKind, InputRecord, RecordRef};
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

/// Pass one's rows, as written so far.
pub(crate) struct Spill {
    file: File,
    /// Per chunk: its entry's length in bytes, and the input's counters after its batch.
    chunks: Vec<(usize, u64, u64)>,
    /// The entry's head, reused.
    head: Vec<u8>,
}

impl Spill {
    /// A new, empty temporary file in the system's temporary directory.
    pub fn create() -> io::Result<Self> {
        tempfile::tempfile().map(Spill::in_file)
    }

    /// Spills into `file`, which must be empty, readable and writable.
    pub fn in_file(file: File) -> Self {
        Spill {
            file,
            chunks: Vec::new(),
            head: Vec::new(),
        }
    }

    /// Appends the entry of a chunk whose records' state ordinals `ordinals` gives, in
    /// order (`None`: an invalid record); `lines_read` and `bytes_read` are the input's
    /// counters after the chunk's batch, for pass two's progress.
    pub fn append(
        &mut self,
        piece: &Piece,
        ordinals: &[Option<(usize, usize)>],
        lines_read: u64,
        bytes_read: u64,
    ) -> io::Result<()> {
        let too_big = || io::Error::other("a row or an ordinal too large for the temporary file");
        if piece.too_long || ordinals.len() * META != piece.meta.len() {
            return Err(too_big());
        }
        let head = &mut self.head;
        head.clear();
        put_u32(head, u32::try_from(ordinals.len()).map_err(|_| too_big())?);
        for o in ordinals {
            let (k, s) = o.unwrap_or((WHOLE as usize, WHOLE as usize));
            let (k, s) = (u32::try_from(k), u32::try_from(s));
            match (k, s) {
                (Ok(k), Ok(s)) if (k != WHOLE && s != WHOLE) || o.is_none() => {
                    put_u32(head, k);
                    put_u32(head, s);
                }
                _ => return Err(too_big()),
            }
        }
        self.file.write_all(head)?;
        self.file.write_all(&piece.meta)?;
        self.file.write_all(&piece.rows)?;
        let len = head.len() + piece.meta.len() + piece.rows.len();
        self.chunks.push((len, lines_read, bytes_read));
        Ok(())
    }

    /// The entries, from the first.
    pub fn read_back(mut self) -> io::Result<SpillReader> {
        self.file.flush()?;
        self.file.seek(SeekFrom::Start(0))?;
        Ok(SpillReader {
            file: self.file,
            chunks: self.chunks,
            next: 0,
        })
    }
}

/// Pass two's input: the spill's entries in order, a chunk's entry an item.
pub(crate) struct SpillReader {
    file: File,
    chunks: Vec<(usize, u64, u64)>,
    next: usize,
}

impl BatchSource for SpillReader {
    type Item = Vec<u8>;

    fn read_batch(&mut self, max: usize) -> Result<(ReadBatch<Vec<u8>>, bool), InputError> {
        let end = self.chunks.len().min(self.next + max.max(1));
        let mut records = Vec::with_capacity(end - self.next);
        for &(len, _, _) in &self.chunks[self.next..end] {
            // Read into spare capacity: a zeroed buffer cost a memset of every byte.
            let mut entry = Vec::with_capacity(len);
            let read = (&mut self.file).take(len as u64).read_to_end(&mut entry);
            let failed = |why: String| InputError {
                kind: InputErrorKind::Read,
                message: format!("cannot read back map's temporary file ({why})"),
            };
            match read {
                Ok(n) if n == len => records.push(entry),
                Ok(n) => return Err(failed(format!("{n} of {len} bytes"))),
                Err(e) => return Err(failed(e.to_string())),
            }
        }
        let (lines_read, bytes_read) = match end.checked_sub(1).map(|i| self.chunks[i]) {
            Some((_, l, b)) => (l, b),
            None => (0, 0),
        };
        self.next = end;
        let batch = ReadBatch {
            records,
            lines_read,
            bytes_read,
            notices: Vec::new(),
        };
        Ok((batch, end < self.chunks.len()))
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

//! Pass one's records, kept in a temporary file, for `urlkey map` with CSV or TSV rows.
//!
//! Without it, pass two keys every record again to write its row: at 10M records that
//! second keying was 29% of `map`'s instructions (docs/benchmarks.md, issue 19). With it,
//! pass one's workers keep each record's cells: the input as read, its key (nothing when
//! the key is the input), its signature (where it is in the key, as 98% are), the removed
//! parameters, an error where the policy gave one with a key, the kept cells; the thread
//! that counts adds the ordinals of each record's key and signature states; pass two reads
//! the cells back in order and writes each row with [`push_map_row`], the function that
//! writes it when pass two keys again, with the grouping cells the whole input decides.
//! An invalid record's row has no grouping cells: pass one writes it whole. The input is
//! read once.
//!
//! The cells are about half the bytes of the rows the fourth round kept: 130 against 245
//! bytes a record on the generated 10M-line file's first 1M lines, all of it through the
//! page cache, whose copies were 7.8% of `map`'s samples then (docs/benchmarks.md).
//!
//! The file is made by [`tempfile::tempfile`] in the system's temporary directory
//! (`TMPDIR`) and is unlinked from the start: nothing is left behind, however the run
//! ends. Where it cannot be made or written (no such directory, a full disk), `map` says
//! so and keys every record again in pass two: the output is the same.
//!
//! A chunk's entry has two parts, each where the file had room when it was written (the
//! index, in input order, says where):
//! - the worker that keyed the chunk writes per record its place and its form ([`META`]
//!   bytes: [`CELLS`] or [`WHOLE`]); the length of the heads (`u32`); the heads: per
//!   record the lengths and tags of its cells, or its whole row's length, as LEB128
//!   integers; then the texts of every record, one after another, which pass two checks
//!   as UTF-8 once an entry;
//! - the counting thread writes the record count (`u32`) and per record the ordinals of
//!   its key and signature states (`u32` each, [`WHOLE`] for an invalid record).
//!
//! Workers write and read their own parts, so that neither the counting thread of pass
//! one nor the reading lock of pass two copies the records. Fixed-size integers are
//! little-endian. An entry cut short is an error, never a wrong row; one with a byte
//! changed gives an error or rows, never a panic.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use urlkey::Policy;

use super::grouping::{row_from_parts, ungrouped_row, Counted, Grouping, LeanRow};
use super::outcome_of;
use crate::input::{InputError, InputRecord, RecordRef};
use crate::output::{join_names_into, push_map_row, Tail};
use crate::pipeline::{BatchSource, ReadBatch};

/// Bytes per record in an entry's second table: the record's place (`u64`) and its form
/// (`u32`: [`CELLS`] or [`WHOLE`]).
const META: usize = 8 + 4;

/// Bytes of a row beyond its cells' texts, about (a CSV row of the 10M-line benchmark
/// holds 228 bytes, 120 of them texts): for sizing pass two's buffers.
const ROW_BYTES: usize = 128;

/// A record kept as its cells, whose row pass two writes with its grouping cells.
const CELLS: u32 = 0;

/// An ordinal, or a record's form, for a record with no grouping cells: an invalid
/// record's, whose row pass one writes whole.
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
    /// Per record, the lengths and tags of its cells ([`put_cells`]), or its row's length.
    heads: Vec<u8>,
    /// The records' cells and rows, one after another, so that pass two checks that they
    /// are UTF-8 once a chunk.
    texts: Vec<u8>,
    /// Heads too long for their `u32` length: the spill gives up.
    too_long: bool,
    /// Records in the chunk.
    records: usize,
    /// Where [`Spill::put_piece`] wrote `meta`, `heads` and `texts`: offset and length.
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

/// An unsigned LEB128 integer: seven bits a byte, low first.
fn put_varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A record's parts, as [`piece`] writes them: lengths and tags, and texts.
struct Parts<'a> {
    heads: &'a mut Vec<u8>,
    texts: &'a mut Vec<u8>,
}

impl Parts<'_> {
    fn text(&mut self, text: &str) {
        put_varint(self.heads, text.len());
        self.texts.extend_from_slice(text.as_bytes());
    }
}

/// Where the signature is in the key, when it is a slice of it: after the scheme, as
/// 98% of them are, or anywhere else.
fn signature_in_key(key: &str, sig: &str) -> Option<usize> {
    // A scheme is a few ASCII letters: a byte loop finds its end sooner than a searcher.
    let after_scheme = key
        .bytes()
        .position(|b| b == b':')
        .filter(|&i| key[i + 1..].starts_with("//"))
        .map_or(0, |i| i + 3);
    if key[after_scheme..].starts_with(sig) {
        Some(after_scheme)
    } else {
        key.find(sig)
    }
}

/// A record's cells, from which pass two writes its row: the input as read, the key
/// (`0`: the input itself), the signature (an offset into the key plus one and a length,
/// or `0` and its text), the removed parameters' names joined, the status and error (`0`:
/// `ok` without one; `1`: `ok` and `2`: `invalid`, each with an error code and message),
/// the kept cells. Lengths and tags are [`put_varint`]s.
fn put_cells(
    p: &mut Parts,
    observed: &str,
    (key, sig): (&str, &str),
    removed_tracking: &str,
    error: Option<(bool, &str, &str)>,
    kept: &[String],
) {
    p.text(observed);
    if key == observed {
        put_varint(p.heads, 0);
    } else {
        put_varint(p.heads, key.len() + 1);
        p.texts.extend_from_slice(key.as_bytes());
    }
    match signature_in_key(key, sig) {
        Some(at) => {
            put_varint(p.heads, at + 1);
            put_varint(p.heads, sig.len());
        }
        None => {
            put_varint(p.heads, 0);
            p.text(sig);
        }
    }
    p.text(removed_tracking);
    match error {
        None => put_varint(p.heads, 0),
        Some((valid, code, message)) => {
            put_varint(p.heads, if valid { 1 } else { 2 });
            p.text(code);
            p.text(message);
        }
    }
    put_varint(p.heads, kept.len());
    for k in kept {
        p.text(k);
    }
}

/// Keys a chunk of records: their cells, or an invalid record's whole row.
pub(crate) fn piece(
    policy: &Policy,
    recs: &[InputRecord],
    verify: bool,
    shape: &RowShape,
) -> Piece {
    let mut p = Piece {
        counted: Vec::with_capacity(recs.len()),
        meta: Vec::with_capacity(recs.len() * META),
        heads: Vec::with_capacity(recs.len() * 8),
        texts: Vec::with_capacity(recs.len() * 128),
        too_long: false,
        records: recs.len(),
        written: None,
    };
    let mut lean = LeanRow::default();
    let mut removed = String::new();
    for r in recs {
        let mut parts = Parts {
            heads: &mut p.heads,
            texts: &mut p.texts,
        };
        let form = if lean.key(policy, r) {
            let (key, sig, names) = lean.parts();
            join_names_into(&mut removed, names);
            put_cells(&mut parts, &r.observed, (key, sig), &removed, None, &r.kept);
            p.counted.push(lean.counted(r, verify));
            CELLS
        } else {
            // A reading problem or the policy's error: the row shows the error message,
            // which only the outcome has.
            let o = outcome_of(policy, r);
            p.counted
                .push(Counted::of(RecordRef::of(r), &o, verify, false));
            let keyed = o.key.as_deref().zip(o.signature.as_deref());
            let error = o
                .error
                .as_ref()
                .map(|e| (o.is_valid(), e.code.as_str(), &*e.message));
            match keyed {
                Some(keyed) => {
                    join_names_into(&mut removed, &o.removed_params);
                    put_cells(&mut parts, &r.observed, keyed, &removed, error, &r.kept);
                    CELLS
                }
                None => {
                    // No grouping cells: the row is whole now.
                    let mut row = ungrouped_row(r, None, &o.removed_params, shape.sources);
                    row.status = if o.is_valid() { "ok" } else { "invalid" };
                    row.error_code = error.map(|e| e.1);
                    row.error = error.map(|e| e.2);
                    let start = parts.texts.len();
                    push_map_row(parts.texts, shape.delimiter, &row, shape.tail);
                    put_varint(parts.heads, parts.texts.len() - start);
                    WHOLE
                }
            }
        };
        p.meta
            .extend_from_slice(&RecordRef::of(r).to_bits().to_le_bytes());
        put_u32(&mut p.meta, form);
    }
    p.too_long |= u32::try_from(p.heads.len()).is_err();
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
    fn put(&self, parts: &[&[u8]]) -> io::Result<(u64, usize)> {
        let len = parts.iter().map(|p| p.len()).sum::<usize>();
        let mut at = self.end.fetch_add(len as u64, Ordering::Relaxed);
        let start = at;
        for p in parts {
            write_at(&self.file, p, at)?;
            at += p.len() as u64;
        }
        Ok((start, len))
    }

    /// A worker's part of a chunk's entry: writes the piece's records and lets them go.
    pub fn put_piece(&self, piece: &mut Piece) {
        if self.is_broken() || piece.too_long {
            return;
        }
        // `piece` checked that the heads' length fits.
        let heads_len = (piece.heads.len() as u32).to_le_bytes();
        let parts: [&[u8]; 4] = [&piece.meta, &heads_len, &piece.heads, &piece.texts];
        piece.written = Some(self.put(&parts));
        piece.meta = Vec::new();
        piece.heads = Vec::new();
        piece.texts = Vec::new();
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
        let head = self.put(&[head])?;
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
    /// About the bytes of the rows of the entries at `places`.
    pub fn row_bytes(places: &[Place]) -> usize {
        places
            .iter()
            .map(|p| p.body.1 + ROW_BYTES * (p.head.1.saturating_sub(4) / 8))
            .sum()
    }

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

/// Reads what [`put_cells`] wrote, from the front: lengths and tags from `heads`, texts
/// from `texts`.
struct Cells<'a> {
    heads: &'a [u8],
    texts: &'a str,
}

impl<'a> Cells<'a> {
    fn varint(&mut self) -> io::Result<usize> {
        // Most lengths and every tag fit in one byte.
        if let Some((&b, rest)) = self.heads.split_first() {
            if b < 0x80 {
                self.heads = rest;
                return Ok(usize::from(b));
            }
        }
        let mut v = 0usize;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.heads.split_first().ok_or_else(damaged)?;
            self.heads = rest;
            v |= usize::from(b & 0x7f)
                .checked_shl(shift)
                .ok_or_else(damaged)?;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(damaged())
    }

    fn text_of(&mut self, len: usize) -> io::Result<&'a str> {
        let t = self.texts.get(..len).ok_or_else(damaged)?;
        self.texts = &self.texts[len..];
        Ok(t)
    }

    fn text(&mut self) -> io::Result<&'a str> {
        let len = self.varint()?;
        self.text_of(len)
    }
}

/// A record's row from its cells, with its grouping cells, appended to `out`. `kept` is
/// a buffer.
fn row_of_cells(
    c: &mut Cells,
    here: RecordRef,
    (k, s): (usize, usize),
    grouping: &Grouping,
    shape: &RowShape,
    kept: &mut Vec<String>,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let observed = c.text()?;
    let key = match c.varint()? {
        0 => observed,
        n => c.text_of(n - 1)?,
    };
    let sig = match c.varint()? {
        0 => c.text()?,
        at => {
            let len = c.varint()?;
            let end = (at - 1).checked_add(len).ok_or_else(damaged)?;
            key.get(at - 1..end).ok_or_else(damaged)?
        }
    };
    let removed = c.text()?;
    let error = match c.varint()? {
        0 => None,
        tag @ (1 | 2) => Some((tag == 1, c.text()?, c.text()?)),
        _ => return Err(damaged()),
    };
    let n = c.varint()?;
    if n > c.heads.len() {
        return Err(damaged());
    }
    kept.truncate(n);
    for i in 0..n {
        let t = c.text()?;
        match kept.get_mut(i) {
            Some(k) => {
                k.clear();
                k.push_str(t);
            }
            None => kept.push(t.to_string()),
        }
    }
    let mut row = row_from_parts(
        here,
        observed,
        Some((key, sig)),
        removed.to_string(),
        &kept[..n],
        shape.sources,
    );
    if let Some((valid, code, message)) = error {
        row.status = if valid { "ok" } else { "invalid" };
        row.error_code = Some(code);
        row.error = Some(message);
    }
    let groups = grouping
        .cells_at(here, k, s, shape.sources)
        .ok_or_else(damaged)?;
    row.set_groups(groups);
    push_map_row(out, shape.delimiter, &row, shape.tail);
    Ok(())
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
    let meta_end = 4 + (8 + META) * n;
    let meta = entry.get(4 + 8 * n..meta_end).ok_or_else(damaged)?;
    let heads_len = u32_at(entry, meta_end)?;
    let heads = entry
        .get(meta_end + 4..meta_end + 4 + heads_len)
        .ok_or_else(damaged)?;
    let texts = std::str::from_utf8(&entry[meta_end + 4 + heads_len..]).map_err(|_| damaged())?;
    let mut cells = Cells { heads, texts };
    let ordinal = |i: usize| -> io::Result<(usize, usize)> {
        Ok((u32_at(ordinals, 8 * i)?, u32_at(ordinals, 8 * i + 4)?))
    };
    // One record's row after another's waits for its states' cache misses in turn; this
    // loop has them in flight together.
    grouping.warm_ordinals((0..n).filter_map(|i| ordinal(i).ok()));
    out.reserve(texts.len() + ROW_BYTES * n);
    let mut kept = Vec::new();
    for i in 0..n {
        let m = &meta[i * META..(i + 1) * META];
        let (k, s) = ordinal(i)?;
        match (u32_at(m, 8)? as u32, k) {
            (WHOLE, WHOLE_AT) => out.extend_from_slice(cells.text()?.as_bytes()),
            (CELLS, k) if k != WHOLE_AT => {
                let here = RecordRef::from_bits(u64_at(m, 0)?);
                row_of_cells(&mut cells, here, (k, s), grouping, shape, &mut kept, out)?;
            }
            _ => return Err(damaged()),
        }
    }
    if cells.heads.is_empty() && cells.texts.is_empty() {
        Ok(())
    } else {
        Err(damaged())
    }
}

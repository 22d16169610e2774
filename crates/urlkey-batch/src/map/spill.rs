//! What pass one learnt of each record, kept in a temporary file, for `urlkey map` with
//! CSV or TSV rows.
//!
//! This file only stores and restores. Without it, pass two keys every record again to
//! write its row: at 10M records that second keying was 29% of `map`'s instructions
//! (docs/benchmarks.md, "Pass one's rows kept for pass two"). With it, pass one's workers
//! keep per record only what keying gave: the key, as an edit of the input ([`put_key`]:
//! most keys are the input with its scheme and host lowercased, cut before removed
//! parameters), the signature (where it is in the key, as 98% are), the removed
//! parameters, an error where the policy gave one with a key; the thread that counts adds
//! the ordinal of each record's key state. Pass two (`map/mod.rs`) reads the input again,
//! for the text as read, beside these entries read back ([`Entry`], each record's
//! [`Kept`]), and the row module writes each row (`rows/kept.rs`) with the grouping cells
//! the whole input decides, through the same CSV writer as when pass two keys again. An
//! invalid record's row has no grouping cells: pass one writes it whole
//! (`rows::push_whole_row`).
//!
//! Why the input is read twice rather than kept: on this kind of
//! machine, bytes written to fresh page-cache pages cost ten times the bytes read back
//! from pages already cached (`pwrite64` was 18% of a 10M-line run's samples, reading the
//! spill back 1.7%). A spill that kept the input's text took 130 bytes a record, twice the
//! input's 65; this one keeps about 25 (24.7 on the 10M-line benchmark; 30.6 with the
//! ordinals as fixed-size integers; docs/benchmarks.md, "The input read twice").
//!
//! Each record carries its place (as a difference from the record before it) and 32 bits
//! of a hash of its text as read ([`check_of`]). A record that pass two reads with another
//! place or text (an input changed between the passes), or that pass one never saw, is
//! keyed again and its state probed in the table, as when the run does not spill; the
//! run says how many.
//!
//! The file is made by [`tempfile::tempfile`] in the system's temporary directory
//! (`TMPDIR`) and is unlinked from the start: nothing is left behind, however the run
//! ends. Where it cannot be made or written (no such directory, a full disk), `map` says
//! so and keys every record again in pass two: the output is the same.
//!
//! A chunk's entry has two parts, each where the file had room when it was written (the
//! index, in input order, says where):
//! - the worker that keyed the chunk writes the length of the heads (`u32`); the heads:
//!   per record its place, its check, its form ([`CELLS`] or [`WHOLE_ROW`]) and the
//!   lengths and tags of its cells, or its whole row's length, as LEB128 integers (the
//!   check as 4 bytes); then the texts of every record, one after another, which pass two
//!   checks as UTF-8 once an entry;
//! - the counting thread writes the record count, the number of key states before the
//!   chunk and the length of the codes (`u32` each), then per record a code for the
//!   ordinal of its key state ([`Spill::put_head`]); the signature's is in the key's
//!   state.
//!
//! Workers write and read their own parts, so that neither the counting thread of pass
//! one nor the reading lock of pass two copies the records. Fixed-size integers are
//! little-endian. An entry cut short is an error, never a wrong row; one with a byte
//! changed gives an error or rows, never a panic.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use urlkey::Policy;

use super::counted::Counted;
use crate::input::{InputError, InputRecord, RecordRef, RecordSource};
use crate::pipeline::{BatchSource, ReadBatch};
use crate::rows::{
    damaged, join_names_into, outcome_of, push_whole_row, Kept, LeanRow, RowShape, Sig,
};

/// Bytes of a row beyond its texts, about (a CSV row of the 10M-line benchmark holds 228
/// bytes, 120 of them the input and the key): for sizing pass two's buffers.
const ROW_BYTES: usize = 128;

/// A record's form: kept as its cells, whose row pass two writes with its grouping cells.
const CELLS: usize = 0;

/// A record's form: an invalid record's whole row, which has no grouping cells.
const WHOLE_ROW: usize = 1;

/// An ordinal for a record with no grouping cells (an invalid record's).
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
    /// 4 bytes for the heads' length, then per record its place, check, form and the
    /// lengths and tags of its cells ([`put_cells`]), or its row's length.
    heads: Vec<u8>,
    /// The records' cells and rows, one after another, so that pass two checks that they
    /// are UTF-8 once a chunk.
    texts: Vec<u8>,
    /// Heads too long for their `u32` length: the spill gives up.
    too_long: bool,
    /// Records in the chunk.
    records: usize,
    /// Where [`Spill::put_piece`] wrote `heads` and `texts`: offset and length.
    written: Option<io::Result<(u64, usize)>>,
}

/// 32 bits of a hash of a record's text as read: pass two keys a record again when the
/// text it reads does not give the check pass one kept.
pub(crate) fn check_of(observed: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(observed.as_bytes()) as u32
}

/// An unsigned LEB128 integer: seven bits a byte, low first.
fn put_varint(out: &mut Vec<u8>, v: usize) {
    put_varint64(out, v as u64);
}

/// [`put_varint`] of 64 bits.
fn put_varint64(out: &mut Vec<u8>, mut v: u64) {
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

/// The key as an edit of the input it came from: the input's first `lower` bytes with
/// ASCII letters lowercased, then its next `same` bytes as they are, then the rest of the
/// key as text. Both runs end where a character of the input ends, so each part is text.
/// A key equal to the input, or to its start (removed parameters, a dropped fragment),
/// has no text of its own.
fn key_edit<'k>(observed: &str, key: &'k str) -> (usize, usize, &'k str) {
    let (o, k) = (observed.as_bytes(), key.as_bytes());
    let mut lower = common_run(o, k, true);
    while !observed.is_char_boundary(lower) {
        lower -= 1;
    }
    let mut end = lower + common_run(&o[lower..], &k[lower..], false);
    while !observed.is_char_boundary(end) {
        end -= 1;
    }
    // `key[..end]` is `observed[..end]` but for ASCII case: it ends where a character
    // ends, so the rest is text; `get` keeps that from being a panic if it were not.
    match key.get(end..) {
        Some(rest) => (lower, end - lower, rest),
        None => (0, 0, key),
    }
}

/// Bytes at the start of `o` and `k` that are equal, `o`'s with ASCII letters lowercased
/// when `fold`. Eight bytes at a time: a byte loop over every key was a tenth of pass
/// one's own work.
fn common_run(o: &[u8], k: &[u8], fold: bool) -> usize {
    let n = o.len().min(k.len());
    let (o, k) = (&o[..n], &k[..n]);
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    let mut at = 0;
    for (a, b) in o.chunks_exact(8).zip(k.chunks_exact(8)) {
        let a = if fold { lower8(word(a)) } else { word(a) };
        let differ = a ^ word(b);
        if differ != 0 {
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let fold = |c: u8| if fold { c.to_ascii_lowercase() } else { c };
    at + o[at..]
        .iter()
        .zip(&k[at..])
        .take_while(|(o, k)| fold(**o) == **k)
        .count()
}

/// Eight bytes with their ASCII capitals lowercased (bytes from 0x80 up unchanged). Per
/// byte, the low seven bits plus 63 reach 128 from `A` up, and plus 37 from past `Z`;
/// neither sum carries into the next byte.
fn lower8(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let low7 = w & (ONES * 0x7f);
    let from_a = low7.wrapping_add(ONES * (0x80 - u64::from(b'A')));
    let past_z = low7.wrapping_add(ONES * (0x80 - u64::from(b'Z') - 1));
    let capital = from_a & !past_z & !w & HIGH;
    w | (capital >> 2)
}

/// A valid record's key ([`key_edit`]).
fn put_key(p: &mut Parts, observed: &str, key: &str) {
    let (lower, same, rest) = key_edit(observed, key);
    put_varint(p.heads, lower);
    put_varint(p.heads, same);
    p.text(rest);
}

/// A record's cells, from which pass two writes its row beside the record it reads again:
/// the key ([`put_key`]), the signature (an offset into the key plus one and a length,
/// or `0` and its text), the removed parameters' names joined, the status and error (`0`:
/// `ok` without one; `1`: `ok` and `2`: `invalid`, each with an error code and message).
/// Lengths and tags are [`put_varint`]s.
fn put_cells(
    p: &mut Parts,
    observed: &str,
    (key, sig): (&str, &str),
    removed_tracking: &str,
    error: Option<(bool, &str, &str)>,
) {
    put_key(p, observed, key);
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
        heads: Vec::with_capacity(4 + recs.len() * 16),
        texts: Vec::with_capacity(recs.len() * 16),
        too_long: false,
        records: recs.len(),
        written: None,
    };
    // The heads' length, filled in at the end.
    p.heads.extend_from_slice(&[0; 4]);
    let mut lean = LeanRow::default();
    let mut removed = String::new();
    let mut last = 0u64;
    for r in recs {
        let here = RecordRef::of(r).to_bits();
        put_varint64(&mut p.heads, here.wrapping_sub(last));
        last = here;
        p.heads
            .extend_from_slice(&check_of(&r.observed).to_le_bytes());
        let mut parts = Parts {
            heads: &mut p.heads,
            texts: &mut p.texts,
        };
        if lean.key(policy, r) {
            let (key, sig, names) = lean.parts();
            join_names_into(&mut removed, names);
            put_varint(parts.heads, CELLS);
            put_cells(&mut parts, &r.observed, (key, sig), &removed, None);
            p.counted.push(Counted::lean(&lean, r, verify));
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
                    put_varint(parts.heads, CELLS);
                    put_cells(&mut parts, &r.observed, keyed, &removed, error);
                }
                None => {
                    // No grouping cells: the row is whole now.
                    put_varint(parts.heads, WHOLE_ROW);
                    let start = parts.texts.len();
                    push_whole_row(r, &o, error, shape, parts.texts);
                    put_varint(parts.heads, parts.texts.len() - start);
                }
            }
        }
    }
    match u32::try_from(p.heads.len() - 4) {
        Ok(n) => p.heads[..4].copy_from_slice(&n.to_le_bytes()),
        Err(_) => p.too_long = true,
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

/// Where a chunk's entry is, and how many records it holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    head: (u64, usize),
    body: (u64, usize),
    records: usize,
}

impl Place {
    /// Bytes of the counting thread's part of the entry.
    #[cfg(test)]
    pub(crate) fn head_bytes(&self) -> usize {
        self.head.1
    }
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
        piece.written = Some(self.put(&[&piece.heads, &piece.texts]));
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
    /// ordinals `ordinals` gives, in order (`None`: an invalid record), counted into a
    /// grouping that had `base` key states before the chunk. `head` is a buffer.
    ///
    /// Only the key's ordinal is kept: its state names its signature's
    /// ([`super::record_fingerprints`]). A key that was new is the next of the
    /// ordinals from `base` on, written as `1` (half the records of the 10M-line
    /// benchmark); any other as its ordinal plus two, an invalid record as `0`, each a
    /// LEB128 integer: 2.1 bytes a record on the 10M-line benchmark where two `u32`s
    /// took 8, page-cache memory this kind of machine makes dear on first touch
    /// (docs/benchmarks.md, "the cost of fresh memory measured").
    pub fn put_head(
        &self,
        piece: &mut Piece,
        ordinals: &[Option<usize>],
        base: usize,
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
        put_u32(head, u32::try_from(base).map_err(|_| too_big())?);
        // The codes' length, filled in below.
        put_u32(head, 0);
        let mut next_new = base;
        for o in ordinals {
            match *o {
                None => put_varint(head, 0),
                Some(k) if k >= WHOLE as usize => return Err(too_big()),
                Some(k) if k == next_new => {
                    put_varint(head, 1);
                    next_new += 1;
                }
                Some(k) => put_varint(head, k + 2),
            }
        }
        let codes = u32::try_from(head.len() - 12).map_err(|_| too_big())?;
        head[8..12].copy_from_slice(&codes.to_le_bytes());
        let head = self.put(&[head])?;
        Ok(Place {
            head,
            body,
            records: ordinals.len(),
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

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// One chunk of pass two's work: pass one's entry for it, where there is one, and the
/// records read again from the input.
pub(crate) struct Spilled {
    /// Pass one's entry, where there is one.
    pub place: Option<Place>,
    /// The records read again.
    pub records: Vec<InputRecord>,
}

/// Pass two's input: the input read again, each chunk of records with pass one's entry
/// for it, in order.
pub(crate) struct SpillReader<'s> {
    places: Vec<Place>,
    next: usize,
    input: &'s mut dyn RecordSource,
    /// The input has no more records.
    ended: bool,
    /// Records per chunk of pass one.
    chunk: usize,
}

impl<'s> SpillReader<'s> {
    /// The places pass one wrote, in input order, and the input opened again; records
    /// past the last entry (an input that grew between the passes) come in chunks of
    /// `chunk`, pass one's.
    pub fn new(places: Vec<Place>, input: &'s mut dyn RecordSource, chunk: usize) -> Self {
        SpillReader {
            places,
            next: 0,
            input,
            ended: false,
            chunk,
        }
    }

    /// About the bytes of the rows of `chunks`.
    pub fn row_bytes(chunks: &[Spilled]) -> usize {
        let texts = |r: &InputRecord| {
            2 * r.observed.len() + r.kept.iter().map(String::len).sum::<usize>() + ROW_BYTES
        };
        chunks.iter().flat_map(|c| &c.records).map(texts).sum()
    }

    /// Appends up to `n` records to `out`, fewer at the input's end.
    fn read_records(&mut self, out: &mut Vec<InputRecord>, n: usize) -> Result<(), InputError> {
        while out.len() < n && !self.ended {
            let more = self.input.next_batch(out, n - out.len())?;
            self.ended = !more;
        }
        Ok(())
    }
}

impl BatchSource for SpillReader<'_> {
    type Item = Spilled;

    fn read_batch(&mut self, max: usize) -> Result<(ReadBatch<Spilled>, bool), InputError> {
        let mut chunks = Vec::with_capacity(max.max(1));
        while chunks.len() < max.max(1) {
            let place = self.places.get(self.next).copied();
            if place.is_none() && self.ended {
                break;
            }
            // Past the last entry (an input that grew between the passes): pass one's chunk.
            let want = place.map_or(self.chunk, |p| p.records);
            let mut records = Vec::with_capacity(want);
            self.read_records(&mut records, want)?;
            if place.is_some() {
                self.next += 1;
            } else if records.is_empty() {
                break;
            }
            chunks.push(Spilled { place, records });
        }
        // Pass one told the input's notices already.
        drop(self.input.take_notices());
        let batch = ReadBatch {
            records: chunks,
            lines_read: self.input.lines_read(),
            bytes_read: self.input.bytes_read(),
            notices: Vec::new(),
        };
        Ok((batch, self.next < self.places.len() || !self.ended))
    }

    fn batch_sizes(&self) -> (usize, usize) {
        BATCH_CHUNKS
    }
}

fn u32_at(b: &[u8], at: usize) -> io::Result<usize> {
    let bytes = b.get(at..at + 4).ok_or_else(damaged)?;
    let mut v = [0; 4];
    v.copy_from_slice(bytes);
    Ok(u32::from_le_bytes(v) as usize)
}

/// Reads what [`piece`] wrote, from the front: lengths and tags from `heads`, texts
/// from `texts`.
struct Cells<'a> {
    heads: &'a [u8],
    texts: &'a str,
}

impl<'a> Cells<'a> {
    fn varint64(&mut self) -> io::Result<u64> {
        // Most lengths and every tag fit in one byte.
        if let Some((&b, rest)) = self.heads.split_first() {
            if b < 0x80 {
                self.heads = rest;
                return Ok(u64::from(b));
            }
        }
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.heads.split_first().ok_or_else(damaged)?;
            self.heads = rest;
            v |= u64::from(b & 0x7f).checked_shl(shift).ok_or_else(damaged)?;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(damaged())
    }

    fn varint(&mut self) -> io::Result<usize> {
        usize::try_from(self.varint64()?).map_err(|_| damaged())
    }

    fn check(&mut self) -> io::Result<u32> {
        let bytes = self.heads.get(..4).ok_or_else(damaged)?;
        self.heads = &self.heads[4..];
        let mut v = [0; 4];
        v.copy_from_slice(bytes);
        Ok(u32::from_le_bytes(v))
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

    /// One record's cells or row, as [`piece`] wrote them.
    fn record(&mut self) -> io::Result<Kept<'a>> {
        match self.varint()? {
            CELLS => {
                let (lower, same) = (self.varint()?, self.varint()?);
                let rest = self.text()?;
                let sig = match self.varint()? {
                    0 => Sig::Text(self.text()?),
                    at => Sig::InKey(at - 1, self.varint()?),
                };
                let removed = self.text()?;
                let error = match self.varint()? {
                    0 => None,
                    tag @ (1 | 2) => Some((tag == 1, self.text()?, self.text()?)),
                    _ => return Err(damaged()),
                };
                Ok(Kept::Cells {
                    key: (lower, same, rest),
                    sig,
                    removed,
                    error,
                })
            }
            WHOLE_ROW => Ok(Kept::Row(self.text()?)),
            _ => Err(damaged()),
        }
    }
}

/// The ordinal [`Entry::open`] gives a record with no grouping cells (an invalid record's,
/// whose row was kept whole).
pub(crate) const WHOLE_AT: usize = WHOLE as usize;

/// A chunk's entry read back ([`Spill::read_entry`]), record by record: its place, its
/// check and what pass one kept of it ([`Kept`]).
pub(crate) struct Entry<'a> {
    cells: Cells<'a>,
    records: usize,
    place: u64,
}

impl<'a> Entry<'a> {
    /// Opens `entry`; the ordinals of its records' key states go to `ordinals`, in order
    /// ([`WHOLE_AT`] for a record kept as a whole row).
    pub(crate) fn open(entry: &'a [u8], ordinals: &mut Vec<usize>) -> io::Result<Self> {
        let n = u32_at(entry, 0)?;
        let base = u32_at(entry, 4)?;
        let codes_end = u32_at(entry, 8)?.checked_add(12).ok_or_else(damaged)?;
        let codes = entry.get(12..codes_end).ok_or_else(damaged)?;
        let heads_len = u32_at(entry, codes_end)?;
        let heads_end = (codes_end + 4).checked_add(heads_len).ok_or_else(damaged)?;
        let heads = entry.get(codes_end + 4..heads_end).ok_or_else(damaged)?;
        let texts = std::str::from_utf8(&entry[heads_end..]).map_err(|_| damaged())?;
        // The key ordinals ([`Spill::put_head`]).
        let mut codes = Cells {
            heads: codes,
            texts: "",
        };
        let mut next_new = base;
        ordinals.clear();
        for _ in 0..n {
            let k = match codes.varint()? {
                0 => WHOLE_AT,
                1 => {
                    next_new += 1;
                    next_new - 1
                }
                c => c - 2,
            };
            ordinals.push(k);
        }
        if !codes.heads.is_empty() {
            return Err(damaged());
        }
        Ok(Entry {
            cells: Cells { heads, texts },
            records: n,
            place: 0,
        })
    }

    /// Records in the entry.
    pub(crate) fn records(&self) -> usize {
        self.records
    }

    /// The next record's place ([`RecordRef::to_bits`]), check ([`check_of`]) and kept
    /// cells or row; `k`, its key state's ordinal, must agree ([`WHOLE_AT`] for a row).
    pub(crate) fn next(&mut self, k: usize) -> io::Result<(u64, u32, Kept<'a>)> {
        self.place = self.place.wrapping_add(self.cells.varint64()?);
        let check = self.cells.check()?;
        let kept = self.cells.record()?;
        if matches!(kept, Kept::Row(_)) != (k == WHOLE_AT) {
            return Err(damaged());
        }
        Ok((self.place, check, kept))
    }

    /// After the last record: an error unless it was the entry's end.
    pub(crate) fn finish(&self) -> io::Result<()> {
        if self.cells.heads.is_empty() && self.cells.texts.is_empty() {
            Ok(())
        } else {
            Err(damaged())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::build::row_from_parts;
    use crate::rows::csv::{
        needs_quotes, push_map_row, push_map_row_head, push_map_row_rest, RowRest,
    };
    use crate::rows::kept::{key_of_edit, push_key_cells};
    use crate::rows::{GroupCells, Tail};

    /// [`key_edit`] a byte at a time, as the words must give it.
    fn key_edit_bytewise<'k>(observed: &str, key: &'k str) -> (usize, usize, &'k str) {
        let (o, k) = (observed.as_bytes(), key.as_bytes());
        let mut lower = o
            .iter()
            .zip(k)
            .take_while(|(o, k)| o.to_ascii_lowercase() == **k)
            .count();
        while !observed.is_char_boundary(lower) {
            lower -= 1;
        }
        let mut end = lower
            + o[lower..]
                .iter()
                .zip(&k[lower..])
                .take_while(|(o, k)| o == k)
                .count();
        while !observed.is_char_boundary(end) {
            end -= 1;
        }
        (lower, end - lower, &key[end..])
    }

    /// A row whose key is written from its edit ([`push_key_cells`], between the head and
    /// the rest) equals [`push_map_row`]'s row of the same cells wherever the text as read
    /// needs no quotes: keys cut from the text and case folded, with additions, signatures
    /// at any place in the key or as text, keys and signatures that start a formula, both
    /// delimiters.
    #[test]
    fn rows_from_edits_equal_rows_scanned() {
        let texts = [
            "HTTPS://Example.COM/a/b?x=1&y=2",
            "https://example.com/a,b?c=\"d\"",
            "http://h/p\tq",
            "http://h/p\rq",
            "=HTTP://h/p",
            "-http://h/p,",
            "\thttp://h/p",
            "@h/p",
            "http://h/é?ü=1",
            "",
        ];
        let (mut plain_rows, mut quoted_rows) = (0, 0);
        for d in [b',', b'\t'] {
            for t in texts {
                for cut in [0, 1, t.len() / 3, t.len() / 2, t.len()] {
                    let Some(head) = t.get(..cut) else { continue };
                    for rest in ["", "/", "?a=1", "x", "=x"] {
                        let key = format!("{}{rest}", head.to_ascii_lowercase());
                        for from in [0, 1, key.len() / 4, key.len()] {
                            let Some(sig) = key.get(from..) else { continue };
                            let at = RecordRef::new(0, 7);
                            let mut row =
                                row_from_parts(at, t, Some((&key, sig)), String::new(), &[], &[]);
                            (row.group, row.duplicates, row.variants) = (Some(1), Some(2), Some(1));
                            row.classification = "duplicate";
                            let tail = Tail::default();
                            let mut want = Vec::new();
                            push_map_row(&mut want, d, &row, &tail);
                            let mut got = Vec::new();
                            let (start, plain) = push_map_row_head(&mut got, d, 7, t, "ok");
                            if !plain || needs_quotes(rest.as_bytes(), d) {
                                quoted_rows += 1;
                                continue;
                            }
                            plain_rows += 1;
                            let edit = key_edit(t, &key);
                            for sig in [Sig::InKey(from, sig.len()), Sig::Text(sig)] {
                                got.truncate(start);
                                push_map_row_head(&mut got, d, 7, t, "ok");
                                push_key_cells(&mut got, d, t, edit, sig).expect("cells");
                                let rest = RowRest {
                                    cells: GroupCells::of(&row),
                                    removed_tracking: "",
                                    error_code: None,
                                    error: None,
                                    source: None,
                                    run_line: None,
                                    kept: &[],
                                };
                                push_map_row_rest(&mut got, d, start, &rest, &tail);
                                assert_eq!(
                                    String::from_utf8_lossy(&got),
                                    String::from_utf8_lossy(&want),
                                    "{t:?} {key:?} {from}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(
            plain_rows > 100 && quoted_rows > 100,
            "{plain_rows} {quoted_rows}"
        );
    }

    #[test]
    fn lower8_lowercases_ascii_capitals_only() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let w = u64::from(b) << (8 * at) | 0x4142_5a5b_6061_7a40_u64 & !(0xff << (8 * at));
                let want = u64::from_le_bytes(w.to_le_bytes().map(|c| c.to_ascii_lowercase()));
                assert_eq!(lower8(w), want, "{b:#x} at {at}");
            }
        }
    }

    fn round_trip(observed: &str, key: &str) -> (usize, usize, usize) {
        let edit = key_edit(observed, key);
        assert_eq!(
            edit,
            key_edit_bytewise(observed, key),
            "{observed:?} {key:?}"
        );
        let mut buf = String::new();
        let got = key_of_edit(observed, edit, &mut buf).unwrap();
        assert_eq!(got, key, "{observed:?} -> {edit:?}");
        (edit.0, edit.1, edit.2.len())
    }

    /// Every key comes back from its edit and its input: the keys of every builtin policy
    /// on the corpus, and pairs that differ in case, in multi-byte characters (a run must
    /// not end inside one) and in length.
    #[test]
    fn a_key_comes_back_from_its_edit() {
        // Keys the policies make: most have no text of their own.
        let text = crate::map::tests::corpus("userbait.txt");
        let set = urlkey::PolicySet::builtin();
        let (mut keys, mut own) = (0, 0);
        for id in urlkey::internals::policy::builtin_variants() {
            let policy = set.get(&id).unwrap();
            for line in text.lines().take(3000) {
                if let Some(key) = policy.key(line).key {
                    let (_, _, rest) = round_trip(line, &key);
                    keys += 1;
                    own += rest;
                }
            }
        }
        assert!(keys > 10_000, "{keys}");
        assert!(own < keys * 20, "{own} bytes of key text for {keys} keys");
        // Case, truncation, and the cases a plain prefix misses.
        assert_eq!(
            round_trip("HTtp://A.example/P?utm=1", "http://a.example/P"),
            (17, 1, 0)
        );
        assert_eq!(
            round_trip("https://a.example/", "https://a.example/"),
            (18, 0, 0)
        );
        assert_eq!(round_trip("", ""), (0, 0, 0));
        assert_eq!(round_trip("abc", ""), (0, 0, 0));
        assert_eq!(round_trip("", "abc"), (0, 0, 3));
        assert_eq!(round_trip("http://x:80/a", "http://x/a"), (8, 0, 2));
        // Runs end where a character ends: é (c3 a9) against è (c3 a8), É against é.
        round_trip("aé", "aè");
        round_trip("é", "è");
        round_trip("https://É.example/É", "https://é.example/É");
        round_trip("https://x/日本", "https://x/日本語");
        round_trip("https://x/日本語", "https://x/日本");
        round_trip("https://x/%E6%97%A5", "https://x/日");
        round_trip("ÀB", "àb");
        // Generated pairs: pieces that differ in case and in multi-byte characters.
        const PIECES: [&str; 10] = ["a", "A", "é", "É", "日", "/", "?", "%", "ß", "z"];
        let mut next = crate::rows::csv::tests::xorshift();
        let mut piece = |n: u64| -> String {
            let len = next() % n;
            (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect()
        };
        for i in 0..20_000 {
            let observed = piece(12);
            let key = match i % 4 {
                0 => observed.to_ascii_lowercase(),
                1 => observed.to_ascii_lowercase() + &piece(4),
                2 => observed.chars().take(3).collect::<String>() + &piece(6),
                _ => piece(12),
            };
            round_trip(&observed, &key);
        }
    }
}

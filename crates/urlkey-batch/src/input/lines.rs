//! Physical lines: `\n`, `\r\n` and a lone `\r` each end a line, so that a record's `line`
//! is the line a text editor shows for LF, CRLF, old-Mac CR and mixed files alike.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

/// Reads one physical line at a time without its line end, keeping at most `max + 1`
/// bytes of it (the rest is consumed and only counted), so that a huge line costs no memory.
pub struct PhysicalLines<R> {
    inner: R,
    /// The previous line ended in `\r`: a `\n` that follows belongs to it.
    pending_cr: bool,
    /// Bytes consumed so far.
    pub bytes: u64,
}

impl<R: BufRead> PhysicalLines<R> {
    /// Lines of `inner`.
    pub fn new(inner: R) -> Self {
        PhysicalLines {
            inner,
            pending_cr: false,
            bytes: 0,
        }
    }

    /// The next line into `buf` (cleared first); `Ok(None)` at the end. The result is the
    /// line's full length in bytes, which is larger than `buf` when the line was cut at `keep`.
    pub fn next_line(&mut self, buf: &mut Vec<u8>, keep: usize) -> io::Result<Option<usize>> {
        buf.clear();
        let mut len = 0usize;
        let mut started = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                self.pending_cr = false;
                return Ok(started.then_some(len));
            }
            if std::mem::take(&mut self.pending_cr) && avail[0] == b'\n' {
                self.inner.consume(1);
                self.bytes += 1;
                continue;
            }
            started = true;
            let (take, end) = match memchr::memchr2(b'\n', b'\r', avail) {
                Some(i) => (i, Some(avail[i])),
                None => (avail.len(), None),
            };
            let room = keep.saturating_sub(buf.len());
            buf.extend_from_slice(&avail[..take.min(room)]);
            len += take;
            let used = take + usize::from(end.is_some());
            self.inner.consume(used);
            self.bytes += used as u64;
            if let Some(b) = end {
                self.pending_cr = b == b'\r';
                return Ok(Some(len));
            }
        }
    }
}

/// How many bytes of the reader's buffer [`PhysicalLines::lend_text_lines`] validates at
/// a time: enough to spread the validation's setup over a hundred-odd URLs, little enough
/// that stopping part way (a batch is full) leaves little to validate again.
pub const TEXT_BLOCK: usize = 8 * 1024;

impl<R: BufRead> PhysicalLines<R> {
    /// Lends the complete lines at the front of the reader's buffer to `each`, one at a
    /// time and without their line ends, until `each` returns false; returns how many it
    /// lent. The lines are validated as UTF-8 a block at a time (8 KiB, `TEXT_BLOCK`): one pass
    /// over the bytes instead of one per line, and no copy. 0 lines when the front of the
    /// buffer holds no complete valid line (the end of the input, a line that spans a
    /// refill or is longer than a block, invalid UTF-8): [`PhysicalLines::with_next_line`]
    /// reads that one.
    pub fn lend_text_lines(&mut self, mut each: impl FnMut(&str) -> bool) -> io::Result<usize> {
        let avail = loop {
            match self.inner.fill_buf() {
                Ok(a) => break a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if avail.is_empty() {
            return Ok(0);
        }
        // A `\n` that completes the last line's `\r\n` belongs to that line.
        let skip = usize::from(std::mem::take(&mut self.pending_cr) && avail[0] == b'\n');
        let window = &avail[skip..avail.len().min(skip + TEXT_BLOCK)];
        let text = whole_text_lines(window);
        let bytes = text.as_bytes();
        let (mut pos, mut lent, mut pending_cr) = (0, 0, false);
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[pos..]) {
            let end = pos + i;
            let line = &text[pos..end];
            pos = end + 1;
            if bytes[end] == b'\r' {
                match bytes.get(pos) {
                    Some(b'\n') => pos += 1,
                    Some(_) => {}
                    // The block ends at this `\r`: a `\n` may follow it in the input.
                    None => pending_cr = true,
                }
            }
            lent += 1;
            if !each(line) {
                break;
            }
        }
        let used = skip + pos;
        self.inner.consume(used);
        self.bytes += used as u64;
        self.pending_cr = pending_cr;
        Ok(lent)
    }

    /// The next line handed to `read` as `(bytes, full length)`, as [`PhysicalLines::next_line`]
    /// gives it; `Ok(None)` at the end. A line whose end is already in the reader's buffer
    /// (nearly every line) is lent straight from that buffer, so it is never copied; only
    /// a line that spans a refill is gathered in `buf`.
    pub fn with_next_line<T>(
        &mut self,
        buf: &mut Vec<u8>,
        keep: usize,
        read: impl FnOnce(&[u8], usize) -> T,
    ) -> io::Result<Option<T>> {
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if self.pending_cr && avail.first() == Some(&b'\n') {
                self.pending_cr = false;
                self.inner.consume(1);
                self.bytes += 1;
                continue;
            }
            let Some(end) = memchr::memchr2(b'\n', b'\r', avail) else {
                // The end (or the line's end) is past this buffer: the gathering path.
                break;
            };
            self.pending_cr = avail[end] == b'\r';
            let out = read(&avail[..end.min(keep)], end);
            self.inner.consume(end + 1);
            self.bytes += end as u64 + 1;
            return Ok(Some(out));
        }
        Ok(self.next_line(buf, keep)?.map(|n| read(buf, n)))
    }
}

/// The longest front of `window` that is valid UTF-8 and ends just after a line end (`\n`
/// or `\r`); empty when there is none.
fn whole_text_lines(window: &[u8]) -> &str {
    let valid = match std::str::from_utf8(window) {
        Ok(text) => text,
        // The valid front again as text (it is valid: this cannot fail, and costs a second
        // pass only on the rare block with invalid bytes).
        Err(e) => std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or_default(),
    };
    match memchr::memrchr2(b'\n', b'\r', valid.as_bytes()) {
        // A line end is one byte, so slicing after it stays on a character boundary.
        Some(last) => &valid[..=last],
        None => "",
    }
}

/// A reader that passes bytes through and remembers where each physical line starts, so
/// that a CSV record's byte offset can be turned into its line number.
pub struct LineTracker<R> {
    inner: R,
    offset: u64,
    line: u64,
    last_was_cr: bool,
    /// Line starts not yet asked about.
    starts: VecDeque<LineStart>,
    /// The bytes from `raw_from` on, kept when asked ([`LineTracker::keeping_raw`]) so
    /// that a CSV row spanning lines can be looked at again as it was written.
    raw: Vec<u8>,
    raw_from: u64,
    keep_raw: bool,
    /// The inner reader has reported its end.
    eof: bool,
}

/// How many bytes already released [`LineTracker::release`] lets pile up before moving
/// the rest to the front (so that a row costs no move of the read-ahead).
const RAW_SLACK: usize = 64 * 1024;

#[derive(Debug, Clone, Copy)]
struct LineStart {
    /// Where the line starts (for a line after `\r\n`: at the `\n`).
    at: u64,
    /// Where its text starts (after the whole line end).
    text: u64,
    line: u64,
    /// Nothing between the line's start and its end.
    empty: bool,
}

impl<R: Read> LineTracker<R> {
    /// `first_line` is the number of the line at offset 0.
    pub fn new(inner: R, first_line: u64) -> Self {
        let mut starts = VecDeque::new();
        starts.push_back(LineStart {
            at: 0,
            text: 0,
            line: first_line,
            empty: false,
        });
        LineTracker {
            inner,
            offset: 0,
            line: first_line,
            last_was_cr: false,
            starts,
            raw: Vec::new(),
            raw_from: 0,
            keep_raw: false,
            eof: false,
        }
    }

    /// Keeps the bytes read from now on until [`LineTracker::release`]d.
    pub fn keeping_raw(mut self) -> Self {
        self.keep_raw = true;
        self
    }

    /// The kept bytes from `from` to `to` (offsets in the input; clamped to what is kept).
    pub fn raw(&self, from: u64, to: u64) -> &[u8] {
        let start = from.saturating_sub(self.raw_from) as usize;
        let end = to.saturating_sub(self.raw_from) as usize;
        let end = end.min(self.raw.len());
        &self.raw[start.min(end)..end]
    }

    /// Forgets the kept bytes before `offset`.
    pub fn release(&mut self, offset: u64) {
        let k = (offset.saturating_sub(self.raw_from) as usize).min(self.raw.len());
        if k >= RAW_SLACK {
            self.raw.drain(..k);
            self.raw_from += k as u64;
        }
    }

    /// The inner reader has reported its end, and this is the offset of it.
    pub fn ended_at(&self) -> Option<u64> {
        self.eof.then_some(self.offset)
    }

    /// The line where a record that a parser says starts at byte `offset` really starts:
    /// blank lines before it are skipped, as CSV parsers skip them but count their bytes.
    /// Offsets must be asked in increasing order.
    pub fn line_at(&mut self, offset: u64) -> u64 {
        while self.starts.len() > 1 && self.starts[1].at <= offset {
            self.starts.pop_front();
        }
        self.starts
            .iter()
            .find(|s| !s.empty)
            .or(self.starts.back())
            .map_or(self.line, |s| s.line)
    }

    /// Lines seen so far (a line end at the very end starts no further line).
    pub fn current_line(&self) -> u64 {
        let ended = self
            .starts
            .back()
            .is_some_and(|s| s.text == self.offset && self.offset > 0);
        self.line - u64::from(ended && self.line > 1)
    }

    fn track(&mut self, bytes: &[u8]) {
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            let here = self.offset + i as u64;
            let is_lf = bytes[i] == b'\n';
            let after_cr = if i == 0 {
                self.last_was_cr
            } else {
                bytes[i - 1] == b'\r'
            };
            if is_lf && after_cr {
                // The `\n` of a `\r\n` starts no line: the `\r` did (at the `\n` itself,
                // which is where a CSV parser that ended the record at the `\r` puts the
                // next one).
                if let Some(last) = self.starts.back_mut() {
                    last.text = here + 1;
                }
                continue;
            }
            if let Some(last) = self.starts.back_mut() {
                last.empty = last.text == here;
            }
            self.line += 1;
            self.starts.push_back(LineStart {
                at: here + 1,
                text: here + 1,
                line: self.line,
                empty: false,
            });
        }
        if let Some(&b) = bytes.last() {
            self.last_was_cr = b == b'\r';
        }
        self.offset += bytes.len() as u64;
    }
}

impl<R: Read> Read for LineTracker<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.eof |= n == 0 && !buf.is_empty();
        self.track(&buf[..n]);
        if self.keep_raw {
            self.raw.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

/// Consumes `n` physical lines of `r`; returns how many there were.
pub fn skip_lines<R: BufRead>(r: &mut PhysicalLines<R>, n: u64) -> io::Result<u64> {
    let mut buf = Vec::new();
    let mut skipped = 0;
    while skipped < n && r.next_line(&mut buf, 0)?.is_some() {
        skipped += 1;
    }
    Ok(skipped)
}

impl<R: BufRead> PhysicalLines<R> {
    /// The reader, for handing the rest of the input to another parser. A `\n` that
    /// completes a `\r\n` may still be at its front: [`PhysicalLines::finish_line_end`] first.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Consumes the `\n` of a `\r\n` whose `\r` ended the last line.
    pub fn finish_line_end(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.pending_cr) {
            let avail = self.inner.fill_buf()?;
            if avail.first() == Some(&b'\n') {
                self.inner.consume(1);
                self.bytes += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], chunk: usize) -> Vec<(String, usize)> {
        let r = io::BufReader::with_capacity(chunk, text);
        let mut p = PhysicalLines::new(r);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(n) = p.next_line(&mut buf, 4).unwrap() {
            out.push((String::from_utf8_lossy(&buf).into_owned(), n));
        }
        out
    }

    #[test]
    fn every_line_end_counts_once_whatever_the_buffer_size() {
        let text = b"a\r\nbb\ncc\rdddddd\r\r\n\nlast";
        for chunk in [1, 2, 3, 64] {
            let got = lines(text, chunk);
            let want: Vec<(String, usize)> = [
                ("a", 1),
                ("bb", 2),
                ("cc", 2),
                ("dddd", 6),
                ("", 0),
                ("", 0),
                ("last", 4),
            ]
            .iter()
            .map(|(s, n)| (s.to_string(), *n))
            .collect();
            assert_eq!(got, want, "buffer {chunk}");
        }
    }

    #[test]
    fn lent_lines_are_the_gathered_lines_whatever_the_buffer_size() {
        let texts: [&[u8]; 5] = [
            b"a\r\nbb\ncc\rdddddd\r\r\n\nlast",
            b"\r\n\r\n\r",
            b"no end",
            b"x\ry\n\rz\r\n",
            b"",
        ];
        for text in texts {
            for chunk in [1, 2, 3, 5, 64] {
                let mut lent = PhysicalLines::new(io::BufReader::with_capacity(chunk, text));
                let (mut buf, mut got) = (Vec::new(), Vec::new());
                while let Some(line) = lent
                    .with_next_line(&mut buf, 4, |b, n| (b.to_vec(), n))
                    .unwrap()
                {
                    got.push(line);
                }
                let mut gathered = PhysicalLines::new(io::BufReader::with_capacity(chunk, text));
                let mut want = Vec::new();
                while let Some(n) = gathered.next_line(&mut buf, 4).unwrap() {
                    want.push((buf.clone(), n));
                }
                assert_eq!(got, want, "{text:?}, buffer {chunk}");
                assert_eq!(lent.bytes, text.len() as u64, "{text:?}, buffer {chunk}");
            }
        }
    }

    #[test]
    fn tracker_maps_offsets_to_lines() {
        let text = b"h\r\nx\ny\rz\r\n\r\nw";
        for chunk in [1, 2, 5, 64] {
            let mut t = LineTracker::new(io::BufReader::with_capacity(chunk, &text[..]), 1);
            let mut all = Vec::new();
            let mut b = [0u8; 3];
            loop {
                let n = t.read(&mut b).unwrap();
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&b[..n]);
            }
            assert_eq!(all, text);
            assert_eq!(t.line_at(0), 1);
            assert_eq!(t.line_at(3), 2, "x");
            assert_eq!(t.line_at(5), 3, "y");
            assert_eq!(t.line_at(7), 4, "z");
            assert_eq!(t.line_at(12), 6, "w");
        }
    }
}

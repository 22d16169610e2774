//! From a file's bytes to UTF-8 text: decompression (gzip, zstd), a look at the first
//! bytes (empty, binary, byte-order mark), and transcoding of UTF-16 and legacy encodings.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use encoding_rs::Encoding;
use encoding_rs_io::DecodeReaderBytesBuilder;

use super::record::{InputError, InputErrorKind};
use super::source::Source;

/// How much of the start of an input is looked at for binary content.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// Counts the bytes read from a file as they are read (for progress over the file's size,
/// whatever decompression or transcoding follows).
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> CountingReader<R> {
    /// `inner`, adding what it reads to `count`.
    pub fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        CountingReader { inner, count }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What the first bytes of an input said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sniffed {
    /// Nothing at all.
    pub empty: bool,
    /// Why the input looks binary, when it does.
    pub binary: Option<&'static str>,
    /// The encoding a byte-order mark names.
    pub bom: Option<&'static Encoding>,
}

/// Known file signatures that are never a URL list.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x7fELF", "an ELF executable"),
    (b"MZ", "a Windows executable"),
    (
        b"PK\x03\x04",
        "a ZIP archive (an .xlsx or .ods file is one: give it its extension)",
    ),
    (
        b"\xD0\xCF\x11\xE0",
        "an OLE document (an .xls file is one: give it its extension)",
    ),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xFF\xD8\xFF", "a JPEG image"),
    (b"SQLite format 3\0", "an SQLite database"),
    (b"PAR1", "a Parquet file"),
    (b"\xCA\xFE\xBA\xBE", "a Mach-O or Java class file"),
    (b"\xCF\xFA\xED\xFE", "a Mach-O executable"),
];

/// Why an input with NUL bytes and no byte-order mark looks binary. The library names no
/// flag: a front end that can take an encoding adds how (the CLI: `--encoding`).
pub const NUL_BYTES: &str =
    "it has NUL bytes (if it is UTF-16 without a byte-order mark, name its encoding: utf-16le or utf-16be)";

/// Looks at the start of an input.
pub fn sniff(head: &[u8]) -> Sniffed {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    let bom = Encoding::for_bom(head).map(|(e, _)| e);
    let binary = if head.starts_with(b"MZ") && !head.contains(&0) {
        // "MZ" starts ordinary text too; an executable has NUL bytes right after.
        None
    } else if let Some((_, what)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        Some(*what)
    } else if bom.is_none() && head.contains(&0) {
        Some(NUL_BYTES)
    } else {
        None
    };
    Sniffed {
        empty: head.is_empty(),
        binary,
        bom,
    }
}

/// Decompresses `raw` when it is gzip or zstd (by magic bytes, or an empty `.gz`), and
/// refuses a `.gz`/`.zst` name whose content is neither.
pub fn decompress(
    raw: Box<dyn Read + Send>,
    src: &Source,
) -> Result<Box<dyn BufRead + Send>, InputError> {
    let mut buf = BufReader::with_capacity(256 * 1024, raw);
    let magic = buf
        .fill_buf()
        .map_err(|e| InputError::read(src, format!("cannot read: {e}")))?;
    let ext = src.extension();
    if magic.starts_with(&[0x1f, 0x8b]) || (ext == "gz" && magic.is_empty()) {
        return Ok(Box::new(BufReader::with_capacity(
            256 * 1024,
            flate2::bufread::MultiGzDecoder::new(buf),
        )));
    }
    if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        let dec = zstd::stream::read::Decoder::with_buffer(buf)
            .map_err(|e| InputError::read(src, format!("cannot start zstd decoding: {e}")))?;
        return Ok(Box::new(BufReader::with_capacity(256 * 1024, dec)));
    }
    if ext == "gz" || ext == "zst" {
        return Err(InputError::read(
            src,
            format!(
                "the name ends in .{ext} but the content is not {}: rename the file or recompress it",
                if ext == "gz" { "gzip" } else { "zstd" }
            ),
        ));
    }
    Ok(Box::new(buf))
}

/// Text as UTF-8: a UTF-16 byte-order mark or `encoding` transcodes; otherwise the bytes
/// pass through untouched (invalid UTF-8 is reported per record, never replaced), and a
/// UTF-8 byte-order mark is removed.
pub fn decode(
    mut inner: Box<dyn BufRead + Send>,
    encoding: Option<&'static Encoding>,
    sniffed: &Sniffed,
) -> io::Result<Box<dyn BufRead + Send>> {
    let utf8 = |e: &'static Encoding| e == encoding_rs::UTF_8;
    match (encoding, sniffed.bom) {
        (None, None) => Ok(inner),
        (None, Some(b)) | (Some(b), _) if utf8(b) => {
            if sniffed.bom == Some(encoding_rs::UTF_8) {
                inner.consume(3);
            }
            Ok(inner)
        }
        (enc, _) => {
            let rdr = DecodeReaderBytesBuilder::new()
                .encoding(enc)
                .bom_override(true)
                .strip_bom(true)
                .build(inner);
            Ok(Box::new(BufReader::with_capacity(256 * 1024, rdr)))
        }
    }
}

/// A WHATWG encoding label (`windows-1252`, `shift_jis`, `utf-16le`, ...).
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

impl Source {
    /// Opens the source, decompressing `.gz`/`.zst` by extension or magic bytes; `count`
    /// receives the bytes read from the file itself.
    pub fn open_counted(
        &self,
        count: Arc<AtomicU64>,
    ) -> Result<Box<dyn BufRead + Send>, InputError> {
        let raw: Box<dyn Read + Send> = match self.path() {
            None => Box::new(CountingReader::new(io::stdin(), count)),
            Some(p) => {
                let f = std::fs::File::open(p).map_err(|e| {
                    InputError::new(
                        InputErrorKind::Open,
                        &self.name(),
                        format!("cannot open: {e}"),
                    )
                })?;
                Box::new(CountingReader::new(f, count))
            }
        };
        decompress(raw, self)
    }

    /// [`Source::open_counted`] without a counter.
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, InputError> {
        self.open_counted(Arc::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], enc: Option<&'static Encoding>) -> Vec<u8> {
        let s = sniff(bytes);
        let mut r = decode(Box::new(io::Cursor::new(bytes.to_vec())), enc, &s).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn boms_and_labels_decode_to_utf8() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("a\u{e9}\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(read(&le, None), "a\u{e9}\n".as_bytes());
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("b\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(read(&be, None), b"b\n");
        assert_eq!(read(b"\xEF\xBB\xBFx\xFF", None), b"x\xFF");
        assert_eq!(
            read(b"p\xE4ge", encoding_for_label("windows-1252")),
            "p\u{e4}ge".as_bytes()
        );
        assert_eq!(read(b"raw\xFF", None), b"raw\xFF");
    }

    #[test]
    fn binary_and_empty_inputs_are_recognised() {
        assert!(sniff(b"").empty);
        assert!(sniff(b"\x7fELF\x02\x01").binary.is_some());
        assert!(sniff(b"a\0b").binary.is_some());
        assert!(sniff(b"PK\x03\x04rest").binary.is_some());
        assert_eq!(sniff(b"MZ is a town\n").binary, None);
        assert_eq!(sniff(b"https://a.example/\n").binary, None);
        assert_eq!(sniff(b"\xFF\xFEa\0").binary, None);
    }
}

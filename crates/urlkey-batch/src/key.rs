//! `urlkey key`: one record per input record, in input order, in any output format.
//!
//! Workers turn a chunk of records into output bytes (or into outcomes, for the formats
//! written in one piece, Parquet and the JSON array); the calling thread only joins them in
//! input order. Keys alone with no base take the lean key path: one reused buffer per chunk
//! and no [`Outcome`].

use std::io::Write;
use std::time::Instant;

use urlkey::{Outcome, Policy};

use crate::input::{InputRecord, RecordSource, Skipped};
use crate::pipeline::{Pipeline, ReadBatch, RunError};
use crate::rows::{outcome_of, KeyRecord, OutputFormat, RecordWriter};

/// Records per unit of work.
const CHUNK: usize = 512;

/// Settings of one key run.
pub struct KeyRun<'p> {
    /// The policy.
    pub policy: &'p Policy,
    /// Workers.
    pub pipeline: &'p Pipeline,
    /// The base URL relative input is resolved against (a policy that
    /// [`Policy::accepts_base`]); the caller has checked that it parses.
    pub base: Option<&'p str>,
    /// The inputs' names (`source`) when the run reads more than one, else empty.
    pub sources: &'p [String],
    /// Called after each batch with (lines read, bytes read), for progress.
    pub progress: Option<&'p (dyn Fn(u64, u64) + Sync)>,
    /// Called with each notice about the input.
    pub notice: Option<&'p (dyn Fn(&str) + Sync)>,
}

/// What a key run did: its counts add up (`records = valid + invalid`; every line read is
/// a record or a skipped blank or comment line).
#[derive(Debug, Clone, PartialEq)]
pub struct KeySummary {
    /// Records written.
    pub records: u64,
    /// Records without a key.
    pub invalid: u64,
    /// Lines read.
    pub lines_read: u64,
    /// Lines that are not records (blank, comment).
    pub skipped: Skipped,
    /// Wall time of the run.
    pub elapsed_seconds: f64,
    /// Worker threads.
    pub threads: usize,
}

impl KeySummary {
    /// Records with a key.
    pub fn valid(&self) -> u64 {
        self.records - self.invalid
    }
}

/// What the workers make of a chunk: output bytes and the invalid count, or outcomes.
enum Chunk {
    Bytes(Vec<u8>, u64),
    Outcomes(Vec<Outcome>),
}

impl KeyRun<'_> {
    /// Keys every record of `src` into `writer` (whose header, for the table formats, this
    /// writes). The caller finishes the writer, so that a failed run replaces nothing.
    pub fn run<W: Write + Send>(
        &self,
        src: &mut dyn RecordSource,
        writer: &mut RecordWriter<W>,
    ) -> Result<KeySummary, RunError> {
        let start = Instant::now();
        let format = writer.format();
        if matches!(
            format,
            OutputFormat::Csv | OutputFormat::Tsv | OutputFormat::Parquet
        ) {
            writer.start_key().map_err(RunError::Output)?;
        }
        let (policy, base, labels) = (self.policy, self.base, self.sources);
        let id = policy.id();
        let tail = writer.tail().clone();
        let run = |r: &InputRecord| match (&r.problem, base) {
            (None, Some(b)) => policy.key_with_base(&r.observed, Some(b)),
            _ => outcome_of(policy, r),
        };
        let lean = format == OutputFormat::Key && base.is_none();
        let fragments = writer.supports_fragments();
        let work = |recs: &[InputRecord]| -> Result<Chunk, std::io::Error> {
            if lean {
                let (mut bytes, mut key, mut bad) =
                    (Vec::with_capacity(recs.len() * 64), String::new(), 0u64);
                for r in recs {
                    let ok = r.problem.is_none() && policy.key_into(&r.observed, &mut key).is_ok();
                    if ok {
                        bytes.extend_from_slice(key.as_bytes());
                    }
                    bad += u64::from(!ok);
                    bytes.push(b'\n');
                }
                Ok(Chunk::Bytes(bytes, bad))
            } else if fragments {
                let mut w = RecordWriter::fragment(format, &tail);
                let mut bad = 0u64;
                for r in recs {
                    let o = run(r);
                    bad += u64::from(!o.is_valid());
                    w.write_key(&key_record(r, &o, id, labels))?;
                }
                w.into_bytes().map(|bytes| Chunk::Bytes(bytes, bad))
            } else {
                Ok(Chunk::Outcomes(recs.iter().map(run).collect()))
            }
        };
        let (mut records, mut invalid) = (0u64, 0u64);
        let sink = |batch: &ReadBatch,
                    chunks: Vec<Result<Chunk, std::io::Error>>|
         -> Result<(), RunError> {
            let mut recs = batch.records.iter();
            for c in chunks {
                match c.map_err(RunError::Output)? {
                    Chunk::Bytes(bytes, bad) => {
                        invalid += bad;
                        writer.write_raw(&bytes).map_err(RunError::Output)?;
                    }
                    Chunk::Outcomes(outcomes) => {
                        // Outcomes first: zip must not take a record past the chunk's end.
                        for (o, r) in outcomes.iter().zip(recs.by_ref()) {
                            invalid += u64::from(!o.is_valid());
                            writer
                                .write_key(&key_record(r, o, id, labels))
                                .map_err(RunError::Output)?;
                        }
                    }
                }
            }
            records += batch.records.len() as u64;
            if let Some(say) = self.notice {
                batch.notices.iter().for_each(|n| say(n));
            }
            if let Some(progress) = self.progress {
                progress(batch.lines_read, batch.bytes_read);
            }
            Ok(())
        };
        self.pipeline
            .stream(src, CHUNK, work, sink)
            .map_err(RunError::from)?;
        Ok(KeySummary {
            records,
            invalid,
            lines_read: src.lines_read(),
            skipped: src.skipped(),
            elapsed_seconds: start.elapsed().as_secs_f64(),
            threads: self.pipeline.threads(),
        })
    }
}

/// The record of one input record's outcome, with its source's name and kept cells.
fn key_record<'a>(
    r: &'a InputRecord,
    o: &'a Outcome,
    policy: &'a str,
    labels: &'a [String],
) -> KeyRecord<'a> {
    KeyRecord::new(r.line, &r.observed, policy, o)
        .with_input(labels.get(r.source as usize).map(String::as_str), &r.kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{ChainSource, ReadOptions, Source};
    use crate::rows::Tail;

    const LINES: &str = "HTTP://Example.com:80/a//b?utm_source=x&id=7\n\
        \n\
        # a comment\n\
        javascript:alert(1)\n\
        http://example.com/a/b?id=7#top\n\
        //scheme-relative.example/\n\
        https://b.example/%7Ex\n";

    fn run(format: OutputFormat, threads: usize, path: &std::path::Path) -> (Vec<u8>, KeySummary) {
        let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let pipeline = Pipeline::new(threads).unwrap();
        let sources = vec![Source::File(path.to_path_buf())];
        let mut src = ChainSource::new(sources, ReadOptions::default()).unwrap();
        let mut writer = RecordWriter::new(format, Vec::new()).with_tail(Tail::default());
        let run = KeyRun {
            policy: &policy,
            pipeline: &pipeline,
            base: None,
            sources: &[],
            progress: None,
            notice: None,
        };
        let summary = run.run(&mut src, &mut writer).unwrap();
        (writer.finish().unwrap(), summary)
    }

    /// Every record comes out once, in order, whatever the threads; the counts add up; the
    /// lean path's keys are the outcomes' keys.
    #[test]
    fn every_record_comes_out_once_in_order_and_the_counts_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        // Many copies, so that two threads split the work into several chunks.
        std::fs::write(&path, LINES.repeat(400)).unwrap();
        let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let urls: Vec<&str> = LINES
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let expected_keys: String = (0..400)
            .flat_map(|_| urls.iter())
            .map(|u| format!("{}\n", policy.key(u).key.unwrap_or_default()))
            .collect();
        for format in [OutputFormat::Key, OutputFormat::Jsonl, OutputFormat::Csv] {
            let (one, s1) = run(format, 1, &path);
            let (two, s2) = run(format, 2, &path);
            assert_eq!(one, two, "{format:?}: one thread and two differ");
            assert_eq!(s1.records, 5 * 400, "{format:?}");
            assert_eq!(s1.invalid, 2 * 400, "{format:?}");
            assert_eq!((s1.records, s1.invalid), (s2.records, s2.invalid));
            assert_eq!(s1.valid(), 3 * 400);
            assert_eq!(
                s1.records + s1.skipped.blank + s1.skipped.comment,
                s1.lines_read,
                "{format:?}: every line is a record or a skipped line"
            );
            if format == OutputFormat::Key {
                assert_eq!(String::from_utf8(one).unwrap(), expected_keys);
            } else {
                let text = String::from_utf8(one).unwrap();
                let rows = text.lines().count() as u64;
                let header = u64::from(format == OutputFormat::Csv);
                assert_eq!(rows, s1.records + header, "{format:?}");
            }
        }
    }
}

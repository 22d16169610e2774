//! A whole run over two inventories read by `urlkey_batch`'s readers: NEW into the
//! indexes ([`index_new`]), then OLD, batch by batch, into rows ([`propose_old`]), one
//! per record in input order (an unreadable record is an `invalid` row with the reader's
//! code). The CLI and the tests call these; a title is the first kept column of a record
//! (the reader keeps the title column alone).

use std::io::{self, Write};

use urlkey_batch::input::{InputError, InputRecord, RecordSource};
/// What stops a run: the one error of `urlkey_batch`'s streamed runs.
pub use urlkey_batch::pipeline::RunError;
use urlkey_batch::pipeline::{Pipeline, ReadBatch};

use super::rows::{ProposalRow, Summary};
use super::writer::{encode, RowWriter};
use super::{NewSite, Page, Proposal};

/// Records read at once (the rows of a batch are written before the next is read).
pub const BATCH: usize = 16 * 1024;

/// What [`index_new`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewCounts {
    /// Records read.
    pub records: u64,
    /// Records the reader could not read whole, left out of the indexes.
    pub unreadable: u64,
}

/// The title of a record whose reader keeps the title column alone.
fn title_of(r: &InputRecord, titles: bool) -> Option<String> {
    titles
        .then(|| r.kept.first().map(|t| t.trim().to_string()))
        .flatten()
        .filter(|t| !t.is_empty())
}

/// Adds every readable record of `records` to `site` (with its title when `titles`),
/// on up to `threads` threads.
pub fn index_new(
    site: &mut NewSite,
    records: &mut dyn RecordSource,
    titles: bool,
    threads: usize,
) -> Result<NewCounts, InputError> {
    let mut counts = NewCounts::default();
    let mut batch: Vec<InputRecord> = Vec::with_capacity(BATCH);
    // Every page first, then the indexes at once: they make room for all of them
    // ([`NewSite::add_all`]).
    let mut pages = Vec::new();
    loop {
        batch.clear();
        let more = records.next_batch(&mut batch, BATCH)?;
        counts.records += batch.len() as u64;
        for r in batch.drain(..) {
            if r.problem.is_some() {
                counts.unreadable += 1;
                continue;
            }
            let title = title_of(&r, titles);
            pages.push(Page {
                url: r.observed,
                title,
            });
        }
        if !more {
            break;
        }
    }
    site.add_all(pages, threads);
    site.shrink();
    Ok(counts)
}

/// Each record of `chunk` with its page (URL as read, title) and its proposal; an
/// unreadable record is `invalid` with the reader's code.
fn chunk_proposals(site: &NewSite, chunk: &[InputRecord], titles: bool) -> Vec<(Page, Proposal)> {
    chunk
        .iter()
        .map(|r| {
            let page = Page {
                url: r.observed.clone(),
                title: title_of(r, titles),
            };
            let p = match &r.problem {
                Some(e) => Proposal::unreadable(e.code.as_str()),
                None => site.propose(&page),
            };
            (page, p)
        })
        .collect()
}

/// Records per piece of work: the pipeline's threads each take whole batches, and a
/// batch's rows are encoded in pieces of this many.
const CHUNK: usize = 1024;

/// What one piece of work gives: its rows encoded (CSV, JSON Lines) with their counts, or
/// its proposals for the sink to write one by one (Parquet).
enum Part {
    Encoded(io::Result<(Vec<u8>, Summary)>),
    Proposals(Vec<(Page, Proposal)>),
}

/// Writes one row per record of `records` to `rows`, in order, on `urlkey_batch`'s
/// order-keeping [`Pipeline`] (`threads`, 0: one per core): its threads live for the
/// whole run, each reads, proposes and encodes whole batches, and the one that finishes
/// the batch next in order writes it.
pub fn propose_old<W: Write + Send>(
    site: &NewSite,
    records: &mut dyn RecordSource,
    titles: bool,
    threads: usize,
    rows: &mut RowWriter<W>,
) -> Result<Summary, RunError> {
    let pipeline = Pipeline::new(threads).map_err(RunError::Thread)?;
    let (format, apart) = (rows.format(), rows.encodes_apart());
    let mut summary = Summary::default();
    let work = |chunk: &[InputRecord]| {
        let proposals = chunk_proposals(site, chunk, titles);
        if !apart {
            return Part::Proposals(proposals);
        }
        let mut part = Summary::default();
        let rows: Vec<ProposalRow<'_>> = chunk
            .iter()
            .zip(&proposals)
            .map(|(r, (page, p))| {
                let row = ProposalRow::new(r.line, &page.url, page.title.as_deref(), p);
                part.add_row(&row);
                row
            })
            .collect();
        Part::Encoded(encode(format, &rows).map(|bytes| (bytes, part)))
    };
    let sink = |batch: &ReadBatch, parts: Vec<Part>| -> Result<(), RunError> {
        let mut records = batch.records.iter();
        for part in parts {
            match part {
                Part::Encoded(encoded) => {
                    let (bytes, part) = encoded.map_err(RunError::Output)?;
                    rows.write_encoded(&bytes).map_err(RunError::Output)?;
                    summary.merge(&part);
                }
                Part::Proposals(proposals) => {
                    for ((page, p), r) in proposals.iter().zip(records.by_ref()) {
                        let row = ProposalRow::new(r.line, &page.url, page.title.as_deref(), p);
                        summary.add_row(&row);
                        rows.write(&row).map_err(RunError::Output)?;
                    }
                }
            }
        }
        Ok(())
    };
    pipeline
        .stream(records, CHUNK, work, sink)
        .map_err(RunError::from)?;
    Ok(summary)
}

//! A whole run over two inventories read by `urlkey_batch`'s readers: NEW into the
//! indexes ([`index_new`]), then OLD, batch by batch, into rows ([`propose_old`]), one
//! per record in input order (an unreadable record is an `invalid` row with the reader's
//! code). The CLI and the tests call these; a title is the first kept column of a record
//! (the reader keeps the title column alone).

use std::io::{self, Write};

use urlkey_batch::input::{InputError, InputRecord, RecordSource};

use super::rows::{ProposalRow, Summary};
use super::writer::{encode, RowWriter};
use super::{NewSite, Page, Proposal};

/// Records read at once (the rows of a batch are written before the next is read).
pub const BATCH: usize = 16 * 1024;

/// What went wrong in a run.
#[derive(Debug)]
pub enum RunError {
    /// Reading an input.
    Input(InputError),
    /// Writing the rows.
    Output(io::Error),
}

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
    loop {
        batch.clear();
        let more = records.next_batch(&mut batch, BATCH)?;
        counts.records += batch.len() as u64;
        let mut pages = Vec::with_capacity(batch.len());
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
        site.add_all(pages, threads);
        if !more {
            break;
        }
    }
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

/// [`chunk_proposals`] on up to `threads` threads, in order.
fn chunk_proposals_parallel(
    site: &NewSite,
    batch: &[InputRecord],
    titles: bool,
    threads: usize,
) -> Vec<(Page, Proposal)> {
    super::parallel_chunks(batch, threads, |c| chunk_proposals(site, c, titles))
        .into_iter()
        .flatten()
        .collect()
}

/// Writes one row per record of `records` to `rows`, in order.
pub fn propose_old<W: Write>(
    site: &NewSite,
    records: &mut dyn RecordSource,
    titles: bool,
    threads: usize,
    rows: &mut RowWriter<W>,
) -> Result<Summary, RunError> {
    let mut summary = Summary::default();
    let mut batch: Vec<InputRecord> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        let more = records
            .next_batch(&mut batch, BATCH)
            .map_err(RunError::Input)?;
        if rows.encodes_apart() {
            // Each thread proposes and encodes its chunk; the bytes go out in order.
            let format = rows.format();
            let parts = super::parallel_chunks(&batch, threads, |chunk| {
                let mut part = Summary::default();
                let proposals = chunk_proposals(site, chunk, titles);
                let rows: Vec<ProposalRow<'_>> = chunk
                    .iter()
                    .zip(&proposals)
                    .map(|(r, (page, p))| {
                        let row = ProposalRow::new(r.line, &page.url, page.title.as_deref(), p);
                        part.add_row(&row);
                        row
                    })
                    .collect();
                encode(format, &rows).map(|bytes| (bytes, part))
            });
            for part in parts {
                let (bytes, part) = part.map_err(RunError::Output)?;
                rows.write_encoded(&bytes).map_err(RunError::Output)?;
                summary.merge(&part);
            }
        } else {
            let proposals = chunk_proposals_parallel(site, &batch, titles, threads);
            for (r, (page, p)) in batch.iter().zip(proposals) {
                let row = ProposalRow::new(r.line, &page.url, page.title.as_deref(), &p);
                summary.add_row(&row);
                rows.write(&row).map_err(RunError::Output)?;
            }
        }
        if !more {
            break;
        }
    }
    Ok(summary)
}

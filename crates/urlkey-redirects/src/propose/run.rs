//! A whole run over two inventories read by `urlkey_batch`'s readers: NEW into the
//! indexes ([`index_new`]), then OLD, batch by batch, into rows ([`propose_old`]), one
//! per record in input order (an unreadable record is an `invalid` row with the reader's
//! code). The CLI and the tests call these; a title is the first kept column of a record
//! (the reader keeps the title column alone).

use std::io::{self, Write};

use urlkey_batch::input::{InputError, InputRecord, RecordSource};

use super::rows::{ProposalRow, RowWriter, Summary};
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
        let pages: Vec<Page> = batch
            .iter()
            .filter(|r| r.problem.is_none())
            .map(|r| Page {
                url: r.observed.clone(),
                title: title_of(r, titles),
            })
            .collect();
        let proposals = site.propose_all(&pages, threads);
        let mut readable = pages.iter().zip(&proposals);
        for r in &batch {
            // Unreadable records are rows too: `invalid` with the reader's code.
            let unreadable;
            let title;
            let row = match &r.problem {
                Some(e) => {
                    unreadable = Proposal::unreadable(e.code.as_str());
                    title = title_of(r, titles);
                    ProposalRow::new(r.line, &r.observed, title.as_deref(), &unreadable)
                }
                None => {
                    let Some((page, p)) = readable.next() else {
                        return Err(RunError::Output(io::Error::other(
                            "a proposal is missing for an old record",
                        )));
                    };
                    ProposalRow::new(r.line, &page.url, page.title.as_deref(), p)
                }
            };
            summary.add_row(&row);
            rows.write(&row).map_err(RunError::Output)?;
        }
        if !more {
            break;
        }
    }
    Ok(summary)
}

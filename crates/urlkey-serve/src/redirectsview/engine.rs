//! `redirects propose`'s engine on a request: NEW indexed once
//! ([`urlkey_redirects::propose::NewSite`]), then every OLD record looked up on the
//! worker threads, in input order, one row per record.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::time::Instant;

use serde::Serialize;
use urlkey::Policy;
use urlkey_batch::input::{records_from, InputError, InputRecord, RecordSource, Skipped};
use urlkey_batch::pipeline::StreamError;
use urlkey_redirects::propose::{NewSite, Page, Proposal, Status};

use super::request::{Prepared, Side};
use crate::error::ApiError;
use crate::state::AppState;

/// Records read at a time from NEW, and OLD records per chunk of work.
const BATCH: usize = 4096;
const CHUNK: usize = 512;

/// Every status, in the order the page lists them.
pub(crate) const STATUSES: [Status; 5] = [
    Status::Served,
    Status::SameKey,
    Status::Candidate,
    Status::None,
    Status::Invalid,
];

/// One piece of evidence as the page shows it: its kind's name and what was found.
#[derive(Debug, Serialize)]
pub(crate) struct EvidenceOut {
    kind: &'static str,
    detail: String,
}

/// One OLD record's proposal, as the page receives it.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    /// The record's line in OLD (the header is line 1).
    line: u64,
    /// The old URL as written.
    source: String,
    title: Option<String>,
    status: &'static str,
    target: Option<String>,
    evidence: Vec<EvidenceOut>,
    score: f64,
    runner_up: Option<String>,
    runner_up_score: Option<f64>,
    ambiguous: bool,
    error_code: Option<String>,
    error: Option<String>,
    /// Whether the reader could not read the record (counted in `old.unreadable`).
    #[serde(skip)]
    unreadable: bool,
}

/// What was read from one side.
#[derive(Debug, Default, Serialize)]
pub(crate) struct SideCounts {
    /// Records read (every one is a row of OLD, or a page of NEW unless unreadable).
    pub records: u64,
    /// Blank and comment lines, which are no record.
    pub skipped: Skipped,
    /// Records the reader could not read (an over-long line, bad bytes): for OLD an
    /// `invalid` row; for NEW not a possible target.
    pub unreadable: u64,
}

/// The proposals for a request, and what they were made from.
pub(crate) struct Proposals {
    pub rows: Vec<Row>,
    pub old: SideCounts,
    pub new: SideCounts,
    /// Rows by status (every status listed, 0 included); they add up to `rows.len()`.
    pub counts: BTreeMap<&'static str, u64>,
    pub elapsed_ms: f64,
}

fn input_error(e: InputError) -> ApiError {
    ApiError::new("input.unreadable", e.message)
}

fn open(side: &Side) -> Result<Box<dyn RecordSource>, ApiError> {
    records_from(
        Box::new(Cursor::new(side.text.clone())),
        side.name.into(),
        &side.opts,
    )
    .map_err(input_error)
}

fn page(r: &InputRecord, titled: bool) -> Page {
    let title = titled
        .then(|| r.kept.first().map(|t| t.trim()).filter(|t| !t.is_empty()))
        .flatten()
        .map(str::to_string);
    Page {
        url: r.observed.clone(),
        title,
    }
}

/// Indexes NEW: every readable record is a possible target.
fn index_new(p: &Prepared) -> Result<(NewSite, SideCounts), ApiError> {
    let mut src = open(&p.new)?;
    let mut site = NewSite::new(p.policy.clone());
    let mut counts = SideCounts::default();
    let mut batch = Vec::with_capacity(BATCH);
    // Every page first, then the indexes at once: they make room for all of them
    // (`NewSite::add_all`), on the request's own thread.
    let mut pages = Vec::new();
    loop {
        batch.clear();
        let more = src.next_batch(&mut batch, BATCH).map_err(input_error)?;
        for r in &batch {
            counts.records += 1;
            if r.problem.is_some() {
                counts.unreadable += 1;
            } else {
                pages.push(page(r, p.new.titled));
            }
        }
        if !more {
            break;
        }
    }
    site.add_all(pages, 1);
    counts.skipped = src.skipped();
    Ok((site, counts))
}

/// The row of one OLD record.
fn row(site: &NewSite, policy: &Policy, r: &InputRecord, titled: bool) -> Row {
    let old = page(r, titled);
    let base = |status: Status| Row {
        line: r.line,
        source: old.url.clone(),
        title: old.title.clone(),
        status: status.as_str(),
        target: None,
        evidence: Vec::new(),
        score: 0.0,
        runner_up: None,
        runner_up_score: None,
        ambiguous: false,
        error_code: None,
        error: None,
        unreadable: false,
    };
    // A record the reader could not read is invalid with the reader's error, as in `map`.
    if let Some(problem) = &r.problem {
        return Row {
            error_code: Some(problem.code.as_str().to_string()),
            error: Some(problem.message.clone()),
            unreadable: true,
            ..base(Status::Invalid)
        };
    }
    let p: Proposal = site.propose(&old);
    let mut out = Row {
        target: p.target,
        evidence: p
            .evidence
            .into_iter()
            .map(|e| EvidenceOut {
                kind: e.kind.name(),
                detail: e.detail,
            })
            .collect(),
        score: p.score,
        runner_up: p.runner_up,
        runner_up_score: p.runner_up_score,
        ambiguous: p.ambiguous,
        error_code: p.error_code.map(str::to_string),
        ..base(p.status)
    };
    if p.status == Status::Invalid {
        // The engine gives the code; the words are the policy's own.
        out.error = policy.key(&old.url).error.map(|e| e.message);
    }
    out
}

/// Proposes a target for every OLD record: NEW indexed once, then OLD in batches on the
/// worker threads, the rows kept in input order.
pub(crate) fn propose(state: &AppState, p: &Prepared) -> Result<Proposals, ApiError> {
    let start = Instant::now();
    let (site, new) = index_new(p)?;
    let mut src = open(&p.old)?;
    let mut rows: Vec<Row> = Vec::new();
    let titled = p.old.titled;
    state
        .pipeline
        .stream(
            &mut *src,
            CHUNK,
            |recs| {
                recs.iter()
                    .map(|r| row(&site, &p.policy, r, titled))
                    .collect::<Vec<Row>>()
            },
            |_batch, chunks| {
                for chunk in chunks {
                    rows.extend(chunk);
                }
                Ok::<(), ApiError>(())
            },
        )
        .map_err(|e| match e {
            StreamError::Input(e) => input_error(e),
            StreamError::Sink(e) => e,
            StreamError::Spawn(e) => ApiError::internal(e.to_string()),
        })?;
    let mut counts: BTreeMap<&'static str, u64> =
        STATUSES.iter().map(|s| (s.as_str(), 0)).collect();
    let mut unreadable = 0;
    for r in &rows {
        *counts.entry(r.status).or_insert(0) += 1;
        unreadable += u64::from(r.unreadable);
    }
    let old = SideCounts {
        records: rows.len() as u64,
        skipped: src.skipped(),
        unreadable,
    };
    Ok(Proposals {
        rows,
        old,
        new,
        counts,
        elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
    })
}

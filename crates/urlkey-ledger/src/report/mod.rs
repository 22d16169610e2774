//! `ledger report`: the counting measures of the seed document "Preserve three different
//! records" (its section "Count without collapsing meaning"), kept apart and never all called
//! "citations", each stated with its sample.
//!
//! - **observations**: rows in the ledger (one per observed citation in a dated answer),
//!   invalid URLs included;
//! - **valid observations**: observations whose URL produced a key;
//! - **unique URL keys**: distinct normalized keys among the valid observations;
//! - **unique publishers**: distinct publishers of those keys: hostnames by default (seed
//!   004), or registrable domains with `--publisher registrable` ([`publisher`]);
//! - **top publishers**: `share = publisher_observations / valid_observations`;
//! - **concentration**: top-1 and top-5 share, HHI, over every publisher;
//! - **top keys**: observations per key, distinct observed spellings, first and last seen;
//! - **overlap**: for each pair of answer systems, publishers and keys cited by both, and
//!   the Jaccard index ([`Overlap`]);
//! - **run-to-run stability**: per answer system, for prompts asked more than once, how
//!   steady the cited keys and publishers are from one run to the next ([`stability`]);
//! - **compare** (`--compare A B`): per publisher and per key, the valid observations in
//!   each of two collections, the change, new and gone ([`Comparison`]).
//!
//! [`catalog::MEASURES`] is the one table of every measure (its JSON path, CSV columns,
//! label, and how it is shown), which every format loops over.
//!
//! Every share is printed with its denominator and the sample it describes. The rows are
//! read once (the observation's dimensions, run time, key, host and observed URL) and
//! every measure is computed from them in memory.

pub mod catalog;
mod compute;
mod csv;
pub mod fragments;
pub mod html;
mod markdown;
pub mod measures;
pub mod normalization;
pub mod publisher;
pub mod review;
mod share;
pub mod stability;
mod table;

use std::io::Write;

use rusqlite::Connection;

use crate::error::{LedgerError, Result};
pub use compute::{collections, compare, compute, open_read_only, resolve_policy, Computed};
pub use measures::*;
pub use publisher::PublisherUnit;
pub use share::round_share;

/// A column to group the report by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupBy {
    /// The answer system (product surface).
    AnswerSystem,
    /// The market.
    Market,
    /// The prompt-set version.
    PromptVersion,
    /// The dated collection run.
    Collection,
}

impl crate::choice::Choice for GroupBy {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            GroupBy::AnswerSystem,
            "answer_system",
            "The answer system (product surface)",
        ),
        (GroupBy::Market, "market", "The market"),
        (
            GroupBy::PromptVersion,
            "prompt_version",
            "The prompt-set version",
        ),
        (
            GroupBy::Collection,
            "collection",
            "The dated collection run",
        ),
    ];
}

crate::choice::from_str_by_name!(GroupBy, ReportFormat);

impl GroupBy {
    /// The column name, as the JSON `by` field gives it.
    pub fn column(self) -> &'static str {
        match self {
            GroupBy::AnswerSystem => "answer_system",
            GroupBy::Market => "market",
            GroupBy::PromptVersion => "prompt_version",
            GroupBy::Collection => "collection",
        }
    }

    fn index(self) -> usize {
        match self {
            GroupBy::PromptVersion => 0,
            GroupBy::AnswerSystem => 1,
            GroupBy::Market => 2,
            GroupBy::Collection => 3,
        }
    }
}

/// The output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// For people.
    Table,
    /// The documented JSON shape, for scripts.
    Json,
    /// One row per group.
    Csv,
    /// Tables a person pastes into a document (GitHub-flavoured Markdown).
    Markdown,
    /// One self-contained HTML file (no network loads, no script) with SVG charts.
    Html,
}

impl crate::choice::Choice for ReportFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (ReportFormat::Table, "table", "For people"),
        (
            ReportFormat::Json,
            "json",
            "The documented JSON shape, for scripts",
        ),
        (ReportFormat::Csv, "csv", "One row per group"),
        (
            ReportFormat::Markdown,
            "markdown",
            "Tables a person pastes into a document (GitHub-flavoured Markdown)",
        ),
        (
            ReportFormat::Html,
            "html",
            "One self-contained HTML file (no network loads, no script) with SVG charts",
        ),
    ];
}

/// Everything a report prints: a grouped report, or a comparison.
pub enum Report {
    /// The whole ledger, or one group per `--by` value.
    Groups(Computed),
    /// `--compare A B`.
    Compare(Option<String>, Box<Comparison>),
}

impl Report {
    /// The policy the report counts (none: the ledger is empty).
    pub fn policy(&self) -> Option<&str> {
        match self {
            Report::Groups(c) => c.policy.as_deref(),
            Report::Compare(p, _) => p.as_deref(),
        }
    }
}

/// The policy as the printed reports name it.
fn policy_text(policy: Option<&str>) -> &str {
    policy.unwrap_or("none: the ledger is empty")
}

/// Computes the report the options ask for.
pub fn build(conn: &Connection, opts: &ReportOptions) -> Result<Report> {
    if opts.compare.is_some() || opts.windows.len() == 2 || opts.compare_policies.is_some() {
        let (policy, c) = compare(conn, opts)?;
        Ok(Report::Compare(policy, Box::new(c)))
    } else {
        Ok(Report::Groups(compute(conn, opts)?))
    }
}

/// The `by` text: the columns joined with `,`.
pub fn by_text(by: &[GroupBy]) -> String {
    by.iter().map(|b| b.column()).collect::<Vec<_>>().join(",")
}

/// Writes the report.
pub fn write(
    conn: &Connection,
    opts: &ReportOptions,
    format: ReportFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let report = build(conn, opts)?;
    match format {
        ReportFormat::Json => {
            let text = serde_json::to_string_pretty(&JsonReport::of(&report, &opts.by))
                .map_err(|e| LedgerError::output(format!("cannot write JSON: {e}")))?;
            writeln!(out, "{text}")?;
        }
        ReportFormat::Csv => csv::write_csv(opts, &report, out)?,
        ReportFormat::Table => table::write_table(opts, &report, out)?,
        ReportFormat::Markdown => markdown::write_markdown(opts, &report, out)?,
        ReportFormat::Html => {
            let page = html::page(opts, &report, &html::Style::Inline)?;
            out.write_all(page.as_bytes())?;
        }
    }
    Ok(())
}

/// The sample in one sentence: the observation count, the prompt-set versions, answer
/// systems, markets and the collection window.
pub fn sample_sentence(m: &Measures) -> String {
    let window = match (&m.sample.window.from, &m.sample.window.to) {
        (Some(f), Some(t)) => format!("{f} to {t}"),
        _ => "none".to_string(),
    };
    format!(
        "{} observations; prompt-set versions: {}; answer systems: {}; markets: {}; \
         collection window: {window}",
        m.observations,
        list(&m.sample.prompt_versions),
        list(&m.sample.answer_systems),
        list(&m.sample.markets),
    )
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// The one window filter in words, if there is one. No flag name: the sentence is also
/// in the HTML report, which is handed to people who never see the command line.
pub fn filter_sentence(opts: &ReportOptions) -> Option<String> {
    match opts.windows.as_slice() {
        [w] => Some(format!(
            "Only observations run in the window {} (both ends included).",
            w.text
        )),
        _ => None,
    }
}

/// The caveat the seed document's "Count without collapsing meaning" asks for, printed
/// under every report.
pub const CAVEAT: &str = "Publisher share describes only this sample. It is not market share, \
                          source quality, ranking strength or proof of influence.";

/// A compared measure's counts in one line.
fn summary_text(what: &str, s: &ChangeSummary) -> String {
    format!(
        "{what}: {} in A, {} in B, {} in both, {} new in B, {} gone from A",
        s.in_a, s.in_b, s.both, s.new, s.gone
    )
}

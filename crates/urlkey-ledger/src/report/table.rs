//! The report as aligned text, for people.

use std::io::Write;

use super::catalog::{Group, Measure, Section, Shown};
use super::review::LISTED;
use super::stability::figure_text;
use super::{
    policy_text, sample_sentence, summary_text, Change, Comparison, Measures, Report,
    ReportOptions, CAVEAT,
};
use crate::error::Result;

pub(super) fn write_table(
    opts: &ReportOptions,
    report: &Report,
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(
        out,
        "Citation audit ledger report (normalization policy: {})",
        policy_text(report.policy())
    )?;
    if let Some(f) = super::filter_sentence(opts) {
        writeln!(out, "{f}")?;
    }
    match report {
        Report::Groups(c) => {
            for g in &c.groups {
                writeln!(out)?;
                if !opts.by.is_empty() {
                    writeln!(out, "== {}", g.heading())?;
                }
                table_measures(&g.measures, out)?;
            }
        }
        Report::Compare(_, c) => table_compare(c, out)?,
    }
    writeln!(out)?;
    writeln!(out, "{CAVEAT}")?;
    Ok(())
}

/// After the text's `merges to review: N`: where they are listed.
const MERGES_LISTED: &str = " (listed below; all policies: `urlkey ledger merges`)";

/// The review figures (source roles, claim support, merges, splits) in two lines, when
/// people decided something or a merge waits for them.
fn table_review(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if !m.review.has_any() {
        return Ok(());
    }
    let (mut per_value, mut counts) = (Vec::new(), Vec::new());
    for x in Measure::of(Group::Review) {
        match x.shown {
            Shown::PerValue { .. } => per_value.push(format!("{}: {}", x.short, x.text(m))),
            _ => {
                let after = if x.name == "merges_to_review" {
                    MERGES_LISTED
                } else {
                    ""
                };
                counts.push(format!("{}: {}{after}", x.label(m), x.text(m)));
            }
        }
    }
    writeln!(
        out,
        "  reviews (of the {} valid observations): {}",
        m.valid_observations,
        per_value.join("; ")
    )?;
    writeln!(out, "  {}", counts.join("; "))?;
    Ok(())
}

/// What normalization changed: one line per count, one line per per-value count.
fn table_normalization(m: &Measures, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "  {} (of the {} valid observations):",
        super::normalization::HEADING.to_lowercase(),
        m.valid_observations
    )?;
    for x in Measure::of(Group::Normalization) {
        match x.shown {
            Shown::PerValue { of, .. } => {
                let v = if of(m).is_empty() {
                    "none".to_string()
                } else {
                    x.text(m)
                };
                writeln!(out, "    {}: {v}", x.label(m))?;
            }
            _ => writeln!(out, "    {:<76} {:>8}", x.label(m), x.text(m))?,
        }
    }
    Ok(())
}

fn table_measures(m: &Measures, out: &mut dyn Write) -> Result<()> {
    section(Section::Sample, m, out)?;
    for x in Measure::of(Group::Counts) {
        writeln!(out, "  {:<46} {:>8}", x.label_noted(m), x.text(m))?;
    }
    section(Section::PublisherUnit, m, out)?;
    section(Section::TopPublishers, m, out)?;
    let c = &m.concentration;
    let figures: Vec<String> = Measure::of(Group::Concentration)
        .map(|x| format!("{} {}", x.short, x.text(m)))
        .collect();
    writeln!(
        out,
        "  concentration over {} publishers (shares of the {} valid observations): {}",
        c.publishers,
        c.valid_observations,
        figures.join(", ")
    )?;
    table_review(m, out)?;
    table_normalization(m, out)?;
    table_text_fragments(m, out)?;
    section(Section::TextFragmentsBySystem, m, out)?;
    section(Section::TopKeys, m, out)?;
    // After the top keys, so the keys with splits applied read as their recount.
    section(Section::MergesToReview, m, out)?;
    section(Section::TopKeysWithSplits, m, out)?;
    section(Section::Overlap, m, out)?;
    section(Section::Stability, m, out)
}

/// One section of the measures.
fn section(s: Section, m: &Measures, out: &mut dyn Write) -> Result<()> {
    match s {
        Section::Sample => writeln!(out, "Sample: {}", sample_sentence(m))?,
        // Stated by the labels (`unique publisher hostnames`) and the publishers' header.
        Section::PublisherUnit => {}
        Section::TopPublishers => top_publishers(m, out)?,
        Section::TopKeys => top_keys(m, out)?,
        Section::Overlap => overlap(m, out)?,
        Section::MergesToReview => merges_to_review(m, out)?,
        Section::TopKeysWithSplits => top_keys_with_splits(m, out)?,
        Section::Stability => stability(m, out)?,
        Section::TextFragmentsBySystem => {
            if m.text_fragments.has_any() {
                for line in m.text_fragments.by_system_text() {
                    writeln!(out, "    {line}")?;
                }
                writeln!(out, "    ({})", super::fragments::CAVEAT)?;
            }
        }
    }
    Ok(())
}

/// The text fragment figures in one line, when some observation has a text directive.
fn table_text_fragments(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if !m.text_fragments.has_any() {
        return Ok(());
    }
    let figures: Vec<String> = Measure::of(Group::TextFragments)
        .map(|x| format!("{} {}", x.short, x.text(m)))
        .collect();
    writeln!(
        out,
        "  text fragments (each directive's latest verify check; by answer system below): {}",
        figures.join(", ")
    )?;
    Ok(())
}

fn top_publishers(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if m.top_publishers.is_empty() {
        writeln!(out, "  top publishers: none (no valid observations)")?;
        return Ok(());
    }
    writeln!(
        out,
        "  top publishers (share = publisher's valid observations / all {} valid \
         observations):",
        m.valid_observations
    )?;
    let head = m.publisher_unit.header();
    let width = m
        .top_publishers
        .iter()
        .map(|t| t.name().chars().count())
        .max()
        .unwrap_or(8)
        .max(head.len());
    writeln!(out, "    {head:<width$}  {:>12}  share", "observations")?;
    for t in &m.top_publishers {
        let hosts = if t.hostnames.is_empty() {
            String::new()
        } else {
            format!("  [{}]", t.hostnames.join(", "))
        };
        writeln!(
            out,
            "    {:<width$}  {:>12}  {:.4} ({}/{}){hosts}",
            t.name(),
            t.observations,
            t.share,
            t.observations,
            m.valid_observations
        )?;
    }
    Ok(())
}

fn top_keys(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if m.top_keys.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  top URL keys (share = key's valid observations / all {} valid observations; \
         spellings = distinct observed URLs):",
        m.valid_observations
    )?;
    for k in &m.top_keys {
        writeln!(
            out,
            "    {}  {} obs  {:.4} ({}/{})  spellings: {}  first {}  last {}",
            k.key,
            k.observations,
            k.share,
            k.observations,
            m.valid_observations,
            k.spellings,
            k.first_seen,
            k.last_seen
        )?;
    }
    Ok(())
}

fn overlap(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if m.overlap.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  overlap between answer systems (Jaccard = cited by both / cited by either):"
    )?;
    for o in &m.overlap {
        writeln!(
            out,
            "    {} ({} valid obs) ~ {} ({} valid obs): publishers {} of {} = {:.4} \
             ({} and {}); keys {} of {} = {:.4} ({} and {})",
            o.a,
            o.a_valid_observations,
            o.b,
            o.b_valid_observations,
            o.publishers.both,
            o.publishers.either,
            o.publishers.jaccard,
            o.publishers.in_a,
            o.publishers.in_b,
            o.keys.both,
            o.keys.either,
            o.keys.jaccard,
            o.keys.in_a,
            o.keys.in_b
        )?;
        if let Some(k) = &o.keys_with_splits {
            writeln!(
                out,
                "      with split decisions applied: keys {} of {} = {:.4} ({} and {})",
                k.both, k.either, k.jaccard, k.in_a, k.in_b
            )?;
        }
    }
    Ok(())
}

fn table_compare(c: &Comparison, out: &mut dyn Write) -> Result<()> {
    for (label, s) in [("A", &c.a), ("B", &c.b)] {
        writeln!(out)?;
        writeln!(out, "== {label}: {}", s.label())?;
        table_measures(&s.measures, out)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "== Change from A ({}, {} valid observations) to B ({}, {} valid observations)",
        c.a.name(),
        c.a.measures.valid_observations,
        c.b.name(),
        c.b.measures.valid_observations
    )?;
    writeln!(
        out,
        "  {}",
        summary_text("publishers", &c.publishers_summary)
    )?;
    writeln!(out, "  {}", summary_text("URL keys", &c.keys_summary))?;
    for (what, rows) in [("publisher", &c.publishers), ("URL key", &c.keys)] {
        writeln!(
            out,
            "  per {what} (valid observations in A and B, shares of each side's valid \
             observations):"
        )?;
        for r in rows {
            writeln!(out, "    {}", change_line(c, r))?;
        }
    }
    if !c.stability.is_empty() {
        writeln!(
            out,
            "  run-to-run stability per answer system (A, B, change; n/a: no prompt asked \
             more than once):"
        )?;
        for r in &c.stability {
            writeln!(
                out,
                "    {} {}: {}, {}, {}",
                r.answer_system,
                r.figure,
                figure_text(r.a),
                figure_text(r.b),
                r.change_text()
            )?;
        }
    }
    Ok(())
}

/// Run-to-run stability: per answer system, the sample, then keys and publishers.
fn stability(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if m.stability.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  run-to-run stability (per answer system, prompts asked more than once; Jaccard = \
         cited by both of two consecutive runs / by either, mean per prompt, then over \
         prompts):"
    )?;
    for s in &m.stability {
        writeln!(out, "    {}: {}", s.answer_system, s.sample_text())?;
        if s.sample.prompts == 0 {
            // Nothing measured: the sample says why, n/a lines would add nothing.
            continue;
        }
        for (what, t) in [
            ("URL keys", &s.keys),
            (m.publisher_unit.noun(), &s.publishers),
        ] {
            writeln!(
                out,
                "      {what}: mean Jaccard {}; in every run of their prompt {}; come and go {}",
                t.jaccard_text(),
                t.every_text(),
                t.come_and_go_text()
            )?;
            if !t.top_come_and_go.is_empty() {
                let list: Vec<String> = t
                    .top_come_and_go
                    .iter()
                    .map(|c| format!("{} ({})", c.name, c.counts_text()))
                    .collect();
                writeln!(out, "        come and go most: {}", list.join("; "))?;
            }
        }
    }
    Ok(())
}

fn change_line(c: &Comparison, r: &Change) -> String {
    format!(
        "{}  A {} ({:.4} = {}/{})  B {} ({:.4} = {}/{})  change {:+} ({:+.4})  {}",
        r.name,
        r.a,
        r.a_share,
        r.a,
        c.a.measures.valid_observations,
        r.b,
        r.b_share,
        r.b,
        c.b.measures.valid_observations,
        r.change,
        r.share_change,
        r.status
    )
}

/// The list of merges to review.
fn merges_to_review(m: &Measures, out: &mut dyn Write) -> Result<()> {
    let r = &m.review;
    if !r.merges_to_review_list.is_empty() {
        writeln!(
            out,
            "  merges to review (most observations first; observations and variants of this sample):"
        )?;
        for t in r.merges_to_review_list.iter().take(LISTED) {
            writeln!(
                out,
                "    {}  observations {}  variants {} ({})  risky rules {}  content check {}",
                t.key,
                t.observations,
                t.variants,
                t.spellings_text(),
                t.risky_rules.join(", "),
                t.check_text()
            )?;
        }
        if let Some(more) = m.review.more_line() {
            writeln!(out, "    {more}")?;
        }
    }
    Ok(())
}

/// The top keys with splits applied.
fn top_keys_with_splits(m: &Measures, out: &mut dyn Write) -> Result<()> {
    let r = &m.review;
    if !r.top_keys_with_splits.is_empty() {
        writeln!(
            out,
            "  top URL keys with splits applied (shares of the {} valid observations):",
            m.valid_observations
        )?;
        for k in &r.top_keys_with_splits {
            writeln!(
                out,
                "    {}  {}  {:.4}{}",
                k.key,
                k.observations,
                k.share,
                k.split_note()
            )?;
        }
    }
    Ok(())
}

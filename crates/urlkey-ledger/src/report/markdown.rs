//! The report as GitHub-flavoured Markdown: tables a person pastes into a document.

use std::io::Write;

use super::catalog::{Group, Measure, Section, Shown};
use super::review::LISTED;
use super::stability::figure_text;
use super::{
    policy_text, sample_sentence, summary_text, Comparison, Measures, Overlap, Report,
    ReportOptions, CAVEAT,
};
use crate::error::Result;

/// A Markdown cell: pipes escaped, line breaks as spaces.
pub(super) fn md(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

pub(super) fn write_markdown(
    opts: &ReportOptions,
    report: &Report,
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(out, "# Citation audit ledger report")?;
    writeln!(out)?;
    writeln!(
        out,
        "Normalization policy: `{}`.",
        md(policy_text(report.policy()))
    )?;
    if let Some(f) = super::filter_sentence(opts) {
        writeln!(out)?;
        writeln!(out, "{}", md(&f))?;
    }
    match report {
        Report::Groups(c) => {
            for g in &c.groups {
                writeln!(out)?;
                if !opts.by.is_empty() {
                    writeln!(out, "## {}", md(&g.heading()))?;
                    writeln!(out)?;
                }
                markdown_measures(&g.measures, "###", out)?;
            }
        }
        Report::Compare(_, c) => {
            for (label, s) in [("A", &c.a), ("B", &c.b)] {
                writeln!(out)?;
                writeln!(out, "## {label}: {}", md(&s.label()))?;
                writeln!(out)?;
                markdown_measures(&s.measures, "###", out)?;
            }
            markdown_compare(c, out)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "{CAVEAT}")?;
    Ok(())
}

fn markdown_measures(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    section(Section::Sample, m, h, out)?;
    writeln!(out, "| measure | value |")?;
    writeln!(out, "|---|---:|")?;
    for x in Measure::of(Group::Counts).chain(Measure::of(Group::Concentration)) {
        let v = match x.shown {
            Shown::Share { of, .. } => format!("{} (of {})", x.text(m), of(m)),
            _ => x.text(m),
        };
        writeln!(out, "| {} | {v} |", x.label_noted(m))?;
    }
    if m.review.has_any() {
        for r in super::review::rows(m) {
            writeln!(out, "| {} | {} |", md(&r.label), r.value)?;
        }
    }
    for r in super::normalization::rows(m) {
        writeln!(out, "| {} | {} |", md(&r.label), r.value)?;
    }
    if m.text_fragments.has_any() {
        for x in Measure::of(Group::TextFragments) {
            writeln!(out, "| {} | {} |", x.label_noted(m), x.text(m))?;
        }
    }
    writeln!(out)?;
    for s in [
        Section::PublisherUnit,
        Section::TopPublishers,
        Section::TopKeys,
        Section::MergesToReview,
        Section::TopKeysWithSplits,
        Section::TextFragmentsBySystem,
        Section::Overlap,
        Section::Stability,
    ] {
        section(s, m, h, out)?;
    }
    Ok(())
}

/// One section of the measures, under headings of level `h`.
fn section(s: Section, m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    match s {
        Section::Sample => {
            writeln!(out, "**Sample:** {}.", md(&sample_sentence(m)))?;
            writeln!(out)?;
        }
        // Stated by the labels (`unique publisher hostnames`) and the publishers' header.
        Section::PublisherUnit => {}
        Section::TopPublishers => top_publishers(m, out)?,
        Section::TopKeys => top_keys(m, h, out)?,
        Section::Overlap => overlap(m, h, out)?,
        Section::MergesToReview => merges_to_review(m, h, out)?,
        Section::TopKeysWithSplits => top_keys_with_splits(m, h, out)?,
        Section::Stability => stability(m, h, out)?,
        Section::TextFragmentsBySystem => text_fragments_by_system(m, h, out)?,
    }
    Ok(())
}

/// The text fragment figures per answer system, when some observation has a directive.
fn text_fragments_by_system(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    let f = &m.text_fragments;
    if !f.has_any() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{h} Text fragments by answer system")?;
    writeln!(out)?;
    writeln!(out, "{}", super::fragments::CAVEAT)?;
    writeln!(out)?;
    writeln!(
        out,
        "| answer system | observations | directives | found | not-found | page-changed | \
         not-checked | unverified | malformed |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    for (s, c) in &f.by_answer_system {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md(s),
            c.observations,
            c.directives,
            c.found,
            c.not_found,
            c.page_changed,
            c.not_checked,
            c.unverified,
            c.malformed
        )?;
    }
    Ok(())
}

fn top_publishers(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if m.top_publishers.is_empty() {
        writeln!(out, "No valid observations: no publishers.")?;
    } else {
        writeln!(
            out,
            "Top publishers (share = publisher's valid observations / all {} valid \
             observations):",
            m.valid_observations
        )?;
        writeln!(out)?;
        let registrable = m
            .top_publishers
            .iter()
            .any(|t| t.registrable_domain.is_some());
        if registrable {
            writeln!(
                out,
                "| {} | observations | share | hostnames |",
                m.publisher_unit.header()
            )?;
            writeln!(out, "|---|---:|---:|---|")?;
        } else {
            writeln!(
                out,
                "| {} | observations | share |",
                m.publisher_unit.header()
            )?;
            writeln!(out, "|---|---:|---:|")?;
        }
        for t in &m.top_publishers {
            let hosts = if registrable {
                format!(" {} |", md(&t.hostnames.join(", ")))
            } else {
                String::new()
            };
            writeln!(
                out,
                "| {} | {} | {:.4} ({}/{}) |{hosts}",
                md(t.name()),
                t.observations,
                t.share,
                t.observations,
                m.valid_observations
            )?;
        }
    }
    Ok(())
}

fn top_keys(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    if !m.top_keys.is_empty() {
        writeln!(out)?;
        writeln!(out, "{h} Top URL keys")?;
        writeln!(out)?;
        writeln!(
            out,
            "Share = key's valid observations / all {} valid observations; spellings = \
             distinct observed URLs that gave the key.",
            m.valid_observations
        )?;
        writeln!(out)?;
        writeln!(
            out,
            "| URL key | observations | share | spellings | first seen | last seen |"
        )?;
        writeln!(out, "|---|---:|---:|---:|---|---|")?;
        for k in &m.top_keys {
            writeln!(
                out,
                "| `{}` | {} | {:.4} ({}/{}) | {} | {} | {} |",
                md(&k.key).replace('`', "'"),
                k.observations,
                k.share,
                k.observations,
                m.valid_observations,
                k.spellings,
                k.first_seen,
                k.last_seen
            )?;
        }
    }
    Ok(())
}

fn overlap(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    if !m.overlap.is_empty() {
        writeln!(out)?;
        writeln!(out, "{h} Overlap between answer systems")?;
        writeln!(out)?;
        writeln!(
            out,
            "Jaccard index = cited by both / cited by either (distinct publishers, distinct \
             URL keys of the valid observations)."
        )?;
        writeln!(out)?;
        writeln!(
            out,
            "| answer systems | valid observations | publishers in both / either | publishers Jaccard | keys in both / either | keys Jaccard |"
        )?;
        writeln!(out, "|---|---:|---:|---:|---:|---:|")?;
        for o in &m.overlap {
            writeln!(
                out,
                "| {} ~ {} | {} and {} | {} / {} | {:.4} | {} / {} | {:.4} |",
                md(&o.a),
                md(&o.b),
                o.a_valid_observations,
                o.b_valid_observations,
                o.publishers.both,
                o.publishers.either,
                o.publishers.jaccard,
                o.keys.both,
                o.keys.either,
                o.keys.jaccard
            )?;
        }
        let split: Vec<&Overlap> = m
            .overlap
            .iter()
            .filter(|o| o.keys_with_splits.is_some())
            .collect();
        if !split.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "With split decisions applied (a split key's observed URLs count as keys):"
            )?;
            writeln!(out)?;
            writeln!(
                out,
                "| answer systems | keys in both / either | keys Jaccard |"
            )?;
            writeln!(out, "|---|---:|---:|")?;
            for o in split {
                if let Some(k) = &o.keys_with_splits {
                    writeln!(
                        out,
                        "| {} ~ {} | {} / {} | {:.4} |",
                        md(&o.a),
                        md(&o.b),
                        k.both,
                        k.either,
                        k.jaccard
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn markdown_compare(c: &Comparison, out: &mut dyn Write) -> Result<()> {
    let (va, vb) = (
        c.a.measures.valid_observations,
        c.b.measures.valid_observations,
    );
    writeln!(out)?;
    writeln!(
        out,
        "## Change from A ({}) to B ({})",
        md(c.a.name()),
        md(c.b.name())
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Counts are valid observations; A's shares are of its {va} valid observations, B's \
         of its {vb}."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "- {}.",
        summary_text("Publishers", &c.publishers_summary)
    )?;
    writeln!(out, "- {}.", summary_text("URL keys", &c.keys_summary))?;
    for (what, rows) in [("publisher", &c.publishers), ("URL key", &c.keys)] {
        writeln!(out)?;
        writeln!(
            out,
            "| {what} | A | B | change | A share | B share | status |"
        )?;
        writeln!(out, "|---|---:|---:|---:|---:|---:|---|")?;
        for r in rows {
            writeln!(
                out,
                "| {} | {} | {} | {:+} | {:.4} ({}/{va}) | {:.4} ({}/{vb}) | {} |",
                md(&r.name),
                r.a,
                r.b,
                r.change,
                r.a_share,
                r.a,
                r.b_share,
                r.b,
                r.status
            )?;
        }
    }
    if !c.stability.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Run-to-run stability per answer system (n/a: no prompt asked more than once):"
        )?;
        writeln!(out)?;
        writeln!(out, "| answer system | stability figure | A | B | change |")?;
        writeln!(out, "|---|---|---:|---:|---:|")?;
        for r in &c.stability {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md(&r.answer_system),
                r.figure,
                figure_text(r.a),
                figure_text(r.b),
                r.change_text()
            )?;
        }
    }
    Ok(())
}

/// Run-to-run stability: one row per answer system, then the keys and publishers that
/// come and go.
fn stability(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    if m.stability.is_empty() {
        return Ok(());
    }
    let unit = m.publisher_unit.noun();
    writeln!(out)?;
    writeln!(out, "{h} Run-to-run stability")?;
    writeln!(out)?;
    writeln!(
        out,
        "Per answer system, over the prompts asked more than once: the mean Jaccard index of \
         the sets cited by consecutive runs (cited by both / by either; mean per prompt, then \
         over prompts), the (prompt, key) pairs cited in every run of their prompt, and those \
         that come and go (cited in some runs, not all)."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| answer system | sample | URL keys mean Jaccard | URL keys in every run | URL keys \
         come and go | {unit} mean Jaccard | {unit} in every run | {unit} come and go |"
    )?;
    writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|")?;
    for s in &m.stability {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            md(&s.answer_system),
            md(&s.sample_text()),
            s.keys.jaccard_text(),
            s.keys.every_text(),
            s.keys.come_and_go_text(),
            s.publishers.jaccard_text(),
            s.publishers.every_text(),
            s.publishers.come_and_go_text()
        )?;
    }
    let any = m
        .stability
        .iter()
        .any(|s| !s.keys.top_come_and_go.is_empty() || !s.publishers.top_come_and_go.is_empty());
    if any {
        writeln!(out)?;
        writeln!(
            out,
            "| answer system | come and go | prompts | cited in runs |"
        )?;
        writeln!(out, "|---|---|---:|---:|")?;
        for s in &m.stability {
            for c in s
                .keys
                .top_come_and_go
                .iter()
                .chain(&s.publishers.top_come_and_go)
            {
                writeln!(
                    out,
                    "| {} | `{}` | {} | {} of {} |",
                    md(&s.answer_system),
                    code(&c.name),
                    c.prompts,
                    c.runs_cited,
                    c.runs
                )?;
            }
        }
    }
    Ok(())
}

/// Text inside a Markdown code span (a backtick would end it).
fn code(s: &str) -> String {
    md(s).replace('`', "'")
}

/// The merges to review.
fn merges_to_review(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    let r = &m.review;
    if !r.merges_to_review_list.is_empty() {
        writeln!(out)?;
        writeln!(out, "{h} Merges to review")?;
        writeln!(out)?;
        writeln!(
            out,
            "A risky rule merged the key's observed URLs, its content check is not `same` and \
             nobody decided; observations and variants of this sample, most observations first."
        )?;
        writeln!(out)?;
        writeln!(
            out,
            "| URL key | observations | variants | spellings | risky rules | content check |"
        )?;
        writeln!(out, "|---|---:|---:|---|---|---|")?;
        for t in r.merges_to_review_list.iter().take(LISTED) {
            writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                code(&t.key),
                t.observations,
                t.variants,
                md(&t.spellings_text()),
                md(&t.risky_rules.join(", ")),
                md(&t.check_text())
            )?;
        }
        // A Markdown report is a deliverable, read without the command line: it says how
        // many are left out, not which flag lists them (as the HTML report).
        let all = m.review.merges_to_review_list.len();
        if all > super::review::LISTED {
            writeln!(out)?;
            writeln!(
                out,
                "{} more merges to review are not listed here.",
                all - super::review::LISTED
            )?;
        }
    }
    Ok(())
}

/// The top keys with splits applied.
fn top_keys_with_splits(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
    let r = &m.review;
    if !r.top_keys_with_splits.is_empty() {
        writeln!(out)?;
        writeln!(out, "{h} Top URL keys with splits applied")?;
        writeln!(out)?;
        writeln!(
            out,
            "A key a person split counts as its variants; share = valid observations / all {} \
             valid observations.",
            m.valid_observations
        )?;
        writeln!(out)?;
        writeln!(out, "| URL key | observations | share | split from |")?;
        writeln!(out, "|---|---:|---:|---|")?;
        for k in &r.top_keys_with_splits {
            writeln!(
                out,
                "| `{}` | {} | {:.4} ({}/{}) | {} |",
                code(&k.key),
                k.observations,
                k.share,
                k.observations,
                m.valid_observations,
                k.split_from
                    .as_deref()
                    .map(|f| format!("`{}`", code(f)))
                    .unwrap_or_default()
            )?;
        }
    }
    Ok(())
}

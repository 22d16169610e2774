//! The report as a table (for people), CSV (one row per group) and Markdown.

use std::io::Write;

use super::review::{counts_cell, FigureRow};
use super::{
    by_text, sample_sentence, Change, ChangeSummary, Comparison, Group, Measures, Overlap, Report,
    ReportOptions, CAVEAT,
};
use crate::error::{LedgerError, Result};
use crate::export::spreadsheet_safe;

fn group_heading(g: &Group) -> String {
    g.values
        .0
        .iter()
        .map(|(c, v)| format!("{c} = {}", v.as_deref().unwrap_or("(none)")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn policy_text(policy: Option<&str>) -> &str {
    policy.unwrap_or("none: the ledger is empty")
}

fn policy_of(report: &Report) -> Option<&str> {
    match report {
        Report::Groups(c) => c.policy.as_deref(),
        Report::Compare(p, _) => p.as_deref(),
    }
}

// ---------------------------------------------------------------------------- CSV

pub(super) fn write_csv(opts: &ReportOptions, report: &Report, out: &mut dyn Write) -> Result<()> {
    match report {
        Report::Groups(c) => write_groups_csv(opts, &c.groups, out),
        Report::Compare(_, c) => write_compare_csv(c, out),
    }
}

fn write_groups_csv(opts: &ReportOptions, groups: &[Group], out: &mut dyn Write) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header: Vec<&str> = vec![
        "by",
        "value",
        "observations",
        "valid_observations",
        "invalid_observations",
        "unique_keys",
        "unique_publishers",
        "top_publisher",
        "top_publisher_observations",
        "top_publisher_share",
        "top_publishers",
        "prompt_versions",
        "answer_systems",
        "markets",
        "window_from",
        "window_to",
        "top5_share",
        "hhi",
        "publisher_unit",
        "top_keys",
        "overlap",
        "source_roles",
        "claim_support",
        "merges_to_review",
        "split_keys",
        "unique_keys_with_splits",
        "merges_to_review_list",
        "top_keys_with_splits",
    ];
    header.extend(opts.by.iter().map(|b| b.column()));
    w.write_record(&header).map_err(LedgerError::from)?;
    let by = by_text(&opts.by);
    for g in groups {
        let m = &g.measures;
        let top = m.top_publishers.first();
        let all_top: Vec<String> = m
            .top_publishers
            .iter()
            .map(|t| format!("{} {} {:.4}", t.name(), t.observations, t.share))
            .collect();
        let keys: Vec<String> = m
            .top_keys
            .iter()
            .map(|k| {
                format!(
                    "{} {} {:.4} spellings {} {}..{}",
                    k.key, k.observations, k.share, k.spellings, k.first_seen, k.last_seen
                )
            })
            .collect();
        let overlap: Vec<String> = m
            .overlap
            .iter()
            .map(|o| {
                let splits = o.keys_with_splits.as_ref().map_or(String::new(), |k| {
                    format!(
                        ", keys with splits {}/{} {:.4}",
                        k.both, k.either, k.jaccard
                    )
                });
                format!(
                    "{} ~ {}: publishers {}/{} {:.4}, keys {}/{} {:.4}{splits}",
                    o.a,
                    o.b,
                    o.publishers.both,
                    o.publishers.either,
                    o.publishers.jaccard,
                    o.keys.both,
                    o.keys.either,
                    o.keys.jaccard
                )
            })
            .collect();
        let value = spreadsheet_safe(g.value.clone().unwrap_or_default());
        let safe = |v: &[String]| spreadsheet_safe(v.join("; "));
        let mut rec: Vec<String> = vec![
            by.clone(),
            value,
            m.observations.to_string(),
            m.valid_observations.to_string(),
            m.invalid_observations.to_string(),
            m.unique_keys.to_string(),
            m.unique_publishers.to_string(),
            top.map(|t| t.name().to_string()).unwrap_or_default(),
            top.map(|t| t.observations.to_string()).unwrap_or_default(),
            top.map(|t| format!("{:.4}", t.share)).unwrap_or_default(),
            all_top.join("; "),
            safe(&m.sample.prompt_versions),
            safe(&m.sample.answer_systems),
            safe(&m.sample.markets),
            m.sample.window.from.clone().unwrap_or_default(),
            m.sample.window.to.clone().unwrap_or_default(),
            format!("{:.4}", m.concentration.top5_share),
            format!("{:.4}", m.concentration.hhi),
            m.publisher_unit.as_str().to_string(),
            spreadsheet_safe(keys.join("; ")),
            spreadsheet_safe(overlap.join("; ")),
            spreadsheet_safe(counts_cell(&m.review.observations_by_source_role)),
            spreadsheet_safe(counts_cell(&m.review.claim_support)),
            m.review.merges_to_review.to_string(),
            m.review.split_keys.to_string(),
            m.review.unique_keys_with_splits.to_string(),
        ];
        let (merges, tops) = super::review_lists::csv_cells(m);
        rec.push(spreadsheet_safe(merges));
        rec.push(spreadsheet_safe(tops));
        rec.extend(
            g.values
                .0
                .iter()
                .map(|(_, v)| spreadsheet_safe(v.clone().unwrap_or_default())),
        );
        w.write_record(&rec).map_err(LedgerError::from)?;
    }
    w.flush()?;
    Ok(())
}

fn write_compare_csv(c: &Comparison, out: &mut dyn Write) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "kind",
        "name",
        "a_selection",
        "a",
        "a_valid_observations",
        "a_share",
        "b_selection",
        "b",
        "b_valid_observations",
        "b_share",
        "change",
        "share_change",
        "status",
    ])
    .map_err(LedgerError::from)?;
    let (ca, cb) = (
        spreadsheet_safe(c.a.name().to_string()),
        spreadsheet_safe(c.b.name().to_string()),
    );
    let (va, vb) = (
        c.a.measures.valid_observations.to_string(),
        c.b.measures.valid_observations.to_string(),
    );
    for (kind, rows) in [("publisher", &c.publishers), ("key", &c.keys)] {
        for r in rows {
            w.write_record([
                kind,
                &spreadsheet_safe(r.name.clone()),
                &ca,
                &r.a.to_string(),
                &va,
                &format!("{:.4}", r.a_share),
                &cb,
                &r.b.to_string(),
                &vb,
                &format!("{:.4}", r.b_share),
                &r.change.to_string(),
                &format!("{:+.4}", r.share_change),
                r.status,
            ])
            .map_err(LedgerError::from)?;
        }
    }
    if c.a.measures.review.has_any() || c.b.measures.review.has_any() {
        for row in review_change_rows(c) {
            w.write_record(&row).map_err(LedgerError::from)?;
        }
    }
    for row in super::review_lists::compare_csv_rows(c) {
        w.write_record(&row).map_err(LedgerError::from)?;
    }
    w.flush()?;
    Ok(())
}

/// The review figures of both sides as `review` rows of the compare CSV: every figure of
/// either side, 0 on the side without it. A share of valid observations only for the
/// figures that count observations; the status column stays empty.
fn review_change_rows(c: &Comparison) -> Vec<[String; 13]> {
    let (ma, mb) = (&c.a.measures, &c.b.measures);
    let (ra, rb) = (ma.review.rows(), mb.review.rows());
    let mut names: Vec<(String, bool)> = Vec::new();
    for r in ra.iter().chain(&rb) {
        if !names.iter().any(|(n, _)| *n == r.name) {
            names.push((r.name.clone(), r.of_observations));
        }
    }
    let value = |rows: &[FigureRow], name: &str| {
        rows.iter().find(|r| r.name == name).map_or(0, |r| r.value)
    };
    let share = |n: u64, of: u64| super::round_share(n, of);
    names
        .into_iter()
        .map(|(name, of_obs)| {
            let (a, b) = (value(&ra, &name), value(&rb, &name));
            let (a_share, b_share, change_share) = if of_obs {
                let (x, y) = (
                    share(a, ma.valid_observations),
                    share(b, mb.valid_observations),
                );
                (
                    format!("{x:.4}"),
                    format!("{y:.4}"),
                    format!("{:+.4}", y - x),
                )
            } else {
                Default::default()
            };
            [
                "review".to_string(),
                spreadsheet_safe(name),
                spreadsheet_safe(c.a.name().to_string()),
                a.to_string(),
                ma.valid_observations.to_string(),
                a_share,
                spreadsheet_safe(c.b.name().to_string()),
                b.to_string(),
                mb.valid_observations.to_string(),
                b_share,
                (b as i64 - a as i64).to_string(),
                change_share,
                String::new(),
            ]
        })
        .collect()
}

// ---------------------------------------------------------------------------- table

pub(super) fn write_table(
    opts: &ReportOptions,
    report: &Report,
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(
        out,
        "Citation audit ledger report (normalization policy: {})",
        policy_text(policy_of(report))
    )?;
    if let Some(f) = super::filter_sentence(opts) {
        writeln!(out, "{f}")?;
    }
    match report {
        Report::Groups(c) => {
            for g in &c.groups {
                writeln!(out)?;
                if !opts.by.is_empty() {
                    writeln!(out, "== {}", group_heading(g))?;
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

fn has_review(m: &Measures) -> bool {
    m.review.has_any()
}

/// The issue 16 figures as rows of the Markdown measures table.
fn markdown_review(m: &Measures, out: &mut dyn Write) -> Result<()> {
    if !has_review(m) {
        return Ok(());
    }
    let r = &m.review;
    for (role, n) in &r.observations_by_source_role {
        writeln!(
            out,
            "| valid observations, source role {} | {n} |",
            md(role)
        )?;
    }
    for (c, n) in &r.claim_support {
        writeln!(out, "| valid observations, claim support {} | {n} |", md(c))?;
    }
    writeln!(out, "| merges to review | {} |", r.merges_to_review)?;
    writeln!(out, "| keys split by a person | {} |", r.split_keys)?;
    writeln!(
        out,
        "| unique URL keys with splits applied | {} |",
        r.unique_keys_with_splits
    )?;
    Ok(())
}

/// The issue 16 figures, when people decided something or a merge waits for them.
fn table_review(m: &Measures, out: &mut dyn Write) -> Result<()> {
    let r = &m.review;
    if !has_review(m) {
        return Ok(());
    }
    let list = |map: &std::collections::BTreeMap<String, u64>| {
        map.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(
        out,
        "  reviews (of the {} valid observations): source role: {}; claim support: {}",
        m.valid_observations,
        list(&r.observations_by_source_role),
        list(&r.claim_support)
    )?;
    writeln!(
        out,
        "  merges to review: {} (listed below; all policies: `urlkey ledger merges`); keys split by a person: {}; \
         unique URL keys with splits applied: {}",
        r.merges_to_review, r.split_keys, r.unique_keys_with_splits
    )?;
    Ok(())
}

fn table_measures(m: &Measures, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "Sample: {}", sample_sentence(m))?;
    let unique_pub = format!("unique {}", m.publisher_unit.noun());
    let rows = [
        ("observations (invalid URLs included)", m.observations),
        ("valid observations (URL has a key)", m.valid_observations),
        (
            "invalid observations (kept, with error code)",
            m.invalid_observations,
        ),
        ("unique URL keys", m.unique_keys),
        (unique_pub.as_str(), m.unique_publishers),
    ];
    for (label, n) in rows {
        writeln!(out, "  {label:<46} {n:>8}")?;
    }
    if m.top_publishers.is_empty() {
        writeln!(out, "  top publishers: none (no valid observations)")?;
    } else {
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
    }
    let c = &m.concentration;
    writeln!(
        out,
        "  concentration over {} publishers (shares of the {} valid observations): top1 \
         {:.4}, top5 {:.4}, HHI {:.4}",
        c.publishers, c.valid_observations, c.top1_share, c.top5_share, c.hhi
    )?;
    table_review(m, out)?;
    if !m.top_keys.is_empty() {
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
    }
    // After the top keys, so the keys with splits applied read as their recount.
    super::review_lists::table(m, out)?;
    if !m.overlap.is_empty() {
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
    }
    Ok(())
}

fn summary_text(what: &str, s: &ChangeSummary) -> String {
    format!(
        "{what}: {} in A, {} in B, {} in both, {} new in B, {} gone from A",
        s.in_a, s.in_b, s.both, s.new, s.gone
    )
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

// ---------------------------------------------------------------------------- Markdown

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
        md(policy_text(policy_of(report)))
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
                    writeln!(out, "## {}", md(&group_heading(g)))?;
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
    writeln!(out, "**Sample:** {}.", md(&sample_sentence(m)))?;
    writeln!(out)?;
    writeln!(out, "| measure | value |")?;
    writeln!(out, "|---|---:|")?;
    let unique_pub = format!("unique {}", m.publisher_unit.noun());
    for (label, n) in [
        ("observations (invalid URLs included)", m.observations),
        ("valid observations (URL has a key)", m.valid_observations),
        (
            "invalid observations (kept, with error code)",
            m.invalid_observations,
        ),
        ("unique URL keys", m.unique_keys),
        (unique_pub.as_str(), m.unique_publishers),
    ] {
        writeln!(out, "| {label} | {n} |")?;
    }
    let c = &m.concentration;
    writeln!(
        out,
        "| top-1 publisher share | {:.4} (of {}) |",
        c.top1_share, c.valid_observations
    )?;
    writeln!(
        out,
        "| top-5 publishers share | {:.4} (of {}) |",
        c.top5_share, c.valid_observations
    )?;
    writeln!(
        out,
        "| HHI over {} publishers | {:.4} |",
        c.publishers, c.hhi
    )?;
    markdown_review(m, out)?;
    writeln!(out)?;
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
    super::review_lists::markdown(m, h, out)?;
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
    Ok(())
}

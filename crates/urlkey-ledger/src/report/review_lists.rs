//! The report's lists from issue 16: which keys are merges to review, and the top keys
//! with `split` decisions applied. Table, Markdown and HTML show at most [`LISTED`]
//! merges (then say how many more and where to see them all); JSON has every one.

use std::fmt::Write as _;
use std::io::Write;

use super::html::esc;
use super::review::{MergeToReview, SplitTopKey};
use super::text::md;
use super::{Comparison, Measures};
use crate::error::Result;
use crate::export::spreadsheet_safe;

/// How many merges to review the text formats and the HTML page list.
pub const LISTED: usize = 20;

fn more_line(m: &Measures) -> Option<String> {
    let all = m.review.merges_to_review_list.len();
    (all > LISTED).then(|| format!("{} more; --format json for all", all - LISTED))
}

fn spellings(t: &MergeToReview) -> String {
    let mut s = t.spellings.join(", ");
    if (t.spellings.len() as u64) < t.variants {
        s.push_str(", ...");
    }
    s
}

/// The table format's lines.
pub fn table(m: &Measures, out: &mut dyn Write) -> Result<()> {
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
                spellings(t),
                t.risky_rules.join(", "),
                t.content_check
            )?;
        }
        if let Some(more) = more_line(m) {
            writeln!(out, "    {more}")?;
        }
    }
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
                split_note(k)
            )?;
        }
    }
    Ok(())
}

fn split_note(k: &SplitTopKey) -> String {
    k.split_from
        .as_deref()
        .map(|f| format!("  (variant of split key {f})"))
        .unwrap_or_default()
}

/// Text inside a Markdown code span (a backtick would end it).
fn code(s: &str) -> String {
    md(s).replace('`', "'")
}

/// The Markdown sections.
pub fn markdown(m: &Measures, h: &str, out: &mut dyn Write) -> Result<()> {
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
                md(&spellings(t)),
                md(&t.risky_rules.join(", ")),
                md(&t.content_check)
            )?;
        }
        if let Some(more) = more_line(m) {
            writeln!(out)?;
            writeln!(out, "{more}.")?;
        }
    }
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

/// The HTML tables (`tr data-merge="KEY"`, `tr data-split-top="KEY"`).
pub fn html(h: &mut String, m: &Measures) {
    let r = &m.review;
    if !r.merges_to_review_list.is_empty() {
        h.push_str(
            "<h3>Merges to review</h3>\n<table class=\"merges-to-review\">\n<tr><th>URL key</th>\
             <th>observations</th><th>variants</th><th>spellings</th><th>risky rules</th>\
             <th>content check</th></tr>\n",
        );
        for t in r.merges_to_review_list.iter().take(LISTED) {
            let _ = writeln!(
                h,
                "<tr data-merge=\"{k}\"><td>{k}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td></tr>",
                t.observations,
                t.variants,
                esc(&spellings(t)),
                esc(&t.risky_rules.join(", ")),
                esc(&t.content_check),
                k = esc(&t.key),
            );
        }
        h.push_str("</table>\n");
        if let Some(more) = more_line(m) {
            let _ = writeln!(h, "<p class=\"more\">{}</p>", esc(&more));
        }
    }
    if !r.top_keys_with_splits.is_empty() {
        let _ = writeln!(
            h,
            "<h3>Top URL keys with splits applied</h3>\n<p>Shares of the {} valid observations; \
             a key a person split counts as its variants.</p>\n<table class=\"split-top\">\n\
             <tr><th>URL key</th><th>observations</th><th>share</th><th>split from</th></tr>",
            m.valid_observations
        );
        for k in &r.top_keys_with_splits {
            let _ = writeln!(
                h,
                "<tr data-split-top=\"{k}\"><td>{k}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{:.4}</td><td>{}</td></tr>",
                k.observations,
                k.share,
                esc(k.split_from.as_deref().unwrap_or("")),
                k = esc(&k.key),
            );
        }
        h.push_str("</table>\n");
    }
}

/// The CSV cells: every merge to review, and the top keys with splits, each `; `-joined.
pub fn csv_cells(m: &Measures) -> (String, String) {
    let merges: Vec<String> = m
        .review
        .merges_to_review_list
        .iter()
        .map(|t| {
            format!(
                "{} {} variants {} rules {} check {}",
                t.key,
                t.observations,
                t.variants,
                t.risky_rules.join(","),
                t.content_check
            )
        })
        .collect();
    let tops: Vec<String> = m
        .review
        .top_keys_with_splits
        .iter()
        .map(|k| match &k.split_from {
            Some(f) => format!("{} {} {:.4} split from {f}", k.key, k.observations, k.share),
            None => format!("{} {} {:.4}", k.key, k.observations, k.share),
        })
        .collect();
    (merges.join("; "), tops.join("; "))
}

/// The compare CSV's `merge_to_review` rows: every key listed on either side, with its
/// observations on each side (0 where it is not to review), their shares and the change;
/// the status column holds the content check (B's when the key is to review on B).
pub fn compare_csv_rows(c: &Comparison) -> Vec<[String; 13]> {
    let (ma, mb) = (&c.a.measures, &c.b.measures);
    let find = |m: &Measures, key: &str| {
        m.review
            .merges_to_review_list
            .iter()
            .find(|t| t.key == key)
            .cloned()
    };
    let mut keys: Vec<&str> = Vec::new();
    for t in mb
        .review
        .merges_to_review_list
        .iter()
        .chain(&ma.review.merges_to_review_list)
    {
        if !keys.contains(&t.key.as_str()) {
            keys.push(&t.key);
        }
    }
    keys.iter()
        .map(|key| {
            let (ta, tb) = (find(ma, key), find(mb, key));
            let n = |t: &Option<MergeToReview>| t.as_ref().map_or(0, |t| t.observations);
            let (a, b) = (n(&ta), n(&tb));
            let (x, y) = (
                super::round_share(a, ma.valid_observations),
                super::round_share(b, mb.valid_observations),
            );
            let check = tb.or(ta).map(|t| t.content_check).unwrap_or_default();
            [
                "merge_to_review".to_string(),
                spreadsheet_safe(key.to_string()),
                spreadsheet_safe(c.a.name().to_string()),
                a.to_string(),
                ma.valid_observations.to_string(),
                format!("{x:.4}"),
                spreadsheet_safe(c.b.name().to_string()),
                b.to_string(),
                mb.valid_observations.to_string(),
                format!("{y:.4}"),
                (b as i64 - a as i64).to_string(),
                format!("{:+.4}", y - x),
                check,
            ]
        })
        .collect()
}

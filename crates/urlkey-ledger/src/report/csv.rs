//! The report as CSV: one row per group (or, compared, one row per publisher, key and
//! merge to review), every text cell made safe for spreadsheets.

use std::io::Write;

use super::catalog::{Measure, Section, Shown, MEASURES};
use super::review::{self, counts_cell, FigureRow, MergeToReview};
use super::share::round_share;
use super::stability::{Figure, Stability, Steadiness};
use super::{by_text, Comparison, Group, Measures, Report, ReportOptions};
use crate::error::{LedgerError, Result};
use crate::export::spreadsheet_safe;

pub(super) fn write_csv(opts: &ReportOptions, report: &Report, out: &mut dyn Write) -> Result<()> {
    match report {
        Report::Groups(c) => write_groups_csv(opts, &c.groups, out),
        Report::Compare(_, c) => write_compare_csv(c, out),
    }
}

fn write_groups_csv(opts: &ReportOptions, groups: &[Group], out: &mut dyn Write) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header: Vec<&str> = vec!["by", "value"];
    header.extend(MEASURES.iter().flat_map(|x| x.csv.iter().copied()));
    header.extend(opts.by.iter().map(|b| b.column()));
    w.write_record(&header).map_err(LedgerError::from)?;
    let by = by_text(&opts.by);
    for g in groups {
        let m = &g.measures;
        let mut rec: Vec<String> = vec![
            by.clone(),
            spreadsheet_safe(g.value.clone().unwrap_or_default()),
        ];
        for x in MEASURES {
            rec.extend(cells(x, m));
        }
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

/// A measure's CSV cells, one per column it names.
pub(super) fn cells(x: &Measure, m: &Measures) -> Vec<String> {
    if x.csv.is_empty() {
        return Vec::new();
    }
    match x.shown {
        Shown::Count(v) => vec![v(m).to_string()],
        Shown::Share { .. } | Shown::Index(_) => vec![x.text(m)],
        Shown::PerValue { of, .. } => vec![spreadsheet_safe(counts_cell(of(m)))],
        Shown::Section(s) => section_cells(s, m),
    }
}

/// The cells of a section: lists `; `-joined in one cell.
fn section_cells(s: Section, m: &Measures) -> Vec<String> {
    let safe = |v: &[String]| spreadsheet_safe(v.join("; "));
    match s {
        Section::TextFragmentsBySystem => vec![safe(&m.text_fragments.by_system_text())],
        Section::TopPublishers => {
            let top = m.top_publishers.first();
            let all_top: Vec<String> = m
                .top_publishers
                .iter()
                .map(|t| format!("{} {} {:.4}", t.name(), t.observations, t.share))
                .collect();
            vec![
                top.map(|t| t.name().to_string()).unwrap_or_default(),
                top.map(|t| t.observations.to_string()).unwrap_or_default(),
                top.map(|t| format!("{:.4}", t.share)).unwrap_or_default(),
                all_top.join("; "),
            ]
        }
        Section::Sample => vec![
            safe(&m.sample.prompt_versions),
            safe(&m.sample.answer_systems),
            safe(&m.sample.markets),
            m.sample.window.from.clone().unwrap_or_default(),
            m.sample.window.to.clone().unwrap_or_default(),
        ],
        Section::PublisherUnit => vec![m.publisher_unit.as_str().to_string()],
        Section::TopKeys => {
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
            vec![safe(&keys)]
        }
        Section::Overlap => {
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
            vec![safe(&overlap)]
        }
        Section::MergesToReview => {
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
                        t.check_text()
                    )
                })
                .collect();
            vec![safe(&merges)]
        }
        Section::Stability => stability_cells(m),
        Section::TopKeysWithSplits => {
            let tops: Vec<String> = m
                .review
                .top_keys_with_splits
                .iter()
                .map(|k| match &k.split_from {
                    Some(f) => {
                        format!("{} {} {:.4} split from {f}", k.key, k.observations, k.share)
                    }
                    None => format!("{} {} {:.4}", k.key, k.observations, k.share),
                })
                .collect();
            vec![safe(&tops)]
        }
    }
}

/// The stability columns: a summary per answer system, then the keys and the publishers
/// that come and go (each entry led by its answer system).
fn stability_cells(m: &Measures) -> Vec<String> {
    let steady = |what: &str, t: &Steadiness| {
        format!(
            "{what} jaccard {} every {} come_and_go {}",
            t.jaccard_text(),
            t.every_text(),
            t.come_and_go_text()
        )
    };
    let summary: Vec<String> = m
        .stability
        .iter()
        .map(|s| {
            let x = &s.sample;
            format!(
                "{}: prompts {} runs {} pairs {} observations {} asked_once {} ({} obs) \
                 without_prompt_id {}, {}, {}",
                s.answer_system,
                x.prompts,
                x.runs,
                x.pairs,
                x.observations,
                x.prompts_asked_once,
                x.observations_asked_once,
                x.observations_without_prompt_id,
                steady("keys", &s.keys),
                steady("publishers", &s.publishers)
            )
        })
        .collect();
    let list = |side: fn(&Stability) -> &Steadiness| {
        let v: Vec<String> = m
            .stability
            .iter()
            .flat_map(|s| {
                side(s).top_come_and_go.iter().map(move |c| {
                    format!(
                        "{} {} prompts {} runs {}/{}",
                        s.answer_system, c.name, c.prompts, c.runs_cited, c.runs
                    )
                })
            })
            .collect();
        spreadsheet_safe(v.join("; "))
    };
    vec![
        spreadsheet_safe(summary.join("; ")),
        list(|s| &s.keys),
        list(|s| &s.publishers),
    ]
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
    for row in merge_to_review_rows(c) {
        w.write_record(&row).map_err(LedgerError::from)?;
    }
    for row in normalization_change_rows(c) {
        w.write_record(&row).map_err(LedgerError::from)?;
    }
    for row in stability_rows(c) {
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
    let (ra, rb) = (review::rows(ma), review::rows(mb));
    let mut names: Vec<(String, bool)> = Vec::new();
    for r in ra.iter().chain(&rb) {
        if !names.iter().any(|(n, _)| *n == r.name) {
            names.push((r.name.clone(), r.of_observations));
        }
    }
    let value = |rows: &[FigureRow], name: &str| {
        rows.iter().find(|r| r.name == name).map_or(0, |r| r.value)
    };
    let share = |n: u64, of: u64| round_share(n, of);
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

/// What normalization changed on both sides as `normalization` rows of the compare CSV:
/// every figure of either side (`observed_urls`, ..., `rule=NAME`, `removed_param=NAME`),
/// 0 on the side without it; no shares, the status column empty.
fn normalization_change_rows(c: &Comparison) -> Vec<[String; 13]> {
    use super::normalization::rows;
    let (ma, mb) = (&c.a.measures, &c.b.measures);
    let (ra, rb) = (rows(ma), rows(mb));
    let mut names: Vec<String> = Vec::new();
    for r in ra.iter().chain(&rb) {
        if !r.name.ends_with('=') && !names.contains(&r.name) {
            names.push(r.name.clone());
        }
    }
    let value = |rows: &[super::normalization::FigureRow], name: &str| {
        rows.iter().find(|r| r.name == name).map_or(0, |r| r.value)
    };
    names
        .into_iter()
        .map(|name| {
            let (a, b) = (value(&ra, &name), value(&rb, &name));
            [
                "normalization".to_string(),
                spreadsheet_safe(name),
                spreadsheet_safe(c.a.name().to_string()),
                a.to_string(),
                ma.valid_observations.to_string(),
                String::new(),
                spreadsheet_safe(c.b.name().to_string()),
                b.to_string(),
                mb.valid_observations.to_string(),
                String::new(),
                (b as i64 - a as i64).to_string(),
                String::new(),
                String::new(),
            ]
        })
        .collect()
}

/// The compare CSV's `merge_to_review` rows: every key listed on either side, with its
/// observations on each side (0 where it is not to review), their shares and the change;
/// the status column holds the content check (B's when the key is to review on B).
fn merge_to_review_rows(c: &Comparison) -> Vec<[String; 13]> {
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
                round_share(a, ma.valid_observations),
                round_share(b, mb.valid_observations),
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

/// The compare CSV's `stability` rows, named `SYSTEM FIGURE`: a count in `a`, `b` and
/// `change`, a ratio in `a_share`, `b_share` and `share_change` (empty: no sample).
fn stability_rows(c: &Comparison) -> Vec<[String; 13]> {
    let cell = |f: Option<Figure>| f.map(|f| f.to_string()).unwrap_or_default();
    c.stability
        .iter()
        .map(|r| {
            let ratio = r.figure.ends_with("jaccard") || r.figure.ends_with("share");
            // As the publisher and key rows: a count's change plain, a share's signed.
            let (a, b, ch, sa, sb, sch) = if ratio {
                let change = if r.change.is_some() {
                    r.change_text()
                } else {
                    String::new()
                };
                (
                    String::new(),
                    String::new(),
                    String::new(),
                    cell(r.a),
                    cell(r.b),
                    change,
                )
            } else {
                let n = String::new;
                (cell(r.a), cell(r.b), cell(r.change), n(), n(), n())
            };
            [
                "stability".to_string(),
                spreadsheet_safe(format!("{} {}", r.answer_system, r.figure)),
                spreadsheet_safe(c.a.name().to_string()),
                a,
                String::new(),
                sa,
                spreadsheet_safe(c.b.name().to_string()),
                b,
                String::new(),
                sb,
                ch,
                sch,
                String::new(),
            ]
        })
        .collect()
}

//! The report as one self-contained HTML page: the sample statement, the measures, and
//! inline SVG charts drawn with `plotters`' SVG backend (publisher shares as bars, the
//! concentration curve, and with `--compare` the change per publisher). No network
//! loads, no script: the file opens offline and prints as it shows.
//!
//! The same page is `urlkey serve --ledger`'s ledger page, with the style sheet linked
//! ([`Style::Link`]) instead of inlined, for the server's strict Content-Security-Policy.
//!
//! Every figure a test reads is in an element with a `data-measure` attribute.

use std::fmt::Write as _;

mod charts;

use charts::{change_bars, concentration_curve, publisher_bars};

use super::catalog::{Group, Measure, Section, Shown, MEASURES};
use super::review::LISTED;
use super::share::round_share;
use super::stability::figure_text;
use super::{
    sample_sentence, Change, ChangeSummary, Comparison, Measures, Report, ReportOptions, CAVEAT,
};
use crate::error::Result;

/// The page's style sheet: inlined in the file, served as `/ledger.css` by `urlkey serve`.
pub const CSS: &str = r#"
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #1a1a1a; }
h1 { font-size: 1.6rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { font-size: 1.05rem; margin-top: 1.5rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .92rem; }
table { max-width: 100%; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .5rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.t { white-space: nowrap; }
.sample { background: #f3f6fa; border-left: 4px solid #4a6fa5; padding: .5rem .75rem; }
.caveat { color: #555; font-style: italic; }
figure { margin: 1rem 0; }
figcaption { font-size: .9rem; color: #333; }
nav.views { font-size: .92rem; margin: .5rem 0 1rem; }
nav.views a { margin-right: .6rem; }
nav.views .on { font-weight: bold; }
svg { max-width: 100%; height: auto; }
code { font-size: .88rem; word-break: break-all; }
.url { overflow-wrap: anywhere; }
.lead { margin: 1rem 0 1.5rem; }
dl.headline { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
dl.headline div { flex: 1 1 8rem; border: 1px solid #d0d0d0; border-radius: 6px; padding: .35rem .8rem; background: #fafbfc; }
dl.headline dt { font-size: .8rem; color: #444; }
dl.headline dd { margin: 0; font-size: 1.35rem; font-weight: 600; font-variant-numeric: tabular-nums; }
"#;

/// How the page gets its style sheet.
pub enum Style<'a> {
    /// In a `<style>` element: the file stands alone.
    Inline,
    /// A `<link rel="stylesheet">` to this same-origin path (the server's CSP forbids
    /// inline styles).
    Link(&'a str),
}

/// HTML-escapes text for an element or a quoted attribute.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page.
pub fn page(opts: &ReportOptions, report: &Report, style: &Style) -> Result<String> {
    page_with(opts, report, style, "", "")
}

/// The whole page, with `nav` (trusted HTML: links to other views, by `urlkey serve`)
/// under the title and `after` (trusted HTML: serve's review queue) after the report, so
/// that the first screen always holds the measures (or the change, when comparing).
pub fn page_with(
    opts: &ReportOptions,
    report: &Report,
    style: &Style,
    nav: &str,
    after: &str,
) -> Result<String> {
    let mut h = String::new();
    let policy = match report {
        Report::Groups(c) => c.policy.as_deref(),
        Report::Compare(p, _) => p.as_deref(),
    };
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<title>Citation audit ledger report</title>\n");
    // No icon to fetch: a browser asks for /favicon.ico otherwise (a 404 on the server).
    h.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    match style {
        Style::Inline => {
            let _ = writeln!(h, "<style>{CSS}</style>");
        }
        Style::Link(href) => {
            let _ = writeln!(h, "<link rel=\"stylesheet\" href=\"{}\">", esc(href));
        }
    }
    h.push_str("</head>\n<body>\n<h1>Citation audit ledger report</h1>\n");
    h.push_str(nav);
    lead(&mut h, opts, report)?;
    let _ = writeln!(
        h,
        "<p>Normalization policy: <code data-measure=\"policy\">{}</code>. Observations, URL \
         keys and publishers are separate measures; each share is stated with its \
         denominator and the sample it describes.</p>",
        esc(policy.unwrap_or("none: the ledger is empty"))
    );
    if let Some(f) = super::filter_sentence(opts) {
        let _ = writeln!(h, "<p data-measure=\"filter\">{}</p>", esc(&f));
    }
    match report {
        Report::Groups(c) => {
            for (i, g) in c.groups.iter().enumerate() {
                let id = format!("g{i}");
                let _ = writeln!(h, "<section id=\"{id}\" data-group=\"{i}\">");
                if !opts.by.is_empty() {
                    let _ = writeln!(h, "<h2>{}</h2>", esc(&g.heading()));
                }
                measures(&mut h, &g.measures, &id)?;
                h.push_str("</section>\n");
            }
        }
        Report::Compare(_, c) => sides(&mut h, c)?,
    }
    let _ = writeln!(h, "<p class=\"caveat\">{}</p>", esc(CAVEAT));
    h.push_str(after);
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

/// Longer URLs are cut to this many characters in table cells; the full text is the
/// cell's `title` (shown on hover) and is in the JSON and CSV reports.
const URL_SHOWN: usize = 120;

/// A URL (or any long name) as table text: wrapped anywhere, cut at [`URL_SHOWN`]
/// characters with the whole in `title`.
fn url(s: &str) -> String {
    if s.chars().count() <= URL_SHOWN {
        return format!("<span class=\"url\">{}</span>", esc(s));
    }
    let cut: String = s.chars().take(URL_SHOWN).collect();
    format!(
        "<span class=\"url\" title=\"{}\">{}…</span>",
        esc(s),
        esc(&cut)
    )
}

/// `12,345`: the headline's numbers are read at a glance (also serve's review queue).
pub fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One figure of the headline (`dd data-headline="NAME"`).
fn headline_item(h: &mut String, name: &str, label: &str, value: &str) {
    let _ = write!(
        h,
        "<div><dt>{}</dt><dd data-headline=\"{name}\">{}</dd></div>",
        esc(label),
        esc(value)
    );
}

/// What the first screen shows: the whole ledger's headline figures, or, when two
/// samples are compared, the change from A to B. A report by groups starts with its
/// first group's measures.
fn lead(h: &mut String, opts: &ReportOptions, report: &Report) -> Result<()> {
    match report {
        Report::Groups(c) if opts.by.is_empty() => {
            let Some(g) = c.groups.first() else {
                return Ok(());
            };
            let m = &g.measures;
            h.push_str("<section class=\"lead\" id=\"lead\">\n<dl class=\"headline\">");
            let review = m.review.has_any();
            for x in MEASURES.iter().filter(|x| x.headline) {
                if x.group == Group::Review && !review {
                    continue;
                }
                let value = match x.shown {
                    Shown::Count(n) => thousands(n(m)),
                    _ => x.text(m),
                };
                headline_item(h, x.name, &x.label(m), &value);
            }
            h.push_str("</dl>\n");
            if let Some(t) = m.top_publishers.first() {
                let _ = writeln!(
                    h,
                    "<p>The most cited publisher is {} with {} of the {} valid observations \
                     ({:.4}); {} publishers hold the rest.</p>",
                    url(t.name()),
                    thousands(t.observations),
                    thousands(m.valid_observations),
                    t.share,
                    thousands(m.unique_publishers.saturating_sub(1)),
                );
            }
            h.push_str("</section>\n");
        }
        Report::Compare(_, c) => change(h, c)?,
        Report::Groups(_) => {}
    }
    Ok(())
}

fn share_cell(h: &mut String, measure: &str, share: f64, part: u64, whole: u64) {
    let _ = write!(
        h,
        "<td class=\"n\" data-measure=\"{measure}\">{share:.4}</td><td class=\"n\">{part}/{whole}</td>"
    );
}

fn measures(h: &mut String, m: &Measures, id: &str) -> Result<()> {
    section(h, Section::Sample, m, id)?;
    h.push_str("<table class=\"measures\">\n<tr><th>measure</th><th>value</th></tr>\n");
    for x in Measure::of(Group::Counts).chain(Measure::of(Group::Concentration)) {
        let label = match x.shown {
            Shown::Share { of, .. } => {
                format!("{} (of {} valid observations)", x.label_noted(m), of(m))
            }
            _ => x.label_noted(m),
        };
        let _ = writeln!(
            h,
            "<tr><td>{label}</td><td class=\"n\" data-measure=\"{}\">{}</td></tr>",
            x.name,
            x.text(m)
        );
    }
    h.push_str("</table>\n");
    review_figures(h, m);
    normalization_figures(h, m);
    section(h, Section::TextFragmentsBySystem, m, id)?;
    for s in [
        Section::MergesToReview,
        Section::TopKeysWithSplits,
        Section::PublisherUnit,
        Section::TopPublishers,
        Section::TopKeys,
        Section::Overlap,
        Section::Stability,
    ] {
        section(h, s, m, id)?;
    }
    Ok(())
}

/// One section of the measures (`id`: the group's, for the charts' ids).
fn section(h: &mut String, s: Section, m: &Measures, id: &str) -> Result<()> {
    match s {
        Section::Sample => {
            let _ = writeln!(
                h,
                "<p class=\"sample\"><strong>Sample:</strong> <span data-measure=\"sample\">{}</span>.</p>",
                esc(&sample_sentence(m))
            );
        }
        // Stated by the labels (`unique publisher hostnames`) and the publishers' header.
        Section::PublisherUnit => {}
        Section::TopPublishers => top_publishers(h, m, id)?,
        Section::TopKeys => top_keys(h, m),
        Section::Overlap => overlap(h, m),
        Section::MergesToReview => merges_to_review(h, m),
        Section::TopKeysWithSplits => top_keys_with_splits(h, m),
        Section::Stability => stability(h, m),
        Section::TextFragmentsBySystem => text_fragments(h, m),
    }
    Ok(())
}

/// The text fragment figures and the same per answer system, when some observation has
/// a text directive.
fn text_fragments(h: &mut String, m: &Measures) {
    let f = &m.text_fragments;
    if !f.has_any() {
        return;
    }
    let _ = writeln!(
        h,
        "<h3>Text fragments</h3>\n<p>{} Each directive counts by verify's latest check.</p>",
        esc(super::fragments::CAVEAT)
    );
    h.push_str("<table class=\"review\">\n<tr><th>figure</th><th>value</th></tr>\n");
    for x in Measure::of(Group::TextFragments) {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\" data-measure=\"{}\">{}</td></tr>",
            esc(&x.label_noted(m)),
            x.name,
            x.text(m)
        );
    }
    h.push_str("</table>\n");
    h.push_str(
        "<table class=\"review\" data-measure=\"text_fragments_by_answer_system\">\n<tr>\
         <th>answer system</th><th>observations</th><th>directives</th><th>found</th>\
         <th>not-found</th><th>page-changed</th><th>not-checked</th><th>unverified</th>\
         <th>malformed</th></tr>\n",
    );
    for (s, c) in &f.by_answer_system {
        let _ = write!(h, "<tr data-system=\"{}\"><td>{}</td>", esc(s), esc(s));
        for n in [
            c.observations,
            c.directives,
            c.found,
            c.not_found,
            c.page_changed,
            c.not_checked,
            c.unverified,
            c.malformed,
        ] {
            let _ = write!(h, "<td class=\"n\">{n}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

fn top_publishers(h: &mut String, m: &Measures, id: &str) -> Result<()> {
    if m.top_publishers.is_empty() {
        h.push_str("<p>No valid observations: no publishers.</p>\n");
    } else {
        let _ = writeln!(
            h,
            "<h3>Top publishers</h3>\n<p>Share = the publisher's valid observations / all {} \
             valid observations.</p>",
            m.valid_observations
        );
        let _ = write!(
            h,
            "<table class=\"publishers\">\n<tr><th>{}</th><th>observations</th><th>share</th>\
             <th>of</th>",
            m.publisher_unit.header()
        );
        let registrable = m
            .top_publishers
            .iter()
            .any(|t| t.registrable_domain.is_some());
        if registrable {
            h.push_str("<th>hostnames</th>");
        }
        h.push_str("</tr>\n");
        for t in &m.top_publishers {
            let _ = write!(
                h,
                "<tr data-publisher=\"{}\"><td>{}</td><td class=\"n\" data-measure=\"publisher_observations\">{}</td>",
                esc(t.name()),
                url(t.name()),
                t.observations
            );
            share_cell(
                h,
                "publisher_share",
                t.share,
                t.observations,
                m.valid_observations,
            );
            if registrable {
                let _ = write!(h, "<td>{}</td>", esc(&t.hostnames.join(", ")));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
        let svg = publisher_bars(m)?;
        let _ = writeln!(
            h,
            "<figure id=\"{id}-bars\" class=\"chart\">{svg}<figcaption>Publisher shares of the {} \
             valid observations (top {} of {} publishers).</figcaption></figure>",
            m.valid_observations,
            m.top_publishers.len(),
            m.unique_publishers
        );
        let svg = concentration_curve(m)?;
        let _ = writeln!(
            h,
            "<figure id=\"{id}-curve\" class=\"chart\">{svg}<figcaption>Concentration curve: the \
             cumulative share of the {} valid observations held by the top k of {} publishers \
             (the dashed line is {} equal publishers).</figcaption></figure>",
            m.valid_observations, m.unique_publishers, m.unique_publishers
        );
    }
    Ok(())
}

fn top_keys(h: &mut String, m: &Measures) {
    if !m.top_keys.is_empty() {
        let _ = writeln!(
            h,
            "<h3>Top URL keys</h3>\n<p>Share = the key's valid observations / all {} valid \
             observations; spellings = distinct observed URLs that gave the key.</p>",
            m.valid_observations
        );
        h.push_str(
            "<table class=\"keys\">\n<tr><th>URL key</th><th>publisher</th><th>observations</th>\
             <th>share</th><th>of</th><th>spellings</th><th>first seen</th><th>last seen</th></tr>\n",
        );
        for k in &m.top_keys {
            let _ = write!(
                h,
                "<tr data-key=\"{}\"><td><code>{}</code></td><td>{}</td><td class=\"n\" \
                 data-measure=\"key_observations\">{}</td>",
                esc(&k.key),
                url(&k.key),
                esc(&k.publisher),
                k.observations
            );
            share_cell(
                h,
                "key_share",
                k.share,
                k.observations,
                m.valid_observations,
            );
            let _ = writeln!(
                h,
                "<td class=\"n\" data-measure=\"spellings\">{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td></tr>",
                k.spellings,
                esc(&k.first_seen),
                esc(&k.last_seen)
            );
        }
        h.push_str("</table>\n");
    }
}

fn overlap(h: &mut String, m: &Measures) {
    if !m.overlap.is_empty() {
        h.push_str(
            "<h3>Overlap between answer systems</h3>\n<p>Jaccard index = cited by both / cited \
             by either (distinct publishers, distinct URL keys of the valid observations).</p>\n",
        );
        h.push_str(
            "<table class=\"overlap\">\n<tr><th>answer systems</th><th>valid observations</th>\
             <th>publishers in both</th><th>in either</th><th>Jaccard</th><th>keys in both</th>\
             <th>in either</th><th>Jaccard</th></tr>\n",
        );
        for o in &m.overlap {
            let _ = writeln!(
                h,
                "<tr data-pair=\"{a} ~ {b}\"><td>{a} ~ {b}</td><td class=\"n\">{} and {}</td>\
                 <td class=\"n\" data-measure=\"publishers_both\">{}</td><td class=\"n\" \
                 data-measure=\"publishers_either\">{}</td><td class=\"n\" \
                 data-measure=\"publishers_jaccard\">{:.4}</td><td class=\"n\" \
                 data-measure=\"keys_both\">{}</td><td class=\"n\" \
                 data-measure=\"keys_either\">{}</td><td class=\"n\" \
                 data-measure=\"keys_jaccard\">{:.4}</td></tr>",
                o.a_valid_observations,
                o.b_valid_observations,
                o.publishers.both,
                o.publishers.either,
                o.publishers.jaccard,
                o.keys.both,
                o.keys.either,
                o.keys.jaccard,
                a = esc(&o.a),
                b = esc(&o.b),
            );
            if let Some(k) = &o.keys_with_splits {
                let _ = writeln!(
                    h,
                    "<tr data-pair=\"{a} ~ {b}\" data-splits=\"applied\"><td>{a} ~ {b}, split \
                     decisions applied</td><td></td><td></td><td></td><td></td><td class=\"n\" \
                     data-measure=\"keys_both\">{}</td><td class=\"n\" \
                     data-measure=\"keys_either\">{}</td><td class=\"n\" \
                     data-measure=\"keys_jaccard\">{:.4}</td></tr>",
                    k.both,
                    k.either,
                    k.jaccard,
                    a = esc(&o.a),
                    b = esc(&o.b),
                );
            }
        }
        h.push_str("</table>\n");
    }
}

/// Run-to-run stability: a row per answer system (`tr data-system`), then the keys and
/// publishers that come and go (`tr data-come-and-go`).
fn stability(h: &mut String, m: &Measures) {
    if m.stability.is_empty() {
        return;
    }
    let unit = esc(m.publisher_unit.noun());
    let _ = writeln!(
        h,
        "<h3>Run-to-run stability</h3>\n<p>Per answer system, over the prompts asked more than \
         once: the mean Jaccard index of the sets cited by consecutive runs (cited by both / \
         by either; mean per prompt, then over prompts), the (prompt, key) pairs cited in every \
         run of their prompt, and those that come and go (cited in some runs, not all).</p>\n\
         <table class=\"stability\">\n<tr><th>answer system</th><th>sample</th><th>URL keys \
         mean Jaccard</th><th>URL keys in every run</th><th>URL keys come and go</th><th>{unit} \
         mean Jaccard</th><th>{unit} in every run</th><th>{unit} come and go</th></tr>"
    );
    for s in &m.stability {
        let _ = write!(
            h,
            "<tr data-system=\"{}\"><td>{}</td><td data-measure=\"stability_sample\">{}</td>",
            esc(&s.answer_system),
            esc(&s.answer_system),
            esc(&s.sample_text())
        );
        for (what, t) in [("keys", &s.keys), ("publishers", &s.publishers)] {
            let _ = write!(
                h,
                "<td class=\"n\" data-measure=\"{what}_mean_jaccard\">{}</td><td class=\"n\" \
                 data-measure=\"{what}_in_every_run\">{}</td><td class=\"n\" \
                 data-measure=\"{what}_come_and_go\">{}</td>",
                t.jaccard_text(),
                t.every_text(),
                t.come_and_go_text()
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    let rows: Vec<String> = m
        .stability
        .iter()
        .flat_map(|s| {
            let keys = s.keys.top_come_and_go.iter().map(move |c| ("key", s, c));
            keys.chain(
                s.publishers
                    .top_come_and_go
                    .iter()
                    .map(move |c| ("publisher", s, c)),
            )
        })
        .map(|(kind, s, c)| {
            format!(
                "<tr data-come-and-go=\"{}\" data-kind=\"{kind}\"><td>{}</td><td>{}</td><td \
                 class=\"n\">{}</td><td class=\"n\">{} of {}</td></tr>",
                esc(&c.name),
                esc(&s.answer_system),
                url(&c.name),
                c.prompts,
                c.runs_cited,
                c.runs
            )
        })
        .collect();
    if !rows.is_empty() {
        let _ = writeln!(
            h,
            "<table class=\"come-and-go\">\n<tr><th>answer system</th><th>come and go</th>\
             <th>prompts</th><th>cited in runs</th></tr>\n{}\n</table>",
            rows.join("\n")
        );
    }
}

fn summary(h: &mut String, what: &str, kind: &str, s: &ChangeSummary) {
    let _ = writeln!(
        h,
        "<li>{what}: <span data-measure=\"{kind}_in_a\">{}</span> in A, <span \
         data-measure=\"{kind}_in_b\">{}</span> in B, <span data-measure=\"{kind}_both\">{}</span> \
         in both, <span data-measure=\"{kind}_new\">{}</span> new in B, <span \
         data-measure=\"{kind}_gone\">{}</span> gone from A.</li>",
        s.in_a, s.in_b, s.both, s.new, s.gone
    );
}

fn change_table(h: &mut String, what: &str, kind: &str, rows: &[Change], va: u64, vb: u64) {
    let _ = writeln!(
        h,
        "<table class=\"change\" data-kind=\"{kind}\">\n<tr><th>{what}</th><th>A</th><th>B</th>\
         <th>change</th><th>A share</th><th>B share</th><th>status</th></tr>"
    );
    for r in rows {
        let _ = writeln!(
            h,
            "<tr data-name=\"{}\"><td>{}</td><td class=\"n\" data-measure=\"a\">{}</td><td \
             class=\"n\" data-measure=\"b\">{}</td><td class=\"n\" data-measure=\"change\">{:+}</td>\
             <td class=\"n\">{:.4} ({}/{va})</td><td class=\"n\">{:.4} ({}/{vb})</td><td \
             data-measure=\"status\">{}</td></tr>",
            esc(&r.name),
            url(&r.name),
            r.a,
            r.b,
            r.change,
            r.a_share,
            r.a,
            r.b_share,
            r.b,
            r.status,
        );
    }
    h.push_str("</table>\n");
}

/// The review figures (source roles, claim support, merges, splits), when people decided something or a merge waits for them. They
/// count the same valid observations as the measures above (the sample stated there).
fn review_figures(h: &mut String, m: &Measures) {
    if !m.review.has_any() {
        return;
    }
    let _ = writeln!(
        h,
        "<h3>Reviews</h3>\n<p>What people decided and what verify compared, over the same {} \
         valid observations. A merge to review: a risky rule merged its observed URLs, their \
         content check is not <code>same</code> and nobody decided (listed below).</p>",
        m.valid_observations
    );
    h.push_str(
        "<table class=\"review\">\n<tr><th>figure</th><th>value</th><th>share</th><th>of</th></tr>\n",
    );
    for r in super::review::rows(m) {
        let _ = write!(
            h,
            "<tr data-figure=\"{}\"><td>{}</td><td class=\"n\" data-measure=\"review\">{}</td>",
            esc(&r.name),
            esc(&r.label),
            r.value
        );
        if r.of_observations {
            let share = round_share(r.value, m.valid_observations);
            share_cell(h, "review_share", share, r.value, m.valid_observations);
        } else {
            h.push_str("<td></td><td></td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// What normalization changed: a table of its figures (`tr data-figure="rule=NAME"`).
fn normalization_figures(h: &mut String, m: &Measures) {
    use super::normalization::{rows, EXPLAINED, HEADING};
    let _ = writeln!(
        h,
        "<h3>{HEADING}</h3>\n<p>{} Over the same {} valid observations.</p>",
        esc(EXPLAINED),
        m.valid_observations
    );
    h.push_str("<table class=\"normalization\">\n<tr><th>figure</th><th>value</th></tr>\n");
    for r in rows(m) {
        let _ = writeln!(
            h,
            "<tr data-figure=\"{}\"><td>{}</td><td class=\"n\" data-measure=\"normalization\">{}</td></tr>",
            esc(&r.name),
            esc(&r.label),
            r.value
        );
    }
    h.push_str("</table>\n");
}

/// The measures of the two compared samples, after the change ([`change`]) that leads.
fn sides(h: &mut String, c: &Comparison) -> Result<()> {
    for (label, s, id) in [("A", &c.a, "a"), ("B", &c.b, "b")] {
        let _ = writeln!(h, "<section id=\"{id}\" data-side=\"{id}\">");
        let _ = writeln!(h, "<h2>{label}: {}</h2>", esc(&s.label()));
        measures(h, &s.measures, id)?;
        h.push_str("</section>\n");
    }
    Ok(())
}

/// The change from A to B: what a comparison is read for, so it comes first.
fn change(h: &mut String, c: &Comparison) -> Result<()> {
    let (va, vb) = (
        c.a.measures.valid_observations,
        c.b.measures.valid_observations,
    );
    h.push_str("<section id=\"change\">\n");
    let _ = writeln!(
        h,
        "<h2>Change from A ({}) to B ({})</h2>\n<p class=\"sample\">Counts are valid \
         observations. A: {}. B: {}. A's shares are of its {va} valid observations, B's of its \
         {vb}.</p>\n<ul>",
        esc(c.a.name()),
        esc(c.b.name()),
        esc(&sample_sentence(&c.a.measures)),
        esc(&sample_sentence(&c.b.measures)),
    );
    summary(h, "Publishers", "change_publishers", &c.publishers_summary);
    summary(h, "URL keys", "change_keys", &c.keys_summary);
    h.push_str("</ul>\n");
    if !c.publishers.is_empty() {
        let svg = change_bars(c)?;
        let _ = writeln!(
            h,
            "<figure id=\"change-bars\" class=\"chart\">{svg}<figcaption>Change in valid \
             observations per publisher, B ({}) minus A ({}).</figcaption></figure>",
            esc(c.b.name()),
            esc(c.a.name())
        );
    }
    change_table(h, "publisher", "publisher", &c.publishers, va, vb);
    change_table(h, "URL key", "key", &c.keys, va, vb);
    if !c.stability.is_empty() {
        h.push_str(
            "<p>Run-to-run stability per answer system (n/a: no prompt asked more than \
             once):</p>\n<table class=\"stability-change\">\n<tr><th>answer system</th><th>\
             stability figure</th><th>A</th><th>B</th><th>change</th></tr>\n",
        );
        for r in &c.stability {
            let _ = writeln!(
                h,
                "<tr data-system=\"{}\" data-figure=\"{}\"><td>{}</td><td>{}</td><td \
                 class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\" \
                 data-measure=\"stability_change\">{}</td></tr>",
                esc(&r.answer_system),
                r.figure,
                esc(&r.answer_system),
                r.figure,
                figure_text(r.a),
                figure_text(r.b),
                r.change_text()
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("</section>\n");
    Ok(())
}

/// The table of merges to review (`tr data-merge="KEY"`).
fn merges_to_review(h: &mut String, m: &Measures) {
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
                "<tr data-merge=\"{}\"><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&t.key),
                url(&t.key),
                t.observations,
                t.variants,
                spellings(&t.spellings, t.variants),
                esc(&t.risky_rules.join(", ")),
                esc(&t.check_text()),
            );
        }
        h.push_str("</table>\n");
        let all = r.merges_to_review_list.len();
        if all > LISTED {
            // No "see the JSON" advice: the page goes to people without the command line.
            let _ = writeln!(
                h,
                "<p class=\"more\">{} more merges to review are not listed here.</p>",
                thousands((all - LISTED) as u64)
            );
        }
    }
}

/// The table of the top keys with splits applied (`tr data-split-top="KEY"`).
fn top_keys_with_splits(h: &mut String, m: &Measures) {
    let r = &m.review;
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
                "<tr data-split-top=\"{}\"><td>{}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{:.4}</td><td>{}</td></tr>",
                esc(&k.key),
                url(&k.key),
                k.observations,
                k.share,
                url(k.split_from.as_deref().unwrap_or("")),
            );
        }
        h.push_str("</table>\n");
    }
}

/// A merge's listed spellings, one a line, each cut as [`url`] cuts, then how many
/// more the merge has.
fn spellings(shown: &[String], variants: u64) -> String {
    let mut out: Vec<String> = shown.iter().map(|s| url(s)).collect();
    let more = variants.saturating_sub(shown.len() as u64);
    if more > 0 {
        out.push(format!("and {} more", thousands(more)));
    }
    out.join("<br>")
}

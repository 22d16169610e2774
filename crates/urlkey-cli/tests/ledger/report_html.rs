//! `report --format html`: one self-contained page. Parsed (lol_html) and checked for its
//! numbers (every figure sits in a `data-measure` element), its charts (inline SVG from
//! plotters, with `<text>` labels) and for no external loads: no `<script>`, no
//! `src`/`href` that leaves the file.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::{fixture, ledger};
use lol_html::{element, rewrite_str, text, RewriteStrSettings};

#[derive(Default, Debug)]
struct Parsed {
    scripts: usize,
    svgs: usize,
    svg_texts: Vec<String>,
    /// Every src/href/xlink:href/action value, and every element with an inline style.
    links: Vec<String>,
    styles_attr: usize,
    style_elements: usize,
    link_elements: Vec<String>,
    /// (measure, text) in document order.
    measures: Vec<(String, String)>,
    in_svg_text: bool,
}

fn parse(html: &str) -> Parsed {
    let p = Rc::new(RefCell::new(Parsed::default()));
    let (a, b, c, d, e, f, g, h) = (
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
        Rc::clone(&p),
    );
    rewrite_str(
        html,
        RewriteStrSettings::new()
            .append_element_content_handler(element!("script", move |_| {
                a.borrow_mut().scripts += 1;
                Ok(())
            }))
            .append_element_content_handler(element!("svg", move |_| {
                b.borrow_mut().svgs += 1;
                Ok(())
            }))
            .append_element_content_handler(element!("*", move |el| {
                let mut p = c.borrow_mut();
                for at in ["src", "href", "xlink:href", "action", "srcset", "poster"] {
                    if let Some(v) = el.get_attribute(at) {
                        p.links.push(v);
                    }
                }
                if el.has_attribute("style") {
                    p.styles_attr += 1;
                }
                Ok(())
            }))
            .append_element_content_handler(element!("style", move |_| {
                d.borrow_mut().style_elements += 1;
                Ok(())
            }))
            .append_element_content_handler(element!("link", move |el| {
                e.borrow_mut()
                    .link_elements
                    .push(el.get_attribute("href").unwrap_or_default());
                Ok(())
            }))
            .append_element_content_handler(element!("[data-measure]", move |el| {
                let name = el.get_attribute("data-measure").unwrap_or_default();
                f.borrow_mut().measures.push((name, String::new()));
                Ok(())
            }))
            .append_element_content_handler(text!("[data-measure]", move |t| {
                if let Some(last) = g.borrow_mut().measures.last_mut() {
                    last.1.push_str(t.as_str());
                }
                Ok(())
            }))
            .append_element_content_handler(text!("svg text", move |t| {
                let mut p = h.borrow_mut();
                if !t.as_str().is_empty() {
                    if p.in_svg_text {
                        if let Some(l) = p.svg_texts.last_mut() {
                            l.push_str(t.as_str());
                        }
                    } else {
                        p.svg_texts.push(t.as_str().to_string());
                    }
                }
                p.in_svg_text = !t.last_in_text_node();
                Ok(())
            })),
    )
    .expect("the page parses");
    Rc::try_unwrap(p).expect("one owner").into_inner()
}

fn measure<'a>(p: &'a Parsed, name: &str) -> Vec<&'a str> {
    p.measures
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, t)| t.as_str())
        .collect()
}

fn no_external_loads(html: &str, p: &Parsed) {
    assert_eq!(p.scripts, 0, "no <script>");
    assert_eq!(p.styles_attr, 0, "no inline style attributes");
    for l in &p.links {
        let l = l.trim().to_ascii_lowercase();
        assert!(
            !(l.starts_with("http:") || l.starts_with("https:") || l.starts_with("//")),
            "external load: {l}"
        );
    }
    assert!(!html.contains("<script"), "no script tag at all");
    assert!(!html.contains("@import"), "no CSS import");
    assert!(!html.contains("url("), "no CSS url()");
}

#[test]
fn html_report_is_self_contained_and_states_its_numbers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    let out = dir.path().join("report.html");
    let r = ledger(
        &db,
        &["report", "--format", "html", "-o", out.to_str().expect("p")],
    )
    .ok();
    assert!(r.stdout.is_empty());
    let html = std::fs::read_to_string(&out).expect("html");
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
    let p = parse(&html);
    no_external_loads(&html, &p);
    assert_eq!(p.style_elements, 1, "the style sheet is inlined");
    assert_eq!(p.link_elements, ["data:,"], "only the empty icon");

    // The sample statement and the measures (crates/urlkey-ledger/tests/fixtures/README.md, by hand).
    assert_eq!(
        measure(&p, "sample"),
        [
            "27 observations; prompt-set versions: ps-2026-10, ps-2026-11; answer systems: \
          assistant-a, assistant-b; markets: de, us; collection window: 2026-11-01T09:01:00Z \
          to 2026-11-08T15:26:00Z"
        ]
    );
    assert_eq!(measure(&p, "observations"), ["27"]);
    assert_eq!(measure(&p, "valid_observations"), ["24"]);
    assert_eq!(measure(&p, "invalid_observations"), ["3"]);
    assert_eq!(measure(&p, "unique_keys"), ["15"]);
    assert_eq!(measure(&p, "unique_publishers"), ["8"]);
    assert_eq!(measure(&p, "top1_share"), ["0.2917"]);
    assert_eq!(measure(&p, "top5_share"), ["0.7917"]);
    assert_eq!(measure(&p, "hhi"), ["0.1667"]);
    assert_eq!(
        measure(&p, "publisher_share"),
        ["0.2917", "0.1667", "0.1250", "0.1250", "0.0833"]
    );
    assert_eq!(
        measure(&p, "publisher_observations"),
        ["7", "4", "3", "3", "2"]
    );
    // Every share beside its denominator.
    assert!(html.contains("<td class=\"n\">7/24</td>"), "7/24");
    assert_eq!(measure(&p, "key_observations"), ["5", "2", "2", "2", "2"]);
    assert_eq!(measure(&p, "spellings"), ["5", "2", "2", "2", "2"]);
    assert_eq!(measure(&p, "publishers_jaccard"), ["0.8750"]);
    assert_eq!(measure(&p, "keys_jaccard"), ["0.4000"]);
    assert_eq!(measure(&p, "keys_both"), ["6"]);
    assert_eq!(measure(&p, "keys_either"), ["15"]);

    // Two charts, drawn by plotters as SVG with text labels: the bars name each publisher
    // with its share and denominator; the curve has its axis descriptions.
    assert_eq!(p.svgs, 2, "publisher bars and the concentration curve");
    for want in [
        "docs.example.org",
        "0.2917 (7/24)",
        "blog.example.net",
        "0.0833 (2/24)",
        "share of 24 valid observations",
        "top k of 8 publishers",
        "cumulative share",
    ] {
        assert!(
            p.svg_texts.iter().any(|t| t.trim() == want),
            "chart text {want:?} in {:?}",
            p.svg_texts
        );
    }
    assert!(html.contains("not market share"), "the caveat");
}

#[test]
fn html_compare_has_the_change_chart_and_both_samples() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    let html = ledger(
        &db,
        &[
            "report",
            "--format",
            "html",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
            "--top",
            "0",
        ],
    )
    .ok()
    .stdout;
    let p = parse(&html);
    no_external_loads(&html, &p);
    // A's bars and curve, B's bars and curve, the change bars.
    assert_eq!(p.svgs, 5);
    let samples = measure(&p, "sample");
    assert_eq!(samples.len(), 2);
    assert!(samples[0].starts_with("14 observations; prompt-set versions: ps-2026-10;"));
    assert!(samples[1].starts_with("13 observations; prompt-set versions: ps-2026-11;"));
    assert_eq!(measure(&p, "change_publishers_new"), ["2"]);
    assert_eq!(measure(&p, "change_publishers_gone"), ["3"]);
    assert_eq!(measure(&p, "change_keys_both"), ["2"]);
    // The change per publisher, largest first (see report_measures.rs).
    assert_eq!(
        measure(&p, "change"),
        ["-3", "-3", "+2", "-2", "+2", "-1", "+1", "+0", "-2", "-2", "+2", "-2", "+1"]
    );
    assert!(
        p.svg_texts.iter().any(|t| t.trim() == "-1 (4 to 3, both)"),
        "{:?}",
        p.svg_texts
    );
    assert!(
        p.svg_texts
            .iter()
            .any(|t| t.trim() == "change in valid observations (B - A)"),
        "{:?}",
        p.svg_texts
    );
}

#[test]
fn html_escapes_what_the_ledger_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("hostile.csv");
    std::fs::write(
        &csv,
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
         h-1,ps,<script>alert(1)</script>,us,2026-11-01T00:00:00Z,https://a.example.com/x?q=<b>\n\
         h-2,ps,\"sys\"\"'&\",us,2026-11-01T00:00:00Z,https://a.example.com/y\n",
    )
    .expect("write");
    ledger(&db, &["ingest", csv.to_str().expect("p")]).ok();
    let html = ledger(&db, &["report", "--format", "html"]).ok().stdout;
    let p = parse(&html);
    no_external_loads(&html, &p);
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
}

/// Every `--word` in `html` that reads as a command-line flag (not the `--` inside a
/// punycode name such as `xn--bcher-kva.example`).
fn flags(html: &str) -> Vec<String> {
    let b = html.as_bytes();
    (0..b.len().saturating_sub(2))
        .filter(|&i| {
            b[i] == b'-'
                && b[i + 1] == b'-'
                && b[i + 2].is_ascii_lowercase()
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
        })
        .map(|i| html[i..].chars().take(20).collect())
        .collect()
}

/// The text of the element holding `data-headline="NAME"`.
fn headline<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html
        .find(&format!("data-headline=\"{name}\">"))
        .unwrap_or_else(|| panic!("headline {name}"));
    let rest = &html[at..];
    let start = rest.find('>').expect("tag end") + 1;
    let end = rest.find("</dd>").expect("dd end");
    &rest[start..end]
}

#[test]
fn html_report_leads_with_the_headline_and_names_no_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    let html = ledger(&db, &["report", "--format", "html"]).ok().stdout;
    // Right under the title: the headline, before the sample and the measures table.
    let h1 = html.find("</h1>").expect("title");
    let lead = html
        .find("<section class=\"lead\" id=\"lead\">")
        .expect("lead");
    assert!(
        html[h1 + 5..lead].trim().is_empty(),
        "nothing between title and lead"
    );
    assert!(lead < html.find("<table class=\"measures\">").expect("measures"));
    assert_eq!(headline(&html, "observations"), "27");
    assert_eq!(headline(&html, "valid_observations"), "24");
    assert_eq!(headline(&html, "unique_keys"), "15");
    assert_eq!(headline(&html, "unique_publishers"), "8");
    assert_eq!(headline(&html, "top1_share"), "0.2917");
    assert_eq!(headline(&html, "merges_to_review"), "3");
    assert!(html.contains(
        "The most cited publisher is <span class=\"url\">docs.example.org</span> with 7 of the \
         24 valid observations (0.2917)"
    ));
    // The headline is not a second copy of the measures a script reads.
    assert_eq!(html.matches("data-measure=\"observations\"").count(), 1);

    // A window filter is stated without its flag; no flag anywhere in the page.
    let html = ledger(
        &db,
        &[
            "report",
            "--format",
            "html",
            "--window",
            "2026-11-01..2026-11-07",
        ],
    )
    .ok()
    .stdout;
    assert!(html.contains(
        "Only observations run in the window 2026-11-01..2026-11-07 (both ends included)."
    ));
    assert_eq!(
        flags(&html),
        Vec::<String>::new(),
        "no command-line wording"
    );
}

#[test]
fn html_compare_leads_with_the_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let f = fixture("synthetic-citations.csv");
    ledger(&db, &["ingest", f.to_str().expect("path")]).ok();
    let html = ledger(
        &db,
        &[
            "report",
            "--format",
            "html",
            "--compare",
            "c-2026-11-01",
            "c-2026-11-08",
        ],
    )
    .ok()
    .stdout;
    let h1 = html.find("</h1>").expect("title");
    let change = html.find("<section id=\"change\">").expect("change");
    assert!(
        html[h1 + 5..change].trim().is_empty(),
        "the change comes first"
    );
    assert!(
        change
            < html
                .find("<section id=\"a\" data-side=\"a\">")
                .expect("side A")
    );
    assert_eq!(
        flags(&html),
        Vec::<String>::new(),
        "no command-line wording"
    );
}

#[test]
fn html_cuts_long_urls_and_keeps_them_whole_on_hover() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    let csv = dir.path().join("long.csv");
    let long = format!("https://a.example.com/{}", "x".repeat(300));
    std::fs::write(
        &csv,
        format!(
            "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
             l-1,ps,a,us,2026-11-01T00:00:00Z,{long}\n\
             l-2,ps,a,us,2026-11-01T00:00:00Z,https://a.example.com/short\n"
        ),
    )
    .expect("write");
    ledger(&db, &["ingest", csv.to_str().expect("p")]).ok();
    let html = ledger(&db, &["report", "--format", "html"]).ok().stdout;
    let cut: String = long.chars().take(120).collect();
    // The key's row: the whole key in data-key and title, 120 characters and `…` shown.
    assert!(html.contains(&format!(
        "<tr data-key=\"{long}\"><td><code><span class=\"url\" title=\"{long}\">{cut}…</span></code></td>"
    )), "{html}");
    // A short one is shown whole, with no title.
    assert!(html
        .contains("<td><code><span class=\"url\">https://a.example.com/short</span></code></td>"));
    // Cells wrap anywhere: no long URL widens the page.
    assert!(html.contains("overflow-wrap: anywhere"));
}

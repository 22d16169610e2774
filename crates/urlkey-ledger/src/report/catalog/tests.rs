//! Every format shows every measure of the table, and the CSV keeps its released columns.

use std::collections::BTreeMap;

use super::*;
use crate::report::fragments::{FragmentCounts, TextFragmentFigures};
use crate::report::normalization::NormalizationFigures;
use crate::report::publisher::PublisherUnit;
use crate::report::review::{MergeToReview, ReviewFigures, SplitTopKey};
use crate::report::stability::{ComeAndGo, Stability, StabilitySample, Steadiness};
use crate::report::{
    csv, html, markdown, table, Computed, Concentration, Group as ReportGroup, JsonReport, Overlap,
    Report, ReportOptions, Sample, SetOverlap, TopKey, TopPublisher, Values, Window,
};

/// A sample whose every figure is a number or a name found nowhere else in a report.
fn measures() -> Measures {
    let set = |both, jaccard| SetOverlap {
        in_a: 41,
        in_b: 42,
        both,
        either: 83 - both,
        jaccard,
    };
    Measures {
        observations: 1001,
        valid_observations: 902,
        invalid_observations: 99,
        unique_keys: 803,
        unique_publishers: 704,
        publisher_unit: PublisherUnit::Registrable,
        top_publishers: vec![TopPublisher {
            hostname: None,
            registrable_domain: Some("pub-top.example".into()),
            hostnames: vec!["www.pub-top.example".into()],
            observations: 305,
            share: 0.3381,
        }],
        concentration: Concentration {
            top1_share: 0.3381,
            top5_share: 0.7123,
            hhi: 0.1234,
            valid_observations: 902,
            publishers: 704,
        },
        top_keys: vec![TopKey {
            key: "https://key-top.example/k".into(),
            publisher: "pub-top.example".into(),
            observations: 207,
            share: 0.2295,
            spellings: 3,
            first_seen: "2026-11-01T00:00:00Z".into(),
            last_seen: "2026-11-02T00:00:00Z".into(),
        }],
        overlap: vec![Overlap {
            a: "sys-a".into(),
            b: "sys-b".into(),
            a_valid_observations: 500,
            b_valid_observations: 402,
            publishers: set(13, 0.4321),
            keys: set(11, 0.5432),
            keys_with_splits: None,
        }],
        sample: Sample {
            prompt_versions: vec!["pv-1".into()],
            answer_systems: vec!["sys-a".into(), "sys-b".into()],
            markets: vec!["mkt-zz".into()],
            window: Window {
                from: Some("2026-11-01T00:00:00Z".into()),
                to: Some("2026-11-02T00:00:00Z".into()),
            },
        },
        review: ReviewFigures {
            observations_by_source_role: BTreeMap::from([
                ("evidence".into(), 401),
                ("unclassified".into(), 501),
            ]),
            claim_support: BTreeMap::from([("yes".into(), 111), ("unreviewed".into(), 791)]),
            merges_to_review: 37,
            split_keys: 29,
            unique_keys_with_splits: 811,
            merges_to_review_list: vec![MergeToReview {
                key: "https://merge.example/m".into(),
                variants: 2,
                spellings: vec!["https://merge.example/m/".into()],
                risky_rules: vec!["remove-trailing-slash".into()],
                content_check: "different".into(),
                observations: 19,
                spellings_total: 2,
                spellings_compared: Some(2),
            }],
            top_keys_with_splits: vec![SplitTopKey {
                key: "https://split.example/v".into(),
                split_from: Some("https://split.example/".into()),
                observations: 23,
                share: 0.0255,
            }],
        },
        normalization: NormalizationFigures {
            observed_urls: 1123,
            merged_keys: 67,
            observed_urls_merged: 320,
            merged_by_rule: BTreeMap::from([
                ("remove-fragment".into(), 71),
                ("unchanged".into(), 73),
            ]),
            merged_by_removed_param: BTreeMap::from([("srsltid".into(), 79)]),
            keyed_at_ingest: 883,
            rekeyed: 118,
        },
        stability: vec![Stability {
            answer_system: "sys-a".into(),
            sample: StabilitySample {
                valid_observations: 500,
                prompts: 31,
                runs: 97,
                pairs: 66,
                observations: 480,
                prompts_asked_once: 7,
                observations_asked_once: 15,
                observations_without_prompt_id: 5,
            },
            keys: Steadiness {
                mean_jaccard: Some(0.6173),
                cited: 211,
                in_every_run: 88,
                in_every_run_share: Some(0.4171),
                come_and_go: 123,
                come_and_go_distinct: 77,
                top_come_and_go: vec![ComeAndGo {
                    name: "https://flicker.example/k".into(),
                    prompts: 9,
                    runs_cited: 12,
                    runs: 27,
                }],
            },
            publishers: Steadiness {
                mean_jaccard: Some(0.7284),
                cited: 99,
                in_every_run: 61,
                in_every_run_share: Some(0.6162),
                come_and_go: 38,
                come_and_go_distinct: 21,
                top_come_and_go: vec![ComeAndGo {
                    name: "flicker-pub.example".into(),
                    prompts: 6,
                    runs_cited: 8,
                    runs: 19,
                }],
            },
        }],
        text_fragments: {
            let c = FragmentCounts {
                observations: 613,
                directives: 1028,
                found: 241,
                not_found: 167,
                page_changed: 143,
                not_checked: 159,
                unverified: 171,
                malformed: 147,
            };
            TextFragmentFigures {
                all: c.clone(),
                by_answer_system: BTreeMap::from([("sys-frag".into(), c)]),
            }
        },
        publisher_counts: vec![305, 200, 100],
    }
}

fn report(m: &Measures) -> Report {
    Report::Groups(Computed {
        policy: Some("citation@1".into()),
        groups: vec![ReportGroup {
            value: None,
            values: Values(Vec::new()),
            measures: m.clone(),
        }],
    })
}

/// The text, Markdown and HTML reports of the sample.
fn for_people(m: &Measures) -> Vec<(&'static str, String)> {
    let (opts, r) = (ReportOptions::default(), report(m));
    let mut t = Vec::new();
    table::write_table(&opts, &r, &mut t).expect("table");
    let mut md = Vec::new();
    markdown::write_markdown(&opts, &r, &mut md).expect("markdown");
    let page = html::page(&opts, &r, &html::Style::Inline).expect("html");
    vec![
        ("text", String::from_utf8(t).expect("utf-8")),
        ("markdown", String::from_utf8(md).expect("utf-8")),
        ("html", page),
    ]
}

/// What shows a section in a report for people.
fn evidence(s: Section) -> &'static str {
    match s {
        Section::Sample => "mkt-zz",
        Section::PublisherUnit => "publisher registrable domains",
        Section::TopPublishers => "pub-top.example",
        Section::TopKeys => "https://key-top.example/k",
        Section::Overlap => "0.4321",
        Section::MergesToReview => "https://merge.example/m",
        Section::TopKeysWithSplits => "https://split.example/v",
        Section::TextFragmentsBySystem => "sys-frag",
        Section::Stability => "https://flicker.example/k",
    }
}

/// Every stability figure of the sample, as the reports for people print it.
#[test]
fn every_format_for_people_shows_every_stability_figure() {
    let m = measures();
    for (format, out) in for_people(&m) {
        for figure in [
            "0.6173",
            "88 of 211 = 0.4171",
            "123 (77 distinct)",
            "0.7284",
            "61 of 99 = 0.6162",
            "38 (21 distinct)",
            "31 prompts asked more than once, 97 runs, 66 pairs of consecutive runs, 480 valid observations",
            "7 prompts asked once (15 valid observations), 5 valid observations without a prompt_id",
            "flicker-pub.example",
        ] {
            assert!(out.contains(figure), "{format} does not show {figure}:\n{out}");
        }
    }
}

#[test]
fn every_format_for_people_shows_every_measure() {
    let m = measures();
    assert!(m.review.has_any(), "the sample shows the review figures");
    assert!(m.text_fragments.has_any(), "and the text fragment figures");
    for (format, out) in for_people(&m) {
        // A figure is shown when one line holds its name for people and its value.
        let shown = |name: &[&str], value: &str| {
            out.lines()
                .any(|l| l.contains(value) && name.iter().any(|n| l.contains(n)))
        };
        for x in MEASURES {
            let label = x.label(&m);
            let names = [label.as_str(), x.short];
            match x.shown {
                Shown::Count(_) | Shown::Share { .. } | Shown::Index(_) => assert!(
                    shown(&names, &x.text(&m)),
                    "{format} does not show {} = {}:\n{out}",
                    x.name,
                    x.text(&m)
                ),
                Shown::PerValue { of, .. } => {
                    for (v, n) in of(&m) {
                        assert!(
                            out.lines().any(|l| l.contains(x.short)
                                && l.contains(v.as_str())
                                && l.contains(&n.to_string())),
                            "{format} does not show {} {v} = {n}:\n{out}",
                            x.name
                        );
                    }
                }
                Shown::Section(s) => assert!(
                    out.contains(evidence(s)),
                    "{format} does not show the section {}:\n{out}",
                    x.name
                ),
            }
        }
    }
}

/// The CSV columns of the released reports, in their order: a new measure's columns go
/// after them (scripts read the CSV by position).
const RELEASED_CSV: &[&str] = &[
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

#[test]
fn the_csv_has_every_measure_in_its_columns_after_the_released_ones() {
    let m = measures();
    let mut out = Vec::new();
    csv::write_csv(&ReportOptions::default(), &report(&m), &mut out).expect("csv");
    let mut r = ::csv::Reader::from_reader(out.as_slice());
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert!(
        header.starts_with(
            &RELEASED_CSV
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        ),
        "the released columns moved: {header:?}"
    );
    let row = r.records().next().expect("a row").expect("row");
    let cell = |c: &str| {
        let i = header.iter().position(|h| h == c).expect("column");
        row[i].to_string()
    };
    for x in MEASURES {
        for c in x.csv {
            assert_eq!(
                header.iter().filter(|h| h == c).count(),
                1,
                "column {c} once"
            );
        }
        match x.shown {
            Shown::Count(_) | Shown::Share { .. } | Shown::Index(_) => {
                for c in x.csv {
                    assert_eq!(cell(c), x.text(&m), "{}", x.name);
                }
            }
            Shown::PerValue { of, .. } => {
                for (v, n) in of(&m) {
                    assert!(cell(x.csv[0]).contains(&format!("{v} {n}")), "{}", x.name);
                }
            }
            Shown::Section(_) => {
                for c in x.csv {
                    assert!(!cell(c).is_empty(), "{} {c} is empty", x.name);
                }
            }
        }
    }
    // The one measure the CSV states through another's columns.
    assert_eq!(cell("top_publisher_share"), "0.3381");
}

#[test]
fn the_json_has_every_measure_at_its_path_and_nothing_else() {
    let m = measures();
    let r = report(&m);
    let json = serde_json::to_value(JsonReport::of(&r, &[])).expect("json");
    let at = |path: &str| {
        path.split('.')
            .try_fold(&json, |v, k| v.get(k))
            .cloned()
            .unwrap_or_else(|| panic!("no {path} in the JSON: {json}"))
    };
    for x in MEASURES {
        let v = at(x.json);
        match x.shown {
            Shown::Count(n) => assert_eq!(v, serde_json::json!(n(&m)), "{}", x.json),
            Shown::Share { value, .. } | Shown::Index(value) => {
                assert_eq!(v, serde_json::json!(value(&m)), "{}", x.json)
            }
            Shown::PerValue { of, .. } => {
                assert_eq!(v, serde_json::json!(of(&m)), "{}", x.json)
            }
            Shown::Section(_) => assert!(
                v.as_array().is_some_and(|a| !a.is_empty()) || v.is_object() || v.is_string(),
                "{}: {v}",
                x.json
            ),
        }
    }
    // Every field of the JSON is a measure, holds measures, or is a stated denominator.
    let known = |path: &str| {
        MEASURES
            .iter()
            .any(|x| x.json == path || x.json.starts_with(&format!("{path}.")))
            || JSON_DENOMINATORS.contains(&path)
    };
    for (k, v) in json.as_object().expect("an object") {
        assert!(
            known(k),
            "{k} is in the JSON but not in the table of measures"
        );
        if k != "sample" {
            for sub in v.as_object().into_iter().flat_map(|o| o.keys()) {
                let path = format!("{k}.{sub}");
                assert!(known(&path), "{path} is not in the table of measures");
            }
        }
    }
}

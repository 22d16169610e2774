//! `propose` on a realistic migration (tests/propose/: a crawl export with titles; http to
//! https, www dropped, lowercased paths, dropped .html/.php, moved folders, retired pages,
//! two ambiguous pages, an invalid row, a blank line, CRLF and a BOM on OLD), checked
//! byte for byte against `tests/propose/expected.csv`, and what the rows promise.
//!
//! Re-blessing: `URLKEY_BLESS=1 cargo test -p urlkey-redirects --test propose` rewrites
//! the expected file; review every line of the diff (a blessed fixture cannot fail).

use std::path::{Path, PathBuf};

use urlkey::PolicySet;
use urlkey_batch::input::{open_records, InputFormat, KeepColumns, ReadOptions, Source};
use urlkey_redirects::propose::rows::{Summary, COLUMNS};
use urlkey_redirects::propose::writer::{RowFormat, RowWriter};
use urlkey_redirects::propose::{run, NewSite, Page, Status, COMMON, LOOSE_POLICY};
use urlkey_redirects::RedirectMap;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/propose")
        .join(name)
}

fn opts() -> ReadOptions {
    ReadOptions {
        format: InputFormat::Csv,
        column: Some("Address".into()),
        keep: KeepColumns::Names(vec!["Title 1".into()]),
        ..ReadOptions::default()
    }
}

/// The CSV rows of `--policy mapper@1 --column Address --title-column "Title 1" OLD NEW`.
fn propose_csv(old: &Path, new: &Path, threads: usize) -> (String, Summary) {
    let set = PolicySet::builtin();
    let policy = set.get("mapper@1").expect("policy");
    let loose = set.get(LOOSE_POLICY).expect("loose");
    let mut site = NewSite::with_loose(policy, Some(loose));
    let mut new = open_records(&Source::File(new.into()), &opts()).expect("open NEW");
    run::index_new(&mut site, new.as_mut(), true, threads).expect("index NEW");
    let mut old = open_records(&Source::File(old.into()), &opts()).expect("open OLD");
    let mut rows = RowWriter::new(RowFormat::Csv, Vec::new()).expect("writer");
    let summary = run::propose_old(&site, old.as_mut(), true, threads, &mut rows).expect("propose");
    let bytes = rows.into_inner().expect("flush");
    (String::from_utf8(bytes).expect("UTF-8"), summary)
}

fn expected() -> String {
    std::fs::read_to_string(fixture("expected.csv")).expect("tests/propose/expected.csv")
}

#[test]
fn a_realistic_migration_gives_the_golden_rows() {
    let (got, _) = propose_csv(&fixture("old.csv"), &fixture("new.csv"), 1);
    if std::env::var_os("URLKEY_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(fixture("expected.csv"), &got).expect("bless");
    }
    assert_eq!(
        got,
        expected(),
        "URLKEY_BLESS=1 rewrites it: review the diff"
    );
}

/// Rows of the golden output by OLD's URL.
fn rows() -> Vec<csv::StringRecord> {
    let text = expected();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    let want: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    assert_eq!(header, want);
    r.records().map(|r| r.expect("row")).collect()
}

fn cell<'a>(row: &'a csv::StringRecord, name: &str) -> &'a str {
    let i = COLUMNS.iter().position(|c| c.0 == name).expect(name);
    &row[i]
}

fn row_of(rows: &[csv::StringRecord], source: &str) -> csv::StringRecord {
    rows.iter()
        .find(|r| cell(r, "source") == source)
        .unwrap_or_else(|| panic!("no row for {source}"))
        .clone()
}

#[test]
fn the_golden_rows_say_what_a_migration_lead_expects() {
    let rows = rows();
    let shop = "http://www.acme-shop.com";
    // One row per OLD record (the blank line is no record), in input order.
    let lines: Vec<u64> = rows
        .iter()
        .map(|r| cell(r, "line").parse().expect("line"))
        .collect();
    assert_eq!(lines.len(), 18);
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
    let check = |source: &str, status: &str, target: &str, first_evidence: &str| {
        let r = row_of(&rows, source);
        assert_eq!(cell(&r, "status"), status, "{source}");
        assert_eq!(cell(&r, "target"), target, "{source}");
        assert_eq!(
            cell(&r, "evidence").split(';').next().unwrap_or(""),
            first_evidence,
            "{source}"
        );
        r
    };
    check(
        "https://acme-shop.com/about-us",
        "served",
        "https://acme-shop.com/about-us",
        "served",
    );
    check(
        "https://acme-shop.com/contact?utm_source=newsletter&utm_medium=email",
        "same-key",
        "https://acme-shop.com/contact",
        "same-key",
    );
    // http -> https and www dropped: the loose policy's key.
    check(
        &format!("{shop}/"),
        "candidate",
        "https://acme-shop.com/",
        "same-key-loose",
    );
    // Lowercased paths, dropped extensions.
    let blue = check(
        &format!("{shop}/Products/Blue-Widget.html"),
        "candidate",
        "https://acme-shop.com/products/blue-widget",
        "same-path",
    );
    assert!(cell(&blue, "evidence").contains("same-title"));
    // Moved folders: same stem under another parent, the detail names both.
    let moved = check(
        &format!("{shop}/news/2020/new-warehouse.html"),
        "candidate",
        "https://acme-shop.com/blog/new-warehouse",
        "same-stem",
    );
    assert!(
        cell(&moved, "evidence_detail").contains("moved from /news/2020/ to /blog/"),
        "{moved:?}"
    );
    check(
        &format!("{shop}/jobs/"),
        "candidate",
        "https://acme-shop.com/careers",
        "same-title",
    );
    let words = check(
        &format!("{shop}/catalog/garden-hose-25m.html"),
        "candidate",
        "https://acme-shop.com/products/garden/hose-25m",
        "shared-tokens",
    );
    assert!(cell(&words, "evidence_detail").contains("jaccard 0.60"));
    assert_eq!(cell(&words, "score"), "18");
    // Retired pages: no target, and never the homepage without a reason.
    for retired in [
        "/Products/Discontinued-Gadget.html",
        "/legacy/flash-intro.swf",
        "/product.php?id=42",
    ] {
        let r = check(&format!("{shop}{retired}"), "none", "", "");
        assert_eq!(cell(&r, "score"), "");
    }
    let invalid = check("javascript:void(0)", "invalid", "", "");
    assert_eq!(cell(&invalid, "error_code"), "mapper.unsupported-scheme");
    // Ties: two new FAQs, two new green widgets.
    for (source, runner_up) in [
        ("/support/faq.html", "https://acme-shop.com/shipping/faq"),
        (
            "/widgets/green.html",
            "https://acme-shop.com/products/green-widget-large",
        ),
    ] {
        let r = row_of(&rows, &format!("{shop}{source}"));
        assert_eq!(cell(&r, "ambiguous"), "true", "{source}");
        assert_eq!(cell(&r, "runner_up"), runner_up);
        assert_eq!(cell(&r, "score"), cell(&r, "runner_up_score"));
    }
    let ambiguous = rows
        .iter()
        .filter(|r| cell(r, "ambiguous") == "true")
        .count();
    assert_eq!(ambiguous, 2);
    // urlkey proposes; a person decides.
    for r in &rows {
        assert_eq!(cell(r, "decision"), "");
        assert_eq!(cell(r, "review"), "MANUAL REVIEW REQUIRED");
        let has_target = !cell(r, "target").is_empty();
        assert_eq!(has_target, !cell(r, "evidence").is_empty(), "{r:?}");
        if has_target && cell(r, "target").ends_with(".com/") {
            assert!(
                !cell(r, "evidence").is_empty(),
                "a homepage with no reason: {r:?}"
            );
        }
    }
}

#[test]
fn the_counts_add_up_and_the_reviewed_rows_are_a_map() {
    let (text, summary) = propose_csv(&fixture("old.csv"), &fixture("new.csv"), 1);
    assert_eq!(summary.records, 18);
    assert_eq!(summary.by_status.iter().sum::<u64>(), summary.records);
    assert_eq!(summary.of(Status::Candidate), 12);
    assert_eq!(summary.of(Status::None), 3);
    assert_eq!(summary.of(Status::Invalid), 1);
    assert_eq!(summary.ambiguous, 2);
    // Unreviewed: every row is set aside as not accepted.
    let map = RedirectMap::from_csv("proposals.csv", &text).expect("a MAP");
    assert!(map.has_decisions);
    assert_eq!(map.rows(), 18);
    assert!(map.entries.is_empty());
    // A reviewer accepts every row with a target and gives one a 302.
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(r.headers().expect("header"))
        .expect("header");
    let (status, target, decision) = (2, 3, COLUMNS.len() - 2);
    let mut accepted = 0;
    for (i, rec) in r.records().enumerate() {
        let mut cells: Vec<String> = rec.expect("row").iter().map(String::from).collect();
        if !cells[target].is_empty() {
            cells[decision] = "accept".into();
            accepted += 1;
            if i == 1 {
                cells[status] = "302".into();
            }
        }
        w.write_record(&cells).expect("row");
    }
    let reviewed = String::from_utf8(w.into_inner().expect("flush")).expect("UTF-8");
    let map = RedirectMap::from_csv("reviewed.csv", &reviewed).expect("a MAP");
    assert_eq!(map.entries.len(), accepted);
    assert_eq!(map.rows(), 18);
    assert!(
        map.set_aside.iter().all(|s| !s.reason.is_problem()),
        "{:?}",
        map.set_aside
    );
    assert_eq!(map.entries[0].status, 301);
    assert_eq!(map.entries[1].status, 302);
    assert_eq!(map.entries[1].target, "https://acme-shop.com/about-us");
}

/// The same migration in the other shapes people have: OLD without BOM and with LF,
/// NEW in UTF-16LE with a BOM, semicolons and CRLF. Same rows, byte for byte.
#[test]
fn the_shape_of_the_files_does_not_change_the_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = std::fs::read_to_string(fixture("old.csv")).expect("old");
    let old = old.trim_start_matches('\u{feff}').replace("\r\n", "\n");
    let old_path = dir.path().join("old.csv");
    std::fs::write(&old_path, old).expect("write");
    let new = std::fs::read_to_string(fixture("new.csv")).expect("new");
    let mut r = csv::Reader::from_reader(new.as_bytes());
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    w.write_record(r.headers().expect("header"))
        .expect("header");
    for rec in r.records() {
        w.write_record(&rec.expect("row")).expect("row");
    }
    let semi = String::from_utf8(w.into_inner().expect("flush")).expect("UTF-8");
    let mut utf16: Vec<u8> = vec![0xFF, 0xFE];
    utf16.extend(semi.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let new_path = dir.path().join("new.csv");
    std::fs::write(&new_path, utf16).expect("write");
    let (got, _) = propose_csv(&old_path, &new_path, 1);
    assert_eq!(got, expected());
}

#[test]
fn threads_do_not_change_the_rows() {
    let (one, _) = propose_csv(&fixture("old.csv"), &fixture("new.csv"), 1);
    let set = PolicySet::builtin();
    let mut site = NewSite::new(set.get("mapper@1").expect("policy"));
    // Enough pages for the parallel path (it runs batches of 256 or more on threads).
    let pages: Vec<Page> = (0..2000)
        .map(|i| Page {
            url: format!("https://acme-shop.com/products/item-{i}"),
            title: Some(format!("Item {}", i % 700)),
        })
        .collect();
    site.add_all(pages.clone(), 4);
    let olds: Vec<Page> = pages
        .iter()
        .map(|p| Page {
            url: p.url.replace("https://", "http://www.") + ".html",
            title: p.title.clone(),
        })
        .collect();
    assert_eq!(site.propose_all(&olds, 1), site.propose_all(&olds, 4));
    let (four, _) = propose_csv(&fixture("old.csv"), &fixture("new.csv"), 4);
    assert_eq!(one, four);
}

/// A run over inputs of many batches: NEW larger than one of `add_all`'s slices, OLD
/// spread over many of the pipeline's batches, with unreadable and keyless rows among
/// them. One thread and two give the same bytes in every format, a row per record in
/// input order, and the indexes built at once equal those built page by page.
#[test]
fn many_batches_give_the_same_rows_on_any_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (dir.path().join("old.csv"), dir.path().join("new.csv"));
    let mut n = String::from("Address,Title 1\n");
    for i in 0..20_000 {
        n.push_str(&format!(
            "https://shop.example/c{}/item-{i},Item {} | Shop\n",
            i % 37,
            i % 9_000
        ));
    }
    let mut o = String::from("Address,Title 1\r\n");
    for i in 0..10_000 {
        match i % 500 {
            // A URL with no key, and a cell a stray quote leaves unreadable.
            7 => o.push_str("http://[::1/x,Broken\r\n"),
            11 => o.push_str("http://www.shop.example/a\"b,Quote\r\n"),
            _ => o.push_str(&format!(
                "http://www.shop.example/old/item-{}.html,Item {} | Old shop\r\n",
                i * 2,
                (i * 2) % 9_000
            )),
        }
    }
    std::fs::write(&new, n).expect("write NEW");
    std::fs::write(&old, o).expect("write OLD");
    let (one, summary) = propose_csv(&old, &new, 1);
    let (two, _) = propose_csv(&old, &new, 2);
    assert_eq!(one, two, "two threads change the CSV rows");
    let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(one.as_bytes())
        .records()
        .collect::<Result<_, _>>()
        .expect("CSV");
    assert_eq!(rows.len(), 10_000, "a row per OLD record");
    let lines: Vec<u64> = rows
        .iter()
        .map(|r| r[0].parse().expect("line number"))
        .collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "rows in input order");
    assert_eq!(summary.records, 10_000);
    let invalid = rows
        .iter()
        .filter(|r| cell(r, "status") == "invalid")
        .count();
    assert_eq!(summary.of(Status::Invalid), invalid as u64);
    assert!(invalid >= 20, "the 20 keyless rows are invalid ({invalid})");
    for format in formats() {
        assert_eq!(
            propose_bytes(&old, &new, 1, format),
            propose_bytes(&old, &new, 2, format),
            "two threads change the {format:?} rows"
        );
    }
    // The indexes of `add_all` (every page at once, in slices) and of `add`.
    let set = PolicySet::builtin();
    let pages: Vec<Page> = (0..20_000)
        .map(|i| Page {
            url: format!("https://shop.example/c{}/item-{i}", i % 37),
            title: Some(format!("Item {}", i % 9_000)),
        })
        .collect();
    let mut at_once = NewSite::new(set.get("mapper@1").expect("policy"));
    at_once.add_all(pages.clone(), 2);
    let mut one_by_one = NewSite::new(set.get("mapper@1").expect("policy"));
    for p in pages.iter().cloned() {
        one_by_one.add(p);
    }
    let olds: Vec<Page> = (0..3_000)
        .map(|i| Page {
            url: format!("http://www.shop.example/old/item-{}.html", i * 7),
            title: Some(format!("Item {}", (i * 7) % 9_000)),
        })
        .collect();
    assert_eq!(
        at_once.propose_all(&olds, 2),
        one_by_one.propose_all(&olds, 1)
    );
}

/// Every row format this build writes.
fn formats() -> Vec<RowFormat> {
    vec![
        RowFormat::Csv,
        RowFormat::Jsonl,
        #[cfg(feature = "parquet")]
        RowFormat::Parquet,
    ]
}

/// The bytes of a run in `format`.
fn propose_bytes(old: &Path, new: &Path, threads: usize, format: RowFormat) -> Vec<u8> {
    let set = PolicySet::builtin();
    let mut site = NewSite::new(set.get("mapper@1").expect("policy"));
    let mut new = open_records(&Source::File(new.into()), &opts()).expect("open NEW");
    run::index_new(&mut site, new.as_mut(), true, threads).expect("index NEW");
    let mut old = open_records(&Source::File(old.into()), &opts()).expect("open OLD");
    let mut rows = RowWriter::new(format, Vec::new()).expect("writer");
    run::propose_old(&site, old.as_mut(), true, threads, &mut rows).expect("propose");
    rows.into_inner().expect("flush")
}

/// A value shared by more than COMMON new pages names none of them: one old URL costs a
/// bounded number of candidates, however many `index.html` the new site has.
#[test]
fn common_values_name_no_candidate() {
    let set = PolicySet::builtin();
    let mut site = NewSite::new(set.get("webkey@1").expect("policy"));
    let n = COMMON as usize + 200;
    let pages: Vec<Page> = (0..n)
        .map(|i| Page {
            url: format!("https://example.com/shop/section-{i}/index.html"),
            title: Some("Shop".into()),
        })
        .collect();
    site.add_all(pages, 2);
    assert_eq!(site.len(), n);
    // Same last segment, stem, title and the words "shop" and "index" as every new page:
    // all common, so no evidence.
    let p = site.propose(&Page {
        url: "http://old.example.org/shop/archive/index.html".into(),
        title: Some("Shop".into()),
    });
    assert_eq!(p.status, Status::None, "{p:?}");
    // A rare word still finds its page.
    let p = site.propose(&Page {
        url: "http://old.example.org/shop/section-7/index.html".into(),
        title: None,
    });
    assert_eq!(p.status, Status::Candidate, "{p:?}");
    assert_eq!(
        p.target.as_deref(),
        Some("https://example.com/shop/section-7/index.html")
    );
}

#[test]
fn under_the_loose_policy_itself_there_is_no_loose_evidence() {
    let set = PolicySet::builtin();
    let mut site = NewSite::new(set.get(LOOSE_POLICY).expect("policy"));
    assert_eq!(site.loose_policy(), None);
    site.add(Page {
        url: "https://example.com/a".into(),
        title: None,
    });
    let p = site.propose(&Page {
        url: "http://www.example.com/A/".into(),
        title: None,
    });
    assert_eq!(p.status, Status::SameKey);
    let names: Vec<&str> = p.evidence.iter().map(|e| e.kind.name()).collect();
    assert!(!names.contains(&"same-key-loose"), "{names:?}");
    assert!(!p.ambiguous);
}

/// docs/redirects.md's evidence table is EVIDENCE, row by row, and its numbers are the
/// constants the code uses.
#[test]
fn the_docs_list_the_evidence_table() {
    let docs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/redirects.md"),
    )
    .expect("docs/redirects.md");
    let start = docs.find("|---|---:|---|\n").expect("the evidence table") + 15;
    let end = docs
        .find("<!-- end of the evidence table -->")
        .expect("its end");
    let rows: Vec<String> = docs[start..end].lines().map(String::from).collect();
    let want: Vec<String> = urlkey_redirects::propose::EVIDENCE
        .iter()
        .map(|e| format!("| `{}` | {} | {} |", e.name, e.points, e.meaning))
        .collect();
    assert_eq!(rows, want);
    assert!(docs.contains(&format!("**{}** new pages", fmt_thousands(COMMON))));
    assert!(docs.contains(&format!(
        "**{} point** of the target's",
        urlkey_redirects::propose::AMBIGUOUS_WITHIN
    )));
    assert!(docs.contains(&format!("uses **{LOOSE_POLICY}**")));
    assert!(docs.contains(&format!(
        "more than **{}** new pages (a shop's",
        urlkey_redirects::propose::COMMON_WORD
    )));
}

fn fmt_thousands(n: u32) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

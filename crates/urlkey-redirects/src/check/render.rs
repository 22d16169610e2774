//! A [`CheckReport`] for people (text) and for spreadsheets (CSV, one row per finding).
//! JSON is the report itself (`serde_json`).

use std::io::{self, Write};

use super::{CheckReport, FindingKind};

/// Findings of one kind shown in the text report; the rest are counted (the JSON and CSV
/// reports list every one).
pub const TEXT_PER_KIND: usize = 20;

/// MAP lines shown per finding in the text report.
pub const TEXT_LINES: usize = 12;

/// The CSV report's header.
pub const CSV_HEADER: [&str; 5] = ["severity", "kind", "limit", "lines", "detail"];

/// Writes the text report.
pub fn write_text(r: &CheckReport, map_name: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "check {map_name} for {}", r.server)?;
    writeln!(
        out,
        "rows {}: {} redirects, {} set aside",
        r.rows, r.entries, r.set_aside
    )?;
    if let Some(t) = &r.targets {
        writeln!(
            out,
            "targets in the new site: {} held, {} held under another spelling, {} missing, {} on other sites",
            t.held, t.held_otherwise, t.missing, t.external
        )?;
    }
    for kind in FindingKind::ALL {
        let all: Vec<_> = r.of(kind).collect();
        for f in all.iter().take(TEXT_PER_KIND) {
            let shown: Vec<String> = f
                .lines
                .iter()
                .take(TEXT_LINES)
                .map(u64::to_string)
                .collect();
            let more = f.lines.len().saturating_sub(TEXT_LINES);
            let lines = if more > 0 {
                format!("{} and {more} more", shown.join(", "))
            } else {
                shown.join(", ")
            };
            let word = if f.lines.len() == 1 { "line" } else { "lines" };
            writeln!(
                out,
                "{:<7} {:<18} {word} {lines}: {}",
                f.severity.as_str(),
                kind.as_str(),
                one_line(&f.detail)
            )?;
        }
        if all.len() > TEXT_PER_KIND {
            writeln!(
                out,
                "        {:<18} and {} more (the JSON and CSV reports list every one)",
                kind.as_str(),
                all.len() - TEXT_PER_KIND
            )?;
        }
    }
    writeln!(
        out,
        "{}: {} errors, {} warnings",
        if r.passes() { "passes" } else { "fails" },
        r.errors,
        r.warnings
    )
}

/// A detail on one line of the text report: a MAP cell's line breaks and other control
/// characters shown escaped, so that a cell cannot forge report lines.
fn one_line(detail: &str) -> std::borrow::Cow<'_, str> {
    if detail.chars().any(char::is_control) {
        std::borrow::Cow::Owned(
            detail
                .chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_default().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(detail)
    }
}

/// Writes the CSV report: one row per finding (a detail a spreadsheet would run as a
/// formula starts with `'`), its lines separated by spaces.
pub fn write_csv(r: &CheckReport, out: &mut impl Write) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let err = |e: csv::Error| io::Error::other(e.to_string());
    w.write_record(CSV_HEADER).map_err(err)?;
    for f in &r.findings {
        let lines: Vec<String> = f.lines.iter().map(u64::to_string).collect();
        w.write_record([
            f.severity.as_str(),
            f.kind.as_str(),
            f.limit.unwrap_or(""),
            &lines.join(" "),
            &urlkey_batch::rows::spreadsheet_safe(&f.detail),
        ])
        .map_err(err)?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::{RedirectMap, Server};

    #[test]
    fn cells_cannot_forge_lines_or_formulas() {
        let map = RedirectMap::from_csv(
            "m.csv",
            "source,target\n\"=HYPERLINK(1)\",/a\n/a,\"x\nerror   fake\"\n",
        )
        .unwrap();
        let r = check(&map, Server::Apache);
        let mut text = Vec::new();
        write_text(&r, "m.csv", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            !text.lines().any(|l| l.starts_with("error   fake")),
            "{text}"
        );
        let mut out = Vec::new();
        write_csv(&r, &mut out).unwrap();
        let mut rd = csv::Reader::from_reader(out.as_slice());
        let details: Vec<String> = rd.records().map(|r| r.unwrap()[4].to_string()).collect();
        assert!(details.iter().all(|d| !d.starts_with('=')), "{details:?}");
        assert!(
            details
                .iter()
                .any(|d| d.starts_with("'=HYPERLINK(1) -> /a")),
            "{details:?}"
        );
    }

    #[test]
    fn text_and_csv_say_the_same_findings() {
        let mut csv = String::from("source,target\n/a,/a\n");
        for i in 0..(TEXT_PER_KIND + 2) {
            csv.push_str(&format!("/d{i},/x{i}\n/d{i},/y{i}\n"));
        }
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        let r = check(&map, Server::Apache);
        let mut text = Vec::new();
        write_text(&r, "m.csv", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.starts_with("check m.csv for apache\n"), "{text}");
        assert!(text.contains("error   self"), "{text}");
        assert!(text.contains("conflict           and 2 more"), "{text}");
        assert!(
            text.ends_with(&format!(
                "fails: {} errors, 0 warnings\n",
                TEXT_PER_KIND + 3
            )),
            "{text}"
        );
        let mut out = Vec::new();
        write_csv(&r, &mut out).unwrap();
        let mut rd = csv::Reader::from_reader(out.as_slice());
        let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), r.findings.len());
        assert_eq!(&rows[0][1], "self");
        assert_eq!(&rows[1][3], "3 4");
    }
}

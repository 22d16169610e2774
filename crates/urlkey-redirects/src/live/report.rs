//! A row's report, the CSV it is written as, and the counts of a run.

use std::collections::BTreeMap;
use std::io::{self, Write};

use urlkey_batch::rows::spreadsheet_safe;
use urlkey_fetch::{Allowance, Hop, Outcome};

use super::classify::LiveResult;
use crate::redirect_map::{MapEntry, SetAside, SetAsideReason};

/// The columns of `urlkey redirects test`'s CSV, in order (a stable interface: scripts
/// and the real-server tests read them).
pub const COLUMNS: [&str; 10] = [
    "line",
    "source",
    "target",
    "expected_status",
    "result",
    "status",
    "location",
    "hops",
    "chain",
    "detail",
];

/// What the live site did with one map entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowReport {
    /// The entry.
    pub entry: MapEntry,
    /// The result.
    pub result: LiveResult,
    /// Every request, in order (empty when nothing could be requested).
    pub hops: Vec<Hop>,
    /// Why, in words that name no flag (empty for a clean pass).
    pub detail: Option<String>,
    /// For a refused row: what would allow the address (the caller words it).
    pub refusal: Option<Allowance>,
}

impl RowReport {
    /// The first response's status.
    pub fn status(&self) -> Option<u16> {
        self.hops.first().and_then(|h| h.http_status)
    }

    /// The first response's Location, as sent.
    pub fn location(&self) -> Option<&str> {
        self.hops.first().and_then(|h| h.location.as_deref())
    }

    /// Redirects in the chain.
    pub fn redirects(&self) -> usize {
        self.hops.iter().filter(|h| h.next_url.is_some()).count()
    }

    /// The chain in one cell: each request's URL and its status (or what became of it),
    /// joined by ` -> `.
    pub fn chain(&self) -> String {
        let step = |h: &Hop| match (h.outcome, h.http_status) {
            (Outcome::Response, Some(s)) => format!("{} {s}", h.url),
            (o, _) => format!("{} {}", h.url, o.as_str()),
        };
        self.hops.iter().map(step).collect::<Vec<_>>().join(" -> ")
    }

    /// The CSV cells, in [`COLUMNS`]' order; `detail` is the row's, as its caller worded it.
    /// A text cell a spreadsheet would run as a formula (a `Location` is the server's text)
    /// gets a leading `'`, as every CSV of urlkey (docs/cli.md).
    pub fn cells(&self, detail: &str) -> [String; 10] {
        let text = |s: &str| spreadsheet_safe(s).into_owned();
        [
            self.entry.line.to_string(),
            text(&self.entry.source),
            text(&self.entry.target),
            self.entry.status.to_string(),
            self.result.as_str().to_string(),
            self.status().map(|s| s.to_string()).unwrap_or_default(),
            text(self.location().unwrap_or_default()),
            self.redirects().to_string(),
            text(&self.chain()),
            text(detail),
        ]
    }
}

/// Writes the rows as RFC 4180 CSV with a header, one row at a time, flushed (the rows of
/// a live test come slowly; a reader sees each at once).
pub struct RowWriter<W: Write> {
    csv: csv::Writer<W>,
}

impl<W: Write> RowWriter<W> {
    /// Writes the header.
    pub fn new(out: W) -> io::Result<RowWriter<W>> {
        let mut csv = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(out);
        csv.write_record(COLUMNS).map_err(io::Error::from)?;
        csv.flush()?;
        Ok(RowWriter { csv })
    }

    /// Writes one row and flushes it.
    pub fn write(&mut self, row: &RowReport, detail: &str) -> io::Result<()> {
        self.csv
            .write_record(row.cells(detail))
            .map_err(io::Error::from)?;
        self.csv.flush()
    }

    /// The writer, flushed.
    pub fn into_inner(self) -> io::Result<W> {
        self.csv.into_inner().map_err(|e| e.into_error())
    }
}

/// The counts of a run: every entry by its result, every set-aside row by its reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Entries tested, by result.
    pub results: BTreeMap<LiveResult, usize>,
    /// Rows set aside, by reason, with their lines.
    pub set_aside: BTreeMap<SetAsideReason, Vec<u64>>,
}

impl Summary {
    /// The counts of the set-aside rows of a map.
    pub fn new(set_aside: &[SetAside]) -> Summary {
        let mut s = Summary::default();
        for r in set_aside {
            s.set_aside.entry(r.reason).or_default().push(r.line);
        }
        s
    }

    /// Counts one tested entry.
    pub fn add(&mut self, r: LiveResult) {
        *self.results.entry(r).or_default() += 1;
    }

    /// Entries tested.
    pub fn tested(&self) -> usize {
        self.results.values().sum()
    }

    /// Entries that passed.
    pub fn passed(&self) -> usize {
        self.results.get(&LiveResult::Pass).copied().unwrap_or(0)
    }

    /// True when every tested entry passed.
    pub fn all_pass(&self) -> bool {
        self.passed() == self.tested()
    }

    /// One line: `N entries tested: P pass, ...; M rows set aside, not tested: K reason
    /// (line L, ...), ...` (at most 10 lines named per reason).
    pub fn line(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let tested = plural(self.tested(), "entry", "entries");
        let mut s = format!("{tested} tested: {} pass", self.passed());
        for (r, n) in &self.results {
            if *r != LiveResult::Pass {
                s.push_str(&format!(", {n} {}", r.as_str()));
            }
        }
        let aside: usize = self.set_aside.values().map(Vec::len).sum();
        if aside > 0 {
            let aside = plural(aside, "row", "rows");
            s.push_str(&format!("; {aside} set aside, not tested:"));
            let parts: Vec<String> = self
                .set_aside
                .iter()
                .map(|(reason, lines)| {
                    let shown: Vec<String> = lines.iter().take(10).map(u64::to_string).collect();
                    let more = if lines.len() > 10 { ", ..." } else { "" };
                    let (n, reason) = (lines.len(), reason.as_str());
                    format!(" {n} {reason} (line {}{more})", shown.join(", "))
                })
                .collect();
            s.push_str(&parts.join(","));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RedirectMap;

    #[test]
    fn a_formula_from_the_server_is_written_as_text() {
        let map = RedirectMap::from_csv("m.csv", "source,target\n/a,/b\n").unwrap();
        let hop = Hop {
            url: "http://127.0.0.1:1/a".into(),
            started_at: std::time::SystemTime::now(),
            elapsed: None,
            outcome: Outcome::Response,
            remote_addr: None,
            http_status: Some(301),
            location: Some("=HYPERLINK(\"http://evil.example\")".into()),
            next_url: None,
            retry_after: None,
            content_type: None,
            detail: None,
        };
        let row = RowReport {
            entry: map.entries[0].clone(),
            result: LiveResult::WrongTarget,
            hops: vec![hop],
            detail: None,
            refusal: None,
        };
        let cells = row.cells("@SUM(1)");
        assert_eq!(cells[6], "'=HYPERLINK(\"http://evil.example\")");
        assert_eq!(cells[9], "'@SUM(1)");
        assert_eq!(cells[8], "http://127.0.0.1:1/a 301");
        assert_eq!(cells[1], "/a");
    }

    #[test]
    fn the_summary_counts_every_row() {
        let map = RedirectMap::from_csv(
            "m.csv",
            "source,target,decision\n/a,/b,accept\n/c,/d,reject\n/e,,accept\n/f,/g,accept\n",
        )
        .unwrap();
        let mut s = Summary::new(&map.set_aside);
        s.add(LiveResult::Pass);
        s.add(LiveResult::Chain);
        assert_eq!(s.tested() + 2, map.rows());
        assert!(!s.all_pass());
        assert_eq!(
            s.line(),
            "2 entries tested: 1 pass, 1 chain; 2 rows set aside, not tested: \
             1 not-accepted (line 3), 1 empty-target (line 4)"
        );
    }
}

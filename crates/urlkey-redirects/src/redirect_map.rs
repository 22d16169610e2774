//! A MAP: the redirects a person approved, read from a CSV, TSV or spreadsheet with the
//! columns `source` and `target`, and optionally `status` (301, 302, 303, 307 or 308;
//! 301 when empty or one of `propose`'s statuses) and `decision` (when the column is there, only the rows marked
//! `accept` are the map's: `propose`'s output, once reviewed, is a MAP).
//!
//! Every data row comes out as an entry, or is set aside with its reason
//! ([`SetAside`]): `entries + set_aside` is the number of rows read, which
//! [`RedirectMap::rows`] says.

use std::fmt;

use urlkey_batch::input::{
    format_from_name, open_records, InputError, InputFormat, InputRecord, KeepColumns, ReadOptions,
    Source,
};

/// The statuses a map row may ask for.
pub const STATUSES: [u16; 5] = [301, 302, 303, 307, 308];

/// The status of a row whose `status` cell is empty (or that has no such column).
pub const DEFAULT_STATUS: u16 = 301;

/// One redirect of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEntry {
    /// The row's line in the MAP file (the header is line 1; a spreadsheet row is its
    /// row number).
    pub line: u64,
    /// The URL or path to redirect from, as written (surrounding spaces removed).
    pub source: String,
    /// Where it goes, as written (surrounding spaces removed).
    pub target: String,
    /// The HTTP status of the redirect.
    pub status: u16,
}

/// Why a row of the MAP file is not in the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SetAsideReason {
    /// The file has a `decision` column and this row's is not `accept`.
    NotAccepted,
    /// The `source` cell is empty.
    EmptySource,
    /// The `target` cell is empty.
    EmptyTarget,
    /// The `status` cell is not one of [`STATUSES`].
    BadStatus,
    /// The reader found a problem with the row itself (an over-long line, bad bytes).
    Unreadable,
}

impl SetAsideReason {
    /// The stable name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            SetAsideReason::NotAccepted => "not-accepted",
            SetAsideReason::EmptySource => "empty-source",
            SetAsideReason::EmptyTarget => "empty-target",
            SetAsideReason::BadStatus => "bad-status",
            SetAsideReason::Unreadable => "unreadable",
        }
    }

    /// Whether the row is a mistake in the map (every reason but a reviewer's `reject`).
    pub const fn is_problem(self) -> bool {
        !matches!(self, SetAsideReason::NotAccepted)
    }
}

/// A row of the MAP file that is not in the map, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Its line in the MAP file.
    pub line: u64,
    /// Why.
    pub reason: SetAsideReason,
    /// The `source` cell as read (may be empty).
    pub source: String,
}

/// An approved redirect map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedirectMap {
    /// The file's name, for reports.
    pub name: String,
    /// The redirects, in file order.
    pub entries: Vec<MapEntry>,
    /// The rows that are not redirects, in file order.
    pub set_aside: Vec<SetAside>,
    /// Whether the file had a `decision` column.
    pub has_decisions: bool,
}

impl RedirectMap {
    /// Data rows read: `entries + set_aside`.
    pub fn rows(&self) -> usize {
        self.entries.len() + self.set_aside.len()
    }

    /// Reads a MAP file (or standard input: `-`). CSV unless the name says TSV or a
    /// spreadsheet; the delimiter of a CSV is detected (`,` `;` tab `|`).
    pub fn read(src: &Source) -> Result<RedirectMap, MapError> {
        let format = match src {
            Source::File(p) => format_from_name(p)
                .filter(|f| f.is_tabular())
                .unwrap_or(InputFormat::Csv),
            _ => InputFormat::Csv,
        };
        let opts = ReadOptions {
            format,
            column: Some("source".into()),
            keep: KeepColumns::All,
            ..ReadOptions::default()
        };
        let records = open_records(src, &opts).map_err(MapError::Input)?;
        RedirectMap::from_records(src.name(), records)
    }

    /// Reads a MAP given as text (the web page's upload, tests).
    ///
    /// ```
    /// use urlkey_redirects::RedirectMap;
    /// let map = RedirectMap::from_csv(
    ///     "map.csv",
    ///     "source,target,decision\n/old,/new,accept\n/gone,/,reject\n",
    /// ).unwrap();
    /// assert_eq!(map.entries.len(), 1);
    /// assert_eq!(map.entries[0].status, 301);
    /// assert_eq!(map.set_aside[0].reason.as_str(), "not-accepted");
    /// assert_eq!(map.rows(), 2);
    /// ```
    pub fn from_csv(name: &str, text: &str) -> Result<RedirectMap, MapError> {
        let opts = ReadOptions {
            format: InputFormat::Csv,
            column: Some("source".into()),
            keep: KeepColumns::All,
            ..ReadOptions::default()
        };
        let reader = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
        let records = urlkey_batch::input::records_from(reader, name.into(), &opts)
            .map_err(MapError::Input)?;
        RedirectMap::from_records(name.into(), records)
    }

    fn from_records(
        name: String,
        mut records: Box<dyn urlkey_batch::input::RecordSource>,
    ) -> Result<RedirectMap, MapError> {
        // No header at all: an empty file, not a header that lacks
        // a column.
        if records.header().is_empty() && records.kept_names().is_empty() {
            return Err(MapError::Empty { name });
        }
        let kept: Vec<String> = records.kept_names().to_vec();
        let find = |want: &str| {
            kept.iter()
                .position(|k| k.trim().eq_ignore_ascii_case(want))
        };
        let target =
            find("target").ok_or_else(|| MapError::NoTargetColumn { name: name.clone() })?;
        let status = find("status");
        let decision = find("decision");
        let mut map = RedirectMap {
            name,
            has_decisions: decision.is_some(),
            ..RedirectMap::default()
        };
        let mut batch: Vec<InputRecord> = Vec::new();
        loop {
            batch.clear();
            let more = records
                .next_batch(&mut batch, 4096)
                .map_err(MapError::Input)?;
            for r in batch.drain(..) {
                map.push(r, target, status, decision);
            }
            if !more {
                break;
            }
        }
        Ok(map)
    }

    fn push(
        &mut self,
        r: InputRecord,
        target: usize,
        status: Option<usize>,
        decision: Option<usize>,
    ) {
        let cell = |i: Option<usize>| i.and_then(|i| r.kept.get(i)).map_or("", |c| c.trim());
        let source = r.observed.trim().to_string();
        let set_aside = |reason| SetAside {
            line: r.line,
            reason,
            source: source.clone(),
        };
        // A reviewer's rejection first: a rejected row is no mistake, whatever its cells.
        let reason = if decision.is_some() && !cell(decision).eq_ignore_ascii_case("accept") {
            Some(SetAsideReason::NotAccepted)
        } else if source.is_empty() {
            Some(SetAsideReason::EmptySource)
        } else if r.problem.is_some() {
            Some(SetAsideReason::Unreadable)
        } else if cell(Some(target)).is_empty() {
            Some(SetAsideReason::EmptyTarget)
        } else {
            None
        };
        if let Some(reason) = reason {
            self.set_aside.push(set_aside(reason));
            return;
        }
        let status = match cell(status) {
            // `propose`'s rows name their proposal's status there (`candidate`, ...): a
            // reviewed proposal is a MAP whose reviewer gave no HTTP status, or wrote one.
            "" => DEFAULT_STATUS,
            s if crate::propose::Status::parse(s).is_some() => DEFAULT_STATUS,
            s => match s.parse::<u16>() {
                Ok(n) if STATUSES.contains(&n) => n,
                _ => {
                    self.set_aside.push(set_aside(SetAsideReason::BadStatus));
                    return;
                }
            },
        };
        self.entries.push(MapEntry {
            line: r.line,
            source,
            target: cell(Some(target)).to_string(),
            status,
        });
    }
}

/// A MAP that cannot be read at all.
#[derive(Debug)]
pub enum MapError {
    /// The file could not be read (or has no `source` column).
    Input(InputError),
    /// The header has no `target` column.
    NoTargetColumn {
        /// The file.
        name: String,
    },
    /// The file has no header row: it is empty.
    Empty {
        /// The file.
        name: String,
    },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::Input(e) => write!(f, "{}", e.message),
            MapError::NoTargetColumn { name } => write!(
                f,
                "{name}: the header has no target column: a MAP has the columns source and target (and optionally status, decision)"
            ),
            MapError::Empty { name } => write!(
                f,
                "{name}: the file is empty: a MAP has a header row naming source and target (and optionally status, decision), then one row per redirect"
            ),
        }
    }
}

impl std::error::Error for MapError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_an_entry_or_set_aside_with_its_reason() {
        let text = "\u{feff}Source;Target;Status;Decision\r\n/a;/b;302;accept\r\n/c;/d;;ACCEPT\r\n/e;/f;;reject\r\n;/g;;accept\r\n/h;;;accept\r\n/i;/j;200;accept\r\n/k;/l;;\r\n";
        let map = RedirectMap::from_csv("m.csv", text).unwrap();
        assert!(map.has_decisions);
        assert_eq!(map.rows(), 7);
        let e: Vec<(u64, &str, &str, u16)> = map
            .entries
            .iter()
            .map(|e| (e.line, e.source.as_str(), e.target.as_str(), e.status))
            .collect();
        assert_eq!(e, vec![(2, "/a", "/b", 302), (3, "/c", "/d", 301)]);
        let s: Vec<(u64, &str)> = map
            .set_aside
            .iter()
            .map(|s| (s.line, s.reason.as_str()))
            .collect();
        assert_eq!(
            s,
            vec![
                (4, "not-accepted"),
                (5, "empty-source"),
                (6, "empty-target"),
                (7, "bad-status"),
                (8, "not-accepted")
            ]
        );
    }

    #[test]
    fn without_a_decision_column_every_row_counts() {
        let map = RedirectMap::from_csv("m.csv", "source,target\n/a,/b\n").unwrap();
        assert!(!map.has_decisions);
        assert_eq!(map.entries.len(), 1);
    }

    #[test]
    fn an_empty_map_is_refused_as_empty() {
        let e = RedirectMap::from_csv("m.csv", "").unwrap_err();
        assert!(matches!(e, MapError::Empty { .. }), "{e}");
        assert!(e.to_string().contains("the file is empty"), "{e}");
    }

    #[test]
    fn a_map_without_target_is_refused() {
        let e = RedirectMap::from_csv("m.csv", "source,to\n/a,/b\n").unwrap_err();
        assert!(e.to_string().contains("no target column"), "{e}");
        let e = RedirectMap::from_csv("m.csv", "from,to\n/a,/b\n").unwrap_err();
        assert!(matches!(e, MapError::Input(_)), "{e}");
    }
}

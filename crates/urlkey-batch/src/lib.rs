//! Batch work over URL lists for the `urlkey` binary and its web page: readers that turn
//! every input line into exactly one [`input::InputRecord`] ([`input`]), an order-keeping
//! parallel pipeline ([`pipeline`]), `urlkey key`'s run ([`key`]), the two passes and the grouping engine of `urlkey map`
//! ([`map`]), the rows urlkey writes from birth to bytes (their types, the map rows'
//! builders, the CSV/TSV, JSON Lines and Parquet writers: [`rows`]), and `urlkey diff`
//! ([`diff`]), and standard error for notes that a closed pipe must not turn into a
//! panic ([`stdio`]).
//!
//! No module imports one that imports it: `rows` uses only `input`; `key` uses `input`,
//! `pipeline` and `rows`; `map` uses `input`,
//! `pipeline` and `rows`; `diff` uses `input`, `pipeline`, `map`'s fingerprints and `rows`' review text.
//!
//! Nothing here drops a row: a line that cannot be read as text, is too long, or lacks
//! its column still comes out, as an invalid record with a stable code; a quote that
//! would fold rows into one cell stops the read instead, naming its line
//! ([`input::InputErrorKind::Quote`]).
//!
//! ## Example
//!
//! A list as a spreadsheet exports it (a byte-order mark, `;` between cells, CRLF, a blank
//! line, a cell that is not a URL), read and keyed: every row is a record that keeps its
//! line number, and a row that is not a URL gets an error code instead of a key.
//!
//! ```
//! use urlkey::PolicySet;
//! use urlkey_batch::input::{records_from, InputFormat, ReadOptions};
//!
//! let csv = "\u{feff}Page;Address\r\nHome;https://Example.com/?utm_source=mail\r\n\r\n\
//!            Home again;https://example.com/\r\nNotes;call Anna\r\n";
//! let options = ReadOptions {
//!     format: InputFormat::Csv,
//!     column: Some("Address".into()),
//!     ..ReadOptions::default()
//! };
//! let mut source = records_from(Box::new(csv.as_bytes()), "pages.csv".into(), &options)?;
//! let mut records = Vec::new();
//! while source.next_batch(&mut records, 1024)? {}
//!
//! let observed: Vec<&str> = records.iter().map(|r| r.observed.as_str()).collect();
//! assert_eq!(
//!     observed,
//!     ["https://Example.com/?utm_source=mail", "https://example.com/", "call Anna"]
//! );
//! let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
//! assert_eq!(lines, [2, 4, 5]); // physical lines: the header is line 1, line 3 is blank
//!
//! let policies = PolicySet::builtin();
//! let mapper = policies.get("mapper@1").expect("a builtin policy");
//! let keys: Vec<Option<String>> = records.iter().map(|r| mapper.key(&r.observed).key).collect();
//! assert_eq!(keys[0].as_deref(), Some("https://example.com/"));
//! assert_eq!(keys[0], keys[1]); // one page
//! let not_a_url = mapper.key(&records[2].observed);
//! assert_eq!(not_a_url.key, None);
//! assert_eq!(not_a_url.error.map(|e| e.code.as_str()), Some("mapper.whitespace"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diff;
pub mod exit;
pub mod input;
pub mod key;
pub mod map;
pub mod outfile;
pub mod pipeline;
pub mod rows;
pub mod stdio;

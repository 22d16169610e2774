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

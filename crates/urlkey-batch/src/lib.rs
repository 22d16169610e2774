//! Batch work over URL lists for the `urlkey` binary and its web page: readers that turn
//! every input line into exactly one [`input::InputRecord`], writers for key records and
//! map rows, an order-keeping parallel pipeline, and the grouping engine of `urlkey map`.
//!
//! Nothing here drops a row: a line that cannot be read as text, is too long, or lacks
//! its column still comes out, as an invalid record with a stable code.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diff;
pub mod exit;
pub mod input;
pub mod map;
pub mod outfile;
pub mod pipeline;
pub mod rows;

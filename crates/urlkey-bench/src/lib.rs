//! Measurement tools for urlkey (issue 6): the corpus loader shared by the criterion
//! benches and the macro benchmark, a counting global allocator, a small deterministic
//! random generator, and the input generator of `urlkey-bench gen`.
//!
//! Nothing here is part of the urlkey library: it only calls its public API.

#![warn(missing_docs)]

pub mod alloc;
pub mod corpus;
pub mod gen;
pub mod ladder;
pub mod proto;
pub mod rng;

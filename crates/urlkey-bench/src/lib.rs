//! Measurement tools for urlkey (docs/benchmarks.md): the corpus loader shared by the criterion
//! benches and the macro benchmark, a counting global allocator, a small deterministic
//! random generator, and the input generator of `urlkey-bench gen`.
//!
//! Nothing here is part of the urlkey library: it only calls its public API.

#![warn(missing_docs)]
// Not `forbid`: the counting allocator implements `GlobalAlloc`, an unsafe trait whose
// methods are unsafe to write; that one module is allowed, every other one is denied.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
pub mod alloc;
pub mod corpus;
pub mod gen;
pub mod ladder;
pub mod proto;
pub mod rng;

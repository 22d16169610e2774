//! The engine's internals that urlkey's own crates share (the batch engine, the CLI, the
//! web page, the Python, Polars and DuckDB engines, the benchmarks and the fuzz targets).
//!
//! **No stability promise.** Nothing here is part of the library's API: any item may
//! change or go in any release, without a note in the changelog. A program that is not
//! part of this repository should use the crate root ([`crate::PolicySet`],
//! [`crate::Policy`], [`crate::Outcome`], [`crate::inspect()`], ...), which is what the
//! crate's documentation and `CONTRIBUTING.md` ("The core's public API") describe.
//!
//! What is here, and why each sibling needs it:
//! - [`PolicyInternals`]: the lean key paths `urlkey map` and `urlkey diff` run, the
//!   definition behind a policy, and the fast-path switches the benchmarks and the fuzz
//!   targets compare;
//! - [`policy`]: the parts a policy is made of (front ends, rules, key forms, the builtin
//!   registry), for the golden tests, the rule ladders of the benchmarks and the fuzzers;
//! - [`text`]: trimming, scheme detection and the line classes the readers share;
//! - [`fast`]: the verified fast parse, for the fuzz target that checks it against ada;
//! - [`offsets`]: the functions that split a text into the component spans an
//!   [`crate::Inspection`] carries (the web page and `urlkey explain` highlight with them);
//! - [`unwrap`]: the redirect-wrapper table `urlkey rules` prints;
//! - [`tracking`]: registry 2's entries, sources and verdicts that `urlkey rules` prints;
//! - [`query`]: the raw `&`-separated pieces `urlkey rules --check` reads;
//! - [`too_long_message`]: one wording of `input.too-long` for every engine.

pub use crate::error::too_long_message;
pub use crate::policy::internal_api::PolicyInternals;

/// The parts a policy is made of.
pub mod policy {
    pub use crate::policy::builtin::{builtin_variants, registry, Builtin, BuiltinOption};
    pub use crate::policy::def::PolicyDef;
    pub use crate::policy::front::{whatwg_input, FrontEnd, Schemes, PLACEHOLDER_BASE};
    pub use crate::policy::key_form::KeyForm;
    pub use crate::policy::parts::{Log, Parts};
    pub use crate::policy::rules::{Example, Rule, SortOrder, TrailingSlash, DEFAULT_DOCUMENTS};

    /// The rules, one type each.
    pub mod rules {
        pub use crate::policy::rules::*;
    }
}

/// Input text helpers: trimming, scheme detection, line classes.
pub mod text {
    pub use crate::text::*;
}

/// The verified fast parse of plain `http(s)` URLs.
pub mod fast {
    pub use crate::fast::*;
}

/// Component spans in the input as given.
pub mod offsets {
    pub use crate::offsets::*;
}

/// Redirect wrappers.
pub mod unwrap {
    pub use crate::unwrap::*;
}

/// Raw query pieces.
pub mod query {
    pub use crate::query::{raw_params, RawParam};
}

/// Registry 2's tables and verdicts, which `urlkey rules --registry 2` prints.
pub mod tracking {
    /// Registry 2 (`clean@1`'s list).
    pub mod registry2 {
        pub use crate::tracking::registry2::*;
    }
}

//! The policy each command uses when none is named, defined once for every front end:
//! the command line's `--policy` defaults, `urlkey serve`'s request defaults and the
//! `defaults` of its `GET /api/policies` (which the page reads), and the Python module's
//! default arguments (`urlkey._urlkey.DEFAULT_POLICIES`). A test of the command line
//! (`default_policies_are_defined_once` in `crates/urlkey-cli/tests/cli.rs`) checks that they all agree with these.
//!
//! ```
//! use urlkey::policy::defaults;
//! let set = urlkey::PolicySet::builtin();
//! for id in defaults::ALL.iter().map(|(_, id)| id) {
//!     assert!(set.get(id).is_ok(), "{id} is a builtin");
//! }
//! ```

/// `urlkey key` (and Python's `urlkey.key`, `urlkey.keys`, `urlkey.spark.with_keys`):
/// the citation key, which changes only what never names another page (the fragment,
/// analytics parameters, empty pieces, parameter order, a trailing slash).
pub const KEY: &str = "citation@1";

/// `urlkey map` (and Python's `urlkey.spark.group_report`, the page's Map view): the
/// Legacy URL Mapper's own policy, which also keys path-only input.
pub const MAP: &str = "mapper@1";

/// `urlkey inspect` (and Python's `urlkey.inspect`): the comparison key. `inspect` also
/// lists the key under every builtin, so this only picks the key shown first.
pub const INSPECT: &str = "webkey@1";

/// `urlkey explain` (and the page's Compare view): the same as `key`, so that explaining
/// two lines of a keyed list answers for the keys that list has.
pub const EXPLAIN: &str = KEY;

/// `urlkey ledger ingest`: a ledger holds citations, so it keys them as `key` does.
pub const LEDGER: &str = KEY;

/// The page's Diff view starts with the move from the Mapper's policy ...
pub const DIFF_FROM: &str = MAP;

/// ... to the web key. `urlkey diff` itself has no default: it names both policies.
pub const DIFF_TO: &str = INSPECT;

/// Every default by the name the page and the Python module give it, in this order.
pub const ALL: [(&str, &str); 7] = [
    ("key", KEY),
    ("map", MAP),
    ("inspect", INSPECT),
    ("explain", EXPLAIN),
    ("ledger", LEDGER),
    ("diff_from", DIFF_FROM),
    ("diff_to", DIFF_TO),
];

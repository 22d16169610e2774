//! The exit codes of every `urlkey` command, `urlkey ledger ...` and `urlkey serve`
//! included: one table, so that the same failure has the same code everywhere
//! (docs/cli.md, "Exit codes", which a test compares with [`Exit::ALL`]).
//!
//! As `cmp(1)` and `diff(1)`: 0 when the run completed (for a comparing command, the
//! compared inputs are the same), 1 only when a comparing command found that they differ
//! or a checking command found problems (`urlkey redirects check`, `compile`, `test`),
//! and 2 or more for every trouble. An internal error takes 70, `EX_SOFTWARE` of BSD's
//! `sysexits.h`, so that a script reading 1 as "they differ" is never told so by a bug.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exit {
    /// The run completed (invalid rows are part of a completed run); for `explain` and
    /// `diff`, the compared inputs are the same.
    Done,
    /// `explain`: the inputs do not all share one key; `diff`: the two sides differ;
    /// `redirects check`: the map has an error finding (`compile` refuses such a map,
    /// `redirects test` a row that fails).
    Differ,
    /// A usage error: a flag or value that cannot work as given.
    Usage,
    /// An input could not be read.
    Input,
    /// The output could not be written.
    Output,
    /// A policy, policy file or suffix list could not be used.
    Policy,
    /// The ledger's database could not be used.
    Database,
    /// An internal error: a thread or socket that cannot be set up, a fingerprint
    /// collision found by `--verify-fingerprints`, a failure no other code names.
    Internal,
    /// Interrupted by SIGINT (128 + 2, as shells report it).
    Interrupted,
    /// Terminated by SIGTERM (128 + 15).
    Terminated,
}

impl Exit {
    /// Every code, in the order of the table in docs/cli.md.
    pub const ALL: [Exit; 10] = [
        Exit::Done,
        Exit::Differ,
        Exit::Usage,
        Exit::Input,
        Exit::Output,
        Exit::Policy,
        Exit::Database,
        Exit::Internal,
        Exit::Interrupted,
        Exit::Terminated,
    ];

    /// The process exit status.
    pub const fn code(self) -> i32 {
        match self {
            Exit::Done => 0,
            Exit::Differ => 1,
            Exit::Usage => 2,
            Exit::Input => 3,
            Exit::Output => 4,
            Exit::Policy => 5,
            Exit::Database => 6,
            Exit::Internal => 70,
            Exit::Interrupted => 130,
            Exit::Terminated => 143,
        }
    }

    /// Words the row of docs/cli.md's table for this code begins with.
    pub const fn summary(self) -> &'static str {
        match self {
            Exit::Done => "the run completed",
            Exit::Differ => "the compared inputs differ, or a check found problems",
            Exit::Usage => "a usage error",
            Exit::Input => "an input could not be read",
            Exit::Output => "the output could not be written",
            Exit::Policy => "a policy could not be used",
            Exit::Database => "the ledger's database could not be used",
            Exit::Internal => "an internal error",
            Exit::Interrupted => "interrupted",
            Exit::Terminated => "terminated",
        }
    }
}

impl From<Exit> for i32 {
    fn from(e: Exit) -> i32 {
        e.code()
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn codes_are_distinct_and_only_differ_is_one() {
        let codes: Vec<i32> = Exit::ALL.iter().map(|e| e.code()).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), codes.len(), "{codes:?}");
        assert_eq!(sorted, codes, "ALL is in the table's order");
        for e in Exit::ALL {
            match e {
                Exit::Done => assert_eq!(e.code(), 0),
                Exit::Differ => assert_eq!(e.code(), 1),
                _ => assert!(e.code() >= 2, "{e:?}: every trouble is 2 or more"),
            }
        }
    }
}

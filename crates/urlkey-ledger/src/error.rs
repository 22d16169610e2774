//! The ledger's errors and their exit codes.

use std::fmt;

/// Why a ledger command failed. Each kind has a documented exit code
/// (`docs/ledger.md`, "Exit codes"); the message says what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerError {
    /// The command line asks for something that cannot be done as asked (exit 2).
    Usage(String),
    /// An input file is unreadable, malformed, or conflicts with the ledger (exit 3).
    Input(String),
    /// The database could not be opened, migrated, read or written (exit 6).
    Database(String),
    /// The output could not be written (exit 4).
    Output(String),
    /// The policy could not be used (exit 5).
    Policy(String),
    /// Anything else (exit 1).
    Other(String),
    /// The reader of the output went away (`urlkey ledger export | head`): not a
    /// failure; [`crate::cli::run`] ends quietly with exit 0.
    OutputClosed,
}

impl LedgerError {
    /// The process exit code: 2 usage, 3 input or data, 4 database, 1 other.
    pub fn exit_code(&self) -> i32 {
        match self {
            LedgerError::Usage(_) => 2,
            LedgerError::Input(_) => 3,
            LedgerError::Output(_) => 4,
            LedgerError::Policy(_) => 5,
            LedgerError::Database(_) => 6,
            LedgerError::Other(_) => 1,
            LedgerError::OutputClosed => 0,
        }
    }

    /// A database error with context: what the ledger was doing when it failed.
    pub fn db(context: &str, err: rusqlite::Error) -> LedgerError {
        LedgerError::Database(format!("{context}: {err}"))
    }
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Usage(m) => {
                write!(f, "{m}\n(see `urlkey ledger --help` and docs/ledger.md)")
            }
            LedgerError::Input(m) | LedgerError::Output(m) => write!(f, "{m}"),
            LedgerError::Policy(m) => write!(f, "{m}\n(see `urlkey policies`)"),
            LedgerError::Database(m) => write!(
                f,
                "database error: {m}\n(check that --db names a urlkey ledger file that this \
                 user can write, and that no other process holds a long write lock on it)"
            ),
            LedgerError::Other(m) => write!(f, "{m}"),
            LedgerError::OutputClosed => write!(f, "the output was closed"),
        }
    }
}

impl std::error::Error for LedgerError {}

impl From<rusqlite::Error> for LedgerError {
    fn from(err: rusqlite::Error) -> Self {
        LedgerError::Database(err.to_string())
    }
}

impl From<std::io::Error> for LedgerError {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            LedgerError::OutputClosed
        } else {
            LedgerError::Output(format!("could not write the output: {err}"))
        }
    }
}

impl From<csv::Error> for LedgerError {
    fn from(err: csv::Error) -> Self {
        match err.into_kind() {
            csv::ErrorKind::Io(e) => LedgerError::from(e),
            other => LedgerError::Output(format!("could not write CSV: {other:?}")),
        }
    }
}

/// `Result` with a [`LedgerError`].
pub type Result<T, E = LedgerError> = std::result::Result<T, E>;

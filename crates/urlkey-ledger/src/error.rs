//! The ledger's errors and their exit codes.

use std::fmt;

use urlkey_batch::exit::Exit;

/// Why a ledger command failed. Each kind maps to one code of the table every urlkey
/// command shares ([`Exit`]; docs/cli.md and docs/ledger.md, "Exit codes"); the message
/// says what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerError {
    /// The command line asks for something that cannot be done as asked
    /// ([`Exit::Usage`]).
    Usage(String),
    /// An input file is unreadable, malformed, or conflicts with the ledger
    /// ([`Exit::Input`]).
    Input(String),
    /// The database could not be opened, migrated, read or written ([`Exit::Database`]).
    Database(String),
    /// The output could not be written ([`Exit::Output`]).
    Output(String),
    /// The policy could not be used ([`Exit::Policy`]).
    Policy(String),
    /// Anything else: an internal error ([`Exit::Internal`]).
    Other(String),
    /// The reader of the output went away (`urlkey ledger export | head`): not a
    /// failure; [`crate::run_on_stdio`] ends quietly with exit 0.
    OutputClosed,
}

impl LedgerError {
    /// How the command ends: its row of the shared table.
    pub fn exit(&self) -> Exit {
        match self {
            LedgerError::Usage(_) => Exit::Usage,
            LedgerError::Input(_) => Exit::Input,
            LedgerError::Output(_) => Exit::Output,
            LedgerError::Policy(_) => Exit::Policy,
            LedgerError::Database(_) => Exit::Database,
            LedgerError::Other(_) => Exit::Internal,
            LedgerError::OutputClosed => Exit::Done,
        }
    }

    /// The process exit status, [`LedgerError::exit`]'s code.
    pub fn exit_code(&self) -> i32 {
        self.exit().code()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind's row of the shared table, as docs/ledger.md ("Exit codes") lists it.
    #[test]
    fn every_kind_maps_to_its_row_of_the_shared_table() {
        let m = || "m".to_string();
        let rows = [
            (LedgerError::Usage(m()), Exit::Usage, 2),
            (LedgerError::Input(m()), Exit::Input, 3),
            (LedgerError::Output(m()), Exit::Output, 4),
            (LedgerError::Policy(m()), Exit::Policy, 5),
            (LedgerError::Database(m()), Exit::Database, 6),
            (LedgerError::Other(m()), Exit::Internal, 70),
            (LedgerError::OutputClosed, Exit::Done, 0),
        ];
        for (e, exit, code) in rows {
            assert_eq!(e.exit(), exit, "{e:?}");
            assert_eq!(e.exit_code(), code, "{e:?}");
        }
    }
}

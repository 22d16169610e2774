//! The ledger's errors: what went wrong ([`ErrorKind`], with the values a caller needs to
//! advise), the error underneath ([`std::error::Error::source`]), and the exit code.
//!
//! The messages say what happened in the ledger's own words and name no flag: a setting
//! is named by [`Setting::name`], its field. The command line words the advice with its
//! flags (urlkey-cli, `flags::advice`), the web page with its fields (urlkey-serve).

use std::fmt;
use std::path::PathBuf;

use urlkey_batch::exit::Exit;

use crate::ingest::Problem;
pub use crate::words::Setting;
use crate::words::{PlainWords, Remedy, Words};

/// What went wrong. The general kinds carry a message that names no setting; the others
/// carry what a caller needs to say what to do (which setting, which file, which line).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The command asks for something that cannot be done as asked ([`Exit::Usage`]).
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
    /// The reader of the output went away (`urlkey ledger export | head`): not a failure,
    /// [`Exit::Done`].
    OutputClosed,
    /// A setting's value cannot be used ([`Exit::Usage`]): `detail` follows the setting's
    /// name (`": no such zone"`, `" \"x\": give one ASCII character"`).
    Invalid {
        /// The setting.
        setting: Setting,
        /// The value and what is wrong with it, as written after the setting's name.
        detail: String,
        /// Another setting that would make the value good, said after the detail.
        remedy: Option<Remedy>,
    },
    /// Two settings that cannot be given together ([`Exit::Usage`]).
    Conflict {
        /// The settings.
        settings: (Setting, Setting),
        /// Why, and what each one does instead.
        why: &'static str,
    },
    /// A setting is needed and was not given ([`Exit::Usage`]).
    Needed {
        /// One of these settings is needed.
        settings: &'static [Setting],
        /// Why.
        why: &'static str,
    },
    /// `rejects` with several input files ([`Exit::Usage`]).
    RejectsWithFiles {
        /// The rejects file.
        rejects: PathBuf,
        /// How many input files.
        files: usize,
    },
    /// `by` names a column twice ([`Exit::Usage`]).
    ByTwice {
        /// The column.
        column: &'static str,
    },
    /// More than two windows ([`Exit::Usage`]).
    TooManyWindows {
        /// How many were given.
        given: usize,
    },
    /// A comparison with neither two collections nor two windows ([`Exit::Usage`]).
    NothingToCompare,
    /// The ledger holds observations keyed with several policies and none was chosen
    /// ([`Exit::Usage`]).
    SeveralPolicies {
        /// The policies, sorted.
        policies: Vec<String>,
        /// The key they hold, when a review names one.
        key: Option<String>,
    },
    /// `sheet` for a file that is not a spreadsheet ([`Exit::Usage`]).
    SheetOfText {
        /// The sheet asked for.
        sheet: String,
        /// The file, as shown.
        file: String,
        /// The format it is read as.
        format: &'static str,
    },
    /// The file cannot be read as CSV, TSV, JSONL or a spreadsheet ([`Exit::Input`]).
    Unreadable {
        /// The reader's message.
        detail: String,
        /// The file, as shown.
        file: String,
    },
    /// The file is not UTF-8 and no encoding was given ([`Exit::Input`]).
    NotUtf8 {
        /// The file, as shown.
        file: String,
        /// The line of the first byte that is not UTF-8.
        line: u64,
        /// Its offset.
        byte: u64,
    },
    /// A quote that folds lines into one cell ([`Exit::Input`], code
    /// `input.stray-quote`).
    StrayQuote {
        /// The reader's message.
        detail: String,
        /// The line of the quote.
        line: u64,
    },
    /// Two columns of the header stand for one ledger field ([`Exit::Input`]).
    SameField {
        /// The file, as shown.
        file: String,
        /// The two headers.
        headers: (String, String),
        /// The field.
        field: &'static str,
    },
    /// The `columns` setting names headers the file does not have ([`Exit::Input`]).
    NoSuchColumn {
        /// The file, as shown.
        file: String,
        /// The missing headers.
        missing: Vec<String>,
        /// The file's header.
        header: Vec<String>,
    },
    /// A field the ledger needs has no column ([`Exit::Input`]).
    NoColumn {
        /// The file, as shown.
        file: String,
        /// The field.
        field: &'static str,
        /// The file's header.
        header: Vec<String>,
    },
    /// Rows that cannot be stored, without a rejects file: nothing was written
    /// ([`Exit::Input`]).
    RowsRefused {
        /// The file, as shown.
        file: String,
        /// Rows refused.
        rejected: usize,
        /// Rows read.
        read: usize,
        /// Problems found (more than listed).
        problem_count: usize,
        /// The first problems.
        problems: Vec<Problem>,
    },
    /// The rejects file could not be written after the good rows were stored
    /// ([`Exit::Output`]).
    RejectsUnwritable {
        /// The rejects file.
        path: PathBuf,
        /// The input, as shown.
        file: String,
        /// Rows stored.
        stored: usize,
        /// The write error.
        error: String,
    },
    /// There is no ledger at the path ([`Exit::Database`]).
    NoLedger {
        /// The path.
        path: PathBuf,
    },
    /// The path is an SQLite database but not a ledger ([`Exit::Database`]).
    NotALedger {
        /// The path.
        path: PathBuf,
    },
    /// The extra CA certificates cannot be used ([`Exit::Internal`]).
    Certificates(String),
}

impl ErrorKind {
    /// The row of the shared exit-code table this kind ends a command with.
    pub fn exit(&self) -> Exit {
        use ErrorKind::*;
        match self {
            Usage(_) | Invalid { .. } | Conflict { .. } | Needed { .. } => Exit::Usage,
            RejectsWithFiles { .. } | ByTwice { .. } | TooManyWindows { .. } => Exit::Usage,
            NothingToCompare | SeveralPolicies { .. } | SheetOfText { .. } => Exit::Usage,
            Input(_) | Unreadable { .. } | NotUtf8 { .. } | StrayQuote { .. } => Exit::Input,
            SameField { .. } | NoSuchColumn { .. } | NoColumn { .. } => Exit::Input,
            RowsRefused { .. } => Exit::Input,
            Output(_) | RejectsUnwritable { .. } => Exit::Output,
            Policy(_) => Exit::Policy,
            Database(_) | NoLedger { .. } | NotALedger { .. } => Exit::Database,
            Other(_) | Certificates(_) => Exit::Internal,
            OutputClosed => Exit::Done,
        }
    }
}

/// Why a ledger command failed: its [`ErrorKind`] and, when another library's error is
/// the cause (SQLite, a read or a write, CSV), that error as [`std::error::Error::source`].
#[derive(Debug)]
pub struct LedgerError {
    // Boxed: errors are rare, and a `Result<T, LedgerError>` stays two words wide.
    kind: Box<ErrorKind>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl LedgerError {
    /// An error of this kind, with no source.
    pub fn new(kind: ErrorKind) -> LedgerError {
        LedgerError {
            kind: Box::new(kind),
            source: None,
        }
    }

    /// The same error, caused by `source`.
    pub fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> LedgerError {
        self.source = Some(Box::new(source));
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// How the command ends: its row of the shared table.
    pub fn exit(&self) -> Exit {
        self.kind.exit()
    }

    /// The process exit status, [`LedgerError::exit`]'s code.
    pub fn exit_code(&self) -> i32 {
        self.exit().code()
    }

    /// Whether the reader of the output went away ([`ErrorKind::OutputClosed`]).
    pub fn is_output_closed(&self) -> bool {
        *self.kind == ErrorKind::OutputClosed
    }

    /// [`ErrorKind::Usage`].
    pub fn usage(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Usage(m))
    }

    /// [`ErrorKind::Input`].
    pub fn input(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Input(m))
    }

    /// [`ErrorKind::Output`].
    pub fn output(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Output(m))
    }

    /// [`ErrorKind::Database`].
    pub fn database(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Database(m))
    }

    /// [`ErrorKind::Policy`].
    pub fn policy(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Policy(m))
    }

    /// [`ErrorKind::Other`].
    pub fn other(m: String) -> LedgerError {
        LedgerError::new(ErrorKind::Other(m))
    }

    /// [`ErrorKind::Invalid`]: `detail` follows the setting's name.
    pub fn invalid(setting: Setting, detail: impl Into<String>) -> LedgerError {
        LedgerError::new(ErrorKind::Invalid {
            setting,
            detail: detail.into(),
            remedy: None,
        })
    }

    /// A database error with context: what the ledger was doing when it failed; the
    /// SQLite error is the source.
    pub fn db(context: &str, err: rusqlite::Error) -> LedgerError {
        LedgerError::database(format!("{context}: {err}")).with_source(err)
    }
}

impl From<ErrorKind> for LedgerError {
    fn from(kind: ErrorKind) -> Self {
        LedgerError::new(kind)
    }
}

/// The general kinds' wording, shared by every caller: what happened, no setting named.
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Usage(m) | Input(m) | Output(m) | Policy(m) | Other(m) | Certificates(m) => {
                f.write_str(m)
            }
            Database(m) => write!(f, "database error: {m}"),
            OutputClosed => f.write_str("the output was closed"),
            Invalid {
                setting,
                detail,
                remedy,
            } => {
                write!(f, "{}{detail}", setting.name())?;
                match remedy {
                    Some(r) => write!(f, ", or {}", PlainWords.remedy(*r)),
                    None => Ok(()),
                }
            }
            Conflict { settings, why } => write!(
                f,
                "{} and {} cannot be combined: {why}",
                settings.0.name(),
                settings.1.name()
            ),
            Needed { settings, why } => {
                let names: Vec<&str> = settings.iter().map(|s| s.name()).collect();
                match names.split_last() {
                    Some((last, [])) => write!(f, "{why} (give {last})"),
                    Some((last, rest)) => write!(f, "{why} (give {} or {last})", rest.join(", ")),
                    None => f.write_str(why),
                }
            }
            RejectsWithFiles { rejects, files } => write!(
                f,
                "a rejects file ({}) with {files} input files: give one file per ingest \
                 when setting refused rows aside, so that each rejects file matches its input",
                rejects.display()
            ),
            ByTwice { column } => write!(f, "{column} is grouped by twice: give each column once"),
            TooManyWindows { given } => write!(
                f,
                "{given} windows given: give one (a filter) or two (compared)"
            ),
            NothingToCompare => f.write_str("compare two collections or two windows"),
            SeveralPolicies { policies, key } => match key {
                None => write!(
                    f,
                    "the ledger holds observations keyed with several policies ({}); keys \
                     from different policies are not comparable: choose one policy",
                    policies.join(", ")
                ),
                Some(k) => write!(
                    f,
                    "the key {k:?} is in the ledger under several policies ({}): say which",
                    policies.join(", ")
                ),
            },
            SheetOfText {
                sheet,
                file,
                format,
            } => write!(
                f,
                "sheet {sheet:?}: {file} is read as {format}, not as a spreadsheet (.xlsx, \
                 .xls, .ods)"
            ),
            Unreadable { detail, file } => write!(
                f,
                "{detail}; the file must be CSV, TSV, JSONL or a spreadsheet (UTF-8, UTF-16 \
                 with a byte-order mark, or an encoding named); nothing from {file} was written"
            ),
            NotUtf8 { file, line, byte } => write!(
                f,
                "{file} line {line}: not valid UTF-8 (byte {byte}); the file is in another \
                 encoding: name it, or save the file as UTF-8; nothing from {file} was written"
            ),
            StrayQuote { detail, line } => write!(
                f,
                "{detail} [input.stray-quote]; close or remove the quote on line {line}, or \
                 read every quote as an ordinary character if the file never quotes its \
                 cells; nothing was written"
            ),
            SameField {
                file,
                headers,
                field,
            } => write!(
                f,
                "{file}: the columns {:?} and {:?} both stand for {field}: keep one, or say \
                 which",
                headers.0, headers.1
            ),
            NoSuchColumn {
                file,
                missing,
                header,
            } => write!(
                f,
                "{file}: columns {}: no such column (the header has: {})",
                missing.join(", "),
                header.join(", ")
            ),
            NoColumn {
                file,
                field,
                header,
            } => write!(
                f,
                "{file}: no {field:?} column (the header has: {}); the ledger needs \
                 observation_id and observed_url, and reads {} (case, spaces and separators \
                 do not matter: \"Observation ID\" is observation_id)",
                header.join(", "),
                crate::ingest::INPUT_FIELDS.join(", ")
            ),
            RowsRefused {
                file,
                rejected,
                read,
                problem_count,
                problems,
            } => write!(
                f,
                "{file}: {rejected} of {read} rows cannot be stored ({}); nothing from {file} \
                 was written:{}\nFix these rows and ingest the file again, or store the good \
                 rows and set these aside in a rejects file",
                crate::ingest::plural(*problem_count, "problem"),
                crate::ingest::list_problems(problems, *problem_count, &PlainWords)
            ),
            RejectsUnwritable {
                path,
                file,
                stored,
                error,
            } => write!(
                f,
                "cannot write the rejects file {}: {error}; the {stored} good rows of {file} \
                 were stored: ingest {file} again with a writable rejects file to get the \
                 refused rows (stored rows count as already present)",
                path.display()
            ),
            NoLedger { path } => write!(
                f,
                "database error: there is no ledger at {}: create one, or ingest a file into \
                 it",
                path.display()
            ),
            NotALedger { path } => write!(
                f,
                "database error: {} is an SQLite database but not a urlkey ledger (it has \
                 tables and no ledger schema version)",
                path.display()
            ),
        }
    }
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for LedgerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<rusqlite::Error> for LedgerError {
    fn from(err: rusqlite::Error) -> Self {
        LedgerError::database(err.to_string()).with_source(err)
    }
}

impl From<std::io::Error> for LedgerError {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            LedgerError::new(ErrorKind::OutputClosed).with_source(err)
        } else {
            LedgerError::output(format!("could not write the output: {err}")).with_source(err)
        }
    }
}

impl From<csv::Error> for LedgerError {
    fn from(err: csv::Error) -> Self {
        if let csv::ErrorKind::Io(e) = err.kind() {
            let kind = LedgerError::from(std::io::Error::new(e.kind(), e.to_string())).kind;
            return LedgerError { kind, source: None }.with_source(err);
        }
        LedgerError::output(format!("could not write CSV: {:?}", err.kind())).with_source(err)
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
            (ErrorKind::Usage(m()), Exit::Usage, 2),
            (ErrorKind::Input(m()), Exit::Input, 3),
            (ErrorKind::Output(m()), Exit::Output, 4),
            (ErrorKind::Policy(m()), Exit::Policy, 5),
            (ErrorKind::Database(m()), Exit::Database, 6),
            (ErrorKind::Other(m()), Exit::Internal, 70),
            (ErrorKind::OutputClosed, Exit::Done, 0),
            (
                ErrorKind::Invalid {
                    setting: Setting::Window,
                    detail: m(),
                    remedy: None,
                },
                Exit::Usage,
                2,
            ),
            (ErrorKind::NothingToCompare, Exit::Usage, 2),
            (
                ErrorKind::NotUtf8 {
                    file: m(),
                    line: 1,
                    byte: 0,
                },
                Exit::Input,
                3,
            ),
            (
                ErrorKind::NoLedger {
                    path: PathBuf::from("x"),
                },
                Exit::Database,
                6,
            ),
            (ErrorKind::Certificates(m()), Exit::Internal, 70),
        ];
        for (kind, exit, code) in rows {
            let e = LedgerError::new(kind);
            assert_eq!(e.exit(), exit, "{e:?}");
            assert_eq!(e.exit_code(), code, "{e:?}");
        }
    }

    /// The errors of SQLite, of a write and of CSV are kept as the source, and a closed
    /// pipe (however it comes) is [`ErrorKind::OutputClosed`].
    #[test]
    fn library_errors_are_kept_as_the_source() {
        use std::error::Error as _;
        let sql = LedgerError::db("cannot read", rusqlite::Error::InvalidQuery);
        assert_eq!(sql.exit(), Exit::Database);
        assert!(sql
            .source()
            .is_some_and(|s| s.downcast_ref::<rusqlite::Error>().is_some()));
        let io = LedgerError::from(std::io::Error::other("disk full"));
        assert_eq!(io.exit(), Exit::Output);
        assert_eq!(
            io.source().map(|s| s.to_string()).as_deref(),
            Some("disk full")
        );
        let pipe = LedgerError::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(pipe.is_output_closed());
        let csv_pipe = LedgerError::from(csv::Error::from(std::io::Error::from(
            std::io::ErrorKind::BrokenPipe,
        )));
        assert!(csv_pipe.is_output_closed());
        assert!(csv_pipe
            .source()
            .is_some_and(|s| s.downcast_ref::<csv::Error>().is_some()));
        assert!(LedgerError::usage("x".into()).source().is_none());
    }
}

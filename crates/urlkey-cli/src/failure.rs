//! Why a command stopped, and the exit code that says so.
//!
//! The codes are one table for every command, `urlkey ledger ...` and `urlkey serve`
//! included: [`Exit`] (docs/cli.md, "Exit codes", which a test compares with it). The
//! table lives in `urlkey-batch` rather than here because the ledger library maps its own
//! errors into it ([`LedgerError::exit`]) and a library cannot depend on this binary.
//!
//! Each library's error becomes a [`Failure`] through one function of this module, so that
//! the same trouble has the same code and wording in every command: [`input_error`],
//! [`output_error`] (and [`json_error`]), [`policy_error`], [`thread_error`],
//! [`map_error`], [`run_error`], [`serve_error`]; a ledger error is kept whole
//! ([`Failure::Ledger`]) and exits with its own row of the table.

use urlkey_batch::input::{InputError, InputErrorKind};
use urlkey_batch::map::MapError;
use urlkey_batch::pipeline::{RunError, ThreadError};
use urlkey_cli::flags::advice;
#[cfg(test)]
use urlkey_ledger::error::ErrorKind;
use urlkey_ledger::error::LedgerError;
use urlkey_serve::ServeError;

pub use urlkey_batch::exit::Exit;

/// Why a command stopped, and the exit code that says so.
#[derive(Debug)]
pub enum Failure {
    /// [`Exit::Internal`].
    Internal(String),
    /// [`Exit::Usage`].
    Usage(String),
    /// [`Exit::Input`].
    Input(String),
    /// [`Exit::Output`].
    Output(String),
    /// [`Exit::Policy`].
    Policy(String),
    /// A ledger command's error: its own row of the table ([`LedgerError::exit`]), its
    /// message prefixed `urlkey ledger:` as docs/ledger.md shows it.
    Ledger(LedgerError),
    /// `urlkey serve`'s `--ledger` that cannot be served: the ledger's row, the message
    /// naming `--ledger`.
    Serve(Exit, String),
    /// Exit so, the message (if any) already printed: [`Exit::Differ`] from a comparing
    /// command, [`Exit::Done`] for a closed pipe.
    Exit(Exit),
}

impl Failure {
    /// The row of the exit-code table.
    pub fn exit(&self) -> Exit {
        match self {
            Failure::Internal(_) => Exit::Internal,
            Failure::Usage(_) => Exit::Usage,
            Failure::Input(_) => Exit::Input,
            Failure::Output(_) => Exit::Output,
            Failure::Policy(_) => Exit::Policy,
            Failure::Ledger(e) => e.exit(),
            Failure::Serve(code, _) => *code,
            Failure::Exit(e) => *e,
        }
    }

    /// Prints the message on standard error (none for [`Failure::Exit`], whose command
    /// has said what it had to).
    pub fn report(&self) {
        match self {
            Failure::Internal(m)
            | Failure::Usage(m)
            | Failure::Input(m)
            | Failure::Output(m)
            | Failure::Policy(m) => urlkey_batch::note!("urlkey: {m}"),
            Failure::Ledger(e) => {
                urlkey_batch::note!("urlkey ledger: {}", advice::ledger(e, "--db"))
            }
            Failure::Serve(_, m) => urlkey_batch::note!("urlkey serve: {m}"),
            Failure::Exit(_) => {}
        }
    }
}

/// An input that cannot be opened or read (exit 3); the reader's message names the file
/// and the line, this adds the flag that reads it otherwise.
pub fn input_error(e: InputError) -> Failure {
    match e.kind {
        InputErrorKind::Quote { line } => Failure::Input(format!(
            "{e} [{}]; close or remove the quote on line {line}, or, if the file never \
             quotes its cells, read every quote as an ordinary character with --quote none",
            e.kind.code()
        )),
        InputErrorKind::HeaderBelow { line } => Failure::Input(format!(
            "{e}: skip the lines above the header with --skip-rows {}",
            line - 1
        )),
        _ => Failure::Input(e.to_string()),
    }
}

/// Maps a write error; a closed pipe (`urlkey key | head`) is not a failure.
pub fn output_error(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Failure::Exit(Exit::Done)
    } else {
        Failure::Output(format!("cannot write the output: {e}"))
    }
}

/// Maps an error of writing JSON: a closed pipe is not a failure, as in [`output_error`].
pub fn json_error(e: serde_json::Error) -> Failure {
    match e.io_error_kind() {
        Some(kind) => output_error(kind.into()),
        None => Failure::Output(format!("cannot write the output: {e}")),
    }
}

/// A policy that cannot be used (exit 5); an unknown id gets the flag that defines more.
pub fn policy_error(e: urlkey::PolicyError) -> Failure {
    match e {
        urlkey::PolicyError::Unknown { .. } => {
            Failure::Policy(format!("{e} (define more with --policy-file)"))
        }
        e => Failure::Policy(e.to_string()),
    }
}

/// A thread that cannot start is an internal failure in every command; the
/// library says what failed, the command line what to do.
pub fn thread_error(e: ThreadError) -> Failure {
    let hint = match &e {
        ThreadError::Workers { .. } => "try a smaller --threads",
        ThreadError::Stage(_) => "run with --threads 1, which needs none",
        _ => "try a smaller --threads",
    };
    Failure::Internal(format!("{e}; {hint}"))
}

/// Why `map` stopped. Too many distinct keys is a property of the input (exit 3); a
/// fingerprint collision is the tool's (exit 70).
pub fn map_error(e: MapError) -> Failure {
    match e {
        MapError::Input(e) => input_error(e),
        MapError::Output(e) => output_error(e),
        MapError::Collision(_) => Failure::Internal(e.to_string()),
        MapError::TooManyKeys => Failure::Input(e.to_string()),
        MapError::Thread(e) => thread_error(e),
    }
}

/// Why a streamed run (`key`, `diff`) stopped.
pub fn run_error(e: RunError) -> Failure {
    match e {
        RunError::Input(e) => input_error(e),
        RunError::Output(e) => output_error(e),
        RunError::Thread(e) => thread_error(e),
    }
}

/// Why `serve` stopped: settings that cannot work are usage errors (exit 2), as in every
/// command; a socket or runtime that cannot be set up is internal (exit 70); a `--ledger`
/// that cannot be served has the ledger's own row and advice, its path named `--ledger`.
pub fn serve_error(e: ServeError) -> Failure {
    match e {
        ServeError::Setting { setting, problem } => {
            Failure::Usage(crate::flags::serve::setting_advice(setting, &problem))
        }
        ServeError::Thread(e) => thread_error(e),
        ServeError::Ledger(l) => Failure::Serve(
            l.exit(),
            format!("--ledger: {}", advice::ledger(&l, "--ledger")),
        ),
        other => Failure::Internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each library's error lands on the row of the table its kind names, and only a
    /// comparing command's answer is 1.
    #[test]
    fn every_library_error_lands_on_its_row() {
        let io = std::io::Error::other;
        let cases = [
            (
                output_error(std::io::ErrorKind::BrokenPipe.into()),
                Exit::Done,
            ),
            (output_error(io("disk full")), Exit::Output),
            (
                policy_error(urlkey::PolicySet::builtin().get("nope@9").unwrap_err()),
                Exit::Policy,
            ),
            (map_error(MapError::TooManyKeys), Exit::Input),
            (map_error(MapError::Output(io("x"))), Exit::Output),
            (run_error(RunError::Output(io("x"))), Exit::Output),
            (
                serve_error(ServeError::Setting {
                    setting: urlkey_serve::Setting::MaxConnections,
                    problem: urlkey_serve::SettingProblem::Zero,
                }),
                Exit::Usage,
            ),
            (serve_error(ServeError::Run("x".into())), Exit::Internal),
            (
                Failure::Ledger(LedgerError::database("x".into())),
                Exit::Database,
            ),
            (Failure::Ledger(ErrorKind::OutputClosed.into()), Exit::Done),
        ];
        for (failure, want) in cases {
            assert_eq!(failure.exit(), want, "{failure:?}");
            assert_ne!(failure.exit(), Exit::Differ, "{failure:?}");
        }
        let unknown = policy_error(urlkey::PolicySet::builtin().get("nope@9").unwrap_err());
        assert!(
            matches!(&unknown, Failure::Policy(m) if m.ends_with("(define more with --policy-file)")),
            "{unknown:?}"
        );
    }
}

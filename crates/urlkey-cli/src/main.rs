//! `urlkey`: a thin binary over the `urlkey` library and its batch crate.
//!
//! Exit codes: one table for every command, the ledger's included
//! ([`urlkey_batch::exit::Exit`], docs/cli.md "Exit codes"). An interrupted run leaves
//! every output file as it was.

#![forbid(unsafe_code)]

mod cmd;

use urlkey_cli::flags;

use clap::Parser;
use urlkey_batch::exit::Exit;

// Key and map allocate small strings per record; mimalloc cut their CPU time by a fifth
// (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Exit so, the message (if any) already printed: [`Exit::Differ`] from a comparing
    /// command, [`Exit::Done`] for a closed pipe, the ledger's own errors.
    Exit(Exit),
}

impl Failure {
    fn exit(&self) -> Exit {
        match self {
            Failure::Internal(_) => Exit::Internal,
            Failure::Usage(_) => Exit::Usage,
            Failure::Input(_) => Exit::Input,
            Failure::Output(_) => Exit::Output,
            Failure::Policy(_) => Exit::Policy,
            Failure::Exit(e) => *e,
        }
    }
}

/// A thread that cannot start is an internal failure in every command; the
/// library says what failed, the command line what to do.
pub fn thread_error(e: urlkey_batch::pipeline::ThreadError) -> Failure {
    use urlkey_batch::pipeline::ThreadError;
    let hint = match &e {
        ThreadError::Workers { .. } => "try a smaller --threads",
        ThreadError::Stage(_) => "run with --threads 1, which needs none",
        _ => "try a smaller --threads",
    };
    Failure::Internal(format!("{e}; {hint}"))
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

/// On SIGINT or SIGTERM: remove the temporary output files, so that every target stays as
/// it was, and exit 130 or 143 as shells do.
fn handle_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("urlkey-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let removed = urlkey_batch::outfile::remove_pending();
                let (what, exit) = if sig == SIGINT {
                    ("interrupted", Exit::Interrupted)
                } else {
                    ("terminated", Exit::Terminated)
                };
                if removed > 0 {
                    eprintln!("urlkey: {what}: outputs left as they were");
                } else {
                    eprintln!("urlkey: {what}");
                }
                std::process::exit(exit.code());
            }
        });
    if spawned.is_err() {
        eprintln!(
            "urlkey: note: cannot watch for Ctrl-C; an interrupted run may leave a temporary file"
        );
    }
}

fn main() {
    let cli = flags::Cli::parse();
    handle_signals();
    let result = match cli.command {
        flags::Command::Key(a) => cmd::key::run(a),
        flags::Command::Map(a) => cmd::map::run(a),
        flags::Command::Inspect(a) => cmd::inspect::run(a),
        flags::Command::Explain(a) => cmd::explain::run(a),
        flags::Command::Diff(a) => cmd::diff::run(a),
        flags::Command::Policies(a) => cmd::info::policies(a),
        flags::Command::Rules(a) => cmd::rules::run(a),
        flags::Command::Codes(a) => cmd::info::codes(a),
        flags::Command::Ledger(a) => {
            let (db, command) = a.into_command();
            urlkey_ledger::run_on_stdio(command, &db)
        }
        .map_err(|e| {
            eprintln!("urlkey ledger: {e}");
            Failure::Exit(e.exit())
        }),
        // Settings that cannot work are usage errors (exit 2), as in every command.
        flags::Command::Serve(a) => match a.config() {
            Err(e) => Err(Failure::Usage(e.to_string())),
            Ok(_) => urlkey_serve::run(a).map_err(|e| match e {
                urlkey_serve::ServeError::Usage(m) => Failure::Usage(m),
                urlkey_serve::ServeError::Thread(e) => thread_error(e),
                other => Failure::Internal(other.to_string()),
            }),
        },
    };
    if let Err(f) = result {
        match &f {
            Failure::Internal(m)
            | Failure::Usage(m)
            | Failure::Input(m)
            | Failure::Output(m)
            | Failure::Policy(m) => {
                eprintln!("urlkey: {m}")
            }
            Failure::Exit(_) => {}
        }
        std::process::exit(f.exit().code());
    }
}

//! `urlkey`: a thin binary over the `urlkey` library and its batch crate.
//!
//! Exit codes, one table for every command (docs/cli.md): 0 the run completed (invalid
//! rows included; `explain`: the inputs share one key); 1 an internal error (`explain`: the
//! inputs do not share one key); 2 a usage error; 3 an input could not be read; 4
//! the output could not be written; 5 a policy, policy file or suffix list could not be
//! used; 6 the ledger's database could not be used; 130 interrupted (SIGINT); 143
//! terminated (SIGTERM). An interrupted run leaves every output file as it was.

#![forbid(unsafe_code)]

mod cmd;
mod flags;

use clap::Parser;

// Key and map allocate small strings per record; mimalloc cut their CPU time by a fifth
// (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Why a command stopped, and the exit code that says so.
#[derive(Debug)]
pub enum Failure {
    /// Exit 1.
    Internal(String),
    /// Exit 2.
    Usage(String),
    /// Exit 3.
    Input(String),
    /// Exit 4.
    Output(String),
    /// Exit 5.
    Policy(String),
    /// Exit with this code, the message already printed.
    Code(i32),
}

impl Failure {
    fn exit_code(&self) -> i32 {
        match self {
            Failure::Internal(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Input(_) => 3,
            Failure::Output(_) => 4,
            Failure::Policy(_) => 5,
            Failure::Code(c) => *c,
        }
    }
}

/// A thread that cannot start is an internal failure (exit 1) in every command; the
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
        Failure::Code(0)
    } else {
        Failure::Output(format!("cannot write the output: {e}"))
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
                let what = if sig == SIGINT {
                    "interrupted"
                } else {
                    "terminated"
                };
                if removed > 0 {
                    eprintln!("urlkey: {what}: outputs left as they were");
                } else {
                    eprintln!("urlkey: {what}");
                }
                std::process::exit(128 + sig);
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
        flags::Command::Ledger(a) => urlkey_ledger::cli::run(a).map_err(|e| {
            eprintln!("urlkey ledger: {e}");
            Failure::Code(e.exit_code())
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
            Failure::Code(_) => {}
        }
        std::process::exit(f.exit_code());
    }
}

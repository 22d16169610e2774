//! `urlkey`: a thin binary over the `urlkey` library and its batch crate.
//!
//! The flags are defined in [`flags`] and parsed apart from the work; each command in
//! [`cmd`] turns its flags into settings ([`cmd::setup`]) and does the work; a command
//! that stops returns a [`failure::Failure`], whose code is its row of the one exit-code
//! table of every command, the ledger's included ([`failure::Exit`], docs/cli.md "Exit
//! codes"). An interrupted run leaves every output file as it was ([`signals`]).

#![forbid(unsafe_code)]

mod cmd;
mod failure;
mod signals;

use urlkey_cli::flags;

use clap::Parser;

use failure::serve_error;

// Key and map allocate small strings per record; mimalloc cut their CPU time by a fifth
// (docs/benchmarks.md, "A faster allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = flags::Cli::parse();
    signals::watch();
    let result = match cli.command {
        flags::Command::Key(a) => cmd::key::run(a),
        flags::Command::Map(a) => cmd::map::run(a),
        flags::Command::Inspect(a) => cmd::inspect::run(a),
        flags::Command::Explain(a) => cmd::explain::run(a),
        flags::Command::Diff(a) => cmd::diff::run(a),
        flags::Command::Policies(a) => cmd::info::policies(a),
        flags::Command::Rules(a) => cmd::rules::run(a),
        flags::Command::Codes(a) => cmd::info::codes(a),
        flags::Command::Ledger(a) => cmd::ledger::run(a),
        flags::Command::Redirects(a) => cmd::redirects::run(a),
        flags::Command::Completions(a) => cmd::completions::run(a),
        flags::Command::Man(a) => cmd::man::run(a),
        flags::Command::Serve(a) => a
            .config()
            .and_then(|_| urlkey_serve::run(a.options()))
            .map_err(serve_error),
    };
    if let Err(f) = result {
        f.report();
        std::process::exit(f.exit().code());
    }
}

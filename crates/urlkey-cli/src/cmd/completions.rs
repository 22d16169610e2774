//! `urlkey completions SHELL`: the shell's completion script (clap_complete) on standard
//! output. The script is generated into memory first: clap_complete panics when its writer
//! fails, and a closed pipe (`urlkey completions bash | head -1`) is a completed run here.

use std::io::Write;

use clap::CommandFactory;

use crate::failure::{output_error, Failure};
use crate::flags::{Cli, CompletionsArgs};

pub fn run(a: CompletionsArgs) -> Result<(), Failure> {
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut Cli::command(), "urlkey", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .map_err(output_error)
}

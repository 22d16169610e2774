//! `urlkey redirects`: each command reads its inputs, runs [`urlkey_redirects`] and writes
//! the rows or the report.

mod propose;

use crate::failure::Failure;
use crate::flags::redirects::{RedirectsArgs, RedirectsCommand};

pub fn run(a: RedirectsArgs) -> Result<(), Failure> {
    match a.command {
        RedirectsCommand::Propose(a) => propose::run(a),
        RedirectsCommand::Evidence(a) => propose::evidence(a),
        RedirectsCommand::Check(_) | RedirectsCommand::Compile(_) | RedirectsCommand::Test(_) => {
            Err(Failure::Usage(
                "urlkey redirects: this command is not built yet".into(),
            ))
        }
    }
}

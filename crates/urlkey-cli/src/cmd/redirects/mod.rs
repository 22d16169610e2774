//! `urlkey redirects`: each command reads its inputs, runs [`urlkey_redirects`] and writes
//! the rows or the report.

use crate::failure::Failure;
use crate::flags::redirects::{RedirectsArgs, RedirectsCommand};

mod check;
mod compile;
mod test;

pub fn run(a: RedirectsArgs) -> Result<(), Failure> {
    match a.command {
        RedirectsCommand::Check(a) => check::run(a),
        RedirectsCommand::Compile(c) => compile::run(c),
        RedirectsCommand::Propose(_) | RedirectsCommand::Evidence(_) => Err(Failure::Usage(
            "urlkey redirects: this command is not built yet".into(),
        )),
        RedirectsCommand::Test(t) => test::run(t),
    }
}

//! `urlkey redirects`: each command reads its inputs, runs [`urlkey_redirects`] and writes
//! the rows or the report.

use crate::failure::Failure;
use crate::flags::redirects::{RedirectsArgs, RedirectsCommand};

mod compile;
mod test;

pub fn run(a: RedirectsArgs) -> Result<(), Failure> {
    match a.command {
        RedirectsCommand::Compile(c) => compile::run(c),
        RedirectsCommand::Propose(_)
        | RedirectsCommand::Evidence(_)
        | RedirectsCommand::Check(_) => Err(Failure::Usage(
            "urlkey redirects: this command is not built yet".into(),
        )),
        RedirectsCommand::Test(t) => test::run(t),
    }
}

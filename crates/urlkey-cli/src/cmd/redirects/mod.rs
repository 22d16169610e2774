//! `urlkey redirects`: each command reads its inputs, runs [`urlkey_redirects`] and writes
//! the rows or the report.

mod test;

use crate::failure::Failure;
use crate::flags::redirects::{RedirectsArgs, RedirectsCommand};

pub fn run(a: RedirectsArgs) -> Result<(), Failure> {
    match a.command {
        RedirectsCommand::Propose(_)
        | RedirectsCommand::Evidence(_)
        | RedirectsCommand::Check(_)
        | RedirectsCommand::Compile(_) => Err(Failure::Usage(
            "urlkey redirects: this command is not built yet".into(),
        )),
        RedirectsCommand::Test(t) => test::run(t),
    }
}

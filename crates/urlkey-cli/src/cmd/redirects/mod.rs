//! `urlkey redirects`: each command reads its inputs, runs [`urlkey_redirects`] and writes
//! the rows or the report.

mod propose;

use crate::failure::Failure;
use crate::flags::redirects::{RedirectsArgs, RedirectsCommand};

mod check;
mod compile;
mod test;

pub fn run(a: RedirectsArgs) -> Result<(), Failure> {
    match a.command {
        RedirectsCommand::Propose(a) => propose::run(a),
        RedirectsCommand::Evidence(a) => propose::evidence(a),
        RedirectsCommand::Check(a) => check::run(a),
        RedirectsCommand::Compile(c) => compile::run(c),
        RedirectsCommand::Test(t) => test::run(t),
    }
}

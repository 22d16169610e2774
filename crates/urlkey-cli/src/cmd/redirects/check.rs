//! `urlkey redirects check --server S [--new NEW [--column C]] MAP`: the map read the way
//! its server reads it (docs/redirects.md, "## Check"). Exit 0 when it passes (warnings
//! allowed), 1 when a finding is an error.

use std::io::Write;

use urlkey_batch::input::{format_from_name, InputFormat, ReadOptions, Source};
use urlkey_redirects::check::{check_with, render, CheckOptions, Inventory};
use urlkey_redirects::{MapError, RedirectMap, Server};

use crate::cmd::setup::{check_outputs, check_read_options, output};
use crate::failure::{input_error, json_error, output_error, Exit, Failure};
use crate::flags::redirects::{CheckArgs, CheckFormat};

pub fn run(a: CheckArgs) -> Result<(), Failure> {
    let server = Server::from(a.server);
    let map_src = Source::from_arg(&a.map);
    let new_src = a.new.as_deref().map(Source::from_arg);
    if matches!(map_src, Source::Stdin) && matches!(new_src, Some(Source::Stdin)) {
        return Err(Failure::Usage(
            "the MAP and --new cannot both be standard input (-): give one as a file".into(),
        ));
    }
    let mut inputs = vec![map_src.clone()];
    inputs.extend(new_src.clone());
    if let Some(o) = &a.output {
        check_outputs(&[o.as_path()], &inputs)?;
    }
    let map = RedirectMap::read(&map_src).map_err(map_read_error)?;
    let new = match &new_src {
        None => None,
        Some(src) => {
            let opts = new_options(src, a.column.clone());
            check_read_options(&opts)?;
            Some(Inventory::read(src, &opts, server).map_err(input_error)?)
        }
    };
    let report = check_with(&map, server, &CheckOptions { new });
    let mut out = output(&a.output)?;
    let written = match a.format {
        CheckFormat::Text => {
            render::write_text(&report, &map_src.name(), &mut out).map_err(output_error)
        }
        CheckFormat::Csv => render::write_csv(&report, &mut out).map_err(output_error),
        CheckFormat::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(json_error)
            .and_then(|()| writeln!(out).map_err(output_error)),
    };
    // A reader that closed the pipe (`| head`) does not change the answer.
    match written.and_then(|()| out.commit()) {
        Ok(()) | Err(Failure::Exit(Exit::Done)) => {}
        Err(f) => return Err(f),
    }
    if report.passes() {
        Ok(())
    } else {
        Err(Failure::Exit(Exit::Differ))
    }
}

/// NEW is read as `key` reads an input: its shape from its name, CSV when a column is named
/// and the name says nothing, else one URL per line.
fn new_options(src: &Source, column: Option<String>) -> ReadOptions {
    let named = match src {
        Source::File(p) => format_from_name(p),
        _ => None,
    };
    let format = named.unwrap_or(if column.is_some() {
        InputFormat::Csv
    } else {
        InputFormat::Lines
    });
    ReadOptions {
        format,
        column,
        ..ReadOptions::default()
    }
}

/// A MAP that cannot be read: its reader's error (exit 3), an empty file, or a header
/// without `target`.
pub(super) fn map_read_error(e: MapError) -> Failure {
    match e {
        MapError::Input(e) => input_error(e),
        e @ (MapError::NoTargetColumn { .. } | MapError::Empty { .. }) => {
            Failure::Input(e.to_string())
        }
    }
}

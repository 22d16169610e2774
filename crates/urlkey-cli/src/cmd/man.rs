//! `urlkey man`: urlkey(1) on standard output, or with `--dir DIR` one page per command
//! and subcommand (clap_mangen's names: `urlkey.1`, `urlkey-ledger-add.1`), each written
//! through a temporary file renamed into place (`urlkey_batch::outfile`).
//!
//! clap_mangen renders the after-help text as filled prose, which runs the examples
//! together, so the pages are put together here from its sections and the after-help's
//! parts (`flags::help`): NOTES and EXAMPLES without filling, the `More:` line as SEE
//! ALSO, and the whole `--version` text as VERSION.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_mangen::Man;
use urlkey_batch::outfile::OutputFile;

use crate::failure::{output_error, Failure};
use crate::flags::{help, Cli, ManArgs};

pub fn run(a: ManArgs) -> Result<(), Failure> {
    let mut root = tree();
    let Some(dir) = a.dir else {
        let page = page(&root).map_err(output_error)?;
        let mut out = std::io::stdout().lock();
        return out
            .write_all(&page)
            .and_then(|()| out.flush())
            .map_err(output_error);
    };
    ensure_dir(&dir)?;
    let mut written = Vec::new();
    write_all(&mut root, &dir, &mut written)?;
    // The pages are the product; their paths are an announcement that a closed pipe loses.
    for path in written {
        urlkey_batch::stdio::print_line(format_args!("{}", path.display()));
    }
    Ok(())
}

/// The command tree as the pages show it: built (so each subcommand has its display name,
/// `urlkey-ledger-add`), without clap's `help` subcommand, which has no page.
pub(crate) fn tree() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// DIR is created if missing; a DIR that exists and is not a directory is refused.
fn ensure_dir(dir: &Path) -> Result<(), Failure> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Failure::Output(format!(
            "man --dir {}: it is a file, not a directory; name a directory (it is created \
             if missing)",
            dir.display()
        ))),
        Err(_) => std::fs::create_dir_all(dir).map_err(|e| {
            Failure::Output(format!(
                "man --dir {}: cannot create the directory: {e}",
                dir.display()
            ))
        }),
    }
}

/// Writes the page of `cmd`, then those of its subcommands, depth first, in the order
/// `--help` lists them.
fn write_all(
    cmd: &mut clap::Command,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> Result<(), Failure> {
    let name = Man::new(cmd.clone()).get_filename();
    let path = dir.join(name);
    let cannot = |e: std::io::Error| {
        Failure::Output(format!("man --dir: cannot write {}: {e}", path.display()))
    };
    let bytes = page(cmd).map_err(cannot)?;
    let mut file = OutputFile::create(&path).map_err(cannot)?;
    file.write_all(&bytes).map_err(cannot)?;
    file.commit().map_err(cannot)?;
    written.push(path.clone());
    for sub in cmd.get_subcommands_mut().filter(|s| !s.is_hide_set()) {
        write_all(sub, dir, written)?;
    }
    Ok(())
}

/// One page in roff.
pub(crate) fn page(cmd: &clap::Command) -> std::io::Result<Vec<u8>> {
    // The page footer names the program, not the subcommand (clap_mangen's default
    // would give `add 0.1.0` for `urlkey ledger review add`).
    let man = Man::new(cmd.clone()).source(concat!("urlkey ", env!("CARGO_PKG_VERSION")));
    let mut parts = Vec::new();
    man.render_title(&mut parts)?;
    man.render_name_section(&mut parts)?;
    man.render_synopsis_section(&mut parts)?;
    man.render_description_section(&mut parts)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut parts)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut parts)?;
    }
    // Each section rendered alone starts with the roff crate's definition of the `\*(Aq`
    // string: keep one, after the `.TH` line, which opens a page.
    let text = String::from_utf8_lossy(&parts);
    let (preamble, body): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| is_preamble(l));
    let (title, rest) = body.split_first().unwrap_or((&"", &[]));
    let mut out = Vec::new();
    writeln!(out, "{title}")?;
    for line in preamble.iter().take(2).chain(rest) {
        writeln!(out, "{line}")?;
    }
    if let Some(text) = cmd.get_after_help() {
        after_help(&text.to_string(), &mut out)?;
    }
    if let Some(v) = cmd.get_long_version().or_else(|| cmd.get_version()) {
        section(&mut out, "VERSION", &[&format!("urlkey {v}")])?;
    }
    Ok(out)
}

/// The two lines the roff crate puts before each rendered part.
fn is_preamble(line: &str) -> bool {
    line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq")
}

/// NOTES, EXAMPLES and SEE ALSO from the after-help's parts; a text of another shape
/// (none today: `tests/help.rs`) is kept whole as NOTES.
fn after_help(text: &str, out: &mut Vec<u8>) -> std::io::Result<()> {
    let Ok(parts) = help::parse(text) else {
        return section(out, "NOTES", &[text]);
    };
    if !parts.notes.is_empty() {
        section(out, "NOTES", &parts.notes)?;
    }
    section(out, "EXAMPLES", &parts.examples)?;
    if let Some(more) = parts.more {
        section(out, "SEE ALSO", &[more.trim_start_matches(help::MORE)])?;
    }
    Ok(())
}

/// A section of lines kept as they are (`.nf`: no filling, no adjusting).
fn section(out: &mut Vec<u8>, title: &str, lines: &[&str]) -> std::io::Result<()> {
    writeln!(out, ".SH \"{title}\"\n.nf")?;
    for line in lines.iter().flat_map(|l| l.lines()) {
        writeln!(out, "{}", escape(line))?;
    }
    writeln!(out, ".fi")
}

/// A line of text as roff reads it literally: backslashes and minus signs escaped (so a
/// flag copied from the page is `--x`, not typographic dashes), and a leading `.` or `'`
/// (a request) made text.
fn escape(line: &str) -> String {
    let body = line.replace('\\', "\\e").replace('-', "\\-");
    if body.starts_with('.') || body.starts_with('\'') {
        format!("\\&{body}")
    } else {
        body
    }
}

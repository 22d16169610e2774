//! `urlkey redirects compile --to SERVER MAP -o FILE`: the map in the server's format,
//! written through a temporary file; a map that `check` fails for that server, or with
//! rows the server's file cannot say, is refused (exit 1) with what was found, and
//! nothing is written.

use std::io::Write;
use std::path::Path;

use urlkey_batch::input::Source;
use urlkey_redirects::compile::{self, Options, Refusal};
use urlkey_redirects::{MapError, RedirectMap, Server};

use crate::cmd::setup;
use crate::failure::{input_error, output_error, Exit, Failure};
use crate::flags::redirects::CompileArgs;

pub fn run(a: CompileArgs) -> Result<(), Failure> {
    let server = Server::from(a.to);
    let src = Source::from_arg(&a.map);
    let to_stdout = a.output == Path::new("-");
    if !to_stdout {
        setup::check_outputs(&[a.output.as_path()], std::slice::from_ref(&src))?;
    }
    let map = RedirectMap::read(&src).map_err(|e| match e {
        MapError::Input(e) => input_error(e),
        e => Failure::Input(e.to_string()),
    })?;
    let opts = Options {
        file: (!to_stdout).then(|| {
            std::path::absolute(&a.output)
                .unwrap_or_else(|_| a.output.clone())
                .display()
                .to_string()
        }),
    };
    let compiled = match compile::compile(&map, server, &opts) {
        Ok(c) => c,
        Err(r) => {
            refused(&map, server, &r);
            return Err(Failure::Exit(Exit::Differ));
        }
    };
    if to_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(compiled.text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(output_error)?;
    } else {
        setup::write_small_file(&a.output, compiled.text.as_bytes())?;
    }
    let set_aside = map.set_aside.len();
    urlkey_batch::note!(
        "urlkey redirects compile: {} redirects for {server} written to {} ({} rows read, {set_aside} set aside as not accepted)",
        compiled.redirects,
        if to_stdout { "standard output".into() } else { a.output.display().to_string() },
        map.rows(),
    );
    urlkey_batch::note!("add to the {server} configuration (docs/redirects.md, \"Compile\"):");
    for l in &compiled.setup {
        urlkey_batch::note!("    {l}");
    }
    Ok(())
}

/// Says why nothing was written, each problem with its MAP lines.
fn refused(map: &RedirectMap, server: Server, r: &Refusal) {
    let lines = |l: &[u64]| {
        let s: Vec<String> = l.iter().map(u64::to_string).collect();
        format!(
            "line{} {}",
            if l.len() > 1 { "s" } else { "" },
            s.join(", ")
        )
    };
    match r {
        Refusal::Check(report) => {
            urlkey_batch::note!(
                "urlkey redirects compile: refused, nothing written: check found {} problem(s) in {} for {server}; fix them (urlkey redirects check --server {server} {} says the same), then compile again:",
                report.findings.len(),
                map.name,
                map.name
            );
            for f in &report.findings {
                urlkey_batch::note!(
                    "  {:<18} {:<14} {}",
                    f.kind.as_str(),
                    lines(&f.lines),
                    f.detail
                );
            }
        }
        Refusal::Rows(problems) => {
            urlkey_batch::note!(
                "urlkey redirects compile: refused, nothing written: {} problem(s) in {}: a {server} file cannot say these rows as written:",
                problems.len(),
                map.name
            );
            for p in problems {
                urlkey_batch::note!(
                    "  {:<18} {:<14} {}",
                    p.kind.as_str(),
                    lines(&p.lines),
                    p.detail
                );
            }
        }
    }
}

//! `urlkey redirects test --base URL MAP`: every entry of the map requested on the live
//! site, one at a time, its chain recorded, one CSV row per entry in map order as it is
//! known, and a summary on standard error. Exit 0 when every entry passes, 1 otherwise.

use std::time::Duration;

use urlkey_batch::input::Source;
use urlkey_redirects::live::{
    base_url, Allowance, LiveOptions, LiveResult, NetworkScope, RowReport, RowWriter, Summary,
    Tester,
};
use urlkey_redirects::{MapError, RedirectMap};

use crate::cmd::setup;
use crate::failure::{input_error, output_error, Exit, Failure};
use crate::flags::redirects::TestArgs;

pub fn run(a: TestArgs) -> Result<(), Failure> {
    let base = base_url(&a.base).map_err(|e| Failure::Usage(format!("--base {}: {e}", a.base)))?;
    if !(a.timeout.is_finite() && a.timeout > 0.0 && a.timeout <= 86_400.0) {
        return Err(Failure::Usage(format!(
            "--timeout {}: give seconds, more than 0 and at most 86400",
            a.timeout
        )));
    }
    let src = Source::from_arg(&a.map);
    if let Some(o) = &a.output {
        setup::check_outputs(&[o.as_path()], std::slice::from_ref(&src))?;
    }
    let map = RedirectMap::read(&src).map_err(map_error)?;
    let mut opts = LiveOptions::new(base);
    opts.scope = if a.allow_loopback {
        NetworkScope::PublicAndLoopback
    } else {
        NetworkScope::Public
    };
    opts.timeout = Duration::from_secs_f64(a.timeout);
    if let Some(ms) = a.per_host_delay {
        opts.per_host_delay = Duration::from_millis(ms);
    }
    let tester = Tester::new(&opts).map_err(|e| Failure::Internal(e.to_string()))?;
    let mut summary = Summary::new(&map.set_aside);
    let out = setup::output(&a.output)?;
    let mut rows = RowWriter::new(out).map_err(output_error)?;
    for entry in &map.entries {
        let row = tester.test(entry);
        summary.add(row.result);
        // A reader that closed the pipe (`| head`) stops the run: nothing more is requested.
        rows.write(&row, &worded(&row)).map_err(output_error)?;
    }
    rows.into_inner().map_err(output_error)?.commit()?;
    urlkey_batch::note!("urlkey redirects test: {}", summary.line());
    if summary.all_pass() {
        Ok(())
    } else {
        Err(Failure::Exit(Exit::Differ))
    }
}

/// A MAP that cannot be read: exit 3.
fn map_error(e: MapError) -> Failure {
    match e {
        MapError::Input(e) => input_error(e),
        other => Failure::Input(other.to_string()),
    }
}

/// The row's detail, and for a refused address what allows it, with this command's flag.
fn worded(row: &RowReport) -> String {
    let detail = row.detail.clone().unwrap_or_default();
    if row.result != LiveResult::Refused {
        return detail;
    }
    let advice = match row.refusal {
        Some(Allowance::Loopback) => {
            "pass --allow-loopback to test a server on this machine".to_string()
        }
        Some(Allowance::Never) => "such addresses are never requested".to_string(),
        _ => "redirects test never connects to private networks: run it where the site \
              has a public address, or a loopback one with --allow-loopback"
            .to_string(),
    };
    format!("{detail}; {advice}")
}

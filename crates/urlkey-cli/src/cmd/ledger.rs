//! `urlkey ledger`: the ledger's command run on standard output and standard error, with
//! its ingest progress drawn here (as `urlkey map`'s) and its advice in this command
//! line's words ([`Flags`]).

use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::Path;

use urlkey_cli::flags::advice::Flags;
use urlkey_cli::flags::ledger::LedgerArgs;
use urlkey_ledger::ingest::Phase;
use urlkey_ledger::Progress;

use crate::failure::Failure;

/// Runs a ledger command on standard output and standard error. A reader of standard
/// output that goes away (`urlkey ledger export | head`) ends a command whose product is
/// standard output quietly; `ingest`, whose product is the database and whose standard
/// output only reports, ingests every file regardless. A closed standard error loses the
/// notes, never the run ([`urlkey_batch::stdio`]).
pub fn run(args: LedgerArgs) -> Result<(), Failure> {
    use urlkey_batch::stdio::Lossy;
    let (db, command) = args.into_command();
    let mut err = Lossy(std::io::stderr().lock());
    let bar = Bar::default();
    let result = if matches!(command, urlkey_ledger::LedgerCommand::Ingest(_)) {
        let mut out = Lossy(std::io::stdout().lock());
        urlkey_ledger::run_with(command, &db, &mut out, &mut err, &bar, &Flags)
    } else {
        let mut out = std::io::stdout().lock();
        urlkey_ledger::run_with(command, &db, &mut out, &mut err, &bar, &Flags)
    };
    match result {
        Err(e) if e.is_output_closed() => Ok(()),
        Err(e) => Err(Failure::Ledger(e)),
        Ok(()) => Ok(()),
    }
}

/// The ingest progress bar: on standard error when it is a terminal, one per file.
#[derive(Default)]
struct Bar(RefCell<Option<indicatif::ProgressBar>>);

impl Progress for Bar {
    fn start(&self, file: &Path) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let style = indicatif::ProgressStyle::with_template(
            "{prefix}{msg} {bar:30} {bytes}/{total_bytes} {elapsed}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        let bar = indicatif::ProgressBar::new(0).with_style(style);
        bar.set_prefix(format!("ingest {}: ", file.display()));
        *self.0.borrow_mut() = Some(bar);
    }

    fn advance(&self, phase: Phase, done: u64, total: u64) {
        if let Some(b) = self.0.borrow().as_ref() {
            // Standard input and a decompressed stream have no known size.
            b.set_length(total.max(done));
            b.set_position(done);
            b.set_message(match phase {
                Phase::Check => "checking",
                Phase::Store => "storing",
            });
        }
    }

    fn finish(&self) {
        if let Some(b) = self.0.borrow_mut().take() {
            b.finish_and_clear();
        }
    }
}

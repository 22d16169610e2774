//! SIGINT and SIGTERM: remove the temporary output files, so that every target stays as
//! it was, and exit 130 or 143 as shells report a process ended by those signals.

use crate::failure::Exit;

/// Watches for SIGINT and SIGTERM on a thread of its own for the rest of the run.
pub fn watch() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("urlkey-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let removed = urlkey_batch::outfile::remove_pending();
                let (what, exit) = if sig == SIGINT {
                    ("interrupted", Exit::Interrupted)
                } else {
                    ("terminated", Exit::Terminated)
                };
                if removed > 0 {
                    urlkey_batch::note!("urlkey: {what}: outputs left as they were");
                } else {
                    urlkey_batch::note!("urlkey: {what}");
                }
                std::process::exit(exit.code());
            }
        });
    if spawned.is_err() {
        urlkey_batch::note!(
            "urlkey: note: cannot watch for Ctrl-C; an interrupted run may leave a temporary file"
        );
    }
}

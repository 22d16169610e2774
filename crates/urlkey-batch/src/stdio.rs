//! Standard output and standard error for what is not a command's product: notes,
//! summaries, warnings, the final error message, serve's startup lines.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone (`urlkey map -o f
//! 2>&1 | head -0`) fails with EPIPE, and `eprintln!`/`println!` panic on that (exit 101).
//! Here such a write loses its text and never the run: the run still writes its files and
//! ends with the code it would have had. A command's product on standard output goes
//! through its writer instead, where a closed pipe ends the run quietly with exit 0
//! (docs/cli.md, "Exit codes"). A test keeps `eprintln!` and `println!` out of the
//! binary and the library crates.

use std::fmt::Arguments;
use std::io::{self, Write};

/// Writes one line on standard error; a line that cannot be written is lost.
pub fn eprint_line(line: Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Writes one line on standard output and flushes it (a reader waiting for it, such as a
/// test reading serve's address, gets it at once); a line that cannot be written is lost.
pub fn print_line(line: Arguments<'_>) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// `eprintln!` that never panics: [`eprint_line`].
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::stdio::eprint_line(::std::format_args!($($arg)*))
    };
}

/// A writer that loses what it cannot write: for notes a run must not stop over.
#[derive(Debug)]
pub struct Lossy<W>(pub W);

impl<W: Write> Write for Lossy<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Lossy;
    use std::io::Write;

    /// A writer that always fails, as a closed pipe does.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn lossy_writes_succeed_on_a_closed_pipe() {
        let mut w = Lossy(Closed);
        assert!(writeln!(w, "note: {}", 1).is_ok());
        assert!(w.flush().is_ok());
        let mut kept = Lossy(Vec::new());
        writeln!(kept, "a").expect("a vector takes it");
        assert_eq!(kept.0, b"a\n");
    }
}

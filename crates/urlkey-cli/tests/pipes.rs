//! A closed standard output or standard error, the class of `urlkey ... | head -0` and
//! `urlkey map -o f 2>&1 | head -0`: no command panics (exit 101), a closed standard error
//! changes no exit code, a closed standard output gives the code of the open run or 0, and an output file (`-o`, the ledger) is still written completely.

use std::path::Path;
use std::process::{Command, Stdio};

/// Which of the standard streams is a pipe whose reader is already gone.
#[derive(Debug, Clone, Copy)]
enum Closed {
    Stdout,
    Stderr,
    Both,
}

/// Runs `urlkey ARGS` in `dir`; a stream not closed is captured. Gives the exit code
/// and what was captured of standard error.
fn run_in(dir: &Path, args: &[&str], closed: Option<Closed>) -> (Option<i32>, String) {
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        Stdio::from(writer)
    };
    let (out_closed, err_closed) = match closed {
        None => (false, false),
        Some(Closed::Stdout) => (true, false),
        Some(Closed::Stderr) => (false, true),
        Some(Closed::Both) => (true, true),
    };
    let child = Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(if out_closed {
            closed_pipe()
        } else {
            Stdio::piped()
        })
        .stderr(if err_closed {
            closed_pipe()
        } else {
            Stdio::piped()
        })
        .spawn()
        .expect("the binary starts");
    let out = child.wait_with_output().expect("the binary finishes");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An input large enough to outlast any pipe buffer, with invalid lines (notes, codes).
fn write_input(dir: &Path) {
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!(
            "https://Example{i}.com/p/?utm_source=x&a={i}\r\nnot a url {i}\r\n"
        ));
    }
    std::fs::write(dir.join("in.txt"), text).expect("input");
    std::fs::write(
        dir.join("old.txt"),
        "https://a.example/x\nhttps://b.example/\n",
    )
    .expect("old");
    let header =
        "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url,note\n";
    for (name, id) in [("one.csv", "a"), ("two.csv", "b")] {
        let mut csv = header.to_string();
        for i in 0..300 {
            csv.push_str(&format!(
                "{id}{i},sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/{i},n\n"
            ));
        }
        std::fs::write(dir.join(name), csv).expect("ledger input");
    }
}

#[test]
fn no_command_panics_or_changes_its_code_on_a_closed_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_input(dir.path());
    let commands: &[&[&str]] = &[
        &["key", "in.txt"],
        &["key", "--format", "csv", "in.txt"],
        &["key", "nonexistent.txt"],
        &["map", "in.txt"],
        &["diff", "--from", "citation@1", "--to", "clean@1", "in.txt"],
        &[
            "diff",
            "--from",
            "citation@1",
            "--to",
            "clean@1",
            "--format",
            "csv",
            "in.txt",
        ],
        &["diff", "--policy", "citation@1", "old.txt", "in.txt"],
        &["inspect", "https://a.example/x?utm_source=1"],
        &["explain", "https://a.example/", "https://b.example/"],
        &["policies"],
        &["rules"],
        &["codes"],
        &["ledger", "--db", "missing.sqlite", "report"],
        &["key", "--no-such-flag"],
        &["--help"],
        &["--version"],
        &["completions", "bash"],
        &["completions", "zsh"],
        &["man"],
    ];
    for args in commands {
        let (want, _) = run_in(dir.path(), args, None);
        assert_ne!(want, Some(101), "{args:?} panics with open pipes");
        for closed in [Closed::Stdout, Closed::Stderr, Closed::Both] {
            let (code, err) = run_in(dir.path(), args, Some(closed));
            assert!(!err.contains("panicked"), "{args:?} {closed:?}: {err}");
            // A closed standard output may end a run that streams it before its answer
            // is known: that is a completed run (0), as docs/cli.md says.
            let stopped = matches!(closed, Closed::Stdout | Closed::Both) && code == Some(0);
            assert!(
                code == want || stopped,
                "{args:?} with a closed {closed:?}: {code:?}, open {want:?}: {err}"
            );
        }
    }
}

#[test]
fn output_files_are_complete_when_the_pipes_are_closed() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_input(dir.path());
    let file_commands: &[&[&str]] = &[
        &["key", "-o", "OUT", "in.txt"],
        &["map", "-o", "OUT", "in.txt"],
        &[
            "diff",
            "--from",
            "citation@1",
            "--to",
            "clean@1",
            "--format",
            "csv",
            "-o",
            "OUT",
            "in.txt",
        ],
    ];
    for args in file_commands {
        let with = |out: &str| -> Vec<String> {
            args.iter()
                .map(|a| {
                    if *a == "OUT" {
                        out.to_string()
                    } else {
                        a.to_string()
                    }
                })
                .collect()
        };
        let open_args = with("open.out");
        let refs: Vec<&str> = open_args.iter().map(String::as_str).collect();
        let (want, err) = run_in(dir.path(), &refs, None);
        assert!(want == Some(0) || want == Some(1), "{args:?}: {err}");
        let expected = std::fs::read(dir.path().join("open.out")).expect("written");
        assert!(expected.len() > 100_000, "{args:?}: a large output");
        for closed in [Closed::Stdout, Closed::Stderr, Closed::Both] {
            let name = format!("closed-{closed:?}.out");
            let closed_args = with(&name);
            let refs: Vec<&str> = closed_args.iter().map(String::as_str).collect();
            let (code, _) = run_in(dir.path(), &refs, Some(closed));
            assert_eq!(code, want, "{args:?} with a closed {closed:?}");
            let got = std::fs::read(dir.path().join(&name)).expect("written");
            assert!(
                got == expected,
                "{args:?} with a closed {closed:?}: the file differs"
            );
        }
    }
    // The ledger: every file ingested (its summaries and notes are lost, not its rows).
    for closed in [
        None,
        Some(Closed::Stdout),
        Some(Closed::Stderr),
        Some(Closed::Both),
    ] {
        let db = format!("l-{closed:?}.sqlite");
        let (code, err) = run_in(
            dir.path(),
            &["ledger", "--db", &db, "ingest", "one.csv", "two.csv"],
            closed,
        );
        assert_eq!(code, Some(0), "ingest with a closed {closed:?}: {err}");
        let conn = rusqlite::Connection::open(dir.path().join(&db)).expect("ledger");
        let n: i64 = conn
            .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 600, "ingest with a closed {closed:?}: both files stored");
    }
}

/// `eprintln!` and `println!` panic on a closed pipe: the binary and the library crates
/// write notes through `urlkey_batch::stdio` instead.
#[test]
fn no_println_or_eprintln_outside_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in [
        "urlkey",
        "urlkey-batch",
        "urlkey-cli",
        "urlkey-ledger",
        "urlkey-serve",
    ] {
        let mut stack = vec![root.join(krate).join("src")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("src dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs")
                    && p.file_name().is_some_and(|n| n != "tests.rs")
                {
                    let text = std::fs::read_to_string(&p).expect("source");
                    // A test module at the end of a file may print.
                    let code = text.split("#[cfg(test)]").next().unwrap_or("");
                    for (i, line) in code.lines().enumerate() {
                        let t = line.trim_start();
                        if t.starts_with("//") {
                            continue;
                        }
                        for m in ["println!(", "print!(", "eprint!("] {
                            if t.contains(m) {
                                found.push(format!("{}:{}: {t}", p.display(), i + 1));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "use urlkey_batch::note! or stdio:\n{}",
        found.join("\n")
    );
}

/// `serve` keeps serving when its startup lines cannot be written (`urlkey serve | head
/// -1`): they are an announcement, not its product.
#[test]
fn serve_keeps_serving_after_its_startup_lines_meet_a_closed_pipe() {
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        Stdio::from(writer)
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1"])
        .stdin(Stdio::null())
        .stdout(closed_pipe())
        .stderr(closed_pipe())
        .spawn()
        .expect("the binary starts");
    std::thread::sleep(std::time::Duration::from_millis(800));
    let status = child.try_wait().expect("wait");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, None, "serve ended: {status:?}");
}

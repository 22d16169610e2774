//! `urlkey redirects compile`: the file written through a temporary file, the lines to add
//! said on standard error, and a map that check fails or that the server cannot say
//! refused with exit 1, its findings printed and nothing written.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_reviewed_map_compiles_and_says_the_lines_to_add() {
    let dir = tempfile::tempdir().unwrap();
    // A spreadsheet's export: BOM, semicolons, CRLF, a decision column, no final newline.
    std::fs::write(
        dir.path().join("map.csv"),
        "\u{feff}Source;Target;Status;Decision\r\n/old page;/new;;accept\r\n/x?id=7;https://n.example/y;302;ACCEPT\r\n/gone;/;;reject",
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "nginx",
            "map.csv",
            "-o",
            "r.conf",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("r.conf")).unwrap();
    assert!(
        text.contains("    \"/old%20page\" \"/new\";\n    \"/x?id=7\" \"https://n.example/y\";\n"),
        "{text}"
    );
    assert!(
        text.contains("    default 301;\n    \"/x?id=7\" 302;\n"),
        "{text}"
    );
    let e = stderr(&o);
    assert!(
        e.contains(
            "2 redirects for nginx written to r.conf (3 rows read, 1 set aside as not accepted)"
        ),
        "{e}"
    );
    assert!(
        e.contains("    if ($urlkey_redirect_status = 302) { return 302 $urlkey_redirect; }\n"),
        "{e}"
    );
    assert!(
        e.contains("    if ($urlkey_redirect) { return 301 $urlkey_redirect; }\n"),
        "{e}"
    );
    // No temporary file left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    // Apache names the file's absolute path in its RewriteMap line; -o - is standard output.
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "apache",
            "map.csv",
            "-o",
            "m.txt",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let abs = dir.path().join("m.txt");
    assert!(
        stderr(&o).contains(&format!(
            "RewriteMap urlkey_redirects \"txt:{}\"",
            abs.display()
        )),
        "{}",
        stderr(&o)
    );
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "vercel",
            "map.csv",
            "-o",
            "-",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "a query string Vercel cannot match: {}",
        stderr(&o)
    );
    // check finds it first (Vercel matches the path alone).
    assert!(
        stderr(&o).contains("unsupported-source line 3"),
        "{}",
        stderr(&o)
    );
    std::fs::write(dir.path().join("v.csv"), "source,target\n/a,/b\n").unwrap();
    let o = run_in(
        dir.path(),
        &["redirects", "compile", "--to", "vercel", "v.csv", "-o", "-"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "[\n  {\"source\":\"/a\",\"destination\":\"/b\",\"statusCode\":301}\n]\n"
    );
}

#[test]
fn a_map_check_fails_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("map.csv"), "source,target\n/a,/b\n/a,/c\n").unwrap();
    std::fs::write(dir.path().join("r.conf"), "the previous file").unwrap();
    for server in ["nginx", "apache", "netlify", "cloudflare", "vercel", "iis"] {
        let o = run_in(
            dir.path(),
            &[
                "redirects",
                "compile",
                "--to",
                server,
                "map.csv",
                "-o",
                "r.conf",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{server}: {}", stderr(&o));
        let e = stderr(&o);
        // Cloudflare also needs full URLs: a second problem there.
        let problems = if server == "cloudflare" { 2 } else { 1 };
        assert!(
            e.contains(&format!(
                "refused, nothing written: check found {problems} problem(s) in map.csv"
            )),
            "{e}"
        );
        assert!(e.contains("  conflict           lines 2, 3"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("r.conf")).unwrap(),
            "the previous file"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}

#[test]
fn rows_the_server_cannot_say_are_refused_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("map.csv"),
        "source,target\n/About,/a\n/about,/b\n/ok,/c\n",
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "nginx",
            "map.csv",
            "-o",
            "r.conf",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // check finds it first: one key for nginx, and nginx would refuse to start.
    assert!(
        stderr(&o).contains(
            "conflict           lines 2, 3     /About, /about are one source under nginx's matching"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("r.conf").exists());
    // Apache compares case: the same map compiles.
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "apache",
            "map.csv",
            "-o",
            "r.txt",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn an_output_naming_the_map_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let map = "source,target\n/a,/b\n";
    std::fs::write(dir.path().join("map.csv"), map).unwrap();
    for out in ["map.csv", "./map.csv"] {
        let o = run_in(
            dir.path(),
            &[
                "redirects",
                "compile",
                "--to",
                "netlify",
                "map.csv",
                "-o",
                out,
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("is the input map.csv"),
            "{}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("map.csv")).unwrap(),
            map
        );
    }
    let o = run_in(
        dir.path(),
        &[
            "redirects",
            "compile",
            "--to",
            "netlify",
            "missing.csv",
            "-o",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

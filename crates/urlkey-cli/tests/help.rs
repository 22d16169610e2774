//! What the command says about itself (issue 52): the Examples block that ends every
//! command's `--help` (each example parsed with clap, so an example that stops parsing fails
//! here), `--version`'s parts against the library's tables, `urlkey completions SHELL` and
//! `urlkey man`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use clap::{CommandFactory, Parser, ValueEnum};
use urlkey_cli::flags::{help, Cli};

mod common;
use common::{ok, run};

/// Every command of the tree with its path from the top (`["ledger", "review", "add"]`),
/// the top itself first (an empty path). clap's own `help` subcommand (added when the tree
/// is built) has no after-help of ours and is left out, as it is of the man pages.
fn every_command() -> Vec<(Vec<String>, clap::Command)> {
    fn walk(cmd: &clap::Command, path: Vec<String>, all: &mut Vec<(Vec<String>, clap::Command)>) {
        all.push((path.clone(), cmd.clone()));
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            walk(sub, p, all);
        }
    }
    let mut top = Cli::command();
    top.build();
    let mut all = Vec::new();
    walk(&top, Vec::new(), &mut all);
    all
}

/// Splits one shell command line into words as a POSIX shell does for the cases examples
/// use: single quotes (literal), double quotes (`\"`, `\\`, `\$`, `` \` `` escaped),
/// backslashes outside quotes, a `#` comment at the start of a word. An unquoted `|`, `&`,
/// `;`, `<` or `>` ends urlkey's words (a pipe, `&& echo`, a redirection). `None` for an
/// unterminated quote.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                words.extend(word.take());
            }
            '#' if word.is_none() => break,
            '|' | '&' | ';' | '<' | '>' => break,
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => w.push(ch),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            e @ ('"' | '\\' | '$' | '`') => w.push(e),
                            e => {
                                w.push('\\');
                                w.push(e);
                            }
                        },
                        ch => w.push(ch),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            ch => word.get_or_insert_with(String::new).push(ch),
        }
    }
    words.extend(word);
    Some(words)
}

#[test]
fn the_shell_word_splitter_splits_as_a_shell_does() {
    let split = |s: &str| shell_words(s).expect("terminated");
    assert_eq!(
        split(r#"urlkey map --keep-columns "Status Code,Indexability" a.csv  # note"#),
        [
            "urlkey",
            "map",
            "--keep-columns",
            "Status Code,Indexability",
            "a.csv"
        ]
    );
    assert_eq!(
        split(r#"urlkey x 'a b'"c\"d" e\ f"#),
        ["urlkey", "x", "a bc\"d", "e f"]
    );
    assert_eq!(
        split("urlkey completions bash > f"),
        ["urlkey", "completions", "bash"]
    );
    assert_eq!(split("urlkey a b && echo same"), ["urlkey", "a", "b"]);
    assert_eq!(split("urlkey a#b"), ["urlkey", "a#b"]);
    assert_eq!(shell_words("urlkey 'open"), None);
}

/// Every command and nested subcommand ends its `--help` with one Examples block of two or
/// three `urlkey ...` lines (then at most a `More:` line), and each example parses with
/// clap as the command it documents.
#[test]
fn every_command_help_ends_with_examples_that_parse() {
    let all = every_command();
    let paths: BTreeSet<String> = all.iter().map(|(p, _)| p.join(" ")).collect();
    for must in [
        "",
        "key",
        "ledger review add",
        "redirects propose",
        "completions",
        "man",
    ] {
        assert!(paths.contains(must), "the walk misses {must:?}: {paths:?}");
    }
    let mut problems = Vec::new();
    let mut examples = 0;
    for (path, cmd) in &all {
        let name = format!("urlkey {}", path.join(" "));
        let Some(text) = cmd.get_after_help().map(|t| t.to_string()) else {
            problems.push(format!("{name}: no after_help"));
            continue;
        };
        // The block is the end of the text: after it, one More: line at most.
        let tail: Vec<&str> = text
            .lines()
            .rev()
            .take_while(|l| *l != "Examples:")
            .collect();
        let more = tail.iter().filter(|l| l.starts_with("More: ")).count();
        if tail.len() == text.lines().count() {
            problems.push(format!("{name}: no \"Examples:\" line"));
            continue;
        }
        if more > 1 || (more == 1 && !tail[0].starts_with("More: ")) {
            problems.push(format!("{name}: the More: line is not the last"));
        }
        let lines: Vec<&str> = tail
            .iter()
            .rev()
            .filter(|l| !l.starts_with("More: "))
            .copied()
            .collect();
        if !(2..=3).contains(&lines.len()) {
            problems.push(format!("{name}: {} examples, not 2 or 3", lines.len()));
        }
        let parts = help::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parts.examples.len(), lines.len(), "{name}");
        for line in lines {
            examples += 1;
            let Some(example) = line.strip_prefix("  ").filter(|l| l.starts_with("urlkey ")) else {
                problems.push(format!("{name}: {line:?} is not \"  urlkey ...\""));
                continue;
            };
            let Some(words) = shell_words(example) else {
                problems.push(format!("{name}: {example:?} has an open quote"));
                continue;
            };
            // The example runs the command whose help shows it.
            let mut rest = words.iter().skip(1);
            if !path.iter().all(|p| rest.any(|w| w == p)) {
                problems.push(format!("{name}: {example:?} is not an example of it"));
            }
            if let Err(e) = Cli::try_parse_from(&words) {
                problems.push(format!("{name}: {example:?} does not parse: {e}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        examples >= 2 * all.len(),
        "{examples} examples for {} commands",
        all.len()
    );
}

/// The help as printed ends with the block, each example on one line as written (clap
/// wraps after-help text to the width, which would break a long example in two).
#[test]
fn printed_help_ends_with_the_examples_unwrapped() {
    for (path, cmd) in every_command() {
        let text = cmd
            .get_after_help()
            .map(|t| t.to_string())
            .unwrap_or_default();
        let parts = help::parse(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let printed = ok(&args, b"");
        let tail: Vec<&str> = printed
            .trim_end()
            .lines()
            .rev()
            .take(parts.examples.len() + 2)
            .collect();
        let mut want: Vec<String> = parts.examples.iter().map(|e| format!("  {e}")).collect();
        want.insert(0, "Examples:".into());
        want.extend(parts.more.map(str::to_string));
        let got: Vec<&str> = tail.into_iter().rev().collect();
        assert_eq!(
            got[got.len() - want.len()..],
            want,
            "urlkey {}",
            args.join(" ")
        );
    }
}

/// `--version`: the crate version, the embedded Public Suffix List's version (the one
/// `urlkey policies` prints), the builtin policies as `urlkey policies` lists them, the
/// tracking registries a policy file can name, the wrapper list's version. `-V` is one line.
#[test]
fn long_version_says_each_table_version() {
    let version = ok(&["--version"], b"");
    let lines: Vec<&str> = version.lines().collect();
    assert_eq!(lines.len(), 5, "{version}");
    assert_eq!(lines[0], format!("urlkey {}", env!("CARGO_PKG_VERSION")));

    let psl = urlkey::PublicSuffixList::embedded_version();
    assert_eq!(lines[1], format!("Public Suffix List: {psl}"));
    let policies: serde_json::Value =
        serde_json::from_str(&ok(&["policies", "--format", "json"], b"")).expect("json");
    assert_eq!(policies["psl"], psl);

    let listed: Vec<&str> = policies["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .map(|p| p["id"].as_str().expect("id"))
        .collect();
    assert_eq!(listed, *urlkey::policy::BUILTIN_IDS);
    assert_eq!(lines[2], format!("policies: {}", listed.join(" ")));

    use urlkey::internals::tracking::registry2::{FIRST_VERSION, LATEST_VERSION};
    let mut registries = vec!["registry@1".to_string()];
    registries.extend((FIRST_VERSION..=LATEST_VERSION).map(|v| format!("registry@{v}")));
    for r in &registries {
        assert!(urlkey::TrackingSet::named(r).is_some(), "{r}");
    }
    assert_eq!(
        lines[3],
        format!("tracking registries: {}", registries.join(" "))
    );
    assert_eq!(
        lines[4],
        format!(
            "redirect wrappers: list {}",
            urlkey::internals::unwrap::WRAPPERS_VERSION
        )
    );

    assert_eq!(
        ok(&["-V"], b""),
        format!("urlkey {}\n", env!("CARGO_PKG_VERSION"))
    );
    // A subcommand's --version says the same under its own name.
    let sub = ok(&["ledger", "--version"], b"");
    assert_eq!(sub.lines().skip(1).collect::<Vec<_>>(), lines[1..]);
}

/// The top-level command names, which every completion script must know.
fn top_level_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect()
}

fn completions(shell: &str) -> String {
    let script = ok(&["completions", shell], b"");
    assert!(!script.trim().is_empty(), "{shell}: empty");
    for name in top_level_names() {
        assert!(script.contains(&name), "{shell}: no {name}");
    }
    script
}

/// Every shell clap_complete knows gives a script naming every top-level command.
#[test]
fn completions_for_every_shell_name_every_command() {
    let shells: Vec<String> = clap_complete::Shell::value_variants()
        .iter()
        .filter_map(|s| s.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    for want in ["bash", "zsh", "fish", "elvish", "powershell"] {
        assert!(shells.iter().any(|s| s == want), "{want}: {shells:?}");
    }
    for shell in &shells {
        completions(shell);
    }
    let out = run(&["completions", "tcsh"], b"");
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

/// Runs `SHELL FLAG FILE` on the script; panics with the shell's words when it refuses it.
fn shell_accepts(shell: &str, flag: &str, script: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("urlkey.completion");
    std::fs::write(&file, script).expect("script");
    let out = Command::new(shell)
        .arg(flag)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("{shell} does not start: {e}"));
    assert!(
        out.status.success(),
        "{shell} {flag}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bash script is valid bash, and completes `urlkey led` to `ledger` and the ledger's
/// subcommands after `urlkey ledger `.
#[test]
fn the_bash_script_is_valid_bash_and_completes() {
    let script = completions("bash");
    shell_accepts("bash", "-n", &script);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("urlkey.bash");
    std::fs::write(&file, &script).expect("script");
    let complete = |words: &str, cword: usize| -> String {
        let probe = format!(
            "source {file}; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{words}'; \
             COMP_POINT=${{#COMP_LINE}}; \
             _urlkey urlkey \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file = file.display()
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(&probe)
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(complete("urlkey led", 1).trim(), "ledger");
    let subs = complete("urlkey ledger ''", 2);
    for s in ["ingest", "report", "verify", "review", "export"] {
        assert!(subs.lines().any(|l| l == s), "{s}: {subs}");
    }
}

/// zsh and fish check their scripts' syntax (`zsh -n`, `fish --no-execute`). Neither shell
/// is part of the machine this project builds on, so this test is ignored there rather than
/// skipped quietly: run it with `cargo test -p urlkey-cli --test help -- --ignored` where
/// both are installed (`apt-get install zsh fish`); it fails when either is missing.
#[test]
#[ignore = "needs zsh and fish on PATH"]
fn the_zsh_and_fish_scripts_parse_in_their_shells() {
    shell_accepts("zsh", "-n", &completions("zsh"));
    let fish = completions("fish");
    shell_accepts("fish", "--no-execute", &fish);
    // And fish completes with it: a command, then a value with its help.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("urlkey.fish");
    std::fs::write(&file, &fish).expect("script");
    let probe = format!(
        "source {}; complete -C 'urlkey led'; complete -C 'urlkey key --quote '",
        file.display()
    );
    let out = Command::new("fish")
        .arg("-c")
        .arg(&probe)
        .output()
        .expect("fish");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.lines().any(|l| l.starts_with("ledger\t")), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("double\tRFC 4180")),
        "{text}"
    );
}

/// The page name of each command: its path joined with `-` under `urlkey`, section 1.
fn page_names() -> BTreeSet<String> {
    every_command()
        .into_iter()
        .map(|(path, _)| {
            let mut name = vec!["urlkey".to_string()];
            name.extend(path);
            format!("{}.1", name.join("-"))
        })
        .collect()
}

fn assert_roff_page(text: &str, what: &str) {
    assert!(
        text.starts_with(".TH "),
        "{what}: {}",
        &text[..text.len().min(200)]
    );
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH \"EXAMPLES\"",
    ] {
        assert!(text.contains(section), "{what}: no {section}");
    }
    // The examples are kept line by line (no filling) and name urlkey.
    let examples = text
        .split(".SH \"EXAMPLES\"\n.nf\n")
        .nth(1)
        .expect("examples");
    let block: Vec<&str> = examples.lines().take_while(|l| *l != ".fi").collect();
    assert!((2..=3).contains(&block.len()), "{what}: {block:?}");
    assert!(
        block.iter().all(|l| l.starts_with("urlkey ")),
        "{what}: {block:?}"
    );
    // Every request line is one roff knows from the man macros or the page's preamble.
    for line in text.lines().filter(|l| l.starts_with('.')) {
        let req = line[1..].split_whitespace().next().unwrap_or("");
        assert!(
            [
                "TH", "SH", "SS", "TP", "IP", "PP", "RS", "RE", "nf", "fi", "br", "ie", "el", "B",
                "I"
            ]
            .contains(&req),
            "{what}: unexpected request {line:?}"
        );
    }
}

/// `urlkey man` prints urlkey(1); `--dir` writes one page per command and nested
/// subcommand into a directory it creates, prints their paths, and leaves no temporary
/// file; a second run replaces the pages.
#[test]
fn man_writes_a_page_for_every_command() {
    let page = ok(&["man"], b"");
    assert!(page.starts_with(".TH urlkey 1 "), "{}", &page[..80]);
    assert_roff_page(&page, "urlkey man");

    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("share/man/man1");
    let dir_arg = dir.to_str().expect("utf-8 path");
    let want = page_names();
    assert!(want.contains("urlkey-ledger-review-add.1") && want.contains("urlkey-key.1"));
    for round in 0..2 {
        let printed = ok(&["man", "--dir", dir_arg], b"");
        let printed: BTreeSet<String> = printed
            .lines()
            .map(|l| {
                let p = Path::new(l);
                assert_eq!(p.parent(), Some(dir.as_path()), "{l}");
                p.file_name().expect("name").to_string_lossy().into_owned()
            })
            .collect();
        assert_eq!(printed, want, "round {round}: the printed paths");
        let listed: BTreeSet<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            listed, want,
            "round {round}: the files (no temporary one left)"
        );
    }
    for name in &want {
        let text = std::fs::read_to_string(dir.join(name)).expect("page");
        assert_roff_page(&text, name);
    }
    let add = std::fs::read_to_string(dir.join("urlkey-ledger-review-add.1")).expect("page");
    assert!(
        add.starts_with(&format!(
            ".TH urlkey-ledger-review-add 1  \"urlkey {}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        &add[..80]
    );
    assert!(
        add.contains("\\-\\-reviewer"),
        "the page has the command's flags"
    );

    // man(1) renders a page when it is installed; without it the roff structure above is
    // what is checked.
    if Command::new("man").arg("--version").output().is_ok() {
        let out = Command::new("man")
            .args(["-l", "-E", "ascii"])
            .arg(dir.join("urlkey-ledger-review-add.1"))
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "120")
            .env("LC_ALL", "C")
            .output()
            .expect("man");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for want in [
            "NAME",
            "SYNOPSIS",
            "EXAMPLES",
            "--reviewer",
            "urlkey ledger review add --observation o-17",
        ] {
            assert!(text.contains(want), "man -l: no {want:?}:\n{text}");
        }
    } else {
        eprintln!("man(1) is not installed: checked the roff structure only");
    }
    // groff, where installed, reads every page without a warning (-ww: all of them).
    if Command::new("groff").arg("--version").output().is_ok() {
        for name in &want {
            let out = Command::new("groff")
                .args(["-man", "-ww", "-z", "-Tutf8"])
                .arg(dir.join(name))
                .output()
                .expect("groff");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && err.is_empty(),
                "groff {name}: {err}"
            );
        }
    } else {
        eprintln!("groff is not installed: the pages were not checked for roff warnings");
    }
}

/// A --dir that is a file is an output error (exit 4) that says what to give instead, and
/// the file is left as it was.
#[test]
fn man_refuses_a_dir_that_is_a_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("pages");
    std::fs::write(&file, "mine\n").expect("file");
    let out = run(&["man", "--dir", file.to_str().expect("utf-8")], b"");
    assert_eq!(
        out.status.code(),
        Some(urlkey_batch::exit::Exit::Output.code())
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a directory") && err.contains("name a directory"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "mine\n");
    assert_eq!(std::fs::read_dir(tmp.path()).expect("dir").count(), 1);
}

/// `man --dir` with a closed standard output: the list of paths is lost, never a page.
#[test]
fn man_dir_writes_every_page_under_a_closed_stdout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("man1");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(["man", "--dir"])
        .arg(&dir)
        .stdout(writer)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed, page_names());
}

/// docs/cli.md's `--version` block has the binary's lines, label by label; the tables'
/// lines exactly (the crate and list versions move with each release and snapshot).
#[test]
fn the_documented_version_output_is_the_binarys() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md"))
            .expect("docs/cli.md");
    let block: Vec<&str> = doc
        .split("$ urlkey --version\n")
        .nth(1)
        .expect("a `$ urlkey --version` block in docs/cli.md")
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .collect();
    let version = ok(&["--version"], b"");
    let lines: Vec<&str> = version.lines().collect();
    assert_eq!(block.len(), lines.len(), "{block:?}");
    assert!(block[0].starts_with("urlkey "));
    for (i, label) in urlkey_cli::flags::version::LABELS.iter().enumerate() {
        assert!(block[i + 1].starts_with(label), "{}", block[i + 1]);
    }
    assert_eq!(block[2..], lines[2..], "docs/cli.md, `--version`");
}

/// clap_complete's fish script writes each value's help inside a double-quoted string
/// without escaping `"`, `$` or `\` (clap_complete 4.6.12): one such character in a value's
/// help broke the whole script (`fish --no-execute`: "quotes are not balanced"). This holds
/// where fish is not installed too.
#[test]
fn value_help_is_safe_in_fish() {
    let mut found = Vec::new();
    for (path, cmd) in every_command() {
        for arg in cmd.get_arguments() {
            for value in arg.get_possible_values() {
                let help = value.get_help().map(|h| h.to_string()).unwrap_or_default();
                if help.contains(['"', '$', '\\']) {
                    found.push(format!(
                        "urlkey {} --{}: {help}",
                        path.join(" "),
                        arg.get_id()
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

//! The ledger's errors, hints and remedies in the words of this command line: each
//! setting the ledger names ([`Setting`]) is said as its flag. The ledger library names
//! no flag (its own words are [`urlkey_ledger::PlainWords`]); `urlkey ledger` and
//! `urlkey serve --ledger` print these.

use urlkey_ledger::error::{ErrorKind, LedgerError, Setting};
use urlkey_ledger::ingest::{list_problems, plural, INPUT_FIELDS};
use urlkey_ledger::words::{Hint, Remedy, Words};

/// A setting's flag: `run_timestamp` is `--run-timestamp`.
pub fn flag(s: Setting) -> String {
    format!("--{}", s.name().replace('_', "-"))
}

/// The command line's words: remedies and hints that name its flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags;

impl Words for Flags {
    fn remedy(&self, remedy: Remedy) -> String {
        match remedy {
            Remedy::Default(s) => format!("pass {} to fill in rows that have none", flag(s)),
            Remedy::Encoding => "pass --encoding LABEL".to_string(),
            Remedy::Timezone => "pass --timezone (an IANA name such as Europe/Paris or UTC) to \
                                 read such times in that zone"
                .to_string(),
            // A remedy added to the ledger later: its own words.
            other => urlkey_ledger::PlainWords.remedy(other),
        }
    }

    fn hint(&self, hint: Hint) -> String {
        match hint {
            Hint::OtherDelimiter => "give another with --delimiter C".to_string(),
            Hint::NothingToVerify { older_than } => format!(
                "nothing to verify: every key has a verification{} (use --older-than to \
                 re-verify)",
                if older_than {
                    " newer than --older-than"
                } else {
                    ""
                }
            ),
            Hint::AllowLoopback => {
                "pass --allow-loopback (loopback only) or --allow-private-network to verify it"
                    .to_string()
            }
            Hint::AllowPrivateNetwork => "pass --allow-private-network to verify it".to_string(),
            Hint::AllowLoopbackOrPrivate => {
                "pass --allow-loopback or --allow-private-network to verify it".to_string()
            }
            // A hint added to the ledger later: its own words.
            other => urlkey_ledger::PlainWords.hint(other),
        }
    }
}

/// A ledger error as `urlkey ledger` says it (after `urlkey ledger: `): what happened and
/// what to do, with the flags that do it. `db_flag` names the flag that gave the ledger's
/// path (`--db`; `--ledger` for `urlkey serve`).
pub fn ledger(e: &LedgerError, db_flag: &str) -> String {
    use urlkey_batch::exit::Exit;
    let what = what_happened(e.kind(), db_flag);
    match e.exit() {
        Exit::Usage => format!("{what}\n(see `urlkey ledger --help` and docs/ledger.md)"),
        Exit::Policy => format!("{what}\n(see `urlkey policies`)"),
        Exit::Database => format!(
            "database error: {what}\n(check that {db_flag} names a urlkey ledger file that \
             this user can write, and that no other process holds a long write lock on it)"
        ),
        _ => what,
    }
}

/// The message of one kind, with its flags; the general kinds' own message.
fn what_happened(kind: &ErrorKind, db: &str) -> String {
    use ErrorKind::*;
    use Setting as S;
    match kind {
        Usage(m) | Input(m) | Output(m) | Policy(m) | Database(m) | Other(m) => m.clone(),
        Invalid {
            setting,
            detail,
            remedy,
        } => match remedy {
            Some(r) => format!("{}{detail}, or {}", flag(*setting), Flags.remedy(*r)),
            None => format!("{}{detail}", flag(*setting)),
        },
        Conflict {
            settings: (S::Window, S::Compare),
            ..
        } => "--window: give one (a filter) or two (compared with each other, without \
              --compare)"
            .to_string(),
        Conflict {
            settings: (S::ClaimSupport, S::Key),
            ..
        } => "--claim-support belongs to an observation (its answer's claim): give \
              --observation ID instead of --key"
            .to_string(),
        Conflict { settings, why } => format!(
            "{} and {} cannot be combined: {why}",
            flag(settings.0),
            flag(settings.1)
        ),
        Needed {
            settings: [S::Reviewer],
            ..
        } => "--reviewer NAME is needed: every decision says who made it".to_string(),
        Needed {
            settings: [S::Role, S::ClaimSupport, S::Merge],
            ..
        } => "nothing decided: give --role, --claim-support or --merge".to_string(),
        Needed {
            settings: [S::Observation, S::Key],
            ..
        } => "give exactly one of --observation ID and --key KEY".to_string(),
        Needed { settings, why } => {
            let flags: Vec<String> = settings.iter().map(|s| flag(*s)).collect();
            format!("{why} (give {})", flags.join(" or "))
        }
        RejectsWithFiles { rejects, files } => format!(
            "--rejects {} with {files} input files: give one file per ingest when setting \
             refused rows aside, so that each rejects file matches its input",
            rejects.display()
        ),
        ByTwice { column } => format!(
            "--by names {column} twice: give each column once, e.g. --by answer_system,market"
        ),
        TooManyWindows { given } => {
            format!("--window given {given} times: give one (a filter) or two (compared)")
        }
        NothingToCompare => "compare two collections (--compare A B) or two windows \
                             (--window FROM..TO --window FROM..TO)"
            .to_string(),
        SeveralPolicies {
            policies,
            key: None,
        } => format!(
            "the ledger holds observations keyed with several policies ({}); keys from \
             different policies are not comparable: choose one with --policy",
            policies.join(", ")
        ),
        SeveralPolicies {
            policies,
            key: Some(k),
        } => format!(
            "the key {k:?} is in the ledger under several policies ({}): say which with \
             --policy",
            policies.join(", ")
        ),
        SheetOfText {
            sheet,
            file,
            format,
        } => format!(
            "--sheet {sheet:?}: {file} is read as {format}, not as a spreadsheet (.xlsx, .xls, \
             .ods): drop --sheet, or give --input-format"
        ),
        Unreadable { detail, file } => format!(
            "{detail}; the file must be CSV, TSV, JSONL or a spreadsheet (UTF-8, UTF-16 with a \
             byte-order mark, or --encoding LABEL); nothing from {file} was written"
        ),
        NotUtf8 { file, line, byte } => format!(
            "{file} line {line}: not valid UTF-8 (byte {byte}); the file is in another \
             encoding: pass --encoding LABEL (e.g. --encoding windows-1252 for an export \
             from Excel on Windows), or save it as UTF-8; nothing from {file} was written"
        ),
        StrayQuote { detail, line } => format!(
            "{detail} [input.stray-quote]; close or remove the quote on line {line}, or, if \
             the file never quotes its cells, read every quote as an ordinary character with \
             --quote none; nothing was written"
        ),
        SameField {
            file,
            headers,
            field,
        } => format!(
            "{file}: the columns {:?} and {:?} both stand for {field}: keep one, or say \
             which with --columns {field}=NAME",
            headers.0, headers.1
        ),
        NoSuchColumn {
            file,
            missing,
            header,
        } => format!(
            "{file}: --columns {}: no such column (the header has: {})",
            missing.join(", "),
            header.join(", ")
        ),
        NoColumn {
            file,
            field,
            header,
        } => format!(
            "{file}: no {field:?} column (the header has: {}); the ledger needs \
             observation_id and observed_url, and reads {} (case, spaces and separators do \
             not matter: \"Observation ID\" is observation_id); name other headers with \
             --columns {field}=HEADER",
            header.join(", "),
            INPUT_FIELDS.join(", ")
        ),
        RowsRefused {
            file,
            rejected,
            read,
            problem_count,
            problems,
        } => format!(
            "{file}: {rejected} of {read} rows cannot be stored ({}); nothing from {file} was \
             written:{}\nFix these rows and ingest the file again, or pass --rejects FILE to \
             store the good rows and write these to FILE",
            plural(*problem_count, "problem"),
            list_problems(problems, *problem_count, &Flags)
        ),
        RejectsUnwritable {
            path,
            file,
            stored,
            error,
        } => format!(
            "cannot write the rejects file {}: {error}; the {stored} good rows of {file} were \
             stored: ingest {file} again with --rejects naming a writable file to get the \
             refused rows (stored rows count as already present)",
            path.display()
        ),
        NoLedger { path } => format!(
            "there is no ledger at {}: create one with `urlkey ledger --db {} init`, or \
             ingest a file into it, or pass the right {db}",
            path.display(),
            path.display()
        ),
        NotALedger { path } => format!(
            "{} is an SQLite database but not a urlkey ledger (it has tables and no ledger \
             schema version): choose another {db}",
            path.display()
        ),
        Certificates(m) => format!("--ca-cert: {m}"),
        // A kind added to the ledger later: its own words.
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The command line names the flags the ledger's own words leave out, and the codes
    /// stay the ledger's.
    #[test]
    fn the_command_line_names_the_flags() {
        let e = LedgerError::invalid(Setting::RunTimestamp, ": bad");
        assert_eq!(
            ledger(&e, "--db"),
            "--run-timestamp: bad\n(see `urlkey ledger --help` and docs/ledger.md)"
        );
        assert_eq!(e.to_string(), "run_timestamp: bad");
        let e = LedgerError::new(ErrorKind::NoLedger {
            path: PathBuf::from("x.sqlite"),
        });
        let cli = ledger(&e, "--db");
        assert!(cli.contains("or pass the right --db"), "{cli}");
        assert!(cli.contains("(check that --db names"), "{cli}");
        let served = ledger(&e, "--ledger");
        assert!(served.contains("or pass the right --ledger"), "{served}");
        assert!(!served.contains("right --db") && !served.contains("that --db"));
        assert!(!e.to_string().contains("--"), "{e}");
        assert_eq!(
            flag(Setting::AllowPrivateNetwork),
            "--allow-private-network"
        );
        assert_eq!(
            Flags.remedy(Remedy::Default(Setting::Market)),
            "pass --market to fill in rows that have none"
        );
    }
}

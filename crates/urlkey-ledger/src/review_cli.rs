//! `urlkey ledger review add|import|list` (issue 16): the arguments and their run.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::db;
use crate::error::Result;
use crate::review::{self, Decision, ListFormat};

/// The review commands.
#[derive(Subcommand, Debug, Clone)]
pub enum ReviewCommand {
    /// Record one decision: the page's source role and the merge (of the key), the claim
    /// support (of an observation).
    Add {
        /// The observation decided on (claim support; its key for --role and --merge).
        #[arg(long, value_name = "ID", conflicts_with = "key")]
        observation: Option<String>,
        /// The key decided on (--role and --merge).
        #[arg(long, value_name = "KEY")]
        key: Option<String>,
        /// The policy of --key, when the ledger holds the key under several.
        #[arg(long)]
        policy: Option<String>,
        /// The page's source role: definition, evidence, comparison, implementation,
        /// validation.
        #[arg(long)]
        role: Option<String>,
        /// Whether the page supports the observation's claim: yes, partly, no, unclear.
        #[arg(long)]
        claim_support: Option<String>,
        /// The key's variants are one page (confirm) or not (split).
        #[arg(long)]
        merge: Option<String>,
        /// Who decides.
        #[arg(long, value_name = "NAME")]
        reviewer: String,
        /// Why, in words.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
    },
    /// Record the decisions of a CSV file (columns observation, key, policy, role,
    /// claim_support, merge, reviewer, note), all or none.
    Import {
        /// The CSV file.
        file: PathBuf,
    },
    /// Every decision, oldest first, with its time and reviewer.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: ListFormat,
    },
}

/// Runs a review command.
pub fn run(db_path: &Path, cmd: ReviewCommand, out: &mut dyn Write) -> Result<()> {
    match cmd {
        ReviewCommand::Add {
            observation,
            key,
            policy,
            role,
            claim_support,
            merge,
            reviewer,
            note,
        } => {
            let conn = db::open(db_path, false)?;
            let d = Decision {
                observation,
                key,
                policy,
                role,
                claim_support,
                merge,
                reviewer,
                note,
            };
            let id = review::add(&conn, &d)?;
            writeln!(out, "review {id} recorded")?;
        }
        ReviewCommand::Import { file } => {
            let mut conn = db::open(db_path, false)?;
            let n = review::import(&mut conn, &file)?;
            writeln!(out, "{n} reviews recorded from {}", file.display())?;
        }
        ReviewCommand::List { format } => {
            let conn = db::open(db_path, false)?;
            review::list(&conn, format, out)?;
        }
    }
    Ok(())
}

//! Command-line definitions (clap), kept apart from the work: each command turns its
//! low-level flags into the settings the work uses.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Explainable, versioned comparison keys for URL lists.
#[derive(Parser, Debug)]
#[command(name = "urlkey", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compute a key for every input line under one policy (one record per line).
    Key(KeyArgs),
    /// Group a URL list (Legacy URL Mapper): duplicates, review groups, invalid rows.
    Map(MapArgs),
    /// Everything about one URL: canonical form, facts, profile, offsets, query pairs, keys.
    Inspect(InspectArgs),
    /// List the policies (and the Public Suffix List version).
    Policies(PoliciesArgs),
    /// Print the tracking-parameter registry with its sources.
    Rules(FormatArgs),
    /// List the stable error codes.
    Codes(FormatArgs),
    /// The citation audit ledger (SQLite): ingest, report, verify, export.
    Ledger(urlkey_ledger::cli::LedgerArgs),
    /// Serve the Mapper and the key inspector as a local web page.
    Serve(urlkey_serve::ServeArgs),
}

/// Where policies come from.
#[derive(Args, Debug, Clone)]
pub struct PolicySource {
    /// A TOML file defining more policies (repeatable); see docs/policies.md.
    #[arg(long = "policy-file", value_name = "FILE")]
    pub policy_files: Vec<PathBuf>,
    /// A Public Suffix List file to use instead of the embedded snapshot.
    #[arg(long, value_name = "FILE")]
    pub psl: Option<PathBuf>,
}

/// Input flags shared by `key` and `map`.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input files (standard input when none or `-`); several are read as one input.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// The input shape; default: from the file name (.csv .tsv .jsonl), else lines.
    #[arg(long, value_name = "lines|csv|tsv|jsonl")]
    pub input_format: Option<String>,
    /// CSV/TSV column holding the URL: a header name or a 1-based number.
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<String>,
    /// JSONL field holding the URL.
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// Lines longer than this become `input.too-long` records.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024)]
    pub max_line_bytes: usize,
    /// Worker threads (0 = every core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar and no summary on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `urlkey key`.
#[derive(Args, Debug)]
pub struct KeyArgs {
    /// The policy id (see `urlkey policies`).
    #[arg(long, default_value = "citation@1")]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// Resolve relative input against this URL (whatwg@1 only).
    #[arg(long, value_name = "URL")]
    pub base: Option<String>,
    /// Output: jsonl, csv, tsv, key (the key alone per line) or parquet (needs -o FILE).
    #[arg(long, default_value = "jsonl")]
    pub format: String,
    /// Input and run settings.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `urlkey map`.
#[derive(Args, Debug)]
pub struct MapArgs {
    /// The policy id.
    #[arg(long, default_value = "mapper@1")]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// Output: csv, jsonl, tsv or parquet (needs -o FILE).
    #[arg(long, default_value = "csv")]
    pub format: String,
    /// One row per signature group instead of one per record.
    #[arg(long)]
    pub groups: bool,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Keep every key's text to prove that no two keys share a fingerprint (uses memory).
    #[arg(long)]
    pub verify_fingerprints: bool,
    /// Input and run settings.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `urlkey inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The URL (or any text) to inspect.
    pub url: String,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// The policy whose key is shown first.
    #[arg(long, default_value = "webkey@1")]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
}

/// `urlkey policies`.
#[derive(Args, Debug)]
pub struct PoliciesArgs {
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
}

/// A text/json switch.
#[derive(Args, Debug)]
pub struct FormatArgs {
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
}

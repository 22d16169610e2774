//! Command-line definitions (clap), kept apart from the work: each command turns its
//! low-level flags into the settings the work uses.

pub mod advice;
pub mod help;
pub mod ledger;
pub mod redirects;
pub mod serve;
pub mod version;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use urlkey_batch::input::InputFormat;
use urlkey_batch::rows::OutputFormat;

/// Explainable, versioned comparison keys for URL lists.
#[derive(Parser, Debug)]
#[command(
    name = "urlkey",
    version,
    long_version = version::long_version(),
    about,
    long_about = None,
    propagate_version = true,
    after_help = CLI_HELP
)]
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
    /// Why two or more URLs share a key, or where their keys differ (exit 0 same, 1 not).
    Explain(ExplainArgs),
    /// Compare an inventory under two policies (merges, splits), or two inventories under one.
    Diff(DiffArgs),
    /// List the policies (and the Public Suffix List version).
    #[command(
        after_help = "Examples:\n  urlkey policies\n  urlkey policies --policy-file mine.toml --format json\nMore: docs/policies.md (every rule of every policy)."
    )]
    Policies(PoliciesArgs),
    /// Print a tracking-parameter registry with its sources, or check a URL against it.
    #[command(
        after_help = "Examples:\n  urlkey rules\n  urlkey rules --registry 2 --format json\n  urlkey rules --check 'https://www.youtube.com/watch?v=x&si=abc'\nMore: docs/policies.md (the tracking registries, the redirect wrappers and their sources)."
    )]
    Rules(RulesArgs),
    /// List the stable error codes.
    #[command(
        after_help = "Examples:\n  urlkey codes\n  urlkey codes --format json\nMore: docs/cli.md (error codes and exit codes)."
    )]
    Codes(FormatArgs),
    /// The citation audit ledger (SQLite): ingest, report, verify, export.
    Ledger(ledger::LedgerArgs),
    /// Redirect maps for a site migration: propose, check, compile, test.
    Redirects(redirects::RedirectsArgs),
    /// Serve the Mapper and the key inspector as a local web page.
    Serve(serve::ServeArgs),
    /// Print the shell completion script for SHELL on standard output.
    Completions(CompletionsArgs),
    /// Print the manual page urlkey(1), or write one page per command into a directory.
    Man(ManArgs),
}

const CLI_HELP: &str = "\
Examples:
  urlkey key urls.txt
  urlkey map --column Address crawl.csv -o groups.csv
  urlkey explain 'https://Example.com/a/?utm_source=x' https://example.com/a
More: docs/cli.md (every command, exit codes, completions and man pages).";

const COMPLETIONS_HELP: &str = "\
Examples:
  urlkey completions bash > ~/.local/share/bash-completion/completions/urlkey
  urlkey completions zsh > ~/.zfunc/_urlkey
  urlkey completions fish > ~/.config/fish/completions/urlkey.fish
More: docs/cli.md (\"Completions and man pages\").";

const MAN_HELP: &str = "\
With --dir, each page is written through a temporary file renamed into place, and the
paths written are printed, one per line.

Examples:
  urlkey man | man -l -
  urlkey man --dir ~/.local/share/man/man1
More: docs/cli.md (\"Completions and man pages\").";

/// `urlkey completions`.
#[derive(Args, Debug)]
#[command(after_help = COMPLETIONS_HELP)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `urlkey man`.
#[derive(Args, Debug)]
#[command(after_help = MAN_HELP)]
pub struct ManArgs {
    /// Write urlkey.1 and a page per command and subcommand (urlkey-key.1,
    /// urlkey-ledger-review-add.1, ...) into this directory, created if missing.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

const KEY_HELP: &str = "\
Every input line (row) gives exactly one record: invalid input is a record with an error
code, never dropped.

Examples:
  urlkey key urls.txt                                    # JSONL, citation@1
  urlkey key --policy webkey@1 --format key urls.txt     # the keys alone
  urlkey key --column Address --keep-columns all --excel crawl.csv -o keys.csv
More: docs/cli.md (inputs, outputs, exit codes) and docs/policies.md.";

const MAP_HELP: &str = "\
The columns of every row:
  group           the line of the first record with the same signature (host, path and
                  parameter names): the group a person reviews together
  duplicate_of    the line of the first record with the same key (empty for that record)
  duplicates      records sharing this key, itself included
  variants        distinct keys in the group
  classification  unique, duplicate (same key, nothing else in the group), review (the group
                  holds several keys: a person decides; a review row may still have exact
                  duplicates: its duplicates count says so, and duplicate_of points to the
                  first), or invalid (no key: the error columns say why)
  With several inputs, every row also has source (its file) and run_line (its line counted
  through the inputs one after another: the lines of the files before it, plus line), and
  group, duplicate_of and --groups' sample_lines give run_lines, so each names one record;
  group_source and duplicate_of_source name the files those records are in.

Examples:
  urlkey map inventory.txt -o groups.csv
  urlkey map --column Address --keep-columns \"Status Code,Indexability\" crawl.csv -o map.csv
  urlkey map --groups --summary summary.json export.xlsx -o groups.csv
More: docs/cli.md (inputs, outputs, exit codes).";

const INSPECT_HELP: &str = "\
Examples:
  urlkey inspect 'https://news.Example.com.au/Sport/index.htm?page=2&utm_medium=x'
  urlkey inspect --policy citation@1 --format json 'https://example.com/a/?gclid=1'
More: docs/cli.md and docs/policies.md.";

const EXPLAIN_HELP: &str = "\
Exit status, as cmp(1): 0 when every input has the same key, 1 when not (an invalid input
never shares a key), 2 on a usage error, 5 for an unknown policy.

Examples:
  urlkey explain 'https://Example.com/a/?utm_source=x' 'https://example.com/a'
  urlkey explain --policy webkey@1 --format json https://www.example.com/A http://example.com/a
  urlkey explain -q https://example.com/a https://example.com/a/ && echo same
More: docs/cli.md.";

const DIFF_HELP: &str = "\
Two forms. --from P --to Q FILE...: one inventory under two policies. Merges: several
--from keys become one --to key; splits: the reverse; changed: the key text changed but the
group did not. --policy P OLD NEW: two inventories (one input each) under one policy: keys
only in OLD, only in NEW, in both. text and json give a report, csv, jsonl and parquet one
row per record (with --keep-columns, the input's columns after diff's own).

Exit status, as diff(1): 0 when the sides do not differ, 1 when they do (--from --to: a
record's key or validity changes; --policy: a key is only on one side), 2 or more on
trouble.

Examples:
  urlkey diff --from mapper@1 --to webkey@1 examples/legacy-urls.txt
  urlkey diff --from citation@1 --to webkey@1 --format csv inventory.txt -o rows.csv
  urlkey diff --policy webkey@1 before.txt after.csv
More: docs/cli.md.";

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
    /// The input shape; default: from the file name (.csv .tsv .jsonl .xlsx .xls .ods), else lines.
    #[arg(long, value_enum, value_name = "lines|csv|tsv|jsonl|sheet")]
    pub input_format: Option<InputFormatArg>,
    /// The column holding the URL (CSV/TSV/spreadsheet): a header name (exact, else
    /// ignoring ASCII case when that is unique) or a 1-based number.
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<String>,
    /// JSONL field holding the URL.
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// The input's other columns to carry into every output record: `all`, or names
    /// separated by commas (JSONL: field names).
    #[arg(long, value_name = "all|NAME,...")]
    pub keep_columns: Option<String>,
    /// The CSV delimiter (one character, or `tab`); default: detected from the header line
    /// among `,` `;` tab `|`.
    #[arg(long, value_name = "C")]
    pub delimiter: Option<String>,
    /// How CSV/TSV cells are quoted: double (RFC 4180: "a, b" is one cell, a cell may span
    /// lines) or none (a quote is an ordinary character and every line is a row: for files
    /// that never quote, such as most TSV exports).
    #[arg(long, value_enum, default_value_t = QuoteArg::Double, value_name = "double|none")]
    pub quote: QuoteArg,
    /// The CSV (or spreadsheet) has no header row: --column is a 1-based number.
    #[arg(long)]
    pub no_headers: bool,
    /// Lines (spreadsheet rows) before the header, such as a crawler's title line.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_rows: u64,
    /// The spreadsheet's sheet: a name or a 1-based number (default: the first).
    #[arg(long, value_name = "NAME|N")]
    pub sheet: Option<String>,
    /// The text encoding of input without a byte-order mark: a WHATWG label such as
    /// windows-1252, shift_jis, utf-16le (default: UTF-8; a UTF-16 BOM is always honoured).
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,
    /// Lines longer than this become `input.too-long` records.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024)]
    pub max_line_bytes: usize,
    /// Worker threads (0 = every core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Write to this file instead of standard output (through a temporary file renamed
    /// into place on success; never one of the inputs).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// CSV for Excel: a UTF-8 byte-order mark first (rows end in CRLF); implies csv when
    /// no --format is given.
    #[arg(long)]
    pub excel: bool,
    /// No progress bar and no summary on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `urlkey key`.
#[derive(Args, Debug)]
#[command(after_help = KEY_HELP)]
pub struct KeyArgs {
    /// The policy id (see `urlkey policies`).
    #[arg(long, default_value = urlkey::policy::defaults::KEY)]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// Resolve relative input against this URL (whatwg@1 only).
    #[arg(long, value_name = "URL")]
    pub base: Option<String>,
    /// Output: jsonl (default), csv, tsv, key (the key alone per line) or parquet (needs -o FILE).
    #[arg(long, value_enum)]
    pub format: Option<KeyFormat>,
    /// Input and run settings.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `urlkey map`.
#[derive(Args, Debug)]
#[command(after_help = MAP_HELP)]
pub struct MapArgs {
    /// The policy id.
    #[arg(long, default_value = urlkey::policy::defaults::MAP)]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// Output: csv, jsonl, tsv or parquet (needs -o FILE).
    #[arg(long, value_enum, default_value_t = MapFormat::Csv)]
    pub format: MapFormat,
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
#[command(after_help = INSPECT_HELP)]
pub struct InspectArgs {
    /// The URL (or any text) to inspect.
    pub url: String,
    /// text or json.
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    /// The policy whose key is shown first.
    #[arg(long, default_value = urlkey::policy::defaults::INSPECT)]
    pub policy: String,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
}

/// `urlkey explain`.
#[derive(Args, Debug)]
#[command(after_help = EXPLAIN_HELP)]
pub struct ExplainArgs {
    /// The URLs (or any text) to compare: two or more.
    #[arg(required = true, num_args = 2.., value_name = "URL")]
    pub urls: Vec<String>,
    /// The policy (default: the same as `urlkey key`'s).
    #[arg(long, default_value = urlkey::policy::defaults::EXPLAIN)]
    pub policy: String,
    /// text or json.
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    /// Print nothing: the exit status alone says whether the keys are the same.
    #[arg(short, long)]
    pub quiet: bool,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
}

/// `urlkey diff`.
#[derive(Args, Debug)]
#[command(after_help = DIFF_HELP)]
pub struct DiffArgs {
    /// The policy the inventory is keyed under now (with --to).
    #[arg(long, value_name = "ID", requires = "to", conflicts_with = "policy")]
    pub from: Option<String>,
    /// The policy it would move to (with --from).
    #[arg(long, value_name = "ID", requires = "from", conflicts_with = "policy")]
    pub to: Option<String>,
    /// Compare two inventories, OLD and NEW, under this policy.
    #[arg(long, value_name = "ID")]
    pub policy: Option<String>,
    /// text (a summary and the first ten of each kind), json (the whole report), csv,
    /// jsonl or parquet (one row per record; parquet needs -o FILE).
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// List at most N keys of each kind (--policy) or N merges and N splits (--from --to)
    /// in the report; the counts stay whole and the report states N. Default: every one.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// Input and run settings.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `--format` of `diff`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    /// A summary for people.
    Text,
    /// The whole report, pretty-printed JSON.
    Json,
    /// One row per record, RFC 4180 CSV with a header.
    Csv,
    /// One row per record, one JSON object per line.
    Jsonl,
    /// One row per record, an Apache Parquet file (needs -o FILE).
    Parquet,
}

/// `urlkey policies`.
#[derive(Args, Debug)]
pub struct PoliciesArgs {
    /// text or json.
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
}

/// A text/json switch.
#[derive(Args, Debug)]
pub struct FormatArgs {
    /// text or json.
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
}

// Format flags are typed: clap refuses an unknown value (exit 2) and lists the values in
// `--help`, so no command parses a format string itself.

/// `urlkey rules`.
#[derive(Args, Debug)]
pub struct RulesArgs {
    /// Which registry: 1 (the released policies' lists; the default for the table) or 2
    /// (`clean@1`: scoped entries with exceptions, and the redirect wrappers; the default
    /// for --check).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub registry: Option<u8>,
    /// Say which entries name each parameter of URL and why it is removed or kept (scope,
    /// exception), which builtin policies remove it, and whether URL is a redirect wrapper.
    #[arg(long, value_name = "URL")]
    pub check: Option<String>,
    /// text or json.
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
}

/// `--format` of `inspect`, `policies`, `rules` and `codes`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// Aligned text for people.
    Text,
    /// Pretty-printed JSON.
    Json,
}

/// `--format` of `key`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFormat {
    /// One JSON object per line.
    #[value(alias = "json", alias = "ndjson")]
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// Tab-separated with a header row.
    Tsv,
    /// The key alone, one per line (an empty line for an invalid record).
    Key,
    /// An Apache Parquet file (needs -o FILE).
    Parquet,
}

/// `--format` of `map`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapFormat {
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    #[value(alias = "json", alias = "ndjson")]
    Jsonl,
    /// Tab-separated with a header row.
    Tsv,
    /// An Apache Parquet file (needs -o FILE).
    Parquet,
}

/// `--quote`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteArg {
    /// RFC 4180: a cell may be quoted with double quotes (two inside are one quote).
    // No `"` in a value's help: clap_complete's fish script puts it between `"` unescaped
    // (`tests/help.rs`, `value_help_is_safe_in_fish`).
    Double,
    /// A quote is an ordinary character.
    None,
}

/// `--input-format`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormatArg {
    /// One URL per line.
    #[value(alias = "text", alias = "txt")]
    Lines,
    /// Delimited text with a header row.
    Csv,
    /// Tab-separated with a header row.
    Tsv,
    /// One JSON object per line.
    #[value(alias = "ndjson")]
    Jsonl,
    /// A spreadsheet (.xlsx, .xlsm, .xlsb, .xls, .ods).
    #[value(
        alias = "xlsx",
        alias = "xlsm",
        alias = "xlsb",
        alias = "xls",
        alias = "ods"
    )]
    Sheet,
}

impl From<KeyFormat> for OutputFormat {
    fn from(f: KeyFormat) -> Self {
        match f {
            KeyFormat::Jsonl => OutputFormat::Jsonl,
            KeyFormat::Csv => OutputFormat::Csv,
            KeyFormat::Tsv => OutputFormat::Tsv,
            KeyFormat::Key => OutputFormat::Key,
            KeyFormat::Parquet => OutputFormat::Parquet,
        }
    }
}

impl From<MapFormat> for OutputFormat {
    fn from(f: MapFormat) -> Self {
        match f {
            MapFormat::Csv => OutputFormat::Csv,
            MapFormat::Jsonl => OutputFormat::Jsonl,
            MapFormat::Tsv => OutputFormat::Tsv,
            MapFormat::Parquet => OutputFormat::Parquet,
        }
    }
}

impl From<InputFormatArg> for InputFormat {
    fn from(f: InputFormatArg) -> Self {
        match f {
            InputFormatArg::Lines => InputFormat::Lines,
            InputFormatArg::Csv => InputFormat::Csv,
            InputFormatArg::Tsv => InputFormat::Tsv,
            InputFormatArg::Jsonl => InputFormat::Jsonl,
            InputFormatArg::Sheet => InputFormat::Sheet,
        }
    }
}

/// The name a format flag's value has in messages (`--format tsv is not CSV`).
pub fn value_name(v: impl ValueEnum) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

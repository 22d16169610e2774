//! `urlkey redirects`' flags: propose, evidence, check, compile, test
//! (docs/redirects.md).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{InputArgs, PolicySource};

// The examples that end each command's --help (flags/help.rs says the shape).
const PROPOSE_HELP: &str = "\
Examples:
  urlkey redirects propose --policy webkey@1 old.txt new.txt -o proposals.csv
  urlkey redirects propose --policy webkey@1 --column Address --title-column Title old.csv new.csv
  urlkey redirects propose --policy clean@1 --format jsonl old.csv new.csv
More: docs/redirects.md.";

const EVIDENCE_HELP: &str = "\
Examples:
  urlkey redirects evidence
  urlkey redirects evidence --format json
More: docs/redirects.md.";

const CHECK_HELP: &str = "\
Examples:
  urlkey redirects check --server nginx reviewed.csv
  urlkey redirects check --server nginx --new new.csv reviewed.csv
  urlkey redirects check --server netlify --format csv reviewed.csv -o findings.csv
More: docs/redirects.md.";

const COMPILE_HELP: &str = "\
Examples:
  urlkey redirects compile --to nginx reviewed.csv -o redirects.map.conf
  urlkey redirects compile --to netlify reviewed.csv -o _redirects
  urlkey redirects compile --to cloudflare reviewed.csv -o bulk-redirects.csv
More: docs/redirects.md.";

const TEST_HELP: &str = "\
Examples:
  urlkey redirects test --base https://www.example.com reviewed.csv
  urlkey redirects test --base https://staging.example.com reviewed.csv -o results.csv
  urlkey redirects test --base http://127.0.0.1:8080 --allow-loopback reviewed.csv
More: docs/redirects.md.";

/// `urlkey redirects COMMAND`
#[derive(Args, Debug)]
#[command(after_help = "urlkey proposes; a person decides.

Examples:
  urlkey redirects propose --policy webkey@1 --column Address old.csv new.csv -o proposals.csv
  urlkey redirects check --server nginx --new new.csv reviewed.csv
  urlkey redirects compile --to nginx reviewed.csv -o redirects.map.conf
More: docs/redirects.md.")]
pub struct RedirectsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: RedirectsCommand,
}

/// The commands of `urlkey redirects`.
#[derive(Subcommand, Debug)]
// Parsed once per run: the size of the Propose variant (its many flags) does not matter.
#[allow(clippy::large_enum_variant)]
pub enum RedirectsCommand {
    /// Propose a target for every old URL, with its evidence, for a person to review.
    #[command(after_help = PROPOSE_HELP)]
    Propose(ProposeArgs),
    /// List the kinds of evidence propose names.
    #[command(after_help = EVIDENCE_HELP)]
    Evidence(super::FormatArgs),
    /// Check an approved map under a server's own matching rules and limits (exit 1 on problems).
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Write an approved map in a server's format (refused, exit 1, when check fails it).
    #[command(after_help = COMPILE_HELP)]
    Compile(CompileArgs),
    /// Request every source on the live site and check it reaches its target in one hop.
    #[command(after_help = TEST_HELP)]
    Test(TestArgs),
}

/// A server a map is checked or compiled for.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerArg {
    /// nginx `map` (keys matched ignoring ASCII case).
    Nginx,
    /// Apache httpd `RewriteMap`.
    Apache,
    /// Netlify `_redirects`.
    Netlify,
    /// Cloudflare Bulk Redirects (list CSV).
    Cloudflare,
    /// Vercel bulk redirects (JSON).
    Vercel,
    /// IIS URL Rewrite `rewriteMap`.
    Iis,
}

impl From<ServerArg> for urlkey_redirects::Server {
    fn from(s: ServerArg) -> Self {
        use urlkey_redirects::Server;
        match s {
            ServerArg::Nginx => Server::Nginx,
            ServerArg::Apache => Server::Apache,
            ServerArg::Netlify => Server::Netlify,
            ServerArg::Cloudflare => Server::Cloudflare,
            ServerArg::Vercel => Server::Vercel,
            ServerArg::Iis => Server::Iis,
        }
    }
}

/// `urlkey redirects propose`.
#[derive(Args, Debug)]
pub struct ProposeArgs {
    /// The policy whose keys say two URLs are one page.
    #[arg(long, value_name = "ID")]
    pub policy: String,
    /// The column holding each page's title (both inputs), for same-title evidence.
    #[arg(long, value_name = "NAME")]
    pub title_column: Option<String>,
    /// csv, jsonl or parquet (parquet needs -o FILE).
    #[arg(long, value_enum, default_value_t = ProposeFormat::Csv)]
    pub format: ProposeFormat,
    /// Policies and the suffix list.
    #[command(flatten)]
    pub source: PolicySource,
    /// OLD and NEW, and the input settings.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `--format` of `propose`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposeFormat {
    /// RFC 4180 CSV with a header (a spreadsheet opens it; the reviewed file is a MAP).
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// An Apache Parquet file (needs -o FILE).
    Parquet,
}

/// `--format` of `check`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    /// A report for people.
    Text,
    /// The whole report, pretty-printed JSON.
    Json,
    /// One row per finding.
    Csv,
}

/// `urlkey redirects check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The server that will run the map: its matching rules and limits apply.
    #[arg(long, value_enum)]
    pub server: ServerArg,
    /// The new site's inventory: a target it lacks is a `missing-target` finding.
    #[arg(long, value_name = "FILE")]
    pub new: Option<String>,
    /// The column of --new holding the URL (CSV/TSV/spreadsheet).
    #[arg(long, value_name = "NAME|N", requires = "new")]
    pub column: Option<String>,
    /// text, json or csv.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Write the report here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The map: CSV/TSV/spreadsheet with source and target (optional status, decision).
    #[arg(value_name = "MAP")]
    pub map: String,
}

/// `urlkey redirects compile`.
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The server to write the map for.
    #[arg(long, value_enum)]
    pub to: ServerArg,
    /// The file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// The map: CSV/TSV/spreadsheet with source and target (optional status, decision).
    #[arg(value_name = "MAP")]
    pub map: String,
}

/// `urlkey redirects test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// The live site's origin: each source's path and query are requested there.
    #[arg(long, value_name = "URL")]
    pub base: String,
    /// Allow loopback addresses (127.0.0.0/8, ::1): a staging server on this machine.
    #[arg(long)]
    pub allow_loopback: bool,
    /// Seconds allowed for each request.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Least milliseconds between two requests to one host [default: 250; 0 when --base is
    /// loopback or localhost].
    #[arg(long, value_name = "MS")]
    pub per_host_delay: Option<u64>,
    /// Write the per-row results here (CSV) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The map: CSV/TSV/spreadsheet with source and target (optional status, decision).
    #[arg(value_name = "MAP")]
    pub map: String,
}

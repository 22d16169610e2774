//! `urlkey ledger`'s flags (clap derive), turned into the ledger's typed command
//! ([`urlkey_ledger::LedgerCommand`]): each command's flags build its options struct
//! directly (`From<IngestArgs> for IngestCommand`, ...), the one copy of its fields. The
//! value sets (`--format`, `--by`, ...) and the defaults are the ledger's own
//! ([`urlkey_ledger::choice`]); this file spells the flags.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand};

use super::QuoteArg;
use urlkey_ledger as ledger;
use urlkey_ledger::choice::Choice;
use urlkey_ledger::command::{IngestCommand, ReportCommand, VerifyCommand};
use urlkey_ledger::export::ExportFormat;
use urlkey_ledger::ingest::{Defaults, InputFormat};
use urlkey_ledger::report::{GroupBy, PublisherUnit, ReportFormat, ReportOptions};
use urlkey_ledger::review::ListFormat;

/// A value parser for one of the ledger's value sets: its names, each with its help line.
fn choice<T: Choice + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(
        T::CHOICES
            .iter()
            .map(|(_, name, help)| PossibleValue::new(*name).help(*help)),
    )
    .try_map(|name| ledger::choice::parse::<T>(&name))
}

// The examples that end each command's --help (flags/help.rs says the shape).
const INIT_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite init
  urlkey ledger init
More: docs/ledger.md.";

const INGEST_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite ingest export.csv
  urlkey ledger --db citations.sqlite ingest --collection c-2026-11-08 --market us answers.xlsx
  urlkey ledger --db citations.sqlite ingest --rejects rejects.csv export.csv.gz
More: docs/ledger.md.";

const REPORT_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite report --by answer_system,market
  urlkey ledger --db citations.sqlite report --compare c-2026-11-01 c-2026-11-08
  urlkey ledger --db citations.sqlite report --format html -o report.html
More: docs/ledger.md.";

const VERIFY_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite verify --dry-run
  urlkey ledger --db citations.sqlite verify --limit 100
  urlkey ledger --db citations.sqlite verify --older-than 30d
More: docs/ledger.md.";

const REVIEW_HELP: &str = "\
Examples:
  urlkey ledger review add --key https://docs.example.org/guide --role definition --reviewer ana
  urlkey ledger --db citations.sqlite review import decisions.csv
  urlkey ledger --db citations.sqlite review list --format csv
More: docs/ledger.md.";

const MERGES_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite merges
  urlkey ledger --db citations.sqlite merges --format json
More: docs/ledger.md.";

const REKEY_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite rekey --policy webkey@1
  urlkey ledger --db citations.sqlite rekey --policy citation@2 --collection c-2026-11-08
More: docs/ledger.md.";

const EXPORT_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite export -o ledger.csv
  urlkey ledger --db citations.sqlite export --format jsonl -o ledger.jsonl
More: docs/ledger.md.";

const REVIEW_ADD_HELP: &str = "\
Examples:
  urlkey ledger review add --key https://docs.example.org/guide --role definition --reviewer ana
  urlkey ledger review add --observation o-17 --claim-support yes --reviewer ana
  urlkey ledger review add --key https://docs.example.org/ --merge split --reviewer ana
More: docs/ledger.md.";

const REVIEW_IMPORT_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite review import decisions.csv
  urlkey ledger review import decisions.csv
More: docs/ledger.md.";

const REVIEW_LIST_HELP: &str = "\
Examples:
  urlkey ledger --db citations.sqlite review list
  urlkey ledger --db citations.sqlite review list --format csv
More: docs/ledger.md.";

/// `urlkey ledger [--db PATH] COMMAND`
#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:
  urlkey ledger --db citations.sqlite ingest export.csv
  urlkey ledger --db citations.sqlite report --by answer_system,market
  urlkey ledger --db citations.sqlite report --format html -o report.html
More: docs/ledger.md (ingest, report, verify, review, merges, export, exit codes).")]
pub struct LedgerArgs {
    /// The ledger database (SQLite). Created by `init` and `ingest`.
    #[arg(long, default_value = "urlkey-ledger.sqlite", global = true)]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: LedgerCommand,
}

/// The ledger's commands.
#[derive(Subcommand, Debug, Clone)]
// Parsed once per run: the size of the Ingest variant (its many flags) does not matter.
#[allow(clippy::large_enum_variant)]
pub enum LedgerCommand {
    /// Create the database (or bring its schema up to date).
    #[command(after_help = INIT_HELP)]
    Init,
    /// Store the observations of CSV, TSV, JSONL or spreadsheet files (also .gz/.zst),
    /// one transaction per file.
    ///
    /// Columns: observation_id, prompt_id, prompt_version, answer_system, market,
    /// collection, run_timestamp, observed_url. Each observed URL is kept exactly as read
    /// and keyed with --policy; invalid URLs are stored with their error code.
    #[command(after_help = INGEST_HELP)]
    Ingest(IngestArgs),
    /// Count observations, valid observations, unique URL keys and unique publisher
    /// hostnames, with the top publishers' shares and the sample they describe.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Fetch the observed URLs of each unverified key (up to --max-variants distinct ones),
    /// compare their content, and record the result, hop by hop.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Record what people decide (source role, claim support, merge), list the decisions.
    #[command(after_help = REVIEW_HELP)]
    Review {
        /// add, import or list.
        #[command(subcommand)]
        command: ReviewCommand,
    },
    /// List the keys with more than one distinct observed URL, merges to review first.
    #[command(after_help = MERGES_HELP)]
    Merges {
        /// Output format.
        #[arg(long, value_parser = choice::<ListFormat>(), default_value = "table")]
        format: ListFormat,
    },
    /// Key the observations of some collections under another policy too, in one
    /// transaction: the new keys are stored beside the original ones, which stay (verify,
    /// merges, review and export use them); `report --policy` counts under either.
    /// Running it again adds nothing.
    #[command(after_help = REKEY_HELP)]
    Rekey {
        /// The policy to key them under (`urlkey policies` lists the ids).
        #[arg(long, required = true)]
        policy: String,
        /// Only this collection (repeat for several; default: every observation).
        #[arg(long, value_name = "COLLECTION")]
        collection: Vec<String>,
    },
    /// Write every observation with the latest verification of its key.
    #[command(after_help = EXPORT_HELP)]
    Export {
        /// Output format.
        #[arg(long, value_parser = choice::<ExportFormat>(), default_value = "csv")]
        format: ExportFormat,
        /// Write here instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// `urlkey ledger ingest`'s flags; they build the ledger's [`IngestCommand`] directly.
#[derive(Args, Debug, Clone)]
pub struct IngestArgs {
    /// The files: CSV, TSV, JSONL, spreadsheets (.xlsx, .xls, .ods), each also as .gz
    /// or .zst (format by content and extension); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The sheet of a spreadsheet to read: its name or a 1-based number (default: the
    /// first).
    #[arg(long, value_name = "NAME|N")]
    pub sheet: Option<String>,
    /// Which columns (JSONL fields) hold which ledger fields, when the header names
    /// them otherwise: 'observation_id=Observation ID,observed_url=URL'. Header names
    /// also match ignoring case, spaces and separators.
    #[arg(long, value_name = "FIELD=HEADER,...")]
    pub columns: Option<String>,
    /// The text encoding of inputs without a byte-order mark (a WHATWG label:
    /// windows-1252, iso-8859-1, utf-16le, shift_jis); default UTF-8.
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,
    /// The delimiter of CSV files: one character, or `tab` (default: detected from the
    /// header line among `,` `;` tab `|`).
    #[arg(long, value_name = "C")]
    pub delimiter: Option<String>,
    /// How CSV/TSV cells are quoted: double (RFC 4180) or none (a quote is an ordinary
    /// character and every line is a row: for files that never quote).
    #[arg(long, value_enum, default_value_t = QuoteArg::Double, value_name = "double|none")]
    pub quote: QuoteArg,
    /// The normalization policy that makes the keys.
    #[arg(long, default_value = ledger::command::DEFAULT_POLICY)]
    pub policy: String,
    /// Read the files as this format instead of guessing.
    #[arg(long, value_parser = choice::<InputFormat>())]
    pub input_format: Option<InputFormat>,
    /// answer_system for rows that have none.
    #[arg(long)]
    pub answer_system: Option<String>,
    /// prompt_version for rows that have none.
    #[arg(long)]
    pub prompt_version: Option<String>,
    /// market for rows that have none.
    #[arg(long)]
    pub market: Option<String>,
    /// run_timestamp (RFC 3339 or YYYY-MM-DD) for rows that have none.
    #[arg(long)]
    pub run_timestamp: Option<String>,
    /// Read run timestamps without Z or an offset (`2026-11-08 09:00:00`) as wall-clock
    /// time in this IANA zone (Europe/Paris, UTC). Without it they are refused.
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,
    /// collection (the dated collection run) for rows that have none.
    #[arg(long)]
    pub collection: Option<String>,
    /// Store the good rows and write every refused row here (its cells, with `line`
    /// and `reason`). Without it a file with any bad row stores nothing.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
}

/// `urlkey ledger report`'s flags; they build the ledger's [`ReportCommand`] directly.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Report each value of these columns separately: one column, or several joined
    /// with commas (`--by answer_system,market`: one group per pair of values).
    #[arg(long, value_parser = choice::<GroupBy>(), value_delimiter = ',', value_name = "COLUMN,...")]
    pub by: Vec<GroupBy>,
    /// What a publisher is: the key's hostname (the default), or its registrable
    /// domain from the Public Suffix List (docs.example.org and wiki.example.org both
    /// count as example.org).
    #[arg(long, value_parser = choice::<PublisherUnit>(), default_value = "host")]
    pub publisher: PublisherUnit,
    /// Compare two collections: per publisher and per URL key, the valid observations
    /// in each, the change, new and gone, with both samples.
    #[arg(long, num_args = 2, value_names = ["COLLECTION_A", "COLLECTION_B"])]
    pub compare: Option<Vec<String>>,
    /// Only observations run in this window: FROM..TO, both included (dates or RFC
    /// 3339 instants; a date as TO includes that day). Given twice (without --compare),
    /// the two windows are compared as --compare compares two collections.
    #[arg(long, value_name = "FROM..TO")]
    pub window: Vec<String>,
    /// Output format (html: one self-contained page with SVG charts; use -o FILE).
    #[arg(long, value_parser = choice::<ReportFormat>(), default_value = "table")]
    pub format: ReportFormat,
    /// How many top publishers to list (0 = all).
    #[arg(long, default_value_t = ledger::report::DEFAULT_TOP)]
    pub top: usize,
    /// How many top URL keys to list (0 = all).
    #[arg(long, default_value_t = ledger::report::DEFAULT_TOP)]
    pub top_keys: usize,
    /// Count the keys of this policy: one the observations were ingested under, or one
    /// `rekey` keyed them under (default: the policy of the ingest; needed when the
    /// ledger was ingested under several).
    #[arg(long)]
    pub policy: Option<String>,
    /// Only observations of this collection.
    #[arg(long, value_name = "COLLECTION")]
    pub collection: Option<String>,
    /// Compare the same observations (all, or --collection's, or --window's) keyed under
    /// two policies: per publisher and per URL key, the valid observations under each,
    /// and what normalization changed under each (the second one needs a `rekey`, or an
    /// ingest under it).
    #[arg(long, num_args = 2, value_names = ["POLICY_A", "POLICY_B"])]
    pub compare_policies: Option<Vec<String>>,
    /// Write here (through a temporary file and a rename) instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// `urlkey ledger verify`'s flags; they build the ledger's [`VerifyCommand`] directly.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Verify at most N keys.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Keys verified at once.
    #[arg(long, default_value_t = ledger::command::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Least milliseconds between two requests to the same host.
    #[arg(long, default_value_t = ledger::command::DEFAULT_PER_HOST_DELAY_MS)]
    pub per_host_delay: u64,
    /// Seconds allowed for each request, connection to last byte read.
    #[arg(long, default_value_t = ledger::command::DEFAULT_TIMEOUT_SECS)]
    pub timeout: f64,
    /// Also re-verify keys whose latest verification is older than this (30d, 12h, 90m).
    #[arg(long)]
    pub older_than: Option<String>,
    /// Allow loopback, private, shared, link-local and reserved targets.
    #[arg(long)]
    pub allow_private_network: bool,
    /// Allow loopback targets (127.0.0.0/8, ::1) only, e.g. a server on this machine.
    #[arg(long)]
    pub allow_loopback: bool,
    /// List the keys that would be verified; fetch nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Distinct observed URLs (spellings) fetched per key, at most, for the content
    /// comparison: the first observation's, a spelling on each side of every risky rule
    /// that merged the key, then the first others. A risky rule left out is `partial`
    /// (1: the first observation's only, as before schema 4).
    #[arg(long, default_value_t = ledger::verify::DEFAULT_MAX_VARIANTS, value_name = "N")]
    pub max_variants: usize,
    /// Also trust the PEM certificates in FILE (a private or test CA), beside the
    /// built-in roots.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
}

/// The review commands.
#[derive(Subcommand, Debug, Clone)]
pub enum ReviewCommand {
    /// Record one decision: the page's source role and the merge (of the key), the claim
    /// support (of an observation).
    #[command(after_help = REVIEW_ADD_HELP)]
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
    #[command(after_help = REVIEW_IMPORT_HELP)]
    Import {
        /// The CSV file.
        file: PathBuf,
    },
    /// Every decision, oldest first, with its time and reviewer.
    #[command(after_help = REVIEW_LIST_HELP)]
    List {
        /// Output format.
        #[arg(long, value_parser = choice::<ListFormat>(), default_value = "table")]
        format: ListFormat,
    },
}

impl LedgerArgs {
    /// The ledger's database and its typed command.
    pub fn into_command(self) -> (PathBuf, ledger::LedgerCommand) {
        (self.db, self.command.into_command())
    }
}

impl LedgerCommand {
    fn into_command(self) -> ledger::LedgerCommand {
        match self {
            LedgerCommand::Init => ledger::LedgerCommand::Init,
            LedgerCommand::Ingest(a) => ledger::LedgerCommand::Ingest(a.into()),
            LedgerCommand::Report(a) => ledger::LedgerCommand::Report(a.into()),
            LedgerCommand::Verify(a) => ledger::LedgerCommand::Verify(a.into()),
            LedgerCommand::Review { command } => {
                ledger::LedgerCommand::Review(command.into_command())
            }
            LedgerCommand::Merges { format } => ledger::LedgerCommand::Merges { format },
            LedgerCommand::Rekey { policy, collection } => {
                ledger::LedgerCommand::Rekey(ledger::rekey::RekeyOptions {
                    policy,
                    collections: collection,
                })
            }
            LedgerCommand::Export { format, output } => {
                ledger::LedgerCommand::Export { format, output }
            }
        }
    }
}

impl ReviewCommand {
    fn into_command(self) -> ledger::command::ReviewCommand {
        use ledger::command::ReviewCommand as Typed;
        match self {
            ReviewCommand::Add {
                observation,
                key,
                policy,
                role,
                claim_support,
                merge,
                reviewer,
                note,
            } => Typed::Add(ledger::review::Decision {
                observation,
                key,
                policy,
                role,
                claim_support,
                merge,
                reviewer,
                note,
            }),
            ReviewCommand::Import { file } => Typed::Import { file },
            ReviewCommand::List { format } => Typed::List { format },
        }
    }
}

impl From<IngestArgs> for IngestCommand {
    fn from(a: IngestArgs) -> IngestCommand {
        IngestCommand {
            files: a.files,
            sheet: a.sheet,
            columns: a.columns,
            encoding: a.encoding,
            delimiter: a.delimiter,
            quotes: a.quote == QuoteArg::Double,
            policy: a.policy,
            input_format: a.input_format,
            defaults: Defaults {
                answer_system: a.answer_system,
                prompt_version: a.prompt_version,
                market: a.market,
                run_timestamp: a.run_timestamp,
                collection: a.collection,
                // Read from `timezone` by the run, which says what is wrong with it.
                timezone: None,
            },
            timezone: a.timezone,
            rejects: a.rejects,
        }
    }
}

impl From<ReportArgs> for ReportCommand {
    fn from(a: ReportArgs) -> ReportCommand {
        ReportCommand {
            options: ReportOptions {
                by: a.by,
                top: a.top,
                top_keys: a.top_keys,
                policy: a.policy,
                publisher: a.publisher,
                // clap takes exactly two values (num_args = 2).
                compare: a.compare.map(|v| {
                    let mut v = v.into_iter();
                    (v.next().unwrap_or_default(), v.next().unwrap_or_default())
                }),
                // Read from `window` by the run, which says what is wrong with one.
                windows: Vec::new(),
                collection: a.collection,
                // clap takes exactly two values (num_args = 2).
                compare_policies: a.compare_policies.map(|v| {
                    let mut v = v.into_iter();
                    (v.next().unwrap_or_default(), v.next().unwrap_or_default())
                }),
            },
            window: a.window,
            format: a.format,
            output: a.output,
        }
    }
}

impl From<VerifyArgs> for VerifyCommand {
    fn from(a: VerifyArgs) -> VerifyCommand {
        VerifyCommand {
            limit: a.limit,
            concurrency: a.concurrency,
            per_host_delay: a.per_host_delay,
            timeout: a.timeout,
            older_than: a.older_than,
            allow_private_network: a.allow_private_network,
            allow_loopback: a.allow_loopback,
            dry_run: a.dry_run,
            max_variants: a.max_variants,
            ca_cert: a.ca_cert,
        }
    }
}

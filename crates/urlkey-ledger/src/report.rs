//! `ledger report`: the counting measures of seed 004, kept apart and never all called
//! "citations", each stated with its sample.
//!
//! - **observations**: rows in the ledger (one per observed citation in a dated answer),
//!   invalid URLs included;
//! - **valid observations**: observations whose URL produced a key;
//! - **unique URL keys**: distinct normalized keys among the valid observations;
//! - **unique publisher hostnames**: distinct hostnames of those keys;
//! - **top publishers**: `share = publisher_observations / valid_observations`.

use std::collections::BTreeMap;
use std::io::Write;

use rusqlite::{params_from_iter, Connection};
use serde::Serialize;

use crate::error::{LedgerError, Result};

/// A column to group the report by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum GroupBy {
    /// The answer system (product surface).
    AnswerSystem,
    /// The market.
    Market,
    /// The prompt-set version.
    PromptVersion,
    /// The dated collection run.
    Collection,
}

impl GroupBy {
    /// The column name, as the JSON `by` field gives it.
    pub fn column(self) -> &'static str {
        match self {
            GroupBy::AnswerSystem => "answer_system",
            GroupBy::Market => "market",
            GroupBy::PromptVersion => "prompt_version",
            GroupBy::Collection => "collection",
        }
    }
}

/// The output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// For people.
    Table,
    /// The documented JSON shape, for scripts.
    Json,
    /// One row per group.
    Csv,
    /// Tables a person pastes into a document (GitHub-flavoured Markdown).
    Markdown,
}

/// How concentrated the valid observations are on few publishers. Every share has the
/// group's valid observations as its denominator, stated beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Concentration {
    /// The top publisher's share (seed 004's `top_publisher_share`).
    pub top1_share: f64,
    /// The five top publishers' shares together.
    pub top5_share: f64,
    /// Herfindahl-Hirschman index: the sum of the squared shares of every publisher,
    /// 0..1 (1 = one publisher; 1/n = n equal publishers). Rounded to 4 places.
    pub hhi: f64,
    /// The denominator of the shares: the valid observations.
    pub valid_observations: u64,
    /// How many publishers the index is over.
    pub publishers: u64,
}

impl Concentration {
    /// From every publisher's valid observations, most first.
    pub fn of(counts: &[u64]) -> Concentration {
        let total: u64 = counts.iter().sum();
        let top5: u64 = counts.iter().take(5).sum();
        let hhi = if total == 0 {
            0.0
        } else {
            let sq: u128 = counts.iter().map(|&n| u128::from(n) * u128::from(n)).sum();
            ((sq as f64 / (total as f64 * total as f64)) * 10_000.0).round() / 10_000.0
        };
        Concentration {
            top1_share: round_share(counts.first().copied().unwrap_or(0), total),
            top5_share: round_share(top5, total),
            hhi,
            valid_observations: total,
            publishers: counts.len() as u64,
        }
    }
}

/// One publisher among the top ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopPublisher {
    /// The key's hostname.
    pub hostname: String,
    /// Valid observations whose key has this hostname.
    pub observations: u64,
    /// `observations / valid_observations`, rounded to 4 decimal places.
    pub share: f64,
}

/// The collection window: earliest and latest `run_timestamp` (UTC) of the sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Earliest, `YYYY-MM-DDTHH:MM:SSZ`; `null` for an empty sample.
    pub from: Option<String>,
    /// Latest.
    pub to: Option<String>,
}

/// What the figures describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Prompt-set versions in the sample, sorted.
    pub prompt_versions: Vec<String>,
    /// Answer systems, sorted.
    pub answer_systems: Vec<String>,
    /// Markets, sorted.
    pub markets: Vec<String>,
    /// The collection window.
    pub window: Window,
}

/// The measures for one sample (the whole ledger, or one group).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measures {
    /// Every observation, invalid URLs included.
    pub observations: u64,
    /// Observations with a key.
    pub valid_observations: u64,
    /// Observations without one (kept in the ledger with their error code).
    pub invalid_observations: u64,
    /// Distinct keys among the valid observations.
    pub unique_keys: u64,
    /// Distinct publisher hostnames among the valid observations.
    pub unique_publishers: u64,
    /// The publishers with the most valid observations, most first, ties by name.
    pub top_publishers: Vec<TopPublisher>,
    /// Concentration over every publisher of the sample (not only the listed ones).
    pub concentration: Concentration,
    /// The sample the figures describe.
    pub sample: Sample,
}

/// One group of a `--by` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The group's value; `null` for rows without one (only `collection` can be empty).
    pub value: Option<String>,
    /// The measures.
    #[serde(flatten)]
    pub measures: Measures,
}

/// A `--by` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grouped {
    /// The column grouped by.
    pub by: &'static str,
    /// One entry per value, sorted (`null` first).
    pub groups: Vec<Group>,
}

/// A report's options.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Group by this column.
    pub by: Option<GroupBy>,
    /// How many top publishers to list (0 = all).
    pub top: usize,
    /// Only observations keyed with this policy.
    pub policy: Option<String>,
}

/// Rounds a share to 4 decimal places.
pub fn round_share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    ((part as f64 / whole as f64) * 10_000.0).round() / 10_000.0
}

/// Picks the policy the report covers: the one asked for, or the only one in the ledger.
/// Keys made by different policies are not comparable, so a mixed ledger needs `--policy`.
pub fn resolve_policy(conn: &Connection, asked: Option<&str>) -> Result<Option<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT normalization_policy_version FROM observations ORDER BY 1")?;
    let policies: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    match asked {
        Some(p) => {
            if !policies.iter().any(|q| q == p) && !policies.is_empty() {
                return Err(LedgerError::Usage(format!(
                    "no observations keyed with {p}; the ledger has: {}",
                    policies.join(", ")
                )));
            }
            Ok(Some(p.to_string()))
        }
        None => match policies.len() {
            0 => Ok(None),
            1 => Ok(policies.into_iter().next()),
            _ => Err(LedgerError::Usage(format!(
                "the ledger holds observations keyed with several policies ({}); keys from \
                 different policies are not comparable: choose one with --policy",
                policies.join(", ")
            ))),
        },
    }
}

/// Computes the measures for the whole ledger (`group == None`) or for each group.
pub fn compute(conn: &Connection, opts: &ReportOptions) -> Result<(Option<String>, Vec<Group>)> {
    let policy = resolve_policy(conn, opts.policy.as_deref())?;
    // `g` is a whitelisted column name or a constant: never user text.
    let g = match opts.by {
        Some(b) => b.column(),
        None => "NULL",
    };
    let filter = if policy.is_some() {
        "WHERE normalization_policy_version = ?1"
    } else {
        ""
    };
    let args: Vec<String> = policy.iter().cloned().collect();

    let mut groups: BTreeMap<Option<String>, Measures> = BTreeMap::new();
    let sql = format!(
        "SELECT {g}, count(*), count(normalized_key), count(DISTINCT normalized_key), \
         count(DISTINCT CASE WHEN normalized_key IS NOT NULL THEN publisher_hostname END), \
         min(run_at), max(run_at) FROM observations {filter} GROUP BY 1"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = rows.next()? {
        let value: Option<String> = r.get(0)?;
        let total: i64 = r.get(1)?;
        let valid: i64 = r.get(2)?;
        groups.insert(
            value,
            Measures {
                observations: total as u64,
                valid_observations: valid as u64,
                invalid_observations: (total - valid) as u64,
                unique_keys: r.get::<_, i64>(3)? as u64,
                unique_publishers: r.get::<_, i64>(4)? as u64,
                top_publishers: Vec::new(),
                concentration: Concentration::of(&[]),
                sample: Sample {
                    prompt_versions: Vec::new(),
                    answer_systems: Vec::new(),
                    markets: Vec::new(),
                    window: Window {
                        from: r.get(5)?,
                        to: r.get(6)?,
                    },
                },
            },
        );
    }
    drop(rows);
    drop(stmt);

    for (col, which) in [
        ("prompt_version", 0usize),
        ("answer_system", 1),
        ("market", 2),
    ] {
        let sql = format!("SELECT DISTINCT {g}, {col} FROM observations {filter} ORDER BY 1, 2");
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query(params_from_iter(args.iter()))?;
        while let Some(r) = rows.next()? {
            let value: Option<String> = r.get(0)?;
            let v: String = r.get(1)?;
            if let Some(m) = groups.get_mut(&value) {
                let list = match which {
                    0 => &mut m.sample.prompt_versions,
                    1 => &mut m.sample.answer_systems,
                    _ => &mut m.sample.markets,
                };
                list.push(v);
            }
        }
    }

    let valid_filter = if policy.is_some() {
        "WHERE normalization_policy_version = ?1 AND normalized_key IS NOT NULL"
    } else {
        "WHERE normalized_key IS NOT NULL"
    };
    let sql = format!(
        "SELECT {g}, publisher_hostname, count(*) AS n FROM observations {valid_filter} \
         GROUP BY 1, 2 ORDER BY 1, n DESC, 2"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut counts: BTreeMap<Option<String>, Vec<u64>> = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let value: Option<String> = r.get(0)?;
        let host: Option<String> = r.get(1)?;
        let n: i64 = r.get(2)?;
        counts.entry(value.clone()).or_default().push(n as u64);
        if let Some(m) = groups.get_mut(&value) {
            if opts.top == 0 || m.top_publishers.len() < opts.top {
                let share = round_share(n as u64, m.valid_observations);
                m.top_publishers.push(TopPublisher {
                    hostname: host.unwrap_or_default(),
                    observations: n as u64,
                    share,
                });
            }
        }
    }

    for (value, c) in counts {
        if let Some(m) = groups.get_mut(&value) {
            m.concentration = Concentration::of(&c);
        }
    }
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|(value, measures)| Group { value, measures })
        .collect();
    if out.is_empty() && opts.by.is_none() {
        out.push(Group {
            value: None,
            measures: Measures {
                observations: 0,
                valid_observations: 0,
                invalid_observations: 0,
                unique_keys: 0,
                unique_publishers: 0,
                top_publishers: Vec::new(),
                concentration: Concentration::of(&[]),
                sample: Sample {
                    prompt_versions: Vec::new(),
                    answer_systems: Vec::new(),
                    markets: Vec::new(),
                    window: Window {
                        from: None,
                        to: None,
                    },
                },
            },
        });
    }
    Ok((policy, out))
}

/// Writes the report.
pub fn write(
    conn: &Connection,
    opts: &ReportOptions,
    format: ReportFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let (policy, groups) = compute(conn, opts)?;
    match format {
        ReportFormat::Json => {
            let text = match opts.by {
                None => match groups.first() {
                    Some(g) => serde_json::to_string_pretty(&g.measures),
                    None => Ok("{}".to_string()),
                },
                Some(b) => serde_json::to_string_pretty(&Grouped {
                    by: b.column(),
                    groups,
                }),
            }
            .map_err(|e| LedgerError::Output(format!("cannot write JSON: {e}")))?;
            writeln!(out, "{text}")?;
        }
        ReportFormat::Csv => write_csv(opts, &groups, out)?,
        ReportFormat::Table => write_table(opts, policy.as_deref(), &groups, out)?,
        ReportFormat::Markdown => write_markdown(opts, policy.as_deref(), &groups, out)?,
    }
    Ok(())
}

fn write_csv(opts: &ReportOptions, groups: &[Group], out: &mut dyn Write) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "by",
        "value",
        "observations",
        "valid_observations",
        "invalid_observations",
        "unique_keys",
        "unique_publishers",
        "top_publisher",
        "top_publisher_observations",
        "top_publisher_share",
        "top_publishers",
        "prompt_versions",
        "answer_systems",
        "markets",
        "window_from",
        "window_to",
        "top5_share",
        "hhi",
    ])
    .map_err(LedgerError::from)?;
    for g in groups {
        let m = &g.measures;
        let top = m.top_publishers.first();
        let all_top: Vec<String> = m
            .top_publishers
            .iter()
            .map(|t| format!("{} {} {:.4}", t.hostname, t.observations, t.share))
            .collect();
        let value = crate::export::spreadsheet_safe(g.value.clone().unwrap_or_default());
        let safe = |v: &[String]| crate::export::spreadsheet_safe(v.join("; "));
        w.write_record([
            opts.by.map(GroupBy::column).unwrap_or(""),
            &value,
            &m.observations.to_string(),
            &m.valid_observations.to_string(),
            &m.invalid_observations.to_string(),
            &m.unique_keys.to_string(),
            &m.unique_publishers.to_string(),
            top.map(|t| t.hostname.as_str()).unwrap_or(""),
            &top.map(|t| t.observations.to_string()).unwrap_or_default(),
            &top.map(|t| format!("{:.4}", t.share)).unwrap_or_default(),
            &all_top.join("; "),
            &safe(&m.sample.prompt_versions),
            &safe(&m.sample.answer_systems),
            &safe(&m.sample.markets),
            m.sample.window.from.as_deref().unwrap_or(""),
            m.sample.window.to.as_deref().unwrap_or(""),
            &format!("{:.4}", m.concentration.top5_share),
            &format!("{:.4}", m.concentration.hhi),
        ])
        .map_err(LedgerError::from)?;
    }
    w.flush()?;
    Ok(())
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

fn write_table(
    opts: &ReportOptions,
    policy: Option<&str>,
    groups: &[Group],
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(
        out,
        "Citation audit ledger report (normalization policy: {})",
        policy.unwrap_or("none: the ledger is empty")
    )?;
    for g in groups {
        let m = &g.measures;
        writeln!(out)?;
        if let Some(b) = opts.by {
            writeln!(
                out,
                "== {} = {}",
                b.column(),
                g.value.as_deref().unwrap_or("(none)")
            )?;
        }
        let window = match (&m.sample.window.from, &m.sample.window.to) {
            (Some(f), Some(t)) => format!("{f} to {t}"),
            _ => "none".to_string(),
        };
        writeln!(
            out,
            "Sample: {} observations; prompt-set versions: {}; answer systems: {}; markets: {}; \
             collection window: {window}",
            m.observations,
            list(&m.sample.prompt_versions),
            list(&m.sample.answer_systems),
            list(&m.sample.markets),
        )?;
        let rows = [
            ("observations (invalid URLs included)", m.observations),
            ("valid observations (URL has a key)", m.valid_observations),
            (
                "invalid observations (kept, with error code)",
                m.invalid_observations,
            ),
            ("unique URL keys", m.unique_keys),
            ("unique publisher hostnames", m.unique_publishers),
        ];
        for (label, n) in rows {
            writeln!(out, "  {label:<46} {n:>8}")?;
        }
        if m.top_publishers.is_empty() {
            writeln!(out, "  top publishers: none (no valid observations)")?;
        } else {
            writeln!(
                out,
                "  top publishers (share = publisher's valid observations / all {} valid \
                 observations):",
                m.valid_observations
            )?;
            let width = m
                .top_publishers
                .iter()
                .map(|t| t.hostname.chars().count())
                .max()
                .unwrap_or(8)
                .max(8);
            writeln!(
                out,
                "    {:<width$}  {:>12}  share",
                "hostname", "observations"
            )?;
            for t in &m.top_publishers {
                writeln!(
                    out,
                    "    {:<width$}  {:>12}  {:.4} ({}/{})",
                    t.hostname, t.observations, t.share, t.observations, m.valid_observations
                )?;
            }
        }
        let c = &m.concentration;
        writeln!(
            out,
            "  concentration over {} publishers (shares of the {} valid observations): top1 \
             {:.4}, top5 {:.4}, HHI {:.4}",
            c.publishers, c.valid_observations, c.top1_share, c.top5_share, c.hhi
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Publisher share describes only this sample. It is not market share, source quality, \
         ranking strength or proof of influence."
    )?;
    Ok(())
}

/// A Markdown cell: pipes escaped, line breaks as spaces.
fn md(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

fn write_markdown(
    opts: &ReportOptions,
    policy: Option<&str>,
    groups: &[Group],
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(out, "# Citation audit ledger report")?;
    writeln!(out)?;
    writeln!(
        out,
        "Normalization policy: `{}`.",
        md(policy.unwrap_or("none: the ledger is empty"))
    )?;
    for g in groups {
        let m = &g.measures;
        writeln!(out)?;
        if let Some(b) = opts.by {
            writeln!(
                out,
                "## {} = {}",
                b.column(),
                md(g.value.as_deref().unwrap_or("(none)"))
            )?;
            writeln!(out)?;
        }
        let window = match (&m.sample.window.from, &m.sample.window.to) {
            (Some(f), Some(t)) => format!("{f} to {t}"),
            _ => "none".to_string(),
        };
        writeln!(
            out,
            "**Sample:** {} observations; prompt-set versions: {}; answer systems: {}; markets: \
             {}; collection window: {window}.",
            m.observations,
            md(&list(&m.sample.prompt_versions)),
            md(&list(&m.sample.answer_systems)),
            md(&list(&m.sample.markets)),
        )?;
        writeln!(out)?;
        writeln!(out, "| measure | value |")?;
        writeln!(out, "|---|---:|")?;
        for (label, n) in [
            ("observations (invalid URLs included)", m.observations),
            ("valid observations (URL has a key)", m.valid_observations),
            (
                "invalid observations (kept, with error code)",
                m.invalid_observations,
            ),
            ("unique URL keys", m.unique_keys),
            ("unique publisher hostnames", m.unique_publishers),
        ] {
            writeln!(out, "| {label} | {n} |")?;
        }
        let c = &m.concentration;
        writeln!(
            out,
            "| top-1 publisher share | {:.4} (of {}) |",
            c.top1_share, c.valid_observations
        )?;
        writeln!(
            out,
            "| top-5 publishers share | {:.4} (of {}) |",
            c.top5_share, c.valid_observations
        )?;
        writeln!(
            out,
            "| HHI over {} publishers | {:.4} |",
            c.publishers, c.hhi
        )?;
        writeln!(out)?;
        if m.top_publishers.is_empty() {
            writeln!(out, "No valid observations: no publishers.")?;
        } else {
            writeln!(
                out,
                "Top publishers (share = publisher's valid observations / all {} valid \
                 observations):",
                m.valid_observations
            )?;
            writeln!(out)?;
            writeln!(out, "| hostname | observations | share |")?;
            writeln!(out, "|---|---:|---:|")?;
            for t in &m.top_publishers {
                writeln!(
                    out,
                    "| {} | {} | {:.4} ({}/{}) |",
                    md(&t.hostname),
                    t.observations,
                    t.share,
                    t.observations,
                    m.valid_observations
                )?;
            }
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Publisher share describes only this sample. It is not market share, source quality, \
         ranking strength or proof of influence."
    )?;
    Ok(())
}

//! One observation row: as read ([`RawRow`]), then completed with the command's defaults and
//! checked ([`complete_row`]) into what is stored ([`Row`]).

use std::collections::HashMap;

use super::summary::Problem;
use crate::error::Setting;
use crate::timefmt;
use crate::words::Remedy;

/// Values used where a row has none (the column is absent or the cell empty).
/// A value in the file always wins over these.
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    /// `--answer-system`
    pub answer_system: Option<String>,
    /// `--prompt-version`
    pub prompt_version: Option<String>,
    /// `--market`
    pub market: Option<String>,
    /// `--run-timestamp`
    pub run_timestamp: Option<String>,
    /// `--collection`
    pub collection: Option<String>,
    /// `--timezone`: the zone of naive run timestamps (none: they are refused).
    pub timezone: Option<jiff::tz::TimeZone>,
}

/// One observation as read from a file, defaults applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Row {
    pub(super) line: u64,
    pub(super) observation_id: String,
    pub(super) prompt_id: Option<String>,
    pub(super) prompt_version: String,
    pub(super) answer_system: String,
    pub(super) market: String,
    pub(super) collection: Option<String>,
    /// The `run_timestamp` cell as written (stored as `run_timestamp_as_written`).
    pub(super) run_timestamp: String,
    /// The same instant in UTC (stored as `run_timestamp`).
    pub(super) run_at: String,
    pub(super) observed_url: String,
    /// The answer text that cited the URL.
    pub(super) claim: Option<String>,
    /// Every other column, a JSON object.
    pub(super) extra: String,
    /// The row's cells as read, for the rejects file.
    pub(super) cells: Vec<String>,
}

/// A row's fields before defaults: `None` for a missing column or an empty cell.
#[derive(Debug, Default)]
pub(super) struct RawRow {
    pub(super) line: u64,
    pub(super) fields: HashMap<&'static str, String>,
    /// `Some` when the row has an `observed_url` (possibly empty).
    pub(super) observed_url: Option<String>,
    /// The row's cells as read (a JSONL row: its line), for the rejects file.
    pub(super) cells: Vec<String>,
    /// Problems found while reading the row (its shape, its encoding).
    pub(super) problems: Vec<Problem>,
    /// The columns the ledger has no field for, kept as they are in `extra`.
    pub(super) extra: serde_json::Map<String, serde_json::Value>,
}

pub(super) type RowProblems = (u64, Vec<String>, Vec<Problem>);

/// Applies the defaults and checks every value; on failure returns all the row's problems.
pub(super) fn complete_row(mut raw: RawRow, d: &Defaults) -> std::result::Result<Row, RowProblems> {
    let line = raw.line;
    let mut problems = Vec::new();
    let mut take = |name: &'static str, default: &Option<String>| -> Option<String> {
        raw.fields.remove(name).or_else(|| {
            default
                .as_ref()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
    };
    let need = |setting: Setting, v: Option<String>, problems: &mut Vec<Problem>| {
        let name = setting.name();
        if v.is_none() {
            problems.push(Problem {
                line,
                column: Some(name.to_string()),
                reason: format!("no {name}: add a {name} column"),
                remedy: Some(Remedy::Default(setting)),
            });
        }
        v.unwrap_or_default()
    };
    let observation_id = take("observation_id", &None).unwrap_or_default();
    if observation_id.is_empty() {
        problems.push(Problem {
            line,
            column: Some("observation_id".to_string()),
            reason: "no observation_id: every row needs a stable id for its dated answer \
                     observation"
                .to_string(),
            remedy: None,
        });
    }
    let prompt_id = take("prompt_id", &None);
    let prompt_version = need(
        Setting::PromptVersion,
        take("prompt_version", &d.prompt_version),
        &mut problems,
    );
    let answer_system = need(
        Setting::AnswerSystem,
        take("answer_system", &d.answer_system),
        &mut problems,
    );
    let market = need(Setting::Market, take("market", &d.market), &mut problems);
    let collection = take("collection", &d.collection);
    let claim = take("claim", &None);
    let run_timestamp = take("run_timestamp", &d.run_timestamp);
    let run_timestamp = need(Setting::RunTimestamp, run_timestamp, &mut problems);
    let run_at = if run_timestamp.is_empty() {
        String::new()
    } else {
        match timefmt::parse_run_timestamp_in(&run_timestamp, d.timezone.as_ref()) {
            Ok(t) => t,
            Err(m) => {
                problems.push(Problem {
                    line,
                    column: Some("run_timestamp".to_string()),
                    reason: m,
                    remedy: (d.timezone.is_none() && timefmt::is_naive(&run_timestamp))
                        .then_some(Remedy::Timezone),
                });
                String::new()
            }
        }
    };
    let observed_url = raw.observed_url.take();
    if observed_url.is_none() {
        problems.push(Problem {
            line,
            column: Some("observed_url".to_string()),
            reason: "no observed_url".to_string(),
            remedy: None,
        });
    }
    if !problems.is_empty() {
        return Err((line, raw.cells, problems));
    }
    Ok(Row {
        line,
        observation_id,
        prompt_id,
        prompt_version,
        answer_system,
        market,
        collection,
        run_timestamp,
        run_at,
        observed_url: observed_url.unwrap_or_default(),
        claim,
        extra: serde_json::Value::Object(raw.extra).to_string(),
        cells: raw.cells,
    })
}

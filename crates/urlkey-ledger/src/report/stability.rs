//! Run-to-run stability: how much the URL keys (and publishers) one answer system cites for
//! one prompt change from one run to the next (docs/ledger.md, "Run-to-run stability",
//! defines every figure with a worked example).
//!
//! - a **prompt** is one `(prompt_version, answer_system, market, prompt_id)`: the same
//!   question, to the same engine, in the same market;
//! - a **run** is one answer to it: its valid observations sharing `(run_timestamp,
//!   collection)`; runs are ordered by `run_timestamp`, then `collection` (none first);
//! - a run's **set** is the distinct keys (or publishers) of its valid observations.
//!
//! Only prompts with two runs or more are measured; the rest (prompts asked once, valid
//! observations without a `prompt_id`) are counted apart, so that the sample adds up to
//! the answer system's valid observations. `mean_jaccard` is a macro average: the mean
//! over prompts of each prompt's mean Jaccard between consecutive runs (every prompt
//! weighs the same, however often it was asked). `in_every_run_share` pools the
//! (prompt, key) pairs: the pairs whose key every run of the prompt cites, of all pairs.
//!
//! One pass over the rows (hash maps keyed by interned names), then one sort per prompt of
//! its runs: never quadratic in the runs of a prompt.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::share::{round4, round_share};

/// One valid observation, as stability needs it.
pub(super) struct Cited<'a> {
    pub prompt: Option<&'a str>,
    pub prompt_version: &'a str,
    pub answer_system: &'a str,
    pub market: &'a str,
    pub collection: Option<&'a str>,
    pub run_at: &'a str,
    pub key: &'a str,
    pub publisher: &'a str,
}

/// What the stability figures of one answer system describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct StabilitySample {
    /// The answer system's valid observations in the group: `observations +
    /// observations_asked_once + observations_without_prompt_id`.
    pub valid_observations: u64,
    /// Prompts with two runs or more (the measured ones).
    pub prompts: u64,
    /// Their runs.
    pub runs: u64,
    /// Their pairs of consecutive runs (`runs - prompts`).
    pub pairs: u64,
    /// The valid observations of those runs.
    pub observations: u64,
    /// Prompts with one run: not measured.
    pub prompts_asked_once: u64,
    /// Their valid observations.
    pub observations_asked_once: u64,
    /// Valid observations without a `prompt_id`: no prompt to measure them in.
    pub observations_without_prompt_id: u64,
}

/// A key (or publisher) cited in some runs of a prompt but not all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComeAndGo {
    /// The key or the publisher.
    pub name: String,
    /// The prompts in which it comes and goes.
    pub prompts: u64,
    /// The runs of those prompts that cite it.
    pub runs_cited: u64,
    /// The runs of those prompts.
    pub runs: u64,
}

/// How steady the keys (or the publishers) of the measured prompts are.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Steadiness {
    /// Mean over prompts of the prompt's mean Jaccard between consecutive runs, 4 places;
    /// `null` when no prompt was asked twice.
    pub mean_jaccard: Option<f64>,
    /// (prompt, key) pairs: each prompt's distinct keys, summed over prompts.
    pub cited: u64,
    /// Those cited by every run of their prompt.
    pub in_every_run: u64,
    /// `in_every_run / cited`, 4 places; `null` when `cited` is 0.
    pub in_every_run_share: Option<f64>,
    /// Those cited by some runs of their prompt, not all (`cited - in_every_run`).
    pub come_and_go: u64,
    /// Distinct keys that come and go in at least one prompt.
    pub come_and_go_distinct: u64,
    /// The keys that come and go in the most prompts, then with the most runs of those
    /// prompts, then by name (`--top-keys` of them for keys, `--top` for publishers; 0 = all).
    pub top_come_and_go: Vec<ComeAndGo>,
}

/// The stability figures of one answer system of a group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stability {
    /// The answer system.
    pub answer_system: String,
    /// The sample.
    pub sample: StabilitySample,
    /// Of the URL keys.
    pub keys: Steadiness,
    /// Of the publishers, in the report's unit (hostnames, or registrable domains).
    pub publishers: Steadiness,
}

impl Stability {
    /// The sample in words (the same in every format for people).
    pub fn sample_text(&self) -> String {
        let s = &self.sample;
        let apart = format!(
            "set apart: {} prompts asked once ({} valid observations), {} valid observations \
             without a prompt_id",
            s.prompts_asked_once, s.observations_asked_once, s.observations_without_prompt_id
        );
        if s.prompts == 0 {
            format!(
                "no prompt asked more than once among {} valid observations; {apart}",
                s.valid_observations
            )
        } else {
            format!(
                "{} prompts asked more than once, {} runs, {} pairs of consecutive runs, {} valid \
                 observations; {apart}",
                s.prompts, s.runs, s.pairs, s.observations
            )
        }
    }
}

impl Steadiness {
    /// `0.5556`, or `n/a` without a prompt asked twice.
    pub fn jaccard_text(&self) -> String {
        self.mean_jaccard
            .map_or_else(|| "n/a".to_string(), |j| format!("{j:.4}"))
    }

    /// `4 of 8 = 0.5000` (`0 of 0` without a sample).
    pub fn every_text(&self) -> String {
        match self.in_every_run_share {
            Some(x) => format!("{} of {} = {x:.4}", self.in_every_run, self.cited),
            None => format!("{} of {}", self.in_every_run, self.cited),
        }
    }

    /// `4 (2 distinct)`.
    pub fn come_and_go_text(&self) -> String {
        format!(
            "{} ({} distinct)",
            self.come_and_go, self.come_and_go_distinct
        )
    }
}

impl ComeAndGo {
    /// `2 prompts, cited in 2 of 5 runs`.
    pub fn counts_text(&self) -> String {
        format!(
            "{} prompts, cited in {} of {} runs",
            self.prompts, self.runs_cited, self.runs
        )
    }
}

/// Names as small integers: a run's set is a sorted `Vec<u32>`.
#[derive(Default)]
struct Names<'a> {
    ids: HashMap<&'a str, u32>,
    names: Vec<&'a str>,
}

impl<'a> Names<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.ids.insert(s, i);
        self.names.push(s);
        i
    }
}

#[derive(Default)]
struct Run {
    observations: u64,
    keys: Vec<u32>,
    publishers: Vec<u32>,
}

type RunId<'a> = (&'a str, Option<&'a str>);
type PromptId<'a> = (&'a str, &'a str, &'a str);

#[derive(Default)]
struct System<'a> {
    valid: u64,
    without_prompt: u64,
    prompts: HashMap<PromptId<'a>, HashMap<RunId<'a>, Run>>,
}

/// Adds up one side (keys or publishers) prompt by prompt.
#[derive(Default)]
struct Tally {
    jaccard_sum: f64,
    prompts: u64,
    cited: u64,
    in_every_run: u64,
    /// name -> (prompts, runs cited, runs) where it comes and goes.
    come_and_go: HashMap<u32, (u64, u64, u64)>,
}

/// `|a ∩ b| / |a ∪ b|` of two sorted, deduplicated, non-empty sets.
fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

impl Tally {
    /// One prompt's runs, in order (two or more, each set non-empty).
    fn add(&mut self, runs: &[&[u32]]) {
        let pairs = runs.len() - 1;
        let sum: f64 = runs.windows(2).map(|w| jaccard(w[0], w[1])).sum();
        self.jaccard_sum += sum / pairs as f64;
        self.prompts += 1;
        let mut count: HashMap<u32, u64> = HashMap::new();
        for r in runs {
            for &n in r.iter() {
                *count.entry(n).or_default() += 1;
            }
        }
        let n = runs.len() as u64;
        for (name, c) in count {
            self.cited += 1;
            if c == n {
                self.in_every_run += 1;
            } else {
                let e = self.come_and_go.entry(name).or_default();
                e.0 += 1;
                e.1 += c;
                e.2 += n;
            }
        }
    }

    fn finish(self, names: &Names, top: usize) -> Steadiness {
        let mut list: Vec<ComeAndGo> = self
            .come_and_go
            .iter()
            .map(|(&i, &(prompts, runs_cited, runs))| ComeAndGo {
                name: names.names[i as usize].to_string(),
                prompts,
                runs_cited,
                runs,
            })
            .collect();
        list.sort_by(|a, b| {
            b.prompts
                .cmp(&a.prompts)
                .then(b.runs.cmp(&a.runs))
                .then(a.name.cmp(&b.name))
        });
        let distinct = list.len() as u64;
        if top > 0 {
            list.truncate(top);
        }
        Steadiness {
            mean_jaccard: (self.prompts > 0)
                .then(|| round4(self.jaccard_sum / self.prompts as f64)),
            cited: self.cited,
            in_every_run: self.in_every_run,
            in_every_run_share: (self.cited > 0)
                .then(|| round_share(self.in_every_run, self.cited)),
            come_and_go: self.cited - self.in_every_run,
            come_and_go_distinct: distinct,
            top_come_and_go: list,
        }
    }
}

/// The stability figures of every answer system of `rows` (valid observations only),
/// sorted by answer system; `top_keys` and `top_publishers` bound the come-and-go lists.
pub(super) fn of<'a>(
    rows: impl Iterator<Item = Cited<'a>>,
    top_keys: usize,
    top_publishers: usize,
) -> Vec<Stability> {
    let (mut keys, mut pubs) = (Names::default(), Names::default());
    let mut systems: BTreeMap<&str, System> = BTreeMap::new();
    for c in rows {
        let s = systems.entry(c.answer_system).or_default();
        s.valid += 1;
        let Some(p) = c.prompt else {
            s.without_prompt += 1;
            continue;
        };
        let run = s
            .prompts
            .entry((c.prompt_version, c.market, p))
            .or_default()
            .entry((c.run_at, c.collection))
            .or_default();
        run.observations += 1;
        run.keys.push(keys.id(c.key));
        run.publishers.push(pubs.id(c.publisher));
    }
    systems
        .into_iter()
        .map(|(name, s)| {
            let mut sample = StabilitySample {
                valid_observations: s.valid,
                observations_without_prompt_id: s.without_prompt,
                ..Default::default()
            };
            let (mut tk, mut tp) = (Tally::default(), Tally::default());
            for (_, runs) in s.prompts {
                let observations: u64 = runs.values().map(|r| r.observations).sum();
                if runs.len() < 2 {
                    sample.prompts_asked_once += 1;
                    sample.observations_asked_once += observations;
                    continue;
                }
                let mut runs: Vec<(RunId, Run)> = runs.into_iter().collect();
                runs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                for (_, r) in &mut runs {
                    r.keys.sort_unstable();
                    r.keys.dedup();
                    r.publishers.sort_unstable();
                    r.publishers.dedup();
                }
                sample.prompts += 1;
                sample.runs += runs.len() as u64;
                sample.pairs += runs.len() as u64 - 1;
                sample.observations += observations;
                tk.add(&runs.iter().map(|r| r.1.keys.as_slice()).collect::<Vec<_>>());
                tp.add(
                    &runs
                        .iter()
                        .map(|r| r.1.publishers.as_slice())
                        .collect::<Vec<_>>(),
                );
            }
            Stability {
                answer_system: name.to_string(),
                sample,
                keys: tk.finish(&keys, top_keys),
                publishers: tp.finish(&pubs, top_publishers),
            }
        })
        .collect()
}

/// A figure of a stability comparison: a count or a ratio (4 places).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Figure {
    /// A count (or a change of counts).
    Count(i64),
    /// A ratio.
    Ratio(f64),
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Count(n) => write!(f, "{n}"),
            Figure::Ratio(x) => write!(f, "{x:.4}"),
        }
    }
}

/// One stability figure of one answer system in collections A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StabilityChange {
    /// The answer system.
    pub answer_system: String,
    /// The figure's path in a side's `stability` entry (`keys.mean_jaccard`).
    pub figure: &'static str,
    /// In A (`null`: a ratio A has no sample for).
    pub a: Option<Figure>,
    /// In B.
    pub b: Option<Figure>,
    /// `b - a` (`null` when either is).
    pub change: Option<Figure>,
}

impl StabilityChange {
    /// `+0.1234`, `-2`, or `n/a` (no change without both sides).
    pub fn change_text(&self) -> String {
        match self.change {
            Some(Figure::Count(n)) => format!("{n:+}"),
            Some(Figure::Ratio(x)) => format!("{x:+.4}"),
            None => "n/a".to_string(),
        }
    }
}

/// A side's figure, or `n/a`.
pub fn figure_text(f: Option<Figure>) -> String {
    f.map_or_else(|| "n/a".to_string(), |f| f.to_string())
}

type Read = fn(&Stability) -> Option<Figure>;

fn count(n: u64) -> Option<Figure> {
    Some(Figure::Count(n as i64))
}

fn ratio(x: Option<f64>) -> Option<Figure> {
    x.map(Figure::Ratio)
}

/// The compared figures, in the order every format lists them.
const COMPARED: &[(&str, Read)] = &[
    ("sample.prompts", |s| count(s.sample.prompts)),
    ("sample.runs", |s| count(s.sample.runs)),
    ("sample.pairs", |s| count(s.sample.pairs)),
    ("keys.mean_jaccard", |s| ratio(s.keys.mean_jaccard)),
    ("keys.in_every_run_share", |s| {
        ratio(s.keys.in_every_run_share)
    }),
    ("keys.come_and_go", |s| count(s.keys.come_and_go)),
    ("publishers.mean_jaccard", |s| {
        ratio(s.publishers.mean_jaccard)
    }),
    ("publishers.in_every_run_share", |s| {
        ratio(s.publishers.in_every_run_share)
    }),
    ("publishers.come_and_go", |s| {
        count(s.publishers.come_and_go)
    }),
];

/// Every answer system of either side, each compared figure in A and B and the change.
/// A side without the system has counts of 0 and no ratios.
pub fn compare(a: &[Stability], b: &[Stability]) -> Vec<StabilityChange> {
    let mut systems: Vec<&str> = a
        .iter()
        .chain(b)
        .map(|s| s.answer_system.as_str())
        .collect();
    systems.sort_unstable();
    systems.dedup();
    let find = |v: &[Stability], name: &str| v.iter().find(|s| s.answer_system == name).cloned();
    let mut out = Vec::new();
    for name in systems {
        let empty = Stability {
            answer_system: name.to_string(),
            sample: StabilitySample::default(),
            keys: Steadiness::default(),
            publishers: Steadiness::default(),
        };
        let sa = find(a, name).unwrap_or_else(|| empty.clone());
        let sb = find(b, name).unwrap_or(empty);
        for (figure, read) in COMPARED {
            let (x, y) = (read(&sa), read(&sb));
            let change = match (x, y) {
                (Some(Figure::Count(x)), Some(Figure::Count(y))) => Some(Figure::Count(y - x)),
                (Some(Figure::Ratio(x)), Some(Figure::Ratio(y))) => {
                    Some(Figure::Ratio(round4(y - x)))
                }
                _ => None,
            };
            out.push(StabilityChange {
                answer_system: name.to_string(),
                figure,
                a: x,
                b: y,
                change,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;

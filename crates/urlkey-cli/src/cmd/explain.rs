//! `urlkey explain A B [C ...]`: do the inputs share a key under one policy, and why.
//!
//! When they meet, the rules that made them meet are the rules (front-end names such as
//! `whatwg-parse` included) whose transformations differ between the inputs: one removed
//! `?utm_source=...`, the other nothing. When they do not, the first component where the
//! keys differ, split as `inspect` splits a URL (`urlkey::offsets`), and the builtin
//! policies that would give them one key. An invalid input never shares a key.

use std::io::Write;

use serde::Serialize;
use urlkey::{KeyError, Policy, PolicySet, Transformation};

use crate::flags::{ExplainArgs, TextFormat};
use crate::{output_error, Failure};

/// What `explain` reports (its JSON form).
#[derive(Debug, Serialize)]
pub struct Explanation {
    /// The policy id.
    pub policy: String,
    /// True when every input has a key and all the keys are equal.
    pub same_key: bool,
    /// The inputs as given.
    pub inputs: Vec<String>,
    /// The key of each input (`null` when invalid).
    pub keys: Vec<Option<String>>,
    /// Why an input has no key (`null` when it has one).
    pub errors: Vec<Option<KeyError>>,
    /// The names of the rules whose transformations differ between the inputs, in the order
    /// they first ran.
    pub rules: Vec<&'static str>,
    /// Every transformation of each input, in the order the rules ran.
    pub transformations: Vec<Vec<Transformation>>,
    /// The first component where the keys differ; `null` when they are the same or when an
    /// input is invalid.
    pub differs_in: Option<Difference>,
    /// The builtin policies under which every input has the same key.
    pub same_key_under: Vec<String>,
}

/// Where the keys first differ.
#[derive(Debug, Serialize)]
pub struct Difference {
    /// scheme, userinfo, host, port, path, query or fragment.
    pub component: &'static str,
    /// That component of each input's key (`null` when the key has none).
    pub values: Vec<Option<String>>,
}

pub fn run(a: ExplainArgs) -> Result<(), Failure> {
    let set = super::setup::policy_set(&a.source)?;
    let policy = set.get(&a.policy).map_err(super::setup::policy_error)?;
    let e = explain(&a.urls, &set, &policy);
    if !a.quiet {
        let mut out = std::io::stdout().lock();
        match a.format {
            TextFormat::Json => {
                serde_json::to_writer_pretty(&mut out, &e)
                    .map_err(|e| Failure::Output(e.to_string()))?;
                writeln!(out).map_err(output_error)?;
            }
            TextFormat::Text => write_text(&mut out, &e).map_err(output_error)?,
        }
        out.flush().map_err(output_error)?;
    }
    if e.same_key {
        Ok(())
    } else {
        Err(Failure::Code(1))
    }
}

/// Keys every input under `policy` and says whether, and why, they meet.
pub fn explain(inputs: &[String], set: &PolicySet, policy: &Policy) -> Explanation {
    let outcomes: Vec<urlkey::Outcome> = inputs.iter().map(|i| policy.key(i)).collect();
    let keys: Vec<Option<String>> = outcomes.iter().map(|o| o.key.clone()).collect();
    let same_key = all_same(&keys);
    let mut rules: Vec<&'static str> = Vec::new();
    for o in &outcomes {
        for t in &o.transformations {
            if !rules.contains(&t.rule) && !rule_agrees(&outcomes, t.rule) {
                rules.push(t.rule);
            }
        }
    }
    let differs_in = if same_key || keys.iter().any(Option::is_none) {
        None
    } else {
        first_difference(&keys)
    };
    let same_key_under = set
        .list()
        .into_iter()
        .filter(|info| info.builtin)
        .filter_map(|info| set.get(&info.id).ok())
        .filter(|p| all_same(&inputs.iter().map(|i| p.key(i).key).collect::<Vec<_>>()))
        .map(|p| p.id().to_string())
        .collect();
    Explanation {
        policy: policy.id().to_string(),
        same_key,
        inputs: inputs.to_vec(),
        keys,
        errors: outcomes.iter().map(|o| o.error.clone()).collect(),
        rules,
        transformations: outcomes.into_iter().map(|o| o.transformations).collect(),
        differs_in,
        same_key_under,
    }
}

/// Every key present and equal.
fn all_same(keys: &[Option<String>]) -> bool {
    match keys.first() {
        Some(Some(k)) => keys.iter().all(|x| x.as_deref() == Some(k.as_str())),
        _ => false,
    }
}

/// True when `rule` made the same changes (component, before, after) on every input.
fn rule_agrees(outcomes: &[urlkey::Outcome], rule: &str) -> bool {
    let of = |o: &urlkey::Outcome| -> Vec<(&'static str, String, String)> {
        o.transformations
            .iter()
            .filter(|t| t.rule == rule)
            .map(|t| (t.component.as_str(), t.before.clone(), t.after.clone()))
            .collect()
    };
    let first = outcomes.first().map(of);
    outcomes.iter().all(|o| Some(of(o)) == first)
}

/// The components of a key, split as `inspect` splits a URL: a key with a written scheme
/// from it, a web key (no scheme) authority first, a path-only key as a path.
pub fn components(key: &str) -> [(&'static str, Option<String>); 7] {
    let written = urlkey::text::written_scheme(key).is_some();
    let o = urlkey::offsets::offsets(key, written);
    let s = |c: Option<urlkey::offsets::ComponentSpan>| {
        c.map(|c| key[c.bytes.start..c.bytes.end].to_string())
    };
    [
        ("scheme", s(o.scheme)),
        ("userinfo", s(o.userinfo)),
        ("host", s(o.host)),
        ("port", s(o.port)),
        ("path", s(o.path)),
        ("query", s(o.query)),
        ("fragment", s(o.fragment)),
    ]
}

fn first_difference(keys: &[Option<String>]) -> Option<Difference> {
    let split: Vec<_> = keys
        .iter()
        .map(|k| components(k.as_deref().unwrap_or("")))
        .collect();
    (0..7).find_map(|i| {
        let values: Vec<Option<String>> = split.iter().map(|c| c[i].1.clone()).collect();
        if values.iter().all(|v| *v == values[0]) {
            None
        } else {
            Some(Difference {
                component: split[0][i].0,
                values,
            })
        }
    })
}

fn write_text(out: &mut impl Write, e: &Explanation) -> std::io::Result<()> {
    writeln!(out, "policy  {}", e.policy)?;
    for (n, input) in e.inputs.iter().enumerate() {
        writeln!(out, "{:<7} {input:?}", n + 1)?;
        match (&e.keys[n], &e.errors[n]) {
            (Some(k), _) => writeln!(out, "  key   {k}")?,
            (None, Some(err)) => writeln!(out, "  key   invalid: {} ({})", err.code, err.message)?,
            (None, None) => writeln!(out, "  key   -")?,
        }
    }
    if e.same_key {
        writeln!(out, "same key: yes")?;
    } else if e.keys.iter().any(Option::is_none) {
        writeln!(out, "same key: no (an invalid input shares no key)")?;
    } else {
        writeln!(out, "same key: no")?;
    }
    if !e.rules.is_empty() {
        if e.same_key {
            writeln!(out, "rules that made them meet")?;
        } else {
            writeln!(out, "rules that treated them differently")?;
        }
        for rule in &e.rules {
            writeln!(out, "  {rule}")?;
            for (n, ts) in e.transformations.iter().enumerate() {
                let mine: Vec<&Transformation> = ts.iter().filter(|t| t.rule == *rule).collect();
                if mine.is_empty() {
                    writeln!(out, "    {:<3} (nothing)", n + 1)?;
                }
                for t in mine {
                    writeln!(
                        out,
                        "    {:<3} {:<9} {:?} -> {:?}",
                        n + 1,
                        t.component.as_str(),
                        t.before,
                        t.after
                    )?;
                }
            }
        }
    } else if e.same_key {
        writeln!(
            out,
            "rules that made them meet: none (the same key as written)"
        )?;
    }
    if let Some(d) = &e.differs_in {
        writeln!(out, "differs in {}", d.component)?;
        for (n, v) in d.values.iter().enumerate() {
            match v {
                Some(v) => writeln!(out, "    {:<3} {v:?}", n + 1)?,
                None => writeln!(out, "    {:<3} (none)", n + 1)?,
            }
        }
    }
    if !e.same_key {
        if e.same_key_under.is_empty() {
            writeln!(out, "one key under: no builtin policy")?;
        } else {
            writeln!(out, "one key under: {}", e.same_key_under.join(", "))?;
        }
    }
    Ok(())
}

//! `urlkey explain A B [C ...]`: do the inputs share a key under one policy, and why.
//!
//! When they meet, the rules that made them meet are the rules (front-end names such as
//! `whatwg-parse` included) whose transformations differ between the inputs: one removed
//! `?utm_source=...`, the other nothing. When they do not, the first component where the
//! keys differ, split as `inspect` splits a URL (`urlkey::internals::offsets`), and the builtin
//! policies that would give them one key. An invalid input never shares a key.

use std::io::Write;

use urlkey::explain::{explain, Explanation};
use urlkey::Transformation;

use crate::failure::{json_error, output_error, policy_error, Exit, Failure};
use crate::flags::{ExplainArgs, TextFormat};

pub fn run(a: ExplainArgs) -> Result<(), Failure> {
    let set = super::setup::policy_set(&a.source)?;
    let policy = set.get(&a.policy).map_err(policy_error)?;
    let e = explain(&a.urls, &set, &policy);
    if !a.quiet {
        let written = (|| {
            let mut out = std::io::stdout().lock();
            match a.format {
                TextFormat::Json => {
                    serde_json::to_writer_pretty(&mut out, &e).map_err(json_error)?;
                    writeln!(out).map_err(output_error)?;
                }
                TextFormat::Text => write_text(&mut out, &e).map_err(output_error)?,
            }
            out.flush().map_err(output_error)
        })();
        // A reader that closed the pipe (`| head`) does not change the answer.
        match written {
            Ok(()) | Err(Failure::Exit(Exit::Done)) => {}
            Err(f) => return Err(f),
        }
    }
    if e.same_key {
        Ok(())
    } else {
        Err(Failure::Exit(Exit::Differ))
    }
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
    if let (Some(component), Some(values)) = (e.differs_in, &e.differing_values) {
        writeln!(out, "differs in {component}")?;
        for (n, v) in values.iter().enumerate() {
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

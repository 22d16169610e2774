//! `urlkey inspect URL`.

use std::io::Write;

use crate::failure::{json_error, output_error, policy_error, Failure};
use crate::flags::{InspectArgs, TextFormat};

pub fn run(a: InspectArgs) -> Result<(), Failure> {
    let set = super::setup::policy_set(&a.source)?;
    let policy = set.get(&a.policy).map_err(policy_error)?;
    let i = urlkey::inspect(&a.url, &set, &policy);
    let mut out = std::io::stdout().lock();
    match a.format {
        TextFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &i).map_err(json_error)?;
            writeln!(out).map_err(output_error)
        }
        TextFormat::Text => write_text(&mut out, &i).map_err(output_error),
    }
}

fn write_text(out: &mut impl Write, i: &urlkey::Inspection) -> std::io::Result<()> {
    let opt = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
    writeln!(out, "input              {:?}", i.input)?;
    match &i.error {
        Some(e) => writeln!(out, "valid              no: {} ({})", e.code, e.message)?,
        None => writeln!(out, "valid              yes")?,
    }
    writeln!(out, "href               {}", opt(&i.href))?;
    writeln!(out, "canonical          {}", opt(&i.canonical))?;
    writeln!(out, "is website         {}", i.is_website)?;
    writeln!(out, "looks like web     {}", i.looks_like_web_address)?;
    let facts: Vec<&str> = i.facts.iter().map(|f| f.as_str()).collect();
    writeln!(
        out,
        "facts              {}",
        if facts.is_empty() {
            "-".into()
        } else {
            facts.join(", ")
        }
    )?;
    match &i.profile {
        Some(p) => writeln!(
            out,
            "profile            {} {}",
            p.network.as_str(),
            p.handle
        )?,
        None => writeln!(out, "profile            -")?,
    }
    writeln!(out, "registrable domain {}", opt(&i.registrable_domain))?;
    writeln!(
        out,
        "public suffix      {}{}",
        opt(&i.public_suffix),
        i.suffix_section
            .map(|s| format!(" ({s:?})").to_lowercase())
            .unwrap_or_default()
    )?;
    writeln!(out, "psl                {}", i.psl)?;
    writeln!(out, "offsets (bytes / utf-16)")?;
    let spans = [
        ("scheme", i.offsets.scheme),
        ("userinfo", i.offsets.userinfo),
        ("host", i.offsets.host),
        ("port", i.offsets.port),
        ("path", i.offsets.path),
        ("query", i.offsets.query),
        ("fragment", i.offsets.fragment),
    ];
    for (name, s) in spans {
        if let Some(s) = s {
            writeln!(
                out,
                "  {name:<9} {}..{} / {}..{}  {:?}",
                s.bytes.start,
                s.bytes.end,
                s.utf16.start,
                s.utf16.end,
                &i.input[s.bytes.start..s.bytes.end]
            )?;
        }
    }
    // No pairs at all when the text is not a well-formed URL: pairs split out of text
    // that does not parse would be a guess, and `[]` would say "a URL without a query".
    match &i.query_pairs {
        Some(pairs) => {
            writeln!(out, "query pairs")?;
            for (n, v) in pairs {
                writeln!(out, "  {n:?} = {v:?}")?;
            }
        }
        None => writeln!(out, "query pairs        - (not a well-formed URL)")?,
    }
    match &i.key_error {
        Some(e) => writeln!(
            out,
            "key ({})  invalid: {} ({})",
            i.policy, e.code, e.message
        )?,
        None => writeln!(out, "key ({})  {}", i.policy, opt(&i.key))?,
    }
    for t in &i.transformations {
        writeln!(
            out,
            "  {:<26} {:<9} {:?} -> {:?}",
            t.rule,
            t.component.as_str(),
            t.before,
            t.after
        )?;
    }
    writeln!(out, "keys under every policy")?;
    for k in &i.keys {
        match (&k.key, k.error_code) {
            (Some(key), _) => writeln!(out, "  {:<12} {key}", k.policy)?,
            (None, code) => writeln!(out, "  {:<12} invalid: {}", k.policy, code.unwrap_or("?"))?,
        }
    }
    Ok(())
}

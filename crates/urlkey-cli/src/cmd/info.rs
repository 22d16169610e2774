//! `urlkey policies`, `urlkey rules`, `urlkey codes`.

use std::io::Write;

use crate::failure::{json_error, output_error, Failure};
use crate::flags::{FormatArgs, PoliciesArgs, TextFormat};

pub(super) fn json<T: serde::Serialize>(v: &T) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v).map_err(json_error)?;
    writeln!(out).map_err(output_error)
}

pub fn policies(a: PoliciesArgs) -> Result<(), Failure> {
    let set = super::setup::policy_set(&a.source)?;
    let list = set.list();
    if a.format == TextFormat::Json {
        return json(&serde_json::json!({"psl": set.psl().version(), "policies": list}));
    }
    let mut out = std::io::stdout().lock();
    for p in &list {
        writeln!(
            out,
            "{:<12} {:<8} {}",
            p.id,
            if p.builtin { "builtin" } else { "file" },
            p.description
        )
        .map_err(output_error)?;
    }
    writeln!(out, "Public Suffix List: {}", set.psl().version()).map_err(output_error)
}

pub fn codes(a: FormatArgs) -> Result<(), Failure> {
    let all: Vec<serde_json::Value> = urlkey::ErrorCode::ALL
        .iter()
        .map(|c| serde_json::json!({"code": c.as_str(), "description": c.description()}))
        .collect();
    if a.format == TextFormat::Json {
        return json(&all);
    }
    let mut out = std::io::stdout().lock();
    for c in urlkey::ErrorCode::ALL {
        writeln!(out, "{:<30} {}", c.as_str(), c.description()).map_err(output_error)?;
    }
    Ok(())
}

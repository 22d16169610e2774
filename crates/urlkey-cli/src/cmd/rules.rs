//! `urlkey rules`: the tracking registries (1, or 2 with its redirect wrappers), and
//! `--check URL`: which entries name each parameter of a URL and why it goes or stays, and
//! which builtin policies remove it (`citation@1` keeps `srsltid`, `citation@2` removes it).

use std::io::Write;

use urlkey::internals::tracking::registry2::{
    Exception, Scope, ScopedRule, Source, Verdict, LISTS, OPT_IN, REGISTRY_2,
};
use urlkey::internals::unwrap::{target_of, Found, PathMatch, WRAPPERS};
use urlkey::tracking::{MatchKind, Place};

use super::info::json;
use crate::failure::{output_error, Failure};
use crate::flags::{RulesArgs, TextFormat};

pub fn run(a: RulesArgs) -> Result<(), Failure> {
    if let Some(url) = &a.check {
        return check(url, a.registry.unwrap_or(2), a.format);
    }
    match a.registry.unwrap_or(1) {
        1 => registry_1(a.format),
        _ => registry_2(a.format),
    }
}

fn pattern(p: &str, kind: MatchKind) -> String {
    match kind {
        MatchKind::Exact => p.to_string(),
        MatchKind::Prefix => format!("{p}*"),
    }
}

fn kind_name(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Prefix => "prefix",
    }
}

fn registry_1(format: TextFormat) -> Result<(), Failure> {
    if format == TextFormat::Json {
        return json(&urlkey::REGISTRY);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<22} {:<7} {:<5} {:<10} source",
        "name", "match", "seed", "citation@1"
    )
    .map_err(output_error)?;
    for r in urlkey::REGISTRY {
        writeln!(
            out,
            "{:<22} {:<7} {:<5} {:<10} {}",
            pattern(r.pattern, r.kind),
            kind_name(r.kind),
            r.seed,
            if r.citation { "yes" } else { "no" },
            r.source
        )
        .map_err(output_error)?;
    }
    Ok(())
}

/// `global`, or the sites joined with spaces.
fn scope_text(s: &Scope) -> String {
    match s {
        Scope::Global => "global".into(),
        Scope::Sites(sites) => sites.join(" "),
    }
}

fn exception_text(e: &Exception) -> String {
    match e {
        Exception::Host(h) => format!("host {h}"),
        Exception::PathContains(t) => format!("path contains {t:?}"),
        Exception::WithParameter(n) => format!("with parameter {n}"),
    }
}

fn exceptions_text(r: &ScopedRule) -> String {
    if r.exceptions.is_empty() {
        return "-".into();
    }
    let all: Vec<String> = r.exceptions.iter().map(exception_text).collect();
    all.join("; ")
}

fn source_text(source: &str, read: &str) -> String {
    if source.is_empty() {
        "(no platform page documents it)".into()
    } else {
        format!("{source} (read {read})")
    }
}

/// Every source of an entry with its read date, the platform's page first.
fn sources_text(sources: &[Source]) -> String {
    if sources.is_empty() {
        return "(no citable source)".into();
    }
    let all: Vec<String> = sources
        .iter()
        .map(|s| source_text(s.cite, s.read))
        .collect();
    all.join("; ")
}

/// One text row of registry 2 or of the opt-in list: the same columns, then `last`
/// (the sources, or why an opt-in name has none).
fn rule_row(r: &ScopedRule, last: &str) -> String {
    format!(
        "{:<20} {:<7} {:<28} {:<45} {:<30} {}",
        pattern(r.pattern, r.kind),
        kind_name(r.kind),
        scope_text(&r.scope),
        exceptions_text(r),
        r.platform,
        last
    )
}

fn registry_2(format: TextFormat) -> Result<(), Failure> {
    if format == TextFormat::Json {
        return json(&serde_json::json!({
            "registry": 2,
            "entries": REGISTRY_2,
            "lists": LISTS,
            "opt_in": OPT_IN,
            "wrappers": WRAPPERS,
            "max_depth": urlkey::internals::unwrap::MAX_DEPTH,
        }));
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<20} {:<7} {:<28} {:<45} {:<30} sources",
        "name", "match", "scope", "kept when", "platform"
    )
    .map_err(output_error)?;
    for r in REGISTRY_2 {
        writeln!(out, "{}", rule_row(r, &sources_text(r.sources))).map_err(output_error)?;
    }
    writeln!(out, "\nlists cited as List:section:name:").map_err(output_error)?;
    for l in LISTS {
        writeln!(out, "{:<20} {}\n{:<20} {}", l.id, l.at, "", l.form).map_err(output_error)?;
    }
    writeln!(
        out,
        "\nopt-in (no citable source; no builtin policy removes them, a policy file's add_names can):"
    )
    .map_err(output_error)?;
    for r in OPT_IN {
        writeln!(out, "{}", rule_row(r, r.note)).map_err(output_error)?;
    }
    writeln!(
        out,
        "\nredirect wrappers (unwrap-redirect, up to {} deep):",
        urlkey::internals::unwrap::MAX_DEPTH
    )
    .map_err(output_error)?;
    writeln!(
        out,
        "{:<20} {:<45} {:<16} {:<8} source",
        "name", "hosts", "path", "target"
    )
    .map_err(output_error)?;
    for w in WRAPPERS {
        let hosts: Vec<&str> = w.hosts.iter().map(|h| h.trim_start_matches('=')).collect();
        let paths: Vec<String> = w
            .paths
            .iter()
            .map(|p| match p {
                PathMatch::Is(x) => x.to_string(),
                PathMatch::StartsWith(x) => format!("{x}*"),
            })
            .collect();
        writeln!(
            out,
            "{:<20} {:<45} {:<16} {:<8} {}",
            w.name,
            hosts.join(" "),
            paths.join(" "),
            w.params.join(","),
            source_text(w.source, w.read)
        )
        .map_err(output_error)?;
    }
    Ok(())
}

/// One entry's word on one parameter.
#[derive(serde::Serialize)]
struct EntryVerdict {
    pattern: &'static str,
    platform: &'static str,
    scope: Scope,
    verdict: &'static str,
    exception: Option<Exception>,
    /// The entry's first source (registry 2: its platform page when it has one).
    source: &'static str,
}

#[derive(serde::Serialize)]
struct ParameterCheck {
    name: String,
    removed: bool,
    entries: Vec<EntryVerdict>,
    /// The builtin policies whose `remove-tracking-parameters` removes it here, in
    /// `urlkey policies`' order.
    removed_under: Vec<&'static str>,
    /// The builtin policies with that rule that keep it.
    kept_under: Vec<&'static str>,
}

#[derive(serde::Serialize)]
struct WrapperCheck {
    name: &'static str,
    platform: &'static str,
    /// The decoded target when it is an absolute http(s) URL.
    target: Option<String>,
    unwrapped: bool,
}

fn check(url: &str, registry: u8, format: TextFormat) -> Result<(), Failure> {
    let parsed = urlkey::WebUrl::parse(url, None)
        .map_err(|e| Failure::Input(format!("--check: {}: {}", e.code, e.message)))?;
    let p = parsed.pieces();
    let place = Place {
        host: p.hostname,
        path: p.pathname,
        query: p.query.unwrap_or(""),
    };
    let wrapper = if registry == 2 {
        target_of(place.host, place.path, place.query).map(|(w, found)| WrapperCheck {
            name: w.name,
            platform: w.platform,
            unwrapped: matches!(found, Found::Web(_)),
            target: match found {
                Found::Web(t) => Some(t),
                Found::Other => None,
            },
        })
    } else {
        None
    };
    let mut params = Vec::new();
    if let Some(q) = p.query {
        for raw in urlkey::internals::query::raw_params(q).filter(|r| !r.name.is_empty()) {
            params.push(parameter(raw.name, &place, registry));
        }
    }
    if format == TextFormat::Json {
        return json(&serde_json::json!({
            "url": parsed.href(),
            "registry": registry,
            "wrapper": wrapper,
            "parameters": params,
        }));
    }
    let mut out = std::io::stdout().lock();
    write_check(&mut out, parsed.href(), registry, &wrapper, &params).map_err(output_error)
}

fn parameter(name: &str, place: &Place<'_>, registry: u8) -> ParameterCheck {
    let entries: Vec<EntryVerdict> = if registry == 2 {
        urlkey::internals::tracking::registry2::verdicts(name, place)
            .into_iter()
            .map(|(r, v)| EntryVerdict {
                pattern: r.pattern,
                platform: r.platform,
                scope: r.scope,
                verdict: match v {
                    Verdict::Removed => "removed",
                    Verdict::OutOfScope => "out-of-scope",
                    Verdict::Excepted(_) => "excepted",
                },
                exception: match v {
                    Verdict::Excepted(e) => Some(e),
                    _ => None,
                },
                source: r.sources.first().map_or("", |s| s.cite),
            })
            .collect()
    } else {
        // Registry 1 has no scopes: an entry that names the parameter removes it.
        urlkey::REGISTRY
            .iter()
            .filter(|r| {
                let (p, b) = (r.pattern.as_bytes(), name.as_bytes());
                match r.kind {
                    MatchKind::Exact => p.eq_ignore_ascii_case(b),
                    MatchKind::Prefix => {
                        b.len() >= p.len() && p.eq_ignore_ascii_case(&b[..p.len()])
                    }
                }
            })
            .map(|r| EntryVerdict {
                pattern: r.pattern,
                platform: "",
                scope: Scope::Global,
                verdict: "removed",
                exception: None,
                source: r.source,
            })
            .collect()
    };
    let (removed_under, kept_under) = policies_on(name, place);
    ParameterCheck {
        name: name.to_string(),
        removed: entries.iter().any(|e| e.verdict == "removed"),
        entries,
        removed_under,
        kept_under,
    }
}

/// The builtins that remove `name` at `place`, and those that keep it: each builtin with a
/// `remove-tracking-parameters` rule, asked through its own list (registry 1's names, registry
/// 2's entries or `citation@2`'s), whatever registry `--check` explains.
fn policies_on(name: &str, place: &Place<'_>) -> (Vec<&'static str>, Vec<&'static str>) {
    use urlkey::internals::policy::rules::{RemoveTrackingParameters, Rule};
    use urlkey::internals::PolicyInternals;
    let set = urlkey::PolicySet::builtin();
    let (mut removed, mut kept) = (Vec::new(), Vec::new());
    for b in urlkey::internals::policy::registry() {
        let Ok(policy) = set.get(b.id) else { continue };
        let tracking = policy.definition().rules.iter().find_map(|r| match r {
            Rule::RemoveTrackingParameters(RemoveTrackingParameters(t)) => Some(t),
            _ => None,
        });
        match tracking {
            Some(t) if t.matches_at(name, place) => removed.push(b.id),
            Some(_) => kept.push(b.id),
            None => {}
        }
    }
    (removed, kept)
}

fn write_check(
    out: &mut impl Write,
    href: &str,
    registry: u8,
    wrapper: &Option<WrapperCheck>,
    params: &[ParameterCheck],
) -> std::io::Result<()> {
    writeln!(out, "url        {href}")?;
    writeln!(out, "registry   {registry}")?;
    match wrapper {
        Some(WrapperCheck {
            name,
            target: Some(t),
            ..
        }) => writeln!(
            out,
            "wrapper    {name}: unwrap-redirect replaces it by {t} (check that URL for its parameters)"
        )?,
        Some(w) => writeln!(
            out,
            "wrapper    {}: kept, its target is not an absolute http(s) URL (fact redirect-wrapper-kept)",
            w.name
        )?,
        None if registry == 2 => writeln!(out, "wrapper    -")?,
        None => {}
    }
    if params.is_empty() {
        return writeln!(out, "no query parameters");
    }
    for p in params {
        if p.entries.is_empty() {
            writeln!(out, "{:<20} kept: no entry names it", p.name)?;
        }
        for e in &p.entries {
            let why = match (e.verdict, &e.exception) {
                ("removed", _) => format!("removed by {}", e.pattern),
                ("excepted", Some(x)) => {
                    format!("kept: {} excepts {}", e.pattern, exception_text(x))
                }
                _ => format!(
                    "kept: {} applies only on {}",
                    e.pattern,
                    scope_text(&e.scope)
                ),
            };
            let who = if e.platform.is_empty() {
                String::new()
            } else {
                format!(" ({})", e.platform)
            };
            writeln!(out, "{:<20} {why}{who}", p.name)?;
        }
        writeln!(
            out,
            "{:<20} removed under: {}; kept under: {}",
            "",
            names_or_none(&p.removed_under),
            names_or_none(&p.kept_under)
        )?;
    }
    Ok(())
}

fn names_or_none(ids: &[&str]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

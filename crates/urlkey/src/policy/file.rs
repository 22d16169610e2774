//! Policy files: further `name@version` policies built from the same rule catalogue, in
//! TOML. See `docs/policies.md`, "Your own policies".

use serde::Deserialize;

use crate::error::ErrorCode;
use crate::tracking::TrackingSet;

use super::front::{FrontEnd, Schemes};
use super::rules::{Rule, SortOrder, TrailingSlash};
use super::{KeyForm, PolicyDef, PolicyError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    policy: Vec<PolicySpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    id: toml::Spanned<String>,
    #[serde(default)]
    description: String,
    parser: ParserSpec,
    #[serde(default)]
    schemes: SchemesSpec,
    #[serde(default)]
    infer_scheme: bool,
    key: KeyForm,
    #[serde(default)]
    rules: Vec<RuleSpec>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum ParserSpec {
    Whatwg,
    Mapper,
    Document,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum SchemesSpec {
    #[default]
    Any,
    Web,
}

fn default_list() -> String {
    "registry@1".into()
}
fn default_order() -> SortOrder {
    SortOrder::NameValue
}
fn default_trailing() -> TrailingSlash {
    TrailingSlash::NonRoot
}

#[derive(Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
enum RuleSpec {
    RemoveTrackingParameters {
        #[serde(default = "default_list")]
        list: String,
        #[serde(default)]
        add_names: Vec<String>,
        #[serde(default)]
        add_prefixes: Vec<String>,
        #[serde(default)]
        keep_names: Vec<String>,
    },
    RemoveFragment {
        #[serde(default)]
        keep_routes: bool,
    },
    DropCredentials {},
    CollapseSlashes {},
    SortQuery {
        #[serde(default = "default_order")]
        order: SortOrder,
    },
    DropEmptyParameters {},
    DropEmptyQuery {},
    RemoveTrailingSlash {
        #[serde(default = "default_trailing")]
        mode: TrailingSlash,
    },
    StripWww {},
    StripRootDot {},
    RegistrableDomain {},
    DecodeUnreserved {},
    LowercasePath {},
    DropDefaultDocument {},
    DropOpaqueQuery {},
    LowercaseScheme {},
    LowercaseHost {},
    NormalizePort {},
    EmptyPathToRoot {},
}

/// Parses a policy file into definitions, each with the line of its `id`.
pub fn parse(text: &str, origin: &str) -> Result<Vec<(PolicyDef, usize)>, PolicyError> {
    let err = |message: String| PolicyError::File {
        origin: origin.to_string(),
        message,
    };
    let doc: FileDoc = toml::from_str(text).map_err(|e| err(flatten(&e.to_string())))?;
    let mut out: Vec<(PolicyDef, usize)> = Vec::new();
    for spec in doc.policy {
        let line = line_at(text, spec.id.span().start);
        let id = spec.id.into_inner();
        let at = |m: String| err(format!("policy {id:?} (line {line}): {m}"));
        if !valid_id(&id) {
            return Err(at("an id is name@version: lowercase letters, digits, '-', '_' or '.', then '@' and a whole number (options after '+' are for builtins)".into()));
        }
        if let Some((_, first)) = out.iter().find(|(d, _)| d.id == id) {
            return Err(at(format!(
                "the id is defined twice in this file (first at line {first})"
            )));
        }
        if spec.parser != ParserSpec::Whatwg
            && (spec.schemes != SchemesSpec::Any || spec.infer_scheme)
        {
            return Err(at(
                "'schemes' and 'infer_scheme' apply only to parser = \"whatwg\"".into(),
            ));
        }
        let mut rules = Vec::with_capacity(spec.rules.len());
        for r in spec.rules {
            rules.push(rule(r, text, line).map_err(&at)?);
        }
        let front = match spec.parser {
            ParserSpec::Whatwg => FrontEnd::Whatwg {
                schemes: match spec.schemes {
                    SchemesSpec::Any => Schemes::Any,
                    SchemesSpec::Web => Schemes::Web(ErrorCode::PolicyUnsupportedScheme),
                },
                infer_scheme: spec.infer_scheme,
            },
            ParserSpec::Mapper => FrontEnd::Mapper,
            ParserSpec::Document => FrontEnd::Document,
        };
        let def = PolicyDef {
            description: if spec.description.is_empty() {
                format!("{id} (from {origin})")
            } else {
                spec.description
            },
            id,
            accepts_base: false,
            front,
            rules,
            key_form: spec.key,
        };
        out.push((def, line));
    }
    Ok(out)
}

/// `policy_line` is the line of the policy's id: errors name the line of the offending
/// value when it can be found after it (serde's tagged enums keep no spans).
fn rule(r: RuleSpec, text: &str, policy_line: usize) -> Result<Rule, String> {
    Ok(match r {
        RuleSpec::RemoveTrackingParameters {
            list,
            add_names,
            add_prefixes,
            keep_names,
        } => {
            let list_line = text
                .lines()
                .enumerate()
                .skip(policy_line.saturating_sub(1))
                .find(|(_, l)| l.contains("list") && l.contains(list.as_str()))
                .map_or(policy_line, |(i, _)| i + 1);
            let mut set = TrackingSet::named(&list).ok_or_else(|| {
                format!(
                    "remove-tracking-parameters (line {list_line}): unknown list {list:?}; lists: {}",
                    TrackingSet::NAMES.join(", ")
                )
            })?;
            add_names.iter().for_each(|n| set.add_name(n));
            add_prefixes.iter().for_each(|n| set.add_prefix(n));
            keep_names.iter().for_each(|n| set.keep(n));
            Rule::RemoveTrackingParameters(set)
        }
        RuleSpec::RemoveFragment { keep_routes } => Rule::RemoveFragment { keep_routes },
        RuleSpec::DropCredentials {} => Rule::DropCredentials,
        RuleSpec::CollapseSlashes {} => Rule::CollapseSlashes,
        RuleSpec::SortQuery { order } => Rule::SortQuery(order),
        RuleSpec::DropEmptyParameters {} => Rule::DropEmptyParameters,
        RuleSpec::DropEmptyQuery {} => Rule::DropEmptyQuery,
        RuleSpec::RemoveTrailingSlash { mode } => Rule::RemoveTrailingSlash(mode),
        RuleSpec::StripWww {} => Rule::StripWww,
        RuleSpec::StripRootDot {} => Rule::StripRootDot,
        RuleSpec::RegistrableDomain {} => Rule::RegistrableDomain,
        RuleSpec::DecodeUnreserved {} => Rule::DecodeUnreserved,
        RuleSpec::LowercasePath {} => Rule::LowercasePath,
        RuleSpec::DropDefaultDocument {} => Rule::DropDefaultDocument,
        RuleSpec::DropOpaqueQuery {} => Rule::DropOpaqueQuery,
        RuleSpec::LowercaseScheme {} => Rule::LowercaseScheme,
        RuleSpec::LowercaseHost {} => Rule::LowercaseHost,
        RuleSpec::NormalizePort {} => Rule::NormalizePort,
        RuleSpec::EmptyPathToRoot {} => Rule::EmptyPathToRoot,
    })
}

fn valid_id(id: &str) -> bool {
    let Some((name, version)) = id.split_once('@') else {
        return false;
    };
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
        })
        && !version.is_empty()
        && version.bytes().all(|b| b.is_ascii_digit())
}

/// The 1-based line of a byte offset.
fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn flatten(s: &str) -> String {
    s.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

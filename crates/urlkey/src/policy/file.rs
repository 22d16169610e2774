//! Policy files: further `name@version` policies built from the same rule catalogue, in
//! TOML. See `docs/policies.md`, "Your own policies".

use serde::Deserialize;

use crate::error::ErrorCode;

use super::front::{FrontEnd, Schemes};
use super::rules::{RemoveTrackingParameters, Rule};
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
    /// Read as tables first and each made a [`Rule`] apart, so an error names the rule's
    /// own line: serde reads a tagged enum through a buffer that keeps no positions.
    #[serde(default)]
    rules: Vec<toml::Spanned<toml::Table>>,
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

/// A definition written as a policy file of one policy, under another id: what the
/// loader reads back into the same rules. The `web` scheme check becomes the policy
/// file's own code (`policy.unsupported-scheme`); a base is for builtins only.
pub fn write(def: &PolicyDef, id: &str) -> String {
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        policy: [Spec<'a>; 1],
    }
    #[derive(serde::Serialize)]
    struct Spec<'a> {
        id: &'a str,
        description: &'a str,
        parser: &'static str,
        schemes: &'static str,
        infer_scheme: bool,
        key: KeyForm,
        rules: &'a [Rule],
    }
    let (parser, schemes, infer_scheme) = match def.front {
        FrontEnd::Whatwg {
            schemes,
            infer_scheme,
        } => (
            "whatwg",
            match schemes {
                Schemes::Any => "any",
                Schemes::Web(_) => "web",
            },
            infer_scheme,
        ),
        FrontEnd::Mapper => ("mapper", "any", false),
        FrontEnd::Document => ("document", "any", false),
    };
    let doc = Doc {
        policy: [Spec {
            id,
            description: &def.description,
            parser,
            schemes,
            infer_scheme,
            key: def.key_form,
            rules: &def.rules,
        }],
    };
    // Strings, booleans, arrays and tables only: TOML can write every one of them.
    toml::to_string(&doc).expect("a policy definition is plain TOML")
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
        // The line of the first tracking rule with registry 2's entries, whose exceptions
        // keep a parameter beside another (`mkt_tok` beside `mkt_unsubscribe`).
        let mut kept_beside: Option<(usize, &'static [crate::tracking::registry2::ScopedRule])> =
            None;
        for table in spec.rules {
            let rule_line = line_at(text, table.span().start);
            let rule = <Rule as Deserialize>::deserialize(toml::Value::Table(table.into_inner()))
                .map_err(|e| {
                at(format!(
                    "rule at line {rule_line}: {}",
                    flatten(e.message())
                ))
            })?;
            // The wrapper's target replaces the whole URL: a rule that ran before it saw
            // only the wrapper, so keying the result again would apply that rule to the
            // target and change the key (keys must be idempotent, docs/policies.md).
            if matches!(rule, Rule::UnwrapRedirect(_)) && !rules.is_empty() {
                return Err(at(format!(
                    "rule at line {rule_line}: unwrap-redirect must be the first rule (the rules before it would act on the wrapper, not on its target): move it to the top of `rules`"
                )));
            }
            if let Rule::RemoveTrackingParameters(RemoveTrackingParameters(set)) = &rule {
                // A later rule that removes the parameter an exception needs would leave the
                // kept parameter in the canonical form, and keying that again removes it.
                if let Some((first, scoped)) = kept_beside {
                    let needed = crate::tracking::registry2::exception_parameters(scoped)
                        .find(|p| set.may_remove(p));
                    if let Some(p) = needed {
                        return Err(at(format!(
                            "rule at line {rule_line}: it removes {p}, which registry 2 in the rule at line {first} keeps other parameters beside; keying a key would remove those too: remove them in one rule (add_names, add_prefixes) or keep {p} (keep_names)"
                        )));
                    }
                }
                if !set.scoped().is_empty() {
                    kept_beside.get_or_insert((rule_line, set.scoped()));
                }
            }
            rules.push(rule);
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

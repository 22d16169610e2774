//! The catalogue against itself and against docs/policies.md: names, risk classes, needs.

use std::borrow::Cow;

use super::*;
use crate::policy::internal_api::PolicyInternals;
use crate::tracking::TrackingSet;
use crate::web::HostKind;

#[test]
fn every_catalogue_name_reads_as_the_rule_of_that_name() {
    let names = Rule::names();
    assert!(names.len() >= 19, "{names:?}");
    for name in names {
        let table: toml::Table = toml::from_str(&format!("rule = {name:?}")).unwrap();
        let rule: Rule = serde::Deserialize::deserialize(toml::Value::Table(table)).unwrap();
        assert_eq!(rule.name(), *name);
    }
}

/// [`Rule::needs`] is a necessary condition: a rule whose needs the parts lack
/// changes neither the parts nor the log.
#[test]
fn a_rule_whose_needs_are_absent_changes_nothing() {
    let rules = [
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(TrackingSet::citation_v1())),
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(TrackingSet::registry_v1())),
        Rule::RemoveFragment(RemoveFragment { keep_routes: false }),
        Rule::RemoveFragment(RemoveFragment { keep_routes: true }),
        Rule::DropCredentials(DropCredentials),
        Rule::CollapseSlashes(CollapseSlashes),
        Rule::SortQuery(SortQuery {
            order: SortOrder::NameValue,
        }),
        Rule::SortQuery(SortQuery {
            order: SortOrder::Ordinal,
        }),
        Rule::DropEmptyParameters(DropEmptyParameters),
        Rule::DropEmptyQuery(DropEmptyQuery),
        Rule::RemoveTrailingSlash(RemoveTrailingSlash {
            mode: TrailingSlash::NonRoot,
        }),
        Rule::RemoveTrailingSlash(RemoveTrailingSlash {
            mode: TrailingSlash::All,
        }),
        Rule::UnwrapRedirect(UnwrapRedirect),
    ];
    let paths = [
        "", "/", "//", "/a", "/a/", "/a//b", "//a", "/a/b/", "a", "a//",
    ];
    let mut skipped = 0;
    for path in paths {
        for opaque_path in [false, true] {
            for (query, fragment) in [(None, None), (Some("a=1&&b="), Some("x"))] {
                for userinfo in ["", "u:p"] {
                    let p = Parts {
                        scheme: Cow::Borrowed("https"),
                        userinfo: Cow::Borrowed(userinfo),
                        host: (!opaque_path).then_some(Cow::Borrowed("example.com")),
                        host_kind: HostKind::Domain,
                        port: Cow::Borrowed(""),
                        path: Cow::Borrowed(path),
                        query: query.map(Cow::Borrowed),
                        fragment: fragment.map(Cow::Borrowed),
                        opaque_path,
                        path_only: false,
                    };
                    for rule in &rules {
                        let needs = rule.needs();
                        if present(&p, needs) & needs != 0 {
                            continue;
                        }
                        skipped += 1;
                        let mut after = p.clone();
                        let mut log = Log {
                            quiet: true,
                            ..Log::default()
                        };
                        rule.apply(&mut after, &mut log, None);
                        assert_eq!(format!("{after:?}"), format!("{p:?}"), "{rule:?}");
                        assert_eq!(log.changes, 0, "{rule:?} {p:?}");
                        assert!(!log.fragment_removed && !log.unwrapped);
                    }
                }
            }
        }
    }
    assert!(skipped > 200, "{skipped}");
}

/// Every rule of the catalogue table in docs/policies.md has the class the code gives it,
/// and the table lists exactly the catalogue, in its order.
#[test]
fn every_rule_of_the_catalogue_has_a_risk_class() {
    let doc = include_str!("../../../../../docs/policies.md");
    let start = doc
        .find("## The rule catalogue")
        .expect("catalogue section");
    let section = &doc[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let mut names = Vec::new();
    for line in section[..end].lines() {
        if let Some(rest) = line.strip_prefix("| `") {
            let name = rest.split('`').next().expect("name");
            names.push(name.to_string());
            // The docs' risk column says what the code says.
            let documented = line.split('|').nth(2).map(str::trim);
            assert_eq!(
                documented,
                risk_of(name).map(RiskClass::as_str),
                "docs/policies.md's risk column for {name}"
            );
        }
    }
    // Every rule the code knows (the serde catalogue) has a class.
    for n in Rule::names() {
        assert!(risk_of(n).is_some(), "rule {n} has no risk class");
    }
    assert!(names.len() >= 19, "{names:?}");
    for n in &names {
        assert!(risk_of(n).is_some(), "{n} has no risk class");
    }
    // Every rule the code knows is in the docs' catalogue, in the same order.
    assert_eq!(names, Rule::names(), "docs/policies.md's rule catalogue");
    // Every rule the policies can run, by its own name.
    for id in crate::policy::BUILTIN_IDS.iter() {
        let p = crate::policy::PolicySet::builtin()
            .get(id)
            .expect("builtin");
        for r in &p.definition().rules {
            assert!(
                risk_of(r.name()).is_some(),
                "{} has no risk class",
                r.name()
            );
        }
    }
    assert_eq!(risk_of("remove-trailing-slash"), Some(RiskClass::Risky));
    assert_eq!(risk_of("lowercase-host"), Some(RiskClass::Lossless));
    assert_eq!(risk_of("remove-fragment"), Some(RiskClass::Documented));
    assert_eq!(risk_of("no-such-rule"), None);
}

//! How much a rule's merge can be trusted without looking at the pages (issue 16).
//!
//! Every rule of the catalogue in `docs/policies.md` (and the two names the front ends
//! record) has a [`RiskClass`]:
//!
//! * `lossless`: what the URL Standard itself does to every URL (host and scheme case,
//!   the default port, an empty path as `/`): no server can tell the forms apart.
//! * `documented`: a removal a published source vouches for: tracking parameters from a
//!   sourced registry, the fragment and the userinfo (never sent in the request), escapes
//!   of unreserved characters (RFC 3986, 6.2.2.2, calls them equivalent).
//! * `risky`: a server may answer the forms differently: trailing slash, parameter order,
//!   empty parameters and queries, path case, duplicate slashes, default documents, `www.`,
//!   a root dot, the registrable domain, an assumed scheme, an opaque URL's query, a
//!   redirect wrapper replaced by its target. A key
//!   merged by a risky rule is a merge to review until the pages are compared.
//!
//! A separate module (not a method of `policy::Rule`) so that a rule is looked up by the
//! name stored in a record's transformations.

/// The risk class of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RiskClass {
    /// What the URL Standard does anyway.
    Lossless,
    /// Vouched for by a published source.
    Documented,
    /// A server may tell the forms apart.
    Risky,
}

impl RiskClass {
    /// `lossless`, `documented` or `risky`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RiskClass::Lossless => "lossless",
            RiskClass::Documented => "documented",
            RiskClass::Risky => "risky",
        }
    }
}

/// Every rule name with its class: the catalogue's rules, then the front ends' names.
pub const RULE_RISKS: [(&str, RiskClass); 22] = [
    ("remove-tracking-parameters", RiskClass::Documented),
    ("remove-fragment", RiskClass::Documented),
    ("drop-credentials", RiskClass::Documented),
    ("collapse-slashes", RiskClass::Risky),
    ("sort-query", RiskClass::Risky),
    ("drop-empty-parameters", RiskClass::Risky),
    ("drop-empty-query", RiskClass::Risky),
    ("remove-trailing-slash", RiskClass::Risky),
    ("strip-www", RiskClass::Risky),
    ("strip-root-dot", RiskClass::Risky),
    ("registrable-domain", RiskClass::Risky),
    ("decode-unreserved", RiskClass::Documented),
    ("lowercase-path", RiskClass::Risky),
    ("drop-default-document", RiskClass::Risky),
    ("drop-opaque-query", RiskClass::Risky),
    ("lowercase-scheme", RiskClass::Lossless),
    ("lowercase-host", RiskClass::Lossless),
    ("normalize-port", RiskClass::Lossless),
    ("empty-path-to-root", RiskClass::Lossless),
    // A wrapper's page may answer otherwise (a Safe Links block page), and some wrappers
    // no platform documents (docs/policies.md, "Redirect wrappers").
    ("unwrap-redirect", RiskClass::Risky),
    ("whatwg-parse", RiskClass::Lossless),
    ("assume-https", RiskClass::Risky),
];

/// The class of the rule named `rule` (as recorded in transformations), None for a name
/// urlkey does not know.
pub fn risk_of(rule: &str) -> Option<RiskClass> {
    RULE_RISKS.iter().find(|(n, _)| *n == rule).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule of the catalogue table in docs/policies.md has a class, and every
    /// classed name is a rule of the catalogue or a front end's name.
    #[test]
    fn every_rule_of_the_catalogue_has_a_risk_class() {
        let doc = include_str!("../../../docs/policies.md");
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
        for n in crate::policy::Rule::names() {
            assert!(
                risk_of(n).is_some(),
                "rule {n} has no risk class in risk.rs"
            );
        }
        assert!(names.len() >= 19, "{names:?}");
        for n in &names {
            assert!(risk_of(n).is_some(), "{n} has no risk class");
        }
        for (n, _) in RULE_RISKS {
            assert!(
                names.iter().any(|m| m == n) || ["whatwg-parse", "assume-https"].contains(&n),
                "{n} is not in the catalogue"
            );
        }
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
}

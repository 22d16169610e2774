//! Do several URLs share a key under one policy, and why (`urlkey explain`, the Compare
//! view of `urlkey serve`).
//!
//! When they meet, the rules that made them meet are the rules (front-end names such as
//! `whatwg-parse` included) whose transformations differ between the inputs: one removed
//! `?utm_source=...`, the other nothing. When they do not, the first component where the
//! keys differ, split as `inspect` splits a URL ([`crate::Offsets`]), and the builtin
//! policies that would give them one key. An invalid input never shares a key.

use serde::Serialize;

use crate::{KeyError, Outcome, Policy, PolicySet, Transformation};

/// What `explain` reports (its JSON form).
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let citation = set.get("citation@1").unwrap();
/// let inputs = ["https://example.com/a?id=1".to_string(), "https://example.com/a?id=2".to_string()];
/// let e = urlkey::explain::explain(&inputs, &set, &citation);
/// assert!(!e.same_key);
/// assert_eq!(e.differs_in.as_deref(), Some("query"));
/// assert_eq!(e.keys[0].as_deref(), Some("https://example.com/a?id=1"));
/// ```
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
    /// The name of the first component (in URL order) where the keys differ: `scheme`,
    /// `userinfo`, `host`, `port`, `path`, `query` or `fragment`; `null` when they are the
    /// same or when an input is invalid.
    pub differs_in: Option<&'static str>,
    /// That component of each input's key, one per input (`null` for a key without it);
    /// `null` when `differs_in` is.
    pub differing_values: Option<Vec<Option<String>>>,
    /// The builtin policies under which every input has the same key.
    pub same_key_under: Vec<String>,
}

/// Keys every input under `policy` and says whether, and why, they meet.
///
/// ```
/// use urlkey::PolicySet;
///
/// let set = PolicySet::builtin();
/// let policy = set.get("citation@1").unwrap();
/// let inputs = ["https://Example.com/a?utm_source=x".to_string(), "https://example.com/a".to_string()];
/// let e = urlkey::explain::explain(&inputs, &set, &policy);
/// assert!(e.same_key);
/// assert!(e.rules.contains(&"remove-tracking-parameters"));
/// ```
pub fn explain(inputs: &[String], set: &PolicySet, policy: &Policy) -> Explanation {
    let outcomes: Vec<Outcome> = inputs.iter().map(|i| policy.key(i)).collect();
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
    let (differs_in, differing_values) = if same_key || keys.iter().any(Option::is_none) {
        None
    } else {
        first_difference(&keys)
    }
    .unzip();
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
        differing_values,
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
fn rule_agrees(outcomes: &[Outcome], rule: &str) -> bool {
    let of = |o: &Outcome| -> Vec<(&'static str, String, String)> {
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
pub(crate) fn components(key: &str) -> [(&'static str, Option<String>); 7] {
    let written = crate::text::written_scheme(key).is_some();
    let o = crate::offsets::offsets(key, written);
    let s = |c: Option<crate::offsets::ComponentSpan>| {
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

/// The first component (in URL order) where the keys differ, with each key's value of it.
fn first_difference(keys: &[Option<String>]) -> Option<(&'static str, Vec<Option<String>>)> {
    let split: Vec<_> = keys
        .iter()
        .map(|k| components(k.as_deref().unwrap_or("")))
        .collect();
    (0..7).find_map(|i| {
        let values: Vec<Option<String>> = split.iter().map(|c| c[i].1.clone()).collect();
        if values.iter().all(|v| *v == values[0]) {
            None
        } else {
            Some((split[0][i].0, values))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPONENTS: [&str; 7] = [
        "scheme", "userinfo", "host", "port", "path", "query", "fragment",
    ];

    fn run(policy: &str, inputs: &[&str]) -> (Explanation, serde_json::Value) {
        let set = PolicySet::builtin();
        let policy = set.get(policy).expect("builtin");
        let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        let e = explain(&inputs, &set, &policy);
        let v = serde_json::to_value(&e).expect("json");
        (e, v)
    }

    /// In the JSON, `differs_in` is the component's name as a plain string and
    /// `differing_values` holds one value per input: the component of each key, as
    /// [`components`] splits it. One pair per component, and three inputs.
    #[test]
    fn explain_differs_in_is_a_name_with_the_values_beside_it() {
        let cases: [(&str, &[&str]); 8] = [
            ("scheme", &["http://a.example/", "https://a.example/"]),
            (
                "userinfo",
                &["https://u@a.example/", "https://v@a.example/"],
            ),
            ("host", &["https://a.example/", "https://b.example/"]),
            ("port", &["https://a.example:81/", "https://a.example:82/"]),
            ("path", &["https://a.example/x", "https://a.example/y"]),
            (
                "query",
                &["https://a.example/?q=1", "https://a.example/?q=2"],
            ),
            (
                "fragment",
                &["https://a.example/#a", "https://a.example/#b"],
            ),
            (
                "path",
                &[
                    "https://a.example/x",
                    "https://a.example/x",
                    "https://a.example/z",
                ],
            ),
        ];
        for (component, inputs) in cases {
            let (e, v) = run("whatwg@1", inputs);
            assert!(!e.same_key);
            assert_eq!(v["differs_in"], component, "{v}");
            assert!(COMPONENTS.contains(&e.differs_in.expect("differs")));
            let values = v["differing_values"].as_array().expect("an array");
            assert_eq!(values.len(), inputs.len());
            let at = COMPONENTS
                .iter()
                .position(|c| *c == component)
                .expect("known");
            for (n, key) in e.keys.iter().enumerate() {
                let want = components(key.as_deref().expect("a key"))[at].1.clone();
                assert_eq!(values[n], serde_json::json!(want), "{component} {n}");
            }
            assert_ne!(values[0], values[inputs.len() - 1]);
        }
        // A component one key lacks: its value is null.
        let (_, v) = run(
            "webkey@1",
            &["https://a.example/x?q=1", "https://a.example/x"],
        );
        assert_eq!(v["differs_in"], "query");
        assert_eq!(v["differing_values"], serde_json::json!(["q=1", null]));
    }

    /// Both fields are null together: when the keys are the same, and when an input is
    /// invalid (it has no key to split).
    #[test]
    fn explain_differs_in_and_its_values_are_null_together() {
        for (policy, inputs) in [
            (
                "citation@1",
                &["https://a.example/?utm_source=x", "https://a.example/"][..],
            ),
            (
                "citation@1",
                &["mailto:a@b.example", "mailto:a@b.example"][..],
            ),
            ("citation@1", &["https://a.example/", "not a url"][..]),
        ] {
            let (e, v) = run(policy, inputs);
            assert_eq!(v["differs_in"], serde_json::Value::Null, "{inputs:?}");
            assert_eq!(v["differing_values"], serde_json::Value::Null, "{inputs:?}");
            assert_eq!(e.differs_in.is_none(), e.differing_values.is_none());
        }
    }
}

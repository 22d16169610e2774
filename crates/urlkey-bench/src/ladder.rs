//! Rule ladders: a builtin policy rebuilt as policy-file policies with its rules added one
//! at a time (step 0 = the front end and key form with no rule). Timing every step in
//! the same process attributes the policy's cost to its front end and to each rule,
//! which a profile of the inlined `Rule::apply` cannot do.

/// A builtin policy's front end and rules, as policy-file TOML.
pub struct LadderSpec {
    /// The builtin id it mirrors.
    pub builtin: &'static str,
    /// The policy-file header lines (parser, schemes, infer_scheme, key).
    pub header: &'static str,
    /// The rules in the builtin's order: (name for display, TOML inline table).
    pub rules: &'static [(&'static str, &'static str)],
}

/// The ladders of the four builtins that have rules.
pub const LADDERS: [LadderSpec; 4] = [
    LadderSpec {
        builtin: "citation@1",
        header: "parser = \"whatwg\"\nschemes = \"web\"\nkey = \"url\"",
        rules: &[
            ("remove-fragment", "{ rule = \"remove-fragment\" }"),
            (
                "remove-tracking-parameters",
                "{ rule = \"remove-tracking-parameters\", list = \"citation@1\" }",
            ),
            ("drop-credentials", "{ rule = \"drop-credentials\" }"),
            (
                "drop-empty-parameters",
                "{ rule = \"drop-empty-parameters\" }",
            ),
            (
                "sort-query",
                "{ rule = \"sort-query\", order = \"name-value\" }",
            ),
            ("drop-empty-query", "{ rule = \"drop-empty-query\" }"),
            (
                "remove-trailing-slash",
                "{ rule = \"remove-trailing-slash\", mode = \"non-root\" }",
            ),
        ],
    },
    LadderSpec {
        builtin: "mapper@1",
        header: "parser = \"mapper\"\nkey = \"url\"",
        rules: &[
            (
                "remove-tracking-parameters",
                "{ rule = \"remove-tracking-parameters\", list = \"registry@1\" }",
            ),
            ("remove-fragment", "{ rule = \"remove-fragment\" }"),
            ("drop-credentials", "{ rule = \"drop-credentials\" }"),
            ("collapse-slashes", "{ rule = \"collapse-slashes\" }"),
            (
                "drop-empty-parameters",
                "{ rule = \"drop-empty-parameters\" }",
            ),
            (
                "sort-query",
                "{ rule = \"sort-query\", order = \"name-value\" }",
            ),
            ("drop-empty-query", "{ rule = \"drop-empty-query\" }"),
        ],
    },
    LadderSpec {
        builtin: "webkey@1",
        header: "parser = \"whatwg\"\ninfer_scheme = true\nkey = \"web-key\"",
        rules: &[
            (
                "remove-tracking-parameters",
                "{ rule = \"remove-tracking-parameters\", list = \"webkey@1\" }",
            ),
            ("remove-fragment", "{ rule = \"remove-fragment\" }"),
            ("drop-credentials", "{ rule = \"drop-credentials\" }"),
            ("strip-root-dot", "{ rule = \"strip-root-dot\" }"),
            ("registrable-domain", "{ rule = \"registrable-domain\" }"),
            ("decode-unreserved", "{ rule = \"decode-unreserved\" }"),
            ("lowercase-path", "{ rule = \"lowercase-path\" }"),
            ("collapse-slashes", "{ rule = \"collapse-slashes\" }"),
            (
                "drop-default-document",
                "{ rule = \"drop-default-document\" }",
            ),
            (
                "remove-trailing-slash",
                "{ rule = \"remove-trailing-slash\", mode = \"all\" }",
            ),
            (
                "drop-empty-parameters",
                "{ rule = \"drop-empty-parameters\" }",
            ),
            (
                "sort-query",
                "{ rule = \"sort-query\", order = \"ordinal\" }",
            ),
            ("drop-empty-query", "{ rule = \"drop-empty-query\" }"),
            ("drop-opaque-query", "{ rule = \"drop-opaque-query\" }"),
        ],
    },
    LadderSpec {
        builtin: "document@1",
        header: "parser = \"document\"\nkey = \"url\"",
        rules: &[
            ("lowercase-scheme", "{ rule = \"lowercase-scheme\" }"),
            ("lowercase-host", "{ rule = \"lowercase-host\" }"),
            ("normalize-port", "{ rule = \"normalize-port\" }"),
            ("empty-path-to-root", "{ rule = \"empty-path-to-root\" }"),
            ("remove-fragment", "{ rule = \"remove-fragment\" }"),
            ("drop-empty-query", "{ rule = \"drop-empty-query\" }"),
        ],
    },
];

/// The ladder of a builtin id.
pub fn ladder(builtin: &str) -> Option<&'static LadderSpec> {
    LADDERS.iter().find(|l| l.builtin == builtin)
}

impl LadderSpec {
    /// The policy file with one policy per step: `ladder-<k>@1` has the first `k` rules.
    pub fn policy_file(&self) -> String {
        let mut s = String::new();
        for k in 0..=self.rules.len() {
            let rules: Vec<&str> = self.rules[..k].iter().map(|r| r.1).collect();
            s.push_str(&format!(
                "[[policy]]\nid = \"{}\"\n{}\nrules = [{}]\n\n",
                Self::step_id(k),
                self.header,
                rules.join(", ")
            ));
        }
        s
    }

    /// The id of step `k`.
    pub fn step_id(k: usize) -> String {
        format!("ladder-{k}@1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last step of every ladder gives the builtin's keys (on a few inputs).
    #[test]
    fn full_ladders_equal_their_builtins() {
        let inputs = [
            "HTTP://Example.com:80/a//b/?utm_source=x&id=7&b=&a=1#frag",
            "https://www.Example.co.uk./Index.HTML?b=2&&a=1",
            "/x?b=2&a=1",
            "example.com/%7euser/",
            "file:///etc/passwd",
            "https://u:p@example.com/",
        ];
        for spec in LADDERS {
            let mut set = urlkey::PolicySet::builtin();
            set.load_policy_file(&spec.policy_file(), "ladder").unwrap();
            let full = set.get(&LadderSpec::step_id(spec.rules.len())).unwrap();
            let builtin = set.get(spec.builtin).unwrap();
            for i in inputs {
                let (a, b) = (full.key(i), builtin.key(i));
                assert_eq!(a.key, b.key, "{} on {i}", spec.builtin);
                assert_eq!(a.signature, b.signature, "{} on {i}", spec.builtin);
            }
        }
    }
}

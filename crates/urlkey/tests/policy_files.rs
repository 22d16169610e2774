//! Policy files (`--policy-file`, docs/policies.md "Your own policies"): the TOML examples
//! in `tests/examples/`, checked against the builtins and their golden fixtures, and the
//! errors a bad file gives (each names the line).

use std::path::Path;

mod common;

use urlkey::internals::policy::builtin_variants;
use urlkey::internals::PolicyInternals;
use urlkey::{ErrorCode, Outcome, PolicySet};

fn example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/examples")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn with_file(name: &str) -> PolicySet {
    let mut set = PolicySet::builtin();
    set.load_policy_file(&example(name), name)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    set
}

/// A policy file's `schemes = "web"` reports `policy.unsupported-scheme`; the builtin
/// `citation@1` reports its own code. Everything else must be identical.
fn same_code(builtin: ErrorCode, file: ErrorCode) -> bool {
    builtin == file
        || (builtin == ErrorCode::CitationUnsupportedScheme
            && file == ErrorCode::PolicyUnsupportedScheme)
}

fn render(o: &Outcome) -> String {
    match (&o.key, &o.error) {
        (Some(k), _) => k.clone(),
        (None, Some(e)) => format!("!{}", e.code.as_str()),
        (None, None) => unreachable!(),
    }
}

/// Compares a file policy with a builtin on every input of the builtin's fixture: the
/// whole outcome (key, canonical form, transformations, removed parameters, facts, PSL),
/// and the fixture's expected column.
fn assert_equivalent(set: &PolicySet, file_id: &str, builtin_id: &str) -> usize {
    let file = set.get(file_id).unwrap();
    let builtin = set.get(builtin_id).unwrap();
    let mut bad = Vec::new();
    let cases = common::golden_cases(builtin_id);
    for (input, expected) in &cases {
        let (f, b) = (file.key(input), builtin.key(input));
        let expected_f = match (&f.error, expected.strip_prefix('!')) {
            (Some(e), Some(code))
                if e.code == ErrorCode::PolicyUnsupportedScheme
                    && code == "citation.unsupported-scheme" =>
            {
                expected.clone()
            }
            _ => render(&f),
        };
        if &expected_f != expected {
            bad.push(format!(
                "{input:?}: fixture {expected:?}, {file_id} {:?}",
                render(&f)
            ));
        }
        let codes_agree = match (&b.error, &f.error) {
            (Some(be), Some(fe)) => same_code(be.code, fe.code),
            (None, None) => true,
            _ => false,
        };
        if !codes_agree
            || f.key != b.key
            || f.canonical != b.canonical
            || f.transformations != b.transformations
            || f.removed_params != b.removed_params
            || f.facts != b.facts
            || f.psl != b.psl
        {
            bad.push(format!(
                "{input:?}:\n  {builtin_id} {b:?}\n  {file_id} {f:?}"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{file_id} differs from {builtin_id} on {} input(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
    cases.len()
}

#[test]
fn the_citation_file_gives_citation_keys_on_the_golden_inputs() {
    let set = with_file("citation-equivalent.toml");
    let n = assert_equivalent(&set, "my-citation@1", "citation@1");
    assert!(n >= 150);
    assert_equivalent(
        &set,
        "my-citation-keep-slash@1",
        "citation@1+keep-trailing-slash",
    );
}

#[test]
fn the_catalogue_expresses_every_builtin() {
    // Each builtin (options included) written out by `PolicyDef::to_policy_file`.
    for builtin in builtin_variants() {
        // `citation@1+keep-trailing-slash` -> `file-citation-keep-trailing-slash@1`.
        let (name, rest) = builtin.split_once('@').unwrap();
        let (version, options) = rest.split_once('+').unwrap_or((rest, ""));
        let options = if options.is_empty() {
            String::new()
        } else {
            format!("-{}", options.replace('+', "-"))
        };
        let file_id = format!("file-{name}{options}@{version}");
        let toml = PolicySet::builtin()
            .get(&builtin)
            .unwrap()
            .definition()
            .to_policy_file(&file_id);
        let mut set = PolicySet::builtin();
        set.load_policy_file(&toml, "generated.toml")
            .unwrap_or_else(|e| panic!("{builtin} written as a policy file: {e}\n{toml}"));
        assert_equivalent(&set, &file_id, &builtin);
    }
}

/// `tests/examples/builtins.toml` writes builtins by hand, for people to read: each of its
/// `file-<id>` policies is equivalent to the builtin `<id>`.
#[test]
fn the_builtins_example_file_agrees_with_the_builtins() {
    let set = with_file("builtins.toml");
    let mut checked = 0;
    for info in set.list().into_iter().filter(|i| !i.builtin) {
        let builtin = info
            .id
            .strip_prefix("file-")
            .unwrap_or_else(|| panic!("builtins.toml: {} is not named file-<builtin id>", info.id));
        assert_equivalent(&set, &info.id, builtin);
        checked += 1;
    }
    assert!(checked > 0);
}

fn key(set: &PolicySet, id: &str, input: &str) -> String {
    render(&set.get(id).unwrap().key(input))
}

#[test]
fn strip_www_example() {
    let set = with_file("strip-www.toml");
    let id = "citation-nowww@1";
    assert_eq!(
        key(&set, id, "https://WWW.Example.com/a/?utm_source=x"),
        "https://example.com/a"
    );
    assert_eq!(
        key(&set, id, "https://example.com/a"),
        "https://example.com/a"
    );
    // One leading `www.` label, only when a name with a dot is left.
    assert_eq!(
        key(&set, id, "https://www.www.example.com/"),
        "https://www.example.com/"
    );
    assert_eq!(key(&set, id, "https://www.com/"), "https://www.com/");
    assert_eq!(
        key(&set, id, "https://www2.example.com/"),
        "https://www2.example.com/"
    );
    assert_eq!(
        key(&set, id, "ftp://www.example.com/"),
        "!policy.unsupported-scheme"
    );
    let o = set.get(id).unwrap().key("https://www.example.com/");
    assert_eq!(o.rule_names(), ["strip-www"]);
    assert_eq!(o.transformations[0].before, "www.example.com");
    assert_eq!(o.transformations[0].after, "example.com");
    // The canonical form keeps the host: strip-www shapes the key only.
    assert_eq!(o.canonical.as_deref(), Some("https://www.example.com/"));
}

#[test]
fn keep_routes_example_keeps_route_fragments_in_the_key() {
    let set = with_file("spa-routes.toml");
    let id = "spa@1";
    assert_eq!(
        key(&set, id, "https://app.example/#/inbox"),
        "https://app.example/#/inbox"
    );
    assert_eq!(
        key(&set, id, "https://app.example/x?b=1&a=2&utm_source=n#!/a/b"),
        "https://app.example/x?a=2&b=1#!/a/b"
    );
    let o = set
        .get(id)
        .unwrap()
        .key("https://app.example/doc#section-2");
    assert_eq!(o.key.as_deref(), Some("https://app.example/doc"));
    assert_eq!(o.rule_names(), ["remove-fragment"]);
    let o = set.get(id).unwrap().key("https://app.example/#/inbox");
    assert!(o.transformations.is_empty(), "{:?}", o.transformations);
    assert_eq!(o.canonical.as_deref(), Some("https://app.example/#/inbox"));
}

#[test]
fn tracking_example_adds_and_keeps_names() {
    let set = with_file("tracking.toml");
    let id = "shop@1";
    let o = set.get(id).unwrap().key(
        "https://shop.example/item?utm_id=7&UTM_source=a&ref=home&SOURCE=rss&Pk_campaign=x&mtm_kwd=y&referrer=z&gclid=1&id=3",
    );
    assert_eq!(
        o.key.as_deref(),
        Some("https://shop.example/item?id=3&referrer=z&utm_id=7")
    );
    assert_eq!(
        o.removed_params,
        [
            "UTM_source",
            "ref",
            "SOURCE",
            "Pk_campaign",
            "mtm_kwd",
            "gclid"
        ]
    );
    // keep_names wins over the utm_ prefix; matching ignores ASCII case.
    assert_eq!(
        key(&set, id, "https://shop.example/?UTM_ID=1"),
        "https://shop.example/?UTM_ID=1"
    );
    // The document parser with an application contract.
    assert_eq!(
        key(
            &set,
            "document-sorted@1",
            "HTTPS://Shop.Example:443//a//B?z=1&a=2#f"
        ),
        "https://shop.example/a/B?a=2&z=1"
    );
    assert_eq!(
        key(&set, "document-sorted@1", "https://user@shop.example/"),
        "!document.credentials"
    );
}

/// Loads `text` and returns the error message.
fn load_error(text: &str) -> String {
    let mut set = PolicySet::builtin();
    match set.load_policy_file(text, "my.toml") {
        Ok(ids) => panic!("loaded {ids:?}"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{p:?} not in the message: {msg}");
    }
}

#[test]
fn unknown_rule_names_the_line() {
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
key = "url"
rules = [
  { rule = "remove-fragment" },
  { rule = "strip-wwww" },
]
"#,
    );
    assert_names(&msg, &["my.toml", "line 7", "strip-wwww", "strip-www"]);
}

#[test]
fn unknown_parameter_names_the_line() {
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
key = "url"

[[policy.rules]]
rule = "remove-fragment"
keep_route = true
"#,
    );
    assert_names(&msg, &["my.toml", "line 6", "keep_route", "keep_routes"]);
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
key = "url"
rules = [{ rule = "drop-credentials", keep = true }]
"#,
    );
    assert_names(&msg, &["line 5", "keep"]);
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
keys = "url"
"#,
    );
    assert_names(&msg, &["line 4", "keys"]);
}

#[test]
fn bad_id_names_the_line() {
    for (id, line) in [
        ("Bad Id", "line 3"),
        ("noversion", "line 3"),
        ("a@1.0", "line 3"),
        ("citation@1+x", "line 3"),
    ] {
        let msg = load_error(&format!(
            "# a comment\n[[policy]]\nid = '{id}'\nparser = \"whatwg\"\nkey = \"url\"\n"
        ));
        assert_names(&msg, &["my.toml", line, id, "name@version"]);
    }
}

#[test]
fn duplicate_id_names_both_lines() {
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
key = "url"

[[policy]]
id = "a@1"
parser = "mapper"
key = "url"
"#,
    );
    assert_names(&msg, &["my.toml", "line 7", "line 2", "a@1"]);
    // A builtin id.
    let msg = load_error("\n[[policy]]\nid = \"citation@1\"\nparser = \"whatwg\"\nkey = \"url\"\n");
    assert_names(&msg, &["my.toml", "line 3", "citation@1", "builtin"]);
    // An id that another file defined.
    let mut set = PolicySet::builtin();
    set.load_policy_file(
        "[[policy]]\nid = \"b@1\"\nparser = \"whatwg\"\nkey = \"url\"\n",
        "one.toml",
    )
    .unwrap();
    let msg = set
        .load_policy_file(
            "[[policy]]\nid = \"b@1\"\nparser = \"whatwg\"\nkey = \"url\"\n",
            "two.toml",
        )
        .unwrap_err()
        .to_string();
    assert_names(&msg, &["two.toml", "line 2", "b@1", "already defined"]);
}

#[test]
fn unknown_list_names_the_line() {
    let msg = load_error(
        r#"[[policy]]
id = "a@1"
parser = "whatwg"
key = "url"
rules = [
  { rule = "remove-fragment" },
  { rule = "remove-tracking-parameters", list = "registry@3" },
]
"#,
    );
    assert_names(
        &msg,
        &[
            "my.toml",
            "line 7",
            "registry@3",
            "registry@1, registry@2, citation@1, citation@2, webkey@1, none",
        ],
    );
}

#[test]
fn other_file_errors_name_the_line() {
    let msg = load_error(
        "[[policy]]\nid = \"a@1\"\nparser = \"mapper\"\nschemes = \"web\"\nkey = \"url\"\n",
    );
    assert_names(&msg, &["line 2", "apply only to parser"]);
    let msg = load_error("[[policy]]\nid = \"a@1\"\nparser = \"regex\"\nkey = \"url\"\n");
    assert_names(&msg, &["line 3", "regex"]);
    let msg = load_error("[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\n");
    assert_names(&msg, &["line 1", "key"]);
}

/// The key forms write what the rules leave: without `drop-credentials` the userinfo stays
/// in the key (no silent removal); with it, the removal is a recorded transformation.
#[test]
fn key_forms_write_what_the_rules_leave() {
    let mut set = PolicySet::builtin();
    set.load_policy_file(
        r#"
[[policy]]
id = "keep-all@1"
parser = "whatwg"
key = "url"

[[policy]]
id = "keep-all-webkey@1"
parser = "whatwg"
key = "web-key"
"#,
        "inline.toml",
    )
    .unwrap();
    let o = set
        .get("keep-all@1")
        .unwrap()
        .key("https://u:p@a.example/x?b#f");
    assert_eq!(o.key.as_deref(), Some("https://u:p@a.example/x?b#f"));
    assert!(o.transformations.is_empty());
    let o = set
        .get("keep-all-webkey@1")
        .unwrap()
        .key("https://u@a.example/x#f");
    assert_eq!(o.key.as_deref(), Some("u@a.example/x#f"));
    let o = set
        .get("keep-all-webkey@1")
        .unwrap()
        .key("mailto:a@b.example#f");
    assert_eq!(o.key.as_deref(), Some("mailto:a@b.example#f"));
    let o = set
        .get("citation@1")
        .unwrap()
        .key("https://u:p@a.example/x#f");
    assert_eq!(o.key.as_deref(), Some("https://a.example/x"));
    assert_eq!(o.rule_names(), ["remove-fragment", "drop-credentials"]);
}

/// The TOML blocks of `docs/policies.md` load, the complete example behaves as the page
/// says, and the page's `citation@1` file gives `citation@1`'s keys on its fixture.
#[test]
fn the_examples_in_docs_policies_md_work() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/policies.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(
        blocks.len(),
        2,
        "docs/policies.md should hold two TOML examples"
    );
    let mut set = PolicySet::builtin();
    for b in &blocks {
        set.load_policy_file(b, "docs/policies.md").unwrap();
    }
    let id = "app-citation@1";
    assert_eq!(
        key(
            &set,
            id,
            "https://WWW.app.example/a/?utm_id=4&ref=x&Source=y&pk_c=1&b=2#/inbox"
        ),
        "https://app.example/a?b=2&utm_id=4#/inbox"
    );
    assert_eq!(
        key(&set, id, "https://app.example/a/#top"),
        "https://app.example/a"
    );
    assert_eq!(
        key(&set, id, "mailto:a@app.example"),
        "!policy.unsupported-scheme"
    );
    assert_equivalent(&set, "my-citation@1", "citation@1");
    // The page's copy is the example file's first policy.
    assert!(example("citation-equivalent.toml").contains(
        r#"{ rule = "remove-tracking-parameters", list = "none", add_names = ["gclid", "dclid", "fbclid", "msclkid", "mc_cid", "mc_eid"], add_prefixes = ["utm_", "_hs"] },"#
    ));
}

/// `unwrap-redirect` replaces the whole URL with the wrapper's target, so a rule before it
/// would act on the wrapper only, and keying the result again would apply that rule to the
/// target: every rule of the catalogue placed before it is refused, with its line.
#[test]
fn unwrap_redirect_after_any_other_rule_is_refused() {
    for name in urlkey::internals::policy::Rule::names() {
        let text = format!(
            "[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\nkey = \"href\"\nrules = [\n  {{ rule = \"{name}\" }},\n  {{ rule = \"unwrap-redirect\" }},\n]\n"
        );
        let msg = load_error(&text);
        assert_names(
            &msg,
            &[
                "my.toml",
                "line 7",
                "unwrap-redirect must be the first rule",
            ],
        );
    }
}

/// With `unwrap-redirect` first, a policy keys nested wrappers idempotently whatever
/// follows it: key(canonical(x)) == key(x) for wrappers whose target carries parameters
/// that a later rule removes only on the target's host.
#[test]
fn unwrap_redirect_first_keys_nested_wrappers_idempotently() {
    let inputs = [
        "https://www.google.com/url?q=https%3A%2F%2Fl.facebook.com%2Fl.php%3Fu%3Dhttps%253A%252F%252Fwww.youtube.com%252Fwatch%253Fv%253D1%2526si%253D2&si=3",
        "https://l.facebook.com/l.php?u=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3D1%26si%3D2%26utm_source%3Dx&si=9#f",
        "https://l.facebook.com/l.php?u=javascript%3Aalert(1)&mkt_tok=1&mkt_unsubscribe=1",
    ];
    for name in urlkey::internals::policy::Rule::names() {
        if *name == "unwrap-redirect" {
            continue;
        }
        let text = format!(
            "[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\nkey = \"href\"\nrules = [\n  {{ rule = \"unwrap-redirect\" }},\n  {{ rule = \"remove-tracking-parameters\", list = \"registry@2\" }},\n  {{ rule = \"{name}\" }},\n]\n"
        );
        let mut set = PolicySet::builtin();
        set.load_policy_file(&text, "my.toml")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let p = set.get("a@1").expect("loaded");
        for x in inputs {
            let o = p.key(x);
            let (Some(k), Some(c)) = (o.key.as_deref(), o.canonical.as_deref()) else {
                continue;
            };
            assert_eq!(
                p.key(c).key.as_deref(),
                Some(k),
                "{name}: {x} -> canonical {c}"
            );
        }
    }
}

/// A policy whose keys are not always the Standard's serialization does not promise it:
/// `remove-trailing-slash` in mode `all` writes the `url` key of `https://p/` as `https://p`.
#[test]
fn a_policy_that_removes_the_root_slash_does_not_promise_whatwg_urls() {
    let file = |mode: &str| {
        format!(
            "[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\ninfer_scheme = true\nkey = \"url\"\nrules = [\n  {{ rule = \"remove-trailing-slash\", mode = \"{mode}\" }},\n]\n"
        )
    };
    let mut set = PolicySet::builtin();
    set.load_policy_file(&file("all"), "all.toml")
        .expect("loads");
    let p = set.get("a@1").expect("loaded");
    assert_eq!(p.key("P").key.as_deref(), Some("https://p"));
    assert!(!p.definition().key_is_whatwg_url());
    let mut set = PolicySet::builtin();
    set.load_policy_file(&file("non-root"), "non-root.toml")
        .expect("loads");
    let p = set.get("a@1").expect("loaded");
    assert_eq!(p.key("P").key.as_deref(), Some("https://p/"));
    assert!(p.definition().key_is_whatwg_url());
}

/// Registry 2 keeps `mkt_tok` beside `mkt_unsubscribe` (an unsubscribe link needs it). A
/// rule that removes `mkt_unsubscribe` too (by name or prefix) removes `mkt_tok` with it:
/// otherwise keying the key would remove `mkt_tok` then, and keys would not be idempotent.
#[test]
fn an_exception_holds_only_while_the_parameter_it_needs_stays() {
    let input = "https://go.example.com/lp/offer.html?mkt_tok=1&mkt_unsubscribe=1&b=2";
    for (extra, want) in [
        (
            "",
            "https://go.example.com/lp/offer.html?mkt_tok=1&mkt_unsubscribe=1&b=2",
        ),
        (
            "add_names = [\"MKT_unsubscribe\"]",
            "https://go.example.com/lp/offer.html?b=2",
        ),
        (
            "add_prefixes = [\"mkt_uns\"]",
            "https://go.example.com/lp/offer.html?b=2",
        ),
        (
            "add_prefixes = [\"mkt_\"], keep_names = [\"mkt_unsubscribe\"]",
            "https://go.example.com/lp/offer.html?mkt_unsubscribe=1&b=2",
        ),
    ] {
        let text = format!(
            "[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\nkey = \"url\"\nrules = [\n  {{ rule = \"remove-tracking-parameters\", list = \"registry@2\", {extra} }},\n]\n"
        )
        .replace(",  }", " }");
        let mut set = PolicySet::builtin();
        set.load_policy_file(&text, "my.toml")
            .unwrap_or_else(|e| panic!("{extra}: {e}"));
        let p = set.get("a@1").expect("loaded");
        let o = p.key(input);
        assert_eq!(o.key.as_deref(), Some(want), "{extra}");
        let c = o.canonical.expect("valid");
        assert_eq!(p.key(&c).key.as_deref(), Some(want), "{extra}: idempotence");
    }
}

/// A tracking rule after one with registry 2 may not remove the parameter registry 2 keeps
/// another beside (`mkt_unsubscribe`, for `mkt_tok`): the canonical form would keep
/// `mkt_tok` without it, and keying that again would remove `mkt_tok`. Such a file is
/// refused with the line; in the other order, or with the parameter kept, it loads, and
/// its keys are idempotent.
#[test]
fn a_later_tracking_rule_may_not_remove_what_registry_2_keeps_a_parameter_beside() {
    let file = |first: &str, second: &str| {
        format!(
            "[[policy]]\nid = \"a@1\"\nparser = \"whatwg\"\nkey = \"url\"\nrules = [\n  {{ rule = \"remove-tracking-parameters\", {first} }},\n  {{ rule = \"remove-tracking-parameters\", {second} }},\n]\n"
        )
    };
    let reg2 = "list = \"registry@2\"";
    for second in [
        "list = \"none\", add_names = [\"mkt_unsubscribe\"]",
        "list = \"none\", add_prefixes = [\"mkt_\"]",
        "list = \"registry@2\", add_prefixes = [\"MKT\"], keep_names = [\"mkt_tok\"]",
    ] {
        let msg = load_error(&file(reg2, second));
        assert_names(
            &msg,
            &[
                "my.toml",
                "line 7",
                "mkt_unsubscribe",
                "line 6",
                "keep_names",
            ],
        );
    }
    let input = "https://go.example.com/lp/offer.html?mkt_tok=1&mkt_unsubscribe=1&b=2";
    for (first, second) in [
        (
            reg2,
            "list = \"none\", add_prefixes = [\"mkt_\"], keep_names = [\"mkt_unsubscribe\"]",
        ),
        ("list = \"none\", add_names = [\"mkt_unsubscribe\"]", reg2),
        (reg2, "list = \"registry@1\""),
    ] {
        let mut set = PolicySet::builtin();
        set.load_policy_file(&file(first, second), "ok.toml")
            .unwrap_or_else(|e| panic!("{first} / {second}: {e}"));
        let p = set.get("a@1").expect("loaded");
        let o = p.key(input);
        let key = o.key.clone().expect("valid");
        let again = p.key(&o.canonical.expect("valid"));
        assert_eq!(
            again.key.as_deref(),
            Some(key.as_str()),
            "{first} / {second}"
        );
    }
}

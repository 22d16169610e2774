//! Registry 2 and the redirect wrappers through `clean@1` and through a policy file:
//! every entry removed in its scope, kept out of it and in each of its
//! exceptions; every wrapper unwrapped, nested wrappers, targets that are not http(s).

use urlkey::internals::tracking::registry2::{Exception, Scope, REGISTRY_2};
use urlkey::internals::unwrap::{PathMatch, MAX_DEPTH, WRAPPERS};
use urlkey::internals::PolicyInternals;
use urlkey::tracking::MatchKind;
use urlkey::{Fact, Outcome, PolicySet};

fn clean(input: &str) -> Outcome {
    PolicySet::builtin()
        .get("clean@1")
        .expect("clean@1")
        .key(input)
}

fn key(input: &str) -> String {
    let o = clean(input);
    o.key.unwrap_or_else(|| panic!("{input}: {:?}", o.error))
}

/// The parameter name an entry is tested with: its name, or its prefix and more.
fn name_of(pattern: &str, kind: MatchKind) -> String {
    match kind {
        MatchKind::Exact => pattern.to_string(),
        MatchKind::Prefix => format!("{pattern}x"),
    }
}

/// A host inside an entry's scope.
fn host_in(scope: &Scope) -> String {
    match scope {
        Scope::Global => "shop.example".into(),
        Scope::Sites(sites) => format!("www.{}", sites[0]),
    }
}

#[test]
fn every_entry_is_removed_in_scope_and_the_rest_of_the_url_stays() {
    for r in REGISTRY_2 {
        let name = name_of(r.pattern, r.kind);
        let host = host_in(&r.scope);
        let url = format!("https://{host}/p/1?keep=1&{name}=v&also=2#frag");
        assert_eq!(
            key(&url),
            format!("https://{host}/p/1?keep=1&also=2#frag"),
            "{} ({})",
            r.pattern,
            r.platform
        );
        // Matched ignoring ASCII case, on the name as written.
        let upper = format!("https://{host}/p?{}=v", name.to_ascii_uppercase());
        assert_eq!(key(&upper), format!("https://{host}/p"), "{}", r.pattern);
        let o = clean(&upper);
        assert_eq!(o.removed_params, [name.to_ascii_uppercase()]);
        assert!(o.facts.contains(&Fact::TrackingParametersRemoved));
    }
}

#[test]
fn every_scoped_entry_is_kept_out_of_its_scope() {
    let mut scoped = 0;
    for r in REGISTRY_2 {
        let Scope::Sites(sites) = r.scope else {
            continue;
        };
        scoped += 1;
        let name = name_of(r.pattern, r.kind);
        for site in sites {
            // Every site of the scope, itself and below.
            for host in [site.to_string(), format!("a.{site}")] {
                assert_eq!(
                    key(&format!("https://{host}/x?{name}=1")),
                    format!("https://{host}/x")
                );
            }
            // A look-alike is not the site.
            let fake = format!("https://{site}.evil.example/x?{name}=1");
            assert_eq!(key(&fake), fake, "{}", r.pattern);
            let fake = format!("https://not{site}/x?{name}=1");
            assert_eq!(key(&fake), fake, "{}", r.pattern);
        }
        let other = format!("https://docs.example.org/x?{name}=1");
        assert_eq!(key(&other), other, "{} is not removed elsewhere", r.pattern);
    }
    assert!(scoped >= 5, "{scoped}");
}

#[test]
fn every_exception_keeps_its_parameter() {
    let mut seen = 0;
    for r in REGISTRY_2 {
        let name = name_of(r.pattern, r.kind);
        let host = host_in(&r.scope);
        for e in r.exceptions {
            seen += 1;
            let url = match e {
                Exception::Host(h) => format!("https://{h}/x?{name}=1"),
                Exception::PathContains(t) => format!("https://{host}/a/{t}/b?{name}=1"),
                Exception::WithParameter(p) => format!("https://{host}/x?{p}=1&{name}=1"),
            };
            assert_eq!(key(&url), url, "{}: {e:?}", r.pattern);
            // The same URL without the exception loses the parameter.
            let plain = format!("https://{host}/x?{name}=1");
            assert_eq!(key(&plain), format!("https://{host}/x"), "{}", r.pattern);
        }
    }
    assert!(seen >= 2, "{seen}");
    // Marketo's unsubscribe links, as Marketo writes them, keep mkt_tok; other trackers go.
    assert_eq!(
        key("https://go.example.com/UnsubscribePage.html?mkt_unsubscribe=1&mkt_tok=NzEy&utm_source=mkto"),
        "https://go.example.com/UnsubscribePage.html?mkt_unsubscribe=1&mkt_tok=NzEy"
    );
}

/// One wrapper's URL around `target`.
fn wrap(w: &urlkey::internals::unwrap::Wrapper, target: &str) -> String {
    let host = w.hosts[0].trim_start_matches('=');
    let host = if w.hosts[0].starts_with('=') {
        host.to_string()
    } else {
        format!("nam02.{host}")
    };
    let path = match w.paths[0] {
        PathMatch::Is(p) => p.to_string(),
        PathMatch::StartsWith(p) => format!("{p}t3_abc"),
    };
    let encoded: String = target
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("https://{host}{path}?x=1&{}={encoded}&y=2", w.params[0])
}

#[test]
fn every_wrapper_is_unwrapped_into_one_transformation_named_for_it() {
    for w in WRAPPERS {
        let url = wrap(w, "https://example.com/a?b=1&utm_source=x#f");
        let o = clean(&url);
        assert_eq!(
            o.key.as_deref(),
            Some("https://example.com/a?b=1#f"),
            "{}: {url}",
            w.name
        );
        assert_eq!(o.canonical, o.key, "{}", w.name);
        let unwraps: Vec<_> = o
            .transformations
            .iter()
            .filter(|t| t.rule == "unwrap-redirect")
            .collect();
        assert_eq!(unwraps.len(), 1, "{}", w.name);
        assert_eq!(unwraps[0].wrapper, Some(w.name));
        assert_eq!(unwraps[0].before, url);
        assert_eq!(unwraps[0].after, "https://example.com/a?b=1&utm_source=x#f");
        assert!(!o.facts.contains(&Fact::RedirectWrapperKept));
        // Each later target parameter works too (Google's url=, Steam's u=).
        for p in &w.params[1..] {
            let alt = url.replace(&format!("&{}=", w.params[0]), &format!("&{p}="));
            assert_eq!(
                key(&alt),
                "https://example.com/a?b=1#f",
                "{}: {alt}",
                w.name
            );
        }
    }
}

#[test]
fn nested_wrappers_unwrap_up_to_the_documented_depth() {
    let mut url = "https://example.com/deep?srsltid=1".to_string();
    let mut names = Vec::new();
    for (i, w) in WRAPPERS.iter().cycle().take(MAX_DEPTH).enumerate() {
        url = wrap(w, &url);
        names.push(w.name);
        let o = clean(&url);
        assert_eq!(
            o.key.as_deref(),
            Some("https://example.com/deep"),
            "depth {}",
            i + 1
        );
        let got: Vec<_> = o.transformations.iter().filter_map(|t| t.wrapper).collect();
        let want: Vec<_> = names.iter().rev().copied().collect();
        assert_eq!(got, want, "outermost first");
    }
    // One more: the chain is kept as written, and cleaning it again changes nothing.
    let deeper = wrap(&WRAPPERS[0], &url);
    let o = clean(&deeper);
    assert_eq!(o.key.as_deref(), Some(deeper.as_str()));
    assert!(o.facts.contains(&Fact::RedirectWrapperKept));
    assert_eq!(key(&key(&deeper)), key(&deeper));
}

#[test]
fn a_target_that_is_not_http_keeps_the_wrapper_with_a_fact() {
    for w in WRAPPERS {
        for target in [
            "javascript:alert(1)",
            "data:text/html,<b>x</b>",
            "/relative/path",
            "ftp://files.example/a",
            "https://",
        ] {
            let url = wrap(w, target);
            let o = clean(&url);
            assert_eq!(o.key.as_deref(), Some(url.as_str()), "{}: {target}", w.name);
            assert!(
                o.facts.contains(&Fact::RedirectWrapperKept),
                "{}: {target}",
                w.name
            );
            assert!(o
                .transformations
                .iter()
                .all(|t| t.rule != "unwrap-redirect"));
        }
    }
    // Unwrapped down to a wrapper that is kept: the fact, and the outer unwrap recorded.
    let inner = wrap(&WRAPPERS[0], "javascript:alert(1)");
    let o = clean(&wrap(&WRAPPERS[1], &inner));
    assert_eq!(o.key.as_deref(), Some(inner.as_str()));
    assert!(o.facts.contains(&Fact::RedirectWrapperKept));
}

#[test]
fn shorteners_and_look_alikes_are_not_wrappers() {
    for url in [
        "https://t.co/AbC?url=https%3A%2F%2Fexample.com%2F",
        "https://bit.ly/x?u=https%3A%2F%2Fexample.com%2F",
        "https://www.google.com/search?q=https%3A%2F%2Fexample.com%2F",
        "https://google.com.evil.example/url?q=https%3A%2F%2Fexample.com%2F",
        "https://l.facebook.com/other.php?u=https%3A%2F%2Fexample.com%2F",
    ] {
        assert_eq!(key(url), url);
        assert!(clean(url).transformations.is_empty(), "{url}");
    }
}

#[test]
fn the_lean_path_gives_the_same_keys() {
    let p = PolicySet::builtin().get("clean@1").expect("clean@1");
    let mut out = String::new();
    let mut cases = vec!["https://go.example.com/unsubscribe?mkt_tok=1".to_string()];
    for w in WRAPPERS {
        cases.push(wrap(w, "https://example.com/?gclid=1&a=2"));
        cases.push(wrap(w, "javascript:x"));
        cases.push(wrap(w, &wrap(w, "https://example.com/n")));
    }
    for c in &cases {
        p.key_into(c, &mut out).expect("valid");
        assert_eq!(Some(out.as_str()), p.key(c).key.as_deref(), "{c}");
    }
}

#[test]
fn policy_files_can_use_registry_2_and_unwrap_redirect() {
    let mut set = PolicySet::builtin();
    let ids = set
        .load_policy_file(
            r#"[[policy]]
id = "share@1"
parser = "whatwg"
key = "url"
rules = [
  { rule = "unwrap-redirect" },
  { rule = "remove-tracking-parameters", list = "registry@2", add_names = ["ref"], keep_names = ["utm_id"] },
]
"#,
            "share.toml",
        )
        .expect("loads");
    assert_eq!(ids, ["share@1"]);
    let p = set.get("share@1").expect("share@1");
    let o = p.key("https://l.facebook.com/l.php?u=https%3A%2F%2Fa.example%2F%3Fref%3Dx%26utm_id%3D7%26si%3D1%26srsltid%3D2");
    assert_eq!(o.key.as_deref(), Some("https://a.example/?utm_id=7&si=1"));
    // Written back, the definition reads as the same list.
    let toml = p.definition().to_policy_file("share-again@1");
    assert!(toml.contains(r#"list = "registry@2""#), "{toml}");
    let mut again = PolicySet::builtin();
    again
        .load_policy_file(&toml, "again.toml")
        .expect("reloads");
    assert_eq!(
        again.get("share-again@1").expect("id").definition().rules,
        p.definition().rules
    );
}

#[test]
fn docs_list_every_entry_and_wrapper_with_its_source() {
    let doc = include_str!("../../../docs/policies.md");
    let at = doc.find("### Registry 2").expect("section");
    let section = &doc[at..];
    for r in REGISTRY_2 {
        let cell = match r.kind {
            MatchKind::Exact => format!("| `{}` |", r.pattern),
            MatchKind::Prefix => format!("| `{}`* |", r.pattern),
        };
        let line = section
            .lines()
            .find(|l| l.starts_with(&cell) && l.contains(r.platform))
            .unwrap_or_else(|| {
                panic!(
                    "docs/policies.md: no row for {} ({})",
                    r.pattern, r.platform
                )
            });
        // The entry's first source is in its row.
        let first = r.sources[0].cite;
        let shown = if first.starts_with("https://") {
            format!("<{first}>")
        } else {
            format!("`{first}`")
        };
        assert!(line.contains(&shown), "{line}: {shown}");
    }
    for w in WRAPPERS {
        let line = section
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", w.name)))
            .unwrap_or_else(|| panic!("docs/policies.md: no row for wrapper {}", w.name));
        if !w.source.is_empty() {
            assert!(line.contains(&format!("<{}>", w.source)), "{line}");
        }
    }
}

#[test]
fn registry_1_and_its_policies_are_untouched() {
    // Registry 2's names are not in the released lists.
    let set = PolicySet::builtin();
    for id in ["mapper@1", "citation@1", "webkey@1"] {
        let p = set.get(id).expect("builtin");
        let o = p.key("https://www.youtube.com/watch?v=1&si=2&srsltid=3&mkt_tok=4");
        assert!(o.key.expect("key").contains("srsltid=3"), "{id}");
    }
    let o = set
        .get("citation@1")
        .expect("citation@1")
        .key("https://www.google.com/url?q=https://example.com/");
    assert_eq!(
        o.key.as_deref(),
        Some("https://www.google.com/url?q=https://example.com/")
    );
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    const TARGETS: [&str; 8] = [
        "https://example.com/a?b=1&srsltid=2#f",
        "https://www.youtube.com/watch?v=x&si=1&t=2",
        "https://go.example.com/unsubscribe?mkt_tok=1&utm_source=2",
        "javascript:alert(1)",
        "/relative?q=1",
        "http://[::1]:8080/x?gclid=1",
        "https://",
        "mailto:a@b.example?utm_source=x",
    ];

    proptest! {
        /// Any nesting of any wrappers (deeper than MAX_DEPTH included) around any target,
        /// with noise in each wrapper's query: cleaning is idempotent and the lean path
        /// agrees.
        #[test]
        fn nested_wrappers_clean_idempotently(
            target in 0..TARGETS.len(),
            chain in proptest::collection::vec(0..WRAPPERS.len(), 0..=MAX_DEPTH + 2),
            noise in proptest::collection::vec("(utm_source|si|x|q|u|url)=[a-z%]{0,3}", 0..3),
        ) {
            let mut url = TARGETS[target].to_string();
            for &w in &chain {
                url = wrap(&WRAPPERS[w], &url);
                for n in &noise {
                    url.push('&');
                    url.push_str(n);
                }
            }
            let p = PolicySet::builtin().get("clean@1").expect("clean@1");
            let o = p.key(&url);
            let mut lean = String::new();
            let lean_ok = p.key_into(&url, &mut lean).is_ok();
            prop_assert_eq!(lean_ok, o.key.is_some());
            if let (Some(k), Some(c)) = (o.key.as_deref(), o.canonical.as_deref()) {
                prop_assert_eq!(lean.as_str(), k);
                let again = p.key(c).key;
                prop_assert_eq!(again.as_deref(), Some(k), "canonical {}", c);
                let again = p.key(k).key;
                prop_assert_eq!(again.as_deref(), Some(k), "key {}", k);
                for t in &o.transformations {
                    prop_assert_ne!(&t.before, &t.after);
                }
            }
        }
    }
}

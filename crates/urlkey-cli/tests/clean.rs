//! `clean@1`, registry 2 and the redirect wrappers through the binary (docs/policies.md):
//! `urlkey key --policy clean@1`, `urlkey rules --registry 2`, `urlkey rules --check`.

use urlkey::internals::tracking::registry2::{Exception, Scope, REGISTRY_2};
use urlkey::internals::unwrap::{PathMatch, WRAPPERS};
use urlkey::tracking::MatchKind;

mod common;
use common::{ok, run};

/// `clean@1`'s keys of `inputs`, one process for all of them.
fn keys(inputs: &[String]) -> Vec<String> {
    let text = inputs.join("\n") + "\n";
    let out = ok(
        &["key", "--policy", "clean@1", "--format", "key", "--quiet"],
        text.as_bytes(),
    );
    let got: Vec<String> = out.lines().map(str::to_string).collect();
    assert_eq!(got.len(), inputs.len(), "{out}");
    got
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args, b"")).expect("JSON")
}

fn repo(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_chat_export_is_cleaned_as_a_person_expects() {
    let input = repo("examples/chat-export.txt");
    let expected =
        std::fs::read_to_string(repo("examples/chat-export.clean.txt")).expect("expected");
    let out = ok(
        &[
            "key", "--policy", "clean@1", "--format", "key", "--quiet", &input,
        ],
        b"",
    );
    let links: Vec<String> = std::fs::read_to_string(&input)
        .expect("input")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert_eq!(links.len(), 32);
    for ((link, got), want) in links.iter().zip(out.lines()).zip(expected.lines()) {
        assert_eq!(got, want, "{link}");
    }
    assert_eq!(out, expected);
    // A few of those links said outright, so that an edit of the expected file cannot
    // change what a person expects of them unnoticed.
    let want = [
        ("l.facebook.com", "https://www.bbc.co.uk/news/technology-67890123"),
        ("safelinks", "https://company.sharepoint.com/sites/HR/Shared%20Documents/Holiday-Policy-2027.pdf"),
        ("srsltid=AfmBOopQ7Z", "https://www.johnlewis.com/le-creuset-signature-cast-iron-round-casserole-24cm/p3185426?colour=Volcanic"),
        ("si=EZxw", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=43"),
        ("igsh=M2dm", "https://www.instagram.com/reel/C8q-L2XJPeC/"),
        ("mkt_unsubscribe", "https://go.acme-software.com/UnsubscribePage.html?mkt_unsubscribe=1&mkt_tok=NzEyLUFCQy0xMjMAAAGW"),
        ("https://t.co/", "https://t.co/Ab12Cd34Ef"),
        ("javascript", "https://www.google.com/url?q=javascript:alert(document.cookie)&sa=D"),
    ];
    for (needle, key) in want {
        let i = links.iter().position(|l| l.contains(needle)).expect(needle);
        assert_eq!(out.lines().nth(i), Some(key), "{needle}");
    }
}

#[test]
fn every_entry_through_the_binary_in_scope_out_of_scope_and_excepted() {
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for r in REGISTRY_2 {
        let name = match r.kind {
            MatchKind::Exact => r.pattern.to_string(),
            MatchKind::Prefix => format!("{}abc", r.pattern),
        };
        let host = match r.scope {
            Scope::Global => "shop.example".to_string(),
            Scope::Sites(s) => s[0].to_string(),
        };
        inputs.push(format!("https://{host}/a?x=1&{name}=v"));
        expected.push(format!("https://{host}/a?x=1"));
        if let Scope::Sites(_) = r.scope {
            let out = format!("https://elsewhere.example/a?{name}=v");
            inputs.push(out.clone());
            expected.push(out);
        }
        for e in r.exceptions {
            let kept = match e {
                Exception::Host(h) => format!("https://{h}/a?{name}=v"),
                Exception::PathContains(t) => format!("https://{host}/{t}?{name}=v"),
                Exception::WithParameter(p) => format!("https://{host}/a?{p}=1&{name}=v"),
            };
            inputs.push(kept.clone());
            expected.push(kept);
        }
    }
    let got = keys(&inputs);
    for ((i, g), e) in inputs.iter().zip(&got).zip(&expected) {
        assert_eq!(g, e, "{i}");
    }
}

#[test]
fn every_wrapper_through_the_binary_with_its_name_and_the_kept_fact() {
    for w in WRAPPERS {
        let host = match w.hosts[0].strip_prefix('=') {
            Some(h) => h.to_string(),
            None => format!("eur01.{}", w.hosts[0]),
        };
        let path = match w.paths[0] {
            PathMatch::Is(p) => p.to_string(),
            PathMatch::StartsWith(p) => format!("{p}x"),
        };
        let param = w.params[0];
        let good = format!(
            "https://{host}{path}?{param}=https%3A%2F%2Fexample.com%2Fp%3Fgclid%3D1%26k%3D2"
        );
        let bad = format!("https://{host}{path}?{param}=javascript%3Aalert(1)");
        let out = ok(
            &["key", "--policy", "clean@1", "--quiet"],
            format!("{good}\n{bad}\n").as_bytes(),
        );
        let recs: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSONL"))
            .collect();
        assert_eq!(recs[0]["key"], "https://example.com/p?k=2", "{}", w.name);
        assert_eq!(recs[0]["transformations"][0]["rule"], "unwrap-redirect");
        assert_eq!(recs[0]["transformations"][0]["component"], "url");
        assert_eq!(recs[0]["transformations"][0]["wrapper"], w.name);
        assert_eq!(recs[1]["key"], bad.as_str(), "{}", w.name);
        assert_eq!(
            recs[1]["facts"],
            serde_json::json!(["redirect-wrapper-kept"])
        );
    }
}

#[test]
fn rules_registry_2_prints_every_entry_and_wrapper_with_its_source() {
    let text = ok(&["rules", "--registry", "2"], b"");
    for r in REGISTRY_2 {
        let line = text
            .lines()
            .find(|l| {
                l.split_whitespace().next() == Some(r.pattern) && l.contains(r.platform)
                    || l.starts_with(&format!("{}*", r.pattern))
            })
            .unwrap_or_else(|| panic!("no line for {}", r.pattern));
        // Every source, each with its read date.
        for s in r.sources {
            assert!(
                line.contains(&format!("{} (read {})", s.cite, s.read)),
                "{line}: {}",
                s.cite
            );
        }
    }
    for w in WRAPPERS {
        assert!(text.lines().any(|l| l.starts_with(w.name)), "{}", w.name);
    }
    let v = json(&["rules", "--registry", "2", "--format", "json"]);
    assert_eq!(v["registry"], 2);
    assert_eq!(
        v["entries"].as_array().expect("entries").len(),
        REGISTRY_2.len()
    );
    assert_eq!(
        v["wrappers"].as_array().expect("wrappers").len(),
        WRAPPERS.len()
    );
    for (e, r) in v["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .zip(REGISTRY_2)
    {
        let sources = e["sources"].as_array().expect("sources");
        assert_eq!(sources.len(), r.sources.len(), "{}", r.pattern);
        assert!(!sources.is_empty(), "{}", r.pattern);
        for (j, s) in sources.iter().zip(r.sources) {
            assert_eq!(j["cite"], s.cite);
            assert_eq!(j["read"], s.read);
        }
    }
    for o in urlkey::internals::tracking::registry2::OPT_IN {
        assert!(text
            .lines()
            .any(|l| l.starts_with(o.pattern) && l.contains(o.platform)));
    }
    assert_eq!(
        v["opt_in"].as_array().expect("opt_in").len(),
        urlkey::internals::tracking::registry2::OPT_IN.len()
    );
    let tok = v["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["pattern"] == "mkt_tok")
        .expect("mkt_tok");
    assert_eq!(
        tok["exceptions"][0],
        serde_json::json!({"kind": "with-parameter", "value": "mkt_unsubscribe"})
    );
    assert_eq!(tok["scope"], serde_json::json!({"kind": "global"}));
    // Registry 1 is the default and unchanged.
    let one = json(&["rules", "--format", "json"]);
    assert_eq!(one.as_array().expect("array").len(), urlkey::REGISTRY.len());
    assert_eq!(json(&["rules", "--registry", "1", "--format", "json"]), one);
}

#[test]
fn rules_check_says_why_each_parameter_goes_or_stays() {
    let v = json(&[
        "rules",
        "--check",
        "https://www.youtube.com/watch?v=x&si=abc&utm_source=y",
        "--format",
        "json",
    ]);
    assert_eq!(v["registry"], 2);
    assert_eq!(v["wrapper"], serde_json::Value::Null);
    let params = v["parameters"].as_array().expect("parameters");
    let by = |n: &str| params.iter().find(|p| p["name"] == n).expect(n).clone();
    assert_eq!(by("v")["removed"], false);
    assert_eq!(by("v")["entries"], serde_json::json!([]));
    assert_eq!(by("si")["removed"], true);
    assert_eq!(by("utm_source")["removed"], true);
    // Elsewhere si is out of scope.
    let v = json(&[
        "rules",
        "--check",
        "https://docs.example.org/?si=1",
        "--format",
        "json",
    ]);
    let si = &v["parameters"][0];
    assert_eq!(si["removed"], false);
    assert!(si["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .all(|e| e["verdict"] == "out-of-scope"));
    // An exception names itself.
    let text = ok(
        &[
            "rules",
            "--check",
            "https://go.example.com/UnsubscribePage.html?mkt_unsubscribe=1&mkt_tok=t",
        ],
        b"",
    );
    assert!(
        text.contains("mkt_tok              kept: mkt_tok excepts with parameter mkt_unsubscribe"),
        "{text}"
    );
    // A wrapper: its target, or why it is kept.
    let v = json(&[
        "rules",
        "--check",
        "https://www.google.com/url?q=https://a.example/",
        "--format",
        "json",
    ]);
    assert_eq!(v["wrapper"]["name"], "google-url");
    assert_eq!(v["wrapper"]["target"], "https://a.example/");
    let v = json(&[
        "rules",
        "--check",
        "https://www.google.com/url?q=javascript:x",
        "--format",
        "json",
    ]);
    assert_eq!(v["wrapper"]["unwrapped"], false);
    assert_eq!(v["wrapper"]["target"], serde_json::Value::Null);
    // Registry 1: no scopes, by name.
    let text = ok(
        &[
            "rules",
            "--check",
            "https://a.example/?gclid=1&si=2",
            "--registry",
            "1",
        ],
        b"",
    );
    assert!(
        text.contains("gclid                removed by gclid"),
        "{text}"
    );
    assert!(
        text.contains("si                   kept: no entry names it"),
        "{text}"
    );
}

#[test]
fn rules_refuses_bad_input_with_the_tables_exit_codes() {
    let out = run(&["rules", "--check", "not a url"], b"");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("web.invalid-url"), "{err}");
    let out = run(&["rules", "--registry", "3"], b"");
    assert_eq!(out.status.code(), Some(2));
}

/// `--check` says which builtins remove each parameter: `srsltid` splits `citation@1`'s keys
/// and `citation@2` removes it; the lists agree with the keys the policies give.
#[test]
fn rules_check_names_the_policies_that_remove_each_parameter() {
    let url = "https://shop.example/p/?srsltid=AfmBO1&_hsmi=3&si=4&id=7";
    let v = json(&["rules", "--check", url, "--format", "json"]);
    let params = v["parameters"].as_array().expect("parameters");
    let by = |n: &str| params.iter().find(|p| p["name"] == n).expect(n).clone();
    let list = |p: &serde_json::Value, field: &str| -> Vec<String> {
        p[field]
            .as_array()
            .expect("array")
            .iter()
            .map(|x| x.as_str().expect("id").to_string())
            .collect()
    };
    let srsltid = by("srsltid");
    assert_eq!(list(&srsltid, "removed_under"), ["clean@1", "citation@2"]);
    assert_eq!(
        list(&srsltid, "kept_under"),
        ["mapper@1", "citation@1", "webkey@1"]
    );
    // Registry 2 leaves _hsmi to policy files; citation@1's _hs prefix removes it.
    let hsmi = by("_hsmi");
    assert_eq!(hsmi["removed"], false);
    assert_eq!(
        list(&hsmi, "removed_under"),
        ["mapper@1", "citation@1", "citation@2"]
    );
    assert!(
        list(&by("si"), "removed_under").is_empty(),
        "si is YouTube's and Spotify's only"
    );
    assert!(list(&by("id"), "removed_under").is_empty());
    // The same answer as the keys: each policy that removes a name drops it from the key.
    for policy in [
        "citation@1",
        "citation@2",
        "clean@1",
        "webkey@1",
        "mapper@1",
    ] {
        let key = ok(
            &["key", "--policy", policy, "--format", "key", "--quiet"],
            url.as_bytes(),
        );
        let query = key.trim_end().split_once('?').map_or("", |(_, q)| q);
        let names: Vec<&str> = query
            .split('&')
            .map(|p| p.split('=').next().unwrap_or(""))
            .collect();
        for p in params {
            let name = p["name"].as_str().expect("name");
            let removed = list(p, "removed_under").iter().any(|id| id == policy);
            assert_eq!(!names.contains(&name), removed, "{policy}: {name} in {key}");
        }
    }
    let text = ok(&["rules", "--check", url], b"");
    assert!(
        text.contains(
            "srsltid              removed by srsltid (Google Merchant Center)\n                     removed under: clean@1, citation@2; kept under: mapper@1, citation@1, webkey@1\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("id                   kept: no entry names it\n                     removed under: none; kept under: mapper@1, citation@1, webkey@1, clean@1, citation@2\n"),
        "{text}"
    );
}

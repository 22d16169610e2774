//! Properties of the builtin policies (docs/policies.md), checked on the golden inputs,
//! on the whole corpus `../shared/datasets/ada-url-various-datasets/**/*.txt` (read at
//! test time; the tests fail, naming the folder, when it is missing), on generated input
//! (proptest) and on the WPT `urltestdata.json` success cases.
//!
//! - Idempotence: `key(canonical(x)) == key(x)` for every policy and every accepted x.
//! - Every transformation is real: `before != after`, under a documented rule name.
//! - Keys that promise a URL are URLs: `whatwg@1` gives back every `mapper@1` (absolute),
//!   `citation@1` and `whatwg@1` key unchanged; `document@1` does not run the URL Standard,
//!   so what holds for it is weaker and stated in [`document_keys_are_fixed_points`].
//! - No panic on any input, for every policy and for `inspect`.
//! - The serialization of parts equals ada's `href` on every WPT success case.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
mod common;

use common::golden_inputs;
use urlkey::internals::policy::{builtin_variants, Rule};
use urlkey::internals::PolicyInternals;
use urlkey::{Outcome, Policy, PolicySet, WebUrl};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

/// Every builtin policy, and the one builtin option.
fn policy_ids() -> Vec<String> {
    builtin_variants()
}

fn policy(id: &str) -> Policy {
    PolicySet::builtin().get(id).unwrap()
}

/// The names the front ends record (docs/policies.md, "Front ends and their error codes");
/// every other transformation carries a name of the rule catalogue ([`Rule::names`]).
const FRONT_END_RECORDS: [&str; 2] = ["whatwg-parse", "assume-https"];

/// The corpus: every line of every `*.txt` file under the datasets folder, in file order.
fn corpus() -> &'static [(String, String)] {
    static LINES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    LINES.get_or_init(common::corpus_lines)
}

/// Runs `f` over `items` on two threads (the CI machine has two cores).
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let mid = items.len() / 2;
    let (a, b) = items.split_at(mid);
    std::thread::scope(|s| {
        let h = s.spawn(|| a.iter().map(&f).collect::<Vec<_>>());
        let mut rb: Vec<R> = b.iter().map(&f).collect();
        let mut ra = h.join().unwrap();
        ra.append(&mut rb);
        ra
    })
}

/// `key(canonical(x))` against `key(x)`; `None` when x is invalid, `Some(None)` when it
/// holds, `Some(Some(message))` when it does not.
fn idempotence(p: &Policy, x: &str) -> Option<Option<String>> {
    let o = p.key(x);
    let (key, canonical) = (
        o.key?,
        o.canonical.expect("a valid outcome has a canonical form"),
    );
    let again = p.key(&canonical);
    match again.key {
        Some(k) if k == key => Some(None),
        other => Some(Some(format!(
            "{}: {x:?}\n    key       {key:?}\n    canonical {canonical:?}\n    key(canonical) {:?}",
            p.id(),
            other.or_else(|| again.error.map(|e| format!("!{}", e.code.as_str())))
        ))),
    }
}

#[test]
fn idempotence_on_golden_inputs_and_the_whole_corpus() {
    let golden = golden_inputs();
    let corpus: Vec<String> = corpus().iter().map(|(_, l)| l.clone()).collect();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for id in policy_ids() {
        let p = policy(&id);
        for (what, inputs) in [("golden", &golden), ("corpus", &corpus)] {
            let results = par_map(inputs, |x| idempotence(&p, x));
            let accepted = results.iter().filter(|r| r.is_some()).count();
            report.push(format!(
                "{id} {what}: {accepted} accepted of {}",
                inputs.len()
            ));
            failures.extend(results.into_iter().flatten().flatten());
        }
    }
    println!("{}", report.join("\n"));
    // The corpus must really be checked: 109,062 lines (SOURCE.md), most of them accepted.
    assert_eq!(
        corpus.len(),
        109_062,
        "the corpus changed: update SOURCE.md and this test"
    );
    assert!(
        failures.is_empty(),
        "{} idempotence failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The lean key path (`key_into`, `key_signature_into`, `key_row_into`) against the full
/// outcome: same key or same error code, same signature, same removed parameters (for
/// `key_row_into`, which `urlkey map` writes its CSV rows from). `None` when they agree.
fn lean_disagrees(p: &Policy, x: &str) -> Option<String> {
    let o = p.key(x);
    let (mut key, mut k2, mut sig) = (String::from("stale"), String::new(), String::new());
    let (mut k3, mut sig3) = (String::from("stale"), String::from("stale"));
    let mut removed = vec![String::from("stale")];
    let lean = p.key_into(x, &mut key);
    let lean2 = p.key_signature_into(x, &mut k2, &mut sig);
    let lean3 = p.key_row_into(x, &mut k3, &mut sig3, &mut removed);
    let want = o
        .key
        .clone()
        .ok_or_else(|| o.error.as_ref().map(|e| e.code));
    let got = lean.map(|()| key.clone()).map_err(Some);
    let got2 = lean2.map(|()| k2.clone()).map_err(Some);
    let got3 = lean3.map(|()| k3.clone()).map_err(Some);
    let sig_want = o.signature.clone().unwrap_or_default();
    let row_ok =
        got3 == want && (o.key.is_none() || (sig3 == sig_want && removed == o.removed_params));
    if got != want
        || got2 != want
        || sig != sig_want
        || (o.key.is_none() && !key.is_empty())
        || !row_ok
    {
        return Some(format!(
            "{} {x:?}: outcome {want:?} / {sig_want:?} / {:?}, key_into {got:?}, key_signature_into {got2:?} / {sig:?}, key_row_into {got3:?} / {sig3:?} / {removed:?}",
            p.id(),
            o.removed_params
        ));
    }
    None
}

/// The lean key path gives the full path's keys, codes and signatures on the golden
/// inputs, the whole corpus and the WPT inputs, for every builtin and every example
/// policy file.
#[test]
fn lean_key_path_agrees_with_the_outcome() {
    let mut inputs = golden_inputs();
    inputs.extend(corpus().iter().map(|(_, l)| l.clone()));
    let wpt = std::fs::read_to_string(Path::new(SHARED).join("wpt/urltestdata.json"))
        .expect("../shared/wpt/urltestdata.json");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&wpt).unwrap();
    inputs.extend(
        cases
            .iter()
            .filter_map(|c| c.get("input").and_then(|i| i.as_str()).map(str::to_string)),
    );
    let mut set = PolicySet::builtin();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/examples");
    let mut ids = policy_ids();
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        if let Ok(added) = set.load_policy_file(&text, &name) {
            ids.extend(added);
        }
    }
    assert!(ids.len() >= 10, "example policies not loaded: {ids:?}");
    let mut bad = Vec::new();
    for id in &ids {
        let p = set.get(id).unwrap();
        bad.extend(
            par_map(&inputs, |x| lean_disagrees(&p, x))
                .into_iter()
                .flatten(),
        );
    }
    assert!(inputs.len() > 109_062, "{} inputs", inputs.len());
    assert!(
        bad.is_empty(),
        "{} disagreement(s):\n{}",
        bad.len(),
        bad[..bad.len().min(30)].join("\n")
    );
}

/// Every transformation of every corpus record changes its component, and is recorded
/// under a rule name that `docs/policies.md` documents.
#[test]
fn transformations_are_real_and_named() {
    let corpus: Vec<&str> = corpus().iter().map(|(_, l)| l.as_str()).collect();
    let mut bad = Vec::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for id in policy_ids() {
        let p = policy(&id);
        let per_input = par_map(&corpus, |x| {
            let o = p.key(x);
            let mut names = Vec::new();
            let mut errs = Vec::new();
            for t in &o.transformations {
                names.push(t.rule);
                if t.before == t.after {
                    errs.push(format!(
                        "{id}: {x:?}: {} did not change {:?}",
                        t.rule, t.before
                    ));
                }
                if !FRONT_END_RECORDS.contains(&t.rule) && !Rule::names().contains(&t.rule) {
                    errs.push(format!("{id}: {x:?}: undocumented rule name {:?}", t.rule));
                }
            }
            (names, errs)
        });
        for (names, errs) in per_input {
            for n in names {
                *counts.entry(n).or_default() += 1;
            }
            bad.extend(errs);
        }
    }
    println!("transformations per rule over the corpus, all policies: {counts:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(counts.values().sum::<usize>() > 100_000, "{counts:?}");
}

/// `whatwg@1` gives back every key of the policies that promise a URL: the key is accepted
/// and is its own serialization. Path-only `mapper@1` keys are accepted against the
/// placeholder base and keep their path and query.
#[test]
fn url_keys_are_accepted_by_whatwg() {
    let whatwg = policy("whatwg@1");
    let mut inputs: Vec<String> = corpus().iter().map(|(_, l)| l.clone()).collect();
    inputs.extend(golden_inputs());
    let mut bad = Vec::new();
    let mut checked = 0usize;
    for id in policy_ids() {
        let p = policy(&id);
        if !p.definition().key_is_whatwg_url() {
            continue;
        }
        let results = par_map(&inputs, |x| {
            let key = p.key(x).key?;
            let path_only = key.starts_with('/');
            let back = if path_only {
                whatwg.key_with_base(&key, Some(urlkey::internals::policy::PLACEHOLDER_BASE))
            } else {
                whatwg.key(&key)
            };
            let expected = if path_only {
                format!("https://path-only.urlkey.invalid{key}")
            } else {
                key.clone()
            };
            Some(
                (back.key.as_deref() != Some(expected.as_str()))
                    .then(|| format!("{id}: {x:?} -> key {key:?} -> whatwg@1 {:?}", back.key)),
            )
        });
        checked += results.iter().filter(|r| r.is_some()).count();
        bad.extend(results.into_iter().flatten().flatten());
    }
    println!("{checked} keys given back unchanged by whatwg@1");
    assert!(bad.is_empty(), "{} key(s):\n{}", bad.len(), bad.join("\n"));
}

/// `document@1` splits components without the URL Standard, so its keys need not be
/// WHATWG URLs (`https://a<b.example/`, `http://1.2.3.4.5/` and dot segments are kept).
/// What holds: a key is a fixed point of the policy (`document@1` gives it back), it
/// starts with `http://` or `https://`, its authority is lowercase with no userinfo and
/// no default port, its path starts with `/`, and it has no fragment.
#[test]
fn document_keys_are_fixed_points() {
    let p = policy("document@1");
    let whatwg = policy("whatwg@1");
    let mut inputs: Vec<String> = corpus().iter().map(|(_, l)| l.clone()).collect();
    inputs.extend(golden_inputs());
    let results = par_map(&inputs, |x| {
        let key = p.key(x).key?;
        let mut errs = Vec::new();
        let again = p.key(&key).key;
        if again.as_deref() != Some(key.as_str()) {
            errs.push(format!("{x:?} -> {key:?} -> {again:?}"));
        }
        let rest = key
            .strip_prefix("http://")
            .map(|r| (r, "80"))
            .or_else(|| key.strip_prefix("https://").map(|r| (r, "443")));
        match rest {
            None => errs.push(format!("{key:?}: not http(s)://")),
            Some((r, default_port)) => {
                let slash = r.find('/').unwrap_or(r.len());
                let authority = &r[..slash];
                if slash == r.len() || key.contains('#') || authority.contains('@') {
                    errs.push(format!("{key:?}: bad shape"));
                }
                if authority.bytes().any(|b| b.is_ascii_uppercase())
                    || authority.ends_with(&format!(":{default_port}"))
                {
                    errs.push(format!("{key:?}: authority not normalized"));
                }
            }
        }
        let whatwg_ok = whatwg.key(&key).is_valid();
        Some((errs, whatwg_ok))
    });
    let accepted = results.iter().flatten().count();
    let not_whatwg = results.iter().flatten().filter(|(_, ok)| !ok).count();
    let errs: Vec<String> = results.into_iter().flatten().flat_map(|(e, _)| e).collect();
    println!("document@1: {accepted} keys, {not_whatwg} of them not accepted by whatwg@1");
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The serialization of parts is the URL Standard's: on every success case of WPT
/// `urltestdata.json`, `whatwg@1`'s key is the expected `href`; the parts of that href
/// written back by a `key = "url"` policy without rules are the href again; and with
/// `remove-fragment` (which rebuilds the canonical form from the parts) and
/// `drop-credentials` they are the href less those components.
#[test]
fn parts_serialize_to_the_wpt_href() {
    let path = Path::new(SHARED).join("wpt/urltestdata.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}): WPT data is needed", path.display()));
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut set = PolicySet::builtin();
    set.load_policy_file(
        r#"
[[policy]]
id = "parts-url@1"
parser = "whatwg"
key = "url"

[[policy]]
id = "parts-nofragment@1"
parser = "whatwg"
key = "href"
rules = [{ rule = "remove-fragment" }]

[[policy]]
id = "parts-bare@1"
parser = "whatwg"
key = "url"
rules = [{ rule = "remove-fragment" }, { rule = "drop-credentials" }]
"#,
        "<test>",
    )
    .unwrap();
    let whatwg = set.get("whatwg@1").unwrap();
    let url_form = set.get("parts-url@1").unwrap();
    let nofrag = set.get("parts-nofragment@1").unwrap();
    let bare = set.get("parts-bare@1").unwrap();
    let mut bad = Vec::new();
    let mut n = 0;
    for case in data.as_array().unwrap().iter().filter(|c| c.is_object()) {
        if case.get("failure").is_some_and(|f| f == true) {
            continue;
        }
        n += 1;
        let input = case["input"].as_str().unwrap();
        let base = case["base"].as_str();
        let href = case["href"].as_str().unwrap();
        let o = whatwg.key_with_base(input, base);
        if o.key.as_deref() != Some(href) {
            bad.push(format!(
                "whatwg@1 {input:?} (base {base:?}): {:?} != {href:?}",
                o.key
            ));
            continue;
        }
        let k = url_form.key(href).key;
        if k.as_deref() != Some(href) {
            bad.push(format!("parts of {href:?} written back: {k:?}"));
        }
        let url = WebUrl::parse(href, None).unwrap();
        let without_fragment = href.split_once('#').map_or(href, |(a, _)| a);
        let c = nofrag.key(href).canonical;
        if c.as_deref() != Some(without_fragment) {
            bad.push(format!(
                "canonical of {href:?}: {c:?} != {without_fragment:?}"
            ));
        }
        let userinfo = match (url.username(), url.password()) {
            ("", "") => String::new(),
            (u, "") => format!("{u}@"),
            (u, p) => format!("{u}:{p}@"),
        };
        let without_userinfo = if userinfo.is_empty() {
            without_fragment.to_string()
        } else {
            without_fragment.replacen(&format!("//{userinfo}"), "//", 1)
        };
        let k = bare.key(href).key;
        if k.as_deref() != Some(without_userinfo.as_str()) {
            bad.push(format!(
                "bare parts of {href:?}: {k:?} != {without_userinfo:?}"
            ));
        }
    }
    assert!(n > 600, "only {n} WPT success cases");
    assert!(bad.is_empty(), "{} of {n}:\n{}", bad.len(), bad.join("\n"));
}

fn run_everything(set: &PolicySet, policies: &[Policy], input: &str) -> Vec<Outcome> {
    let out: Vec<Outcome> = policies.iter().map(|p| p.key(input)).collect();
    for p in policies {
        if let Some(msg) = lean_disagrees(p, input) {
            panic!("{msg}");
        }
    }
    if let Some(msg) = WebUrl::parse(input, None)
        .ok()
        .as_ref()
        .and_then(pieces_disagree)
    {
        panic!("{msg}");
    }
    let webkey = set.get("webkey@1").unwrap();
    let _ = urlkey::inspect(input, set, &webkey);
    out
}

fn all_policies() -> (PolicySet, Vec<Policy>) {
    let set = PolicySet::builtin();
    let ps = policy_ids().iter().map(|id| set.get(id).unwrap()).collect();
    (set, ps)
}

/// URL-ish text: schemes, authorities and paths built from the characters that matter.
fn urlish() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just(""),
        Just("http:"),
        Just("https:"),
        Just("HTTPS:"),
        Just("file:"),
        Just("mailto:"),
        Just("foo:"),
        Just("javascript:"),
        Just("ws:"),
    ];
    let slashes = prop_oneof![Just(""), Just("/"), Just("//"), Just("\\\\"), Just("///")];
    let auth = "[a-zA-Z0-9.@:%\\[\\]\\-_!~é\u{feff}\u{80}]{0,16}";
    let path = "[a-zA-Z0-9./%\\\\?#&=;+ \t\u{7f}\u{0}éß~\\-]{0,32}";
    (scheme, slashes, auth, path).prop_map(|(s, sl, a, p)| format!("{s}{sl}{a}{p}"))
}

/// Query-heavy URLs: tracking names, empty pieces, repeats, fragments.
fn query_heavy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("utm_source=x".to_string()),
        Just("UTM_x".to_string()),
        Just("_hsenc=1".to_string()),
        Just("gclid".to_string()),
        Just(String::new()),
        Just("=".to_string()),
        "[a-c]{0,2}(=[a-c%+]{0,3})?",
    ];
    (
        prop_oneof![
            Just("https://www.Example.co.uk"),
            Just("http://a.b:80"),
            Just("/p")
        ],
        "(/[a-zA-Z.%0-9]{0,6}){0,3}/?",
        proptest::collection::vec(piece, 0..6),
        proptest::option::of("[a-z!/]{0,4}"),
    )
        .prop_map(|(o, path, q, f)| {
            let mut s = format!("{o}{path}");
            if !q.is_empty() {
                s.push('?');
                s.push_str(&q.join("&"));
            }
            if let Some(f) = f {
                s.push('#');
                s.push_str(&f);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No panic on arbitrary Unicode text, for every policy and for inspect.
    #[test]
    fn no_panic_on_arbitrary_strings(s in any::<String>()) {
        let (set, ps) = all_policies();
        run_everything(&set, &ps, &s);
    }

    /// No panic on arbitrary bytes (read as lines are: invalid UTF-8 replaced).
    #[test]
    fn no_panic_on_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..96)) {
        let (set, ps) = all_policies();
        run_everything(&set, &ps, &String::from_utf8_lossy(&b));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// No panic, and idempotence, on generated URL-ish text (TRAPS.md: test
    /// `key(canonical(x)) == key(x)` with a fuzzer, not only on the corpus).
    #[test]
    fn urlish_input_no_panic_and_idempotent(s in urlish()) {
        let (set, ps) = all_policies();
        run_everything(&set, &ps, &s);
        for p in &ps {
            if let Some(Some(msg)) = idempotence(p, &s) {
                prop_assert!(false, "{}", msg);
            }
        }
    }

    /// Idempotence and URL keys on query-heavy input.
    #[test]
    fn query_heavy_input_is_idempotent(s in query_heavy()) {
        let (_, ps) = all_policies();
        for p in &ps {
            if let Some(Some(msg)) = idempotence(p, &s) {
                prop_assert!(false, "{}", msg);
            }
        }
    }
}

/// `WebUrl::pieces` (one look at the parser's offsets) equals the getters (one call into
/// the parser each) on every WPT success case, with and without its base, and on the
/// whole corpus.
#[test]
fn pieces_match_the_getters() {
    let path = Path::new(SHARED).join("wpt/urltestdata.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}): WPT data is needed", path.display()));
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut urls = Vec::new();
    for case in data.as_array().unwrap().iter().filter(|c| c.is_object()) {
        let input = case["input"].as_str().unwrap();
        let base = case.get("base").and_then(|b| b.as_str());
        urls.extend(WebUrl::parse(input, base).ok());
        urls.extend(WebUrl::parse(input, None).ok());
    }
    let wpt = urls.len();
    urls.extend(
        corpus()
            .iter()
            .filter_map(|(_, l)| WebUrl::parse(l, None).ok()),
    );
    let bad: Vec<String> = urls.iter().filter_map(pieces_disagree).collect();
    assert!(wpt > 1000, "only {wpt} WPT URLs");
    assert!(urls.len() > 100_000, "only {} URLs", urls.len());
    assert!(
        bad.is_empty(),
        "{} of {}:\n{}",
        bad.len(),
        urls.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// `None` when every field of `u.pieces()` equals its getter.
fn pieces_disagree(u: &WebUrl) -> Option<String> {
    let p = u.pieces();
    let userinfo = if u.password().is_empty() {
        u.username().to_string()
    } else {
        format!("{}:{}", u.username(), u.password())
    };
    let want = (
        u.href(),
        u.scheme(),
        u.username(),
        u.password(),
        userinfo.as_str(),
        u.hostname(),
        u.port(),
        u.pathname(),
        u.query(),
        u.fragment(),
        u.host_kind(),
        u.has_opaque_path(),
    );
    let got = (
        p.href,
        p.scheme,
        p.username,
        p.password,
        p.userinfo,
        p.hostname,
        p.port,
        p.pathname,
        p.query,
        p.fragment,
        p.host_kind,
        p.opaque_path,
    );
    (want != got).then(|| format!("{}:\n  getters {want:?}\n  pieces  {got:?}", u.href()))
}

//! The policy-file parser. Byte 0 even: the rest is TOML text as it is (arbitrary text);
//! odd: the rest drives a structured generator that writes a well-formed policy file from
//! the whole rule catalogue (any parser, key form, rule order and parameters), so the
//! rules run in every combination. Properties: never a panic; an accepted file's ids all
//! resolve; on each loaded policy, the outcome properties of `check_outcome` that hold
//! for every policy (real transformations, idempotence).
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use urlkey::PolicySet;

#[derive(Arbitrary, Debug)]
enum Parser {
    Whatwg { web_only: bool, infer_scheme: bool },
    Mapper,
    Document,
}

#[derive(Arbitrary, Debug)]
enum KeyForm {
    Href,
    Url,
    WebKey,
}

#[derive(Arbitrary, Debug)]
enum List {
    Registry,
    Registry2,
    Citation,
    None,
}

#[derive(Arbitrary, Debug)]
enum RuleGen {
    RemoveTrackingParameters {
        list: List,
        add_names: Vec<String>,
        add_prefixes: Vec<String>,
        keep_names: Vec<String>,
    },
    RemoveFragment(bool),
    SortQuery(bool),
    RemoveTrailingSlash(bool),
    /// Any rule of the catalogue with its default parameters, by its place in
    /// `Rule::names()` (so a new rule is generated without a change here).
    Named(u8),
}

#[derive(Arbitrary, Debug)]
struct PolicyGen {
    parser: Parser,
    key: KeyForm,
    rules: Vec<RuleGen>,
    inputs: Vec<String>,
}

/// A TOML basic string: JSON's escapes are TOML's, except that TOML also forbids a raw DEL.
fn q(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap()
        .replace('\u{7f}', "\\u007F")
}

fn list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| q(s)).collect();
    format!("[{}]", items.join(", "))
}

fn render(g: &PolicyGen) -> String {
    let mut t = String::from("[[policy]]\nid = \"gen@1\"\n");
    match &g.parser {
        Parser::Whatwg {
            web_only,
            infer_scheme,
        } => {
            t.push_str("parser = \"whatwg\"\n");
            if *web_only {
                t.push_str("schemes = \"web\"\n");
            }
            if *infer_scheme {
                t.push_str("infer_scheme = true\n");
            }
        }
        Parser::Mapper => t.push_str("parser = \"mapper\"\n"),
        Parser::Document => t.push_str("parser = \"document\"\n"),
    }
    t.push_str(match g.key {
        KeyForm::Href => "key = \"href\"\n",
        KeyForm::Url => "key = \"url\"\n",
        KeyForm::WebKey => "key = \"web-key\"\n",
    });
    t.push_str("rules = [\n");
    let mut written = 0;
    for r in &g.rules {
        let line = match r {
            RuleGen::RemoveTrackingParameters {
                list: l,
                add_names,
                add_prefixes,
                keep_names,
            } => {
                let l = match l {
                    List::Registry => "registry@1",
                    List::Registry2 => "registry@2",
                    List::Citation => "citation@1",
                    List::None => "none",
                };
                format!(
                    "{{ rule = \"remove-tracking-parameters\", list = \"{l}\", add_names = {}, add_prefixes = {}, keep_names = {} }}",
                    list(add_names),
                    list(add_prefixes),
                    list(keep_names)
                )
            }
            RuleGen::RemoveFragment(k) => {
                format!("{{ rule = \"remove-fragment\", keep_routes = {k} }}")
            }
            RuleGen::SortQuery(o) => format!(
                "{{ rule = \"sort-query\", order = \"{}\" }}",
                if *o { "ordinal" } else { "name-value" }
            ),
            RuleGen::RemoveTrailingSlash(all) => format!(
                "{{ rule = \"remove-trailing-slash\", mode = \"{}\" }}",
                if *all { "all" } else { "non-root" }
            ),
            RuleGen::Named(i) => {
                let names = urlkey::internals::policy::Rule::names();
                let name = names[usize::from(*i) % names.len()];
                // A file is refused when unwrap-redirect follows another rule (it would
                // act on the wrapper only): the generator writes well-formed files.
                if name == "unwrap-redirect" && written > 0 {
                    continue;
                }
                format!("{{ rule = \"{name}\" }}")
            }
        };
        written += 1;
        t.push_str("  ");
        t.push_str(&line);
        t.push_str(",\n");
    }
    t.push_str("]\n");
    t
}

const PROBES: [&str; 8] = [
    "HTTPS://user:pw@WWW.Example.co.uk.:443//A/./b/../Index.HTML/?utm_source=x&b=2&&a=1#/route",
    "/x//y/?b=&a=1#f",
    "mailto:A@B.example?subject=x",
    "http://[::1]:0080/%7e%2f",
    "example.com:8080/path/",
    "file:///C:/x/..",
    // Nested wrappers with registry-2 names in and out of scope.
    "https://www.google.com/url?q=https%3A%2F%2Fl.facebook.com%2Fl.php%3Fu%3Dhttps%253A%252F%252Fwww.youtube.com%252Fwatch%253Fv%253D1%2526si%253D2&si=3",
    "https://l.facebook.com/l.php?u=javascript%3Aalert(1)&mkt_tok=1&mkt_unsubscribe=1",
];

fn run(set: &PolicySet, ids: &[String], inputs: &[&str]) {
    for id in ids {
        let p = set
            .get(id)
            .unwrap_or_else(|e| panic!("loaded id {id:?} does not resolve: {e}"));
        for x in inputs.iter().chain(PROBES.iter()) {
            let o = p.key(x);
            urlkey_fuzz::check_outcome(&p, x, &o);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut set = PolicySet::builtin();
    if mode & 1 == 0 {
        let text = urlkey_fuzz::text(rest);
        if let Ok(ids) = set.load_policy_file(&text, "fuzz.toml") {
            run(&set, &ids, &[]);
        }
    } else {
        let mut u = Unstructured::new(rest);
        let Ok(g) = PolicyGen::arbitrary(&mut u) else {
            return;
        };
        let text = render(&g);
        if std::env::var_os("URLKEY_FUZZ_SHOW").is_some() {
            eprintln!("{text}");
        }
        let ids = match set.load_policy_file(&text, "gen.toml") {
            Ok(ids) => ids,
            // The one order of tracking rules a file may not have (docs/policies.md): a
            // later rule that removes what registry 2 keeps a parameter beside.
            Err(e) if e.to_string().contains("which registry 2 in the rule at line") => return,
            Err(e) => panic!("a well-formed generated file was refused: {e}\n{text}"),
        };
        assert_eq!(ids, ["gen@1"]);
        let inputs: Vec<&str> = g.inputs.iter().map(String::as_str).collect();
        run(&set, &ids, &inputs);
    }
});

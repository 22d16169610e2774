//! Every builtin policy is pinned to the list entries it shipped with: its rules in order
//! and, expanded, every entry of every list a rule reads (the tracking registries' names,
//! prefixes and scoped entries with their scopes and exceptions, the redirect wrappers, the
//! default documents). `tests/pinned/<variant>.txt` holds that list; it is frozen like the
//! golden fixtures, so an entry added to a registry fails here for each released policy it
//! would reach, and goes to a new registry version and a new policy version instead
//! (docs/policies.md, "Pinned lists").
//!
//! `URLKEY_BLESS=1` writes the file of a variant that has none (a new policy), never over
//! an existing one.

use std::fmt::Write as _;
use std::path::PathBuf;

use urlkey::internals::policy::rules::{RemoveTrackingParameters, Rule};
use urlkey::internals::policy::{builtin_variants, DEFAULT_DOCUMENTS};
use urlkey::internals::tracking::registry2::{self, ScopedRule};
use urlkey::internals::unwrap::{wrappers, WRAPPERS_VERSION};
use urlkey::internals::PolicyInternals;
use urlkey::PolicySet;

fn pinned_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pinned")
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializable")
}

/// What decides a scoped entry's verdicts (its sources and note do not).
fn scoped_line(r: &ScopedRule) -> String {
    format!(
        "  scoped {} {} scope={} exceptions={}",
        r.pattern,
        json(&r.kind),
        json(&r.scope),
        json(&r.exceptions)
    )
}

/// The rules of `variant` with every list they read, one entry a line.
fn dump(variant: &str) -> String {
    let set = PolicySet::builtin();
    let policy = set.get(variant).expect("a builtin variant");
    let mut out = format!("# {variant}: its rules in order, each list expanded\n");
    for rule in &policy.definition().rules {
        writeln!(out, "rule {}", json(rule)).expect("string");
        match rule {
            Rule::RemoveTrackingParameters(RemoveTrackingParameters(t)) => {
                for n in t.exact_names() {
                    writeln!(out, "  name {n}").expect("string");
                }
                for p in t.prefixes() {
                    writeln!(out, "  prefix {p}").expect("string");
                }
                for k in t.kept_names() {
                    writeln!(out, "  keep {k}").expect("string");
                }
                for r in t.scoped() {
                    writeln!(out, "{}", scoped_line(r)).expect("string");
                }
            }
            Rule::UnwrapRedirect(_) => {
                for w in wrappers(WRAPPERS_VERSION) {
                    writeln!(
                        out,
                        "  wrapper {} hosts={} paths={} params={}",
                        w.name,
                        json(&w.hosts),
                        json(&w.paths),
                        json(&w.params)
                    )
                    .expect("string");
                }
            }
            Rule::DropDefaultDocument(_) => {
                writeln!(out, "  documents {}", DEFAULT_DOCUMENTS.join(" ")).expect("string");
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_builtin_keeps_the_list_entries_it_shipped_with() {
    let bless = std::env::var_os("URLKEY_BLESS").is_some();
    let mut failures = Vec::new();
    for variant in builtin_variants() {
        let path = pinned_dir().join(format!("{variant}.txt"));
        let now = dump(&variant);
        match std::fs::read_to_string(&path) {
            Ok(pinned) if pinned == now => {}
            Ok(pinned) => failures.push(format!(
                "{variant}: its lists changed; a released policy's entries never change: give the new entry a higher `since` (a new registry or wrapper-list version) and a new policy version.\n--- pinned ({})\n{pinned}\n--- now\n{now}",
                path.display()
            )),
            Err(_) if bless => std::fs::write(&path, &now).expect("write the pinned list"),
            Err(e) => failures.push(format!(
                "{variant}: no pinned list at {} ({e}): a new policy writes it with URLKEY_BLESS=1 cargo test -p urlkey --test pinned, then review it",
                path.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_pinned_list_belongs_to_a_builtin() {
    let variants = builtin_variants();
    for entry in std::fs::read_dir(pinned_dir()).expect("tests/pinned") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let variant = name.strip_suffix(".txt").expect("only .txt files");
        assert!(
            variants.iter().any(|v| v == variant),
            "{name}: no builtin variant of that name"
        );
    }
}

/// The mechanism the pins rely on: an entry with a later `since` is outside the version
/// a released policy names.
#[test]
fn a_later_entry_reaches_only_the_later_version() {
    let v2 = registry2::entries_of(registry2::FIRST_VERSION).expect("registry@2");
    assert!(v2.iter().all(|r| r.since <= registry2::FIRST_VERSION));
    assert_eq!(
        v2.len(),
        registry2::REGISTRY_2
            .iter()
            .filter(|r| r.since <= registry2::FIRST_VERSION)
            .count()
    );
    assert!(registry2::entries_of(registry2::LATEST_VERSION + 1).is_none());
    assert!(registry2::entries_of(registry2::FIRST_VERSION - 1).is_none());
    assert!(wrappers(WRAPPERS_VERSION).all(|w| w.since <= WRAPPERS_VERSION));
    assert_eq!(
        urlkey::TrackingSet::registry_v2().scoped(),
        v2,
        "clean@1's set is registry@2's version, not the whole table"
    );
}

/// The dump is not vacuous: it names what each released policy's lists hold.
#[test]
fn the_pinned_lists_name_the_entries_that_decide_keys() {
    let clean = dump("clean@1");
    assert!(clean.contains("  scoped gclid "), "{clean}");
    assert!(clean.contains("  wrapper google-url "), "{clean}");
    let citation = dump("citation@1");
    assert!(citation.contains("  prefix utm_"), "{citation}");
    assert!(!citation.contains("  name gbraid"), "{citation}");
    let webkey = dump("webkey@1");
    assert!(webkey.contains("  documents index.html"), "{webkey}");
}

//! Property checks shared by the fuzz targets. Each `check_*` panics (with the input in
//! the message) when a property documented in `docs/policies.md`, `docs/cli.md` or
//! `docs/ledger.md` does not hold; libFuzzer then saves the input under `artifacts/`.

use std::sync::OnceLock;

use urlkey::internals::PolicyInternals;
use urlkey::internals::fast::{non_web_scheme_that_parses, FastUrl};
use urlkey::internals::offsets::{ComponentSpan, Offsets};
use urlkey::internals::policy::{builtin_variants, FrontEnd, KeyForm, PLACEHOLDER_BASE};
use urlkey::{Fact, Outcome, Policy, PolicySet, WebUrl};

/// The text a target runs on: the bytes as they are when they are UTF-8, else lossily
/// decoded (U+FFFD for each invalid sequence), as a reader of the input would see them.
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Every builtin policy, and each with each of its options, built once.
pub fn builtins() -> &'static (PolicySet, Vec<Policy>) {
    static SET: OnceLock<(PolicySet, Vec<Policy>)> = OnceLock::new();
    SET.get_or_init(|| {
        let set = PolicySet::builtin();
        let ps = builtin_variants()
            .iter()
            .map(|id| set.get(id).unwrap())
            .collect();
        (set, ps)
    })
}

fn policy(id: &str) -> &'static Policy {
    builtins().1.iter().find(|p| p.id() == id).unwrap()
}

/// The properties of one outcome of `p` on `x`:
/// - a valid outcome has a key and a canonical form, an invalid one an error and neither;
/// - every transformation changed its component (`before != after`);
/// - idempotence: `key(canonical(x)) == key(x)`;
/// - keys that promise a URL are URLs ([`urlkey::internals::policy::PolicyDef::key_is_whatwg_url`]):
///   `whatwg@1` gives them back unchanged (path-only `mapper@1` keys against the
///   placeholder base); the `document` front end gives back its own keys.
pub fn check_outcome(p: &Policy, x: &str, o: &Outcome) {
    let id = p.id();
    for t in &o.transformations {
        assert_ne!(
            t.before, t.after,
            "{id}: {x:?}: transformation {} of {:?} changed nothing",
            t.rule, t.component
        );
    }
    assert!(
        o.facts.windows(2).all(|w| w[0] < w[1]),
        "{id}: {x:?}: facts not sorted and distinct: {:?}",
        o.facts
    );
    let has = |f: Fact| o.facts.contains(&f);
    let rule = |r: &str| o.transformations.iter().any(|t| t.rule == r);
    assert_eq!(
        has(Fact::TrackingParametersRemoved),
        !o.removed_params.is_empty(),
        "{id}: {x:?}: tracking fact and removed_params disagree"
    );
    assert_eq!(
        rule("remove-tracking-parameters"),
        !o.removed_params.is_empty(),
        "{id}: {x:?}: tracking transformation and removed_params disagree"
    );
    assert_eq!(
        has(Fact::FragmentRemoved),
        rule("remove-fragment"),
        "{id}: {x:?}: fragment fact and transformation disagree"
    );
    let Some(key) = &o.key else {
        assert!(o.error.is_some(), "{id}: {x:?}: no key and no error");
        assert!(o.canonical.is_none(), "{id}: {x:?}: canonical without key");
        return;
    };
    assert!(o.error.is_none(), "{id}: {x:?}: a key and an error");
    assert!(
        o.signature.is_some(),
        "{id}: {x:?}: valid without a signature"
    );
    let canonical = o
        .canonical
        .as_deref()
        .unwrap_or_else(|| panic!("{id}: {x:?}: valid without a canonical form"));
    let again = p.key(canonical);
    assert_eq!(
        again.key.as_deref(),
        Some(key.as_str()),
        "{id}: idempotence: {x:?} -> canonical {canonical:?} -> {:?} (error {:?})",
        again.key,
        again.error.as_ref().map(|e| e.code.as_str())
    );
    let whatwg = policy("whatwg@1");
    let def = p.definition();
    if def.key_is_whatwg_url() {
        // Only the mapper front end keeps input path-only.
        let path_only = key.starts_with('/');
        let (back, expected) = if path_only {
            (
                whatwg.key_with_base(key, Some(PLACEHOLDER_BASE)),
                format!("https://path-only.urlkey.invalid{key}"),
            )
        } else {
            (whatwg.key(key), key.clone())
        };
        assert_eq!(
            back.key.as_deref(),
            Some(expected.as_str()),
            "{id}: {x:?} -> key {key:?}, which whatwg@1 does not give back (error {:?})",
            back.error.as_ref().map(|e| e.code.as_str())
        );
    } else if def.front == FrontEnd::Document
        && def.key_form != KeyForm::WebKey
        && builtins().1.iter().any(|b| b.id() == id)
    {
        // A document key that keeps its scheme is an absolute http(s) URL the document
        // front end takes back unchanged; a web key drops the scheme, which that front end
        // refuses (`document.unsupported-scheme`), so it cannot be a fixed point. Promised
        // of `document@1` (docs/policies.md, "Properties"), not of a policy file: a rule
        // that removes one of two trailing dots or slashes leaves a key it changes again.
        let again = p.key(key);
        assert_eq!(
            again.key.as_deref(),
            Some(key.as_str()),
            "{id}: {x:?} -> key {key:?} is not a fixed point"
        );
    }
}

/// Runs every builtin policy on `x` and checks [`check_outcome`].
pub fn check_all_policies(x: &str) {
    let (mut key, mut k2, mut sig) = (String::new(), String::new(), String::new());
    for p in &builtins().1 {
        let o = p.key(x);
        check_outcome(p, x, &o);
        // The lean key path gives the Outcome's key, error code and signature.
        let want = o
            .key
            .clone()
            .ok_or_else(|| o.error.as_ref().map(|e| e.code));
        let lean = p.key_into(x, &mut key).map(|()| key.clone()).map_err(Some);
        assert_eq!(lean, want, "{}: key_into of {x:?}", p.id());
        let lean2 = p
            .key_signature_into(x, &mut k2, &mut sig)
            .map(|()| k2.clone())
            .map_err(Some);
        assert_eq!(lean2, want, "{}: key_signature_into of {x:?}", p.id());
        assert_eq!(
            sig,
            o.signature.clone().unwrap_or_default(),
            "{}: signature of {x:?}",
            p.id()
        );
    }
    // One look at the parser's offsets gives what the getters give.
    if let Ok(u) = urlkey::WebUrl::parse(x, None) {
        let s = u.pieces();
        assert_eq!(
            (s.href, s.scheme, s.username, s.password, s.hostname, s.port, s.pathname),
            (
                u.href(),
                u.scheme(),
                u.username(),
                u.password(),
                u.hostname(),
                u.port(),
                u.pathname()
            ),
            "pieces of {x:?}"
        );
        assert_eq!(
            (s.query, s.fragment, s.host_kind),
            (u.query(), u.fragment(), u.host_kind())
        );
        assert_eq!(s.opaque_path, u.has_opaque_path(), "{x:?}");
    }
}

/// A span is within `input`, on char boundaries, `start <= end`, and its UTF-16 offsets
/// are the UTF-16 lengths of the byte prefixes.
pub fn check_span(input: &str, what: &str, c: &ComponentSpan) {
    let b = c.bytes;
    assert!(
        b.start <= b.end && b.end <= input.len(),
        "{what}: {b:?} out of {} bytes of {input:?}",
        input.len()
    );
    assert!(
        input.is_char_boundary(b.start) && input.is_char_boundary(b.end),
        "{what}: {b:?} not on char boundaries of {input:?}"
    );
    let u16_of = |n: usize| input[..n].encode_utf16().count();
    assert_eq!(
        (c.utf16.start, c.utf16.end),
        (u16_of(b.start), u16_of(b.end)),
        "{what}: UTF-16 offsets of {input:?} do not match bytes {b:?}"
    );
}

/// Every span is valid ([`check_span`]), the components are in input order without
/// overlap, the query's pieces lie inside the query, in order, and are never empty.
pub fn check_offsets(input: &str, o: &Offsets) {
    let comps = [
        ("scheme", &o.scheme),
        ("userinfo", &o.userinfo),
        ("host", &o.host),
        ("port", &o.port),
        ("path", &o.path),
        ("query", &o.query),
        ("fragment", &o.fragment),
    ];
    let mut prev_end = 0;
    let mut prev = "start";
    for (name, c) in comps {
        let Some(c) = c else { continue };
        check_span(input, name, c);
        assert!(
            c.bytes.start >= prev_end,
            "{name} {:?} starts before the end of {prev} ({prev_end}) in {input:?}",
            c.bytes
        );
        prev_end = c.bytes.end;
        prev = name;
    }
    assert!(o.path.is_some(), "no path span for {input:?}");
    let mut prev_end = o.query.map_or(0, |q| q.bytes.start);
    for p in &o.params {
        check_span(input, "param", &p.span);
        let q = o.query.expect("params without a query");
        assert!(
            p.span.bytes.start >= prev_end && p.span.bytes.end <= q.bytes.end,
            "param {:?} outside the query {:?} or out of order in {input:?}",
            p.span.bytes,
            q.bytes
        );
        assert!(p.span.bytes.start < p.span.bytes.end, "empty param span");
        prev_end = p.span.bytes.end;
    }
}

/// The fast parse and the early refusal against ada (`fuzz_targets/fast_path.rs`), on
/// `data` (lossily decoded, as a reader would) and on it as the path of a plain URL:
/// whenever [`FastUrl::parse`] accepts a text, ada parses it to the same components (href
/// included); whenever [`non_web_scheme_that_parses`] takes a text, ada parses it to a URL
/// with that scheme, lowercased; and every builtin that takes the fast path or refuses the
/// text before parsing gives the same outcome, lean key, code and signature as with both
/// turned off. Panics, with the input, on the first difference.
/// `crates/urlkey/tests/fast_path.rs` (`fuzz_corpus_replays_clean`) replays the committed
/// corpus (`fuzz/replay/fast_path/`) with the same comparisons in `cargo test`.
pub fn check_fast_path(data: &[u8]) {
    static POLICIES: OnceLock<Vec<(Policy, Policy)>> = OnceLock::new();
    let policies = POLICIES.get_or_init(|| {
        let set = PolicySet::builtin();
        builtin_variants()
            .iter()
            .filter_map(|id| set.get(id).ok())
            .map(|p| {
                let slow = p.without_fast_path();
                (p, slow)
            })
            .collect()
    });
    let text = String::from_utf8_lossy(data);
    let prefixed = format!("https://a.example/{text}");
    for x in [&*text, prefixed.as_str()] {
        if let Some(fast) = FastUrl::parse(x) {
            match WebUrl::parse(x, None) {
                Ok(u) => assert_eq!(fast.pieces(), u.pieces(), "{x:?}: fast parse != ada"),
                Err(e) => panic!("{x:?}: the fast parse accepts, ada fails with {}", e.code),
            }
        }
        if let Some(s) = non_web_scheme_that_parses(x) {
            match WebUrl::parse(x, None) {
                Ok(u) => assert_eq!(
                    (u.is_web(), u.scheme()),
                    (false, s.to_ascii_lowercase().as_str()),
                    "{x:?}: refused early as {s:?}"
                ),
                Err(e) => panic!("{x:?}: refused early as {s:?}, ada fails with {}", e.code),
            }
        }
        for (p, slow) in policies {
            if !p.takes_fast_path(x) && !p.refuses_early(x) {
                continue;
            }
            let id = p.id();
            assert_eq!(p.key(x), slow.key(x), "{id}: {x:?}: outcome differs");
            let (mut a, mut b, mut sa, mut sb) =
                (String::new(), String::new(), String::new(), String::new());
            assert_eq!(
                (p.key_into(x, &mut a), &a),
                (slow.key_into(x, &mut b), &b),
                "{id}: {x:?}: key_into differs"
            );
            assert_eq!(
                (p.key_signature_into(x, &mut a, &mut sa), &a, &sa),
                (slow.key_signature_into(x, &mut b, &mut sb), &b, &sb),
                "{id}: {x:?}: key_signature_into differs"
            );
        }
    }
}

/// A directory for the files a target writes per input, in memory (`/dev/shm`) when the
/// machine has it: the ledger syncs every commit (`synchronous = FULL`), which on a disk
/// would make each execution wait for an fsync.
pub fn scratch_dir() -> &'static std::path::Path {
    static D: OnceLock<tempfile::TempDir> = OnceLock::new();
    D.get_or_init(|| {
        let shm = std::path::Path::new("/dev/shm");
        if shm.is_dir() {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        }
        .expect("a scratch directory for the fuzz target")
    })
    .path()
}

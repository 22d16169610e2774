//! Fused key paths: one rule list, run as a single pass over simple input.
//!
//! A fused path is an optimization of [`super::Policy::key_into`] for one exact rule list,
//! never a second definition: it handles only input whose key it can write without any
//! judgement (printable ASCII, no credentials, no port, no brackets) and hands everything
//! else back (`None`) to the general front end and rules. Tests check it against the
//! general path and the full `Outcome` on the golden inputs, the corpus, the WPT inputs
//! and generated input (`tests/properties.rs`).

use crate::error::ErrorCode;
use crate::psl::PublicSuffixList;
use crate::web::HostKind;

use super::front::first_unusual_byte;
use super::parts::{Log, Parts};
use super::rules::{
    self, apply_all, CollapseSlashes, DecodeUnreserved, DropCredentials, DropDefaultDocument,
    DropEmptyParameters, DropEmptyQuery, DropOpaqueQuery, LowercasePath, RegistrableDomain,
    RemoveTrailingSlash, Rule, SortOrder, SortQuery, StripRootDot, TrailingSlash,
};
use super::PolicyDef;

/// Which fused path a definition can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fused {
    /// No fused path: the general front end and rules.
    None,
    /// `document@1`'s rules (docs/policies.md, "`document@1`") on the document front end.
    Document,
    /// `webkey@1`'s rules (docs/policies.md, "`webkey@1`") on its front end: the general
    /// front end, then the
    /// key rules through [`webkey_key_rules`].
    WebKey,
}

impl Fused {
    /// The fused path for a definition: by its front end, key form and exact rule list,
    /// so a policy file with the same rules gets it too.
    pub(crate) fn for_definition(def: &PolicyDef) -> Fused {
        // Compared with document@1's own definition (`builtin/document.rs`), so the rule
        // list exists once.
        let document = &super::builtin::document::POLICY;
        if def.front == document.front
            && def.key_form == document.key_form
            && def.rules == (document.rules)()
        {
            return Fused::Document;
        }
        let webkey = &super::builtin::webkey::POLICY;
        if def.front == webkey.front
            && def.key_form == webkey.key_form
            && def.rules == (webkey.rules)()
            && webkey_key_rules_are(&(webkey.rules)())
        {
            return Fused::WebKey;
        }
        Fused::None
    }
}

/// `document@1` in one pass: `Some` with the key written (or the scheme refused),
/// `None` when the input needs the general path.
pub(crate) fn document(text: &str, out: &mut String) -> Option<Result<(), ErrorCode>> {
    let b = text.as_bytes();
    // Controls, spaces, backslashes and non-ASCII text: the general path decides (and
    // names the character).
    if first_unusual_byte(b).is_some() {
        return None;
    }
    let scheme_len = if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
        4
    } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
        5
    } else {
        return Some(Err(ErrorCode::DocumentUnsupportedScheme));
    };
    let rest = &b[scheme_len + 3..];
    // The authority ends at the first `/`, `?` or `#`; credentials, ports and brackets
    // go to the general path.
    let mut auth_end = rest.len();
    for (i, &c) in rest.iter().enumerate() {
        match c {
            b'/' | b'?' | b'#' => {
                auth_end = i;
                break;
            }
            b'@' | b':' | b'[' | b']' => return None,
            _ => {}
        }
    }
    if auth_end == 0 {
        return None;
    }
    let host = &text[scheme_len + 3..scheme_len + 3 + auth_end];
    let after = &text[scheme_len + 3 + auth_end..];
    // The path ends at the first `?` or `#`; the query at the first `#` after its `?`.
    let (path, query) = match memchr::memchr2(b'?', b'#', after.as_bytes()) {
        None => (after, None),
        Some(i) if after.as_bytes()[i] == b'#' => (&after[..i], None),
        Some(i) => {
            let tail = &after[i + 1..];
            let q = memchr::memchr(b'#', tail.as_bytes()).map_or(tail, |j| &tail[..j]);
            (&after[..i], Some(q))
        }
    };
    // lowercase-scheme, lowercase-host, empty-path-to-root, remove-fragment,
    // drop-empty-query; normalize-port has no port to change.
    out.reserve(text.len() + 1);
    out.push_str(if scheme_len == 4 {
        "http://"
    } else {
        "https://"
    });
    let host_at = out.len();
    out.push_str(host);
    out[host_at..].make_ascii_lowercase();
    out.push_str(if path.is_empty() { "/" } else { path });
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        out.push('?');
        out.push_str(q);
    }
    Some(Ok(()))
}

/// `webkey@1`'s key rules (those after `remove-tracking-parameters` and `remove-fragment`,
/// which run first as the canonical rules), in its order: what [`webkey_key_rules`] does.
const WEBKEY_KEY_RULES: [Rule; 12] = [
    Rule::DropCredentials(DropCredentials),
    Rule::StripRootDot(StripRootDot),
    Rule::RegistrableDomain(RegistrableDomain),
    Rule::DecodeUnreserved(DecodeUnreserved),
    Rule::LowercasePath(LowercasePath),
    Rule::CollapseSlashes(CollapseSlashes),
    Rule::DropDefaultDocument(DropDefaultDocument),
    Rule::RemoveTrailingSlash(RemoveTrailingSlash {
        mode: TrailingSlash::All,
    }),
    Rule::DropEmptyParameters(DropEmptyParameters),
    Rule::SortQuery(SortQuery {
        order: SortOrder::Ordinal,
    }),
    Rule::DropEmptyQuery(DropEmptyQuery),
    Rule::DropOpaqueQuery(DropOpaqueQuery),
];

/// True when the key rules of `rules` (in order) are [`WEBKEY_KEY_RULES`]: if
/// `builtin/webkey.rs` and this file ever disagree, the policy takes the general rules.
fn webkey_key_rules_are(rules: &[Rule]) -> bool {
    rules
        .iter()
        .filter(|r| !r.is_canonical())
        .eq(WEBKEY_KEY_RULES.iter())
}

/// The path rules of [`WEBKEY_KEY_RULES`].
const WEBKEY_PATH_RULES: [Rule; 5] = [
    Rule::DecodeUnreserved(DecodeUnreserved),
    Rule::LowercasePath(LowercasePath),
    Rule::CollapseSlashes(CollapseSlashes),
    Rule::DropDefaultDocument(DropDefaultDocument),
    Rule::RemoveTrailingSlash(RemoveTrailingSlash {
        mode: TrailingSlash::All,
    }),
];

/// The query rules of [`WEBKEY_KEY_RULES`]; each needs a query.
const WEBKEY_QUERY_RULES: [Rule; 4] = [
    Rule::DropEmptyParameters(DropEmptyParameters),
    Rule::SortQuery(SortQuery {
        order: SortOrder::Ordinal,
    }),
    Rule::DropEmptyQuery(DropEmptyQuery),
    Rule::DropOpaqueQuery(DropOpaqueQuery),
];

/// [`WEBKEY_KEY_RULES`] on `p`, with the same effect on `p` and `log` as
/// `rules::apply_all(&WEBKEY_KEY_RULES, ..)`, for less: the five path rules each scan the
/// path (docs/benchmarks.md, "Why `webkey@1` costs more than ada"), and on most paths one scan
/// shows that three of them have nothing to do. A rule that may change something runs as
/// [`Rule::apply`], so there is one definition of what each does.
#[inline(never)]
pub(crate) fn webkey_key_rules(p: &mut Parts<'_>, log: &mut Log, psl: Option<&PublicSuffixList>) {
    if !p.userinfo.is_empty() {
        Rule::DropCredentials(DropCredentials).apply(p, log, psl);
    }
    if p.host_kind == HostKind::Domain {
        // strip-root-dot changes only a host that ends in '.' (and is more than the dot).
        if p.host
            .as_deref()
            .is_some_and(|h| h.len() > 1 && h.ends_with('.'))
        {
            Rule::StripRootDot(StripRootDot).apply(p, log, psl);
        }
        rules::registrable_domain(p, log, psl);
    }
    match (!p.opaque_path)
        .then(|| scan_path(p.path.as_bytes()))
        .flatten()
    {
        // No escape and no "//": decode-unreserved and collapse-slashes leave a
        // hierarchical path alone, before lowercase-path and after it (which changes
        // only ASCII capitals, in place), and the last segment starts where it did when
        // drop-default-document and remove-trailing-slash read it.
        Some(plain) => {
            if plain.capitals {
                rules::lowercase_whole_path(p, log);
            }
            if rules::is_default_document(&p.path[plain.last_segment..]) {
                Rule::DropDefaultDocument(DropDefaultDocument).apply(p, log, psl);
            }
            // remove-trailing-slash in its `All` mode: any final '/' goes.
            if p.path.ends_with('/') {
                rules::drop_final_slash(p, log);
            }
        }
        None => apply_all(&WEBKEY_PATH_RULES, p, log, psl),
    }
    if p.query.is_some() {
        apply_all(&WEBKEY_QUERY_RULES, p, log, psl);
    }
}

/// The high bit of each byte of `w` that equals `byte`. Exact: `(x & 0x7f) + 0x7f` sets a
/// byte's high bit iff its low seven bits are not all zero, with no carry out of the byte.
#[inline(always)]
fn bytes_equal(w: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = w ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !(((x & LOW7).wrapping_add(LOW7)) | x) & !LOW7
}

/// The high bit of each byte of `w` that is an ASCII capital (`A`..=`Z`). On the low
/// seven bits, `+ 0x3f` reaches the high bit from `A` (0x41) up and `+ 0x25` from `[`
/// (0x5b) up, with no carry out of the byte; bytes of 0x80 and more are no capital.
#[inline(always)]
fn ascii_capitals(w: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let y = w & LOW7;
    (y.wrapping_add(0x3f * ONES) & !y.wrapping_add(0x25 * ONES)) & !w & !LOW7
}

/// What [`scan_path`] found in a path with no `%` and no two `/` in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PlainPath {
    /// Where the last segment starts: after the last `/`, or 0.
    last_segment: usize,
    /// The path has an ASCII capital.
    capitals: bool,
}

/// The path's [`PlainPath`], or `None` when it has a `%` or two `/` in a row. Eight
/// bytes at a time (the last eight overlap the ones before; a path under eight bytes is
/// padded with zeros, which are none of these).
#[inline]
fn scan_path(b: &[u8]) -> Option<PlainPath> {
    let n = b.len();
    let word = |at: usize| {
        let mut w = [0u8; 8];
        match b.get(at..at + 8) {
            Some(eight) => w.copy_from_slice(eight),
            None => w[..n - at].copy_from_slice(&b[at..]),
        }
        u64::from_le_bytes(w)
    };
    // The word's '/' bits; `prev`: the high bit of the byte before the word, set when it
    // is a '/'. `None` for a '%' or a "//".
    let check = |w: u64, prev: u64| -> Option<u64> {
        let slash = bytes_equal(w, b'/');
        (bytes_equal(w, b'%') | (slash & (slash << 8 | prev)) == 0).then_some(slash)
    };
    // The word with the last '/' so far, and its '/' bits.
    let (mut last_at, mut last_slash) = (0, 0);
    let mut capitals = 0;
    let mut at = 0;
    if n > 8 {
        let mut prev = 0;
        while at + 8 < n {
            let w = word(at);
            let slash = check(w, prev)?;
            capitals |= ascii_capitals(w);
            if slash != 0 {
                (last_at, last_slash) = (at, slash);
            }
            prev = (slash >> 56) & 0x80;
            at += 8;
        }
        at = n - 8;
    }
    let prev = if at > 0 && b[at - 1] == b'/' { 0x80 } else { 0 };
    let w = word(at);
    let slash = check(w, prev)?;
    capitals |= ascii_capitals(w);
    if slash != 0 {
        (last_at, last_slash) = (at, slash);
    }
    let last_segment = if last_slash == 0 {
        0
    } else {
        last_at + (63 - last_slash.leading_zeros() as usize) / 8 + 1
    };
    Some(PlainPath {
        last_segment,
        capitals: capitals != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySet;

    /// `scan_path` by the rules' own tests, byte by byte.
    fn scan_path_reference(path: &str) -> Option<PlainPath> {
        (!path.contains('%') && !path.contains("//")).then(|| PlainPath {
            last_segment: path.rfind('/').map_or(0, |i| i + 1),
            capitals: path.bytes().any(|b| b.is_ascii_uppercase()),
        })
    }

    #[test]
    fn the_path_scan_agrees_with_the_rules_tests() {
        // Non-ASCII bytes whose low seven bits are a capital (0xc3 of "é", 0xda of
        // U+0680), '%' (0xa5 of "å") or '/' (0xaf of "ï") are none of these.
        let pieces = [
            "/",
            "a",
            "Z",
            "%",
            "é",
            "\u{680}",
            "å",
            "ï",
            "\u{7f}",
            "[",
            "@",
            "index.html",
        ];
        let mut paths = vec![String::new()];
        // Every path of up to four pieces, over every length around the 8-byte words.
        for _ in 0..4 {
            let longer: Vec<String> = paths
                .iter()
                .flat_map(|p| pieces.iter().map(move |q| format!("{p}{q}")))
                .collect();
            paths.extend(longer);
        }
        for pad in 0..18 {
            for tail in ["/", "//", "/A", "/%41", "/x/", "x/"] {
                paths.push(format!("/{}{tail}", "b".repeat(pad)));
                paths.push(format!("{}{tail}/y", "/c".repeat(pad)));
            }
        }
        for path in &paths {
            assert_eq!(
                scan_path(path.as_bytes()),
                scan_path_reference(path),
                "{path:?}"
            );
        }
    }

    #[test]
    fn webkey_at_1_has_the_fused_rules() {
        let set = PolicySet::builtin();
        assert_eq!(set.get("webkey@1").unwrap().fused, Fused::WebKey);
        assert!(webkey_key_rules_are(
            &(super::super::builtin::webkey::POLICY.rules)()
        ));
    }

    #[test]
    fn document_at_1_has_the_fused_path_and_it_handles_plain_urls() {
        let set = PolicySet::builtin();
        let p = set.get("document@1").unwrap();
        assert_eq!(p.fused, Fused::Document);
        assert_eq!(set.get("citation@1").unwrap().fused, Fused::None);
        let mut out = String::new();
        for (input, key) in [
            ("HTTPS://Example.COM", "https://example.com/"),
            ("http://a.example/P?q=1#f", "http://a.example/P?q=1"),
            ("https://a.example/x?#f", "https://a.example/x"),
            ("https://a.example#f?x", "https://a.example/"),
        ] {
            out.clear();
            assert_eq!(document(input, &mut out), Some(Ok(())), "{input}");
            assert_eq!(out, key, "{input}");
            assert_eq!(p.key(input).key.as_deref(), Some(key), "{input}");
        }
        for handed_back in [
            "https://a:8080/",
            "https://u@a/",
            "https://[::1]/",
            "https:///x",
            "https://a/ b",
            "https://é.example/",
        ] {
            assert_eq!(document(handed_back, &mut out), None, "{handed_back}");
        }
        assert_eq!(
            document("ftp://a/", &mut out),
            Some(Err(ErrorCode::DocumentUnsupportedScheme))
        );
    }
}

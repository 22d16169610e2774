//! Fused key paths: one rule list, run as a single pass over simple input.
//!
//! A fused path is an optimization of [`super::Policy::key_into`] for one exact rule list,
//! never a second definition: it handles only input whose key it can write without any
//! judgement (printable ASCII, no credentials, no port, no brackets) and hands everything
//! else back (`None`) to the general front end and rules. Tests check it against the
//! general path and the full `Outcome` on the golden inputs, the corpus, the WPT inputs
//! and generated input (`tests/properties.rs`).

use crate::error::ErrorCode;

use super::front::first_unusual_byte;
use super::PolicyDef;

/// Which fused path a definition can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fused {
    /// No fused path: the general front end and rules.
    None,
    /// `document@1`'s rules (seed 002) on the document front end.
    Document,
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
            Fused::Document
        } else {
            Fused::None
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySet;

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

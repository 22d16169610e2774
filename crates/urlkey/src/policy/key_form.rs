//! Key forms: how the final parts are written as the key, and the grouping signature.

use super::parts::Parts;
use crate::text;

/// How the key is written from the final parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyForm {
    /// The canonical URL itself, credentials and all (`whatwg@1`).
    Href,
    /// `scheme://host[:port]path[?query]`, or `path[?query]` for path-only input
    /// (with `userinfo@` and `#fragment` only when the policy's rules left them).
    Url,
    /// The comparison key's form (docs/policies.md, "Key forms"): no scheme for http(s),
    /// `scheme:[//]` otherwise; opaque paths as
    /// `scheme:path` (with `userinfo@` and `#fragment` only when the rules left them).
    WebKey,
}

/// The `web-key` form (docs/policies.md, "Key forms").
pub(super) fn write_webkey(p: &Parts<'_>, out: &mut String) {
    if p.opaque_path {
        out.push_str(&p.scheme);
        out.push(':');
        out.push_str(&p.path);
        if let Some(q) = &p.query {
            out.push('?');
            out.push_str(q);
        }
        push_fragment(out, p);
        return;
    }
    let host = p.host.as_deref().unwrap_or("");
    // The WHATWG front ends give the scheme lowercase: the exact test first.
    if !matches!(&*p.scheme, "https" | "http") && !text::is_web_scheme(&p.scheme) {
        out.push_str(&p.scheme);
        out.push(':');
        // "plus `//` when the address has a host": a host that is not null, the empty
        // host of `file:///x` included (https://url.spec.whatwg.org/#concept-url-serializer,
        // step 2).
        if p.host.is_some() {
            out.push_str("//");
        }
    }
    if !p.userinfo.is_empty() {
        out.push_str(&p.userinfo);
        out.push('@');
    }
    out.push_str(host);
    if !p.port.is_empty() {
        out.push(':');
        out.push_str(&p.port);
    }
    out.push_str(&p.path);
    if let Some(q) = &p.query {
        out.push('?');
        out.push_str(q);
    }
    push_fragment(out, p);
}

/// A fragment the rules kept (`remove-fragment` with `keep_routes`).
pub(super) fn push_fragment(out: &mut String, p: &Parts<'_>) {
    if let Some(f) = &p.fragment {
        out.push('#');
        out.push_str(f);
    }
}

/// The grouping signature: `host[:port]` + path + `?` + sorted distinct parameter names
/// joined by `&` (docs/policies.md, "Signature"). Values never enter it.
pub(super) fn write_signature(p: &Parts<'_>, s: &mut String) {
    if p.opaque_path {
        s.push_str(&p.scheme);
        s.push(':');
    } else if let Some(h) = &p.host {
        s.push_str(h);
        if !p.port.is_empty() {
            s.push(':');
            s.push_str(&p.port);
        }
    }
    s.push_str(&p.path);
    if let Some(q) = &p.query {
        // Most queries have few parameters: sort their names on the stack.
        let mut small: [&str; 64] = [""; 64];
        let mut large: Vec<&str> = Vec::new();
        let mut n = 0;
        for r in crate::query::raw_params(q).filter(|r| !r.piece.is_empty()) {
            if n < small.len() {
                small[n] = r.name;
            } else {
                if large.is_empty() {
                    large.extend_from_slice(&small);
                }
                large.push(r.name);
            }
            n += 1;
        }
        let names: &mut [&str] = if large.is_empty() {
            &mut small[..n]
        } else {
            &mut large
        };
        names.sort_unstable();
        let mut prev: Option<&str> = None;
        for name in names.iter() {
            if prev == Some(name) {
                continue;
            }
            s.push(if prev.is_none() { '?' } else { '&' });
            s.push_str(name);
            prev = Some(name);
        }
    }
}

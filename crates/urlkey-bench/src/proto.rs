//! Prototypes of the *lean key path* proposed in docs/benchmarks.md: the key of
//! `citation@1` and of `document@1` written into a caller's reused buffer, with no
//! allocation, no canonical form, signature, host copy, facts or transformation log,
//! and no error message (only the code; the message is built by the full policy on
//! demand). They exist to measure what the proposal would gain, and are checked to give
//! byte-identical keys to the builtins on the whole corpus (`urlkey-bench macro` and the
//! tests). They are not a second implementation to ship.

use urlkey::{ErrorCode, Policy, PolicySet, TrackingSet};

/// `citation@1`'s key, lean.
pub struct LeanCitation {
    tracking: TrackingSet,
    full: Policy,
    /// Query pieces as (start, name end, end) offsets into the query: reused per call.
    pieces: Vec<(u32, u32, u32)>,
}

impl Default for LeanCitation {
    fn default() -> Self {
        Self::new()
    }
}

impl LeanCitation {
    /// A new key path.
    pub fn new() -> Self {
        LeanCitation {
            tracking: TrackingSet::citation_v1(),
            full: PolicySet::builtin().get("citation@1").expect("builtin"),
            pieces: Vec::with_capacity(16),
        }
    }

    /// Writes the key of `input` into `out` (cleared first), or returns the error code.
    pub fn key_into(&mut self, input: &str, out: &mut String) -> Result<(), ErrorCode> {
        out.clear();
        if input.len() > 4096 {
            // Long input: the hardening checks of the full path.
            return self.slow(input, out);
        }
        let text = trim_c0_space(input);
        let Ok(u) = ada_url::Url::parse(text, None) else {
            return self.slow(input, out);
        };
        let href = u.href();
        let c = u.components();
        let scheme = &href[..c.protocol_end as usize - 1];
        if scheme != "http" && scheme != "https" {
            return Err(ErrorCode::CitationUnsupportedScheme);
        }
        let end = href.len();
        let path_start = c.pathname_start.map_or(end, |p| p as usize);
        let path_end = c.search_start.or(c.hash_start).map_or(end, |p| p as usize);
        let mut path = &href[path_start..path_end];
        let query = c
            .search_start
            .map(|s| &href[s as usize + 1..c.hash_start.map_or(end, |h| h as usize)]);
        out.reserve(href.len());
        out.push_str(scheme);
        out.push_str("://");
        out.push_str(u.hostname());
        let port = u.port();
        if !port.is_empty() {
            out.push(':');
            out.push_str(port);
        }
        // remove-trailing-slash (non-root); it runs last but touches only the path.
        if path.len() > 1 && path.ends_with('/') {
            path = &path[..path.len() - 1];
        }
        out.push_str(path);
        if let Some(q) = query {
            self.write_query(q, out);
        }
        Ok(())
    }

    /// remove-tracking-parameters, drop-empty-parameters, sort-query (name, value),
    /// drop-empty-query.
    fn write_query(&mut self, q: &str, out: &mut String) {
        self.pieces.clear();
        let mut removed = false;
        let mut start = 0usize;
        for piece in q.split('&') {
            let s = start;
            start += piece.len() + 1;
            if piece.is_empty() {
                continue; // drop-empty-parameters: an empty piece is no parameter
            }
            let name_len = piece.find('=').unwrap_or(piece.len());
            if self.tracking.matches(&piece[..name_len]) {
                removed = true;
                continue;
            }
            self.pieces
                .push((s as u32, (s + name_len) as u32, (s + piece.len()) as u32));
        }
        let piece = |p: &(u32, u32, u32)| &q[p.0 as usize..p.2 as usize];
        if removed && self.pieces.iter().all(|p| p.0 == p.2) {
            return; // the query disappears with its `?`
        }
        let qb = q.as_bytes();
        let name = |p: &(u32, u32, u32)| &qb[p.0 as usize..p.1 as usize];
        let value = |p: &(u32, u32, u32)| {
            if p.1 < p.2 {
                &qb[p.1 as usize + 1..p.2 as usize]
            } else {
                b"".as_slice()
            }
        };
        let ordered = self
            .pieces
            .windows(2)
            .all(|w| (name(&w[0]), value(&w[0])) <= (name(&w[1]), value(&w[1])));
        if !ordered {
            self.pieces
                .sort_by(|a, b| (name(a), value(a)).cmp(&(name(b), value(b))));
        }
        let len: usize = self.pieces.iter().map(|p| (p.2 - p.0) as usize + 1).sum();
        if len <= 1 {
            return; // drop-empty-query: `?` alone
        }
        out.push('?');
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(piece(p));
        }
    }

    #[cold]
    fn slow(&self, input: &str, out: &mut String) -> Result<(), ErrorCode> {
        let o = self.full.key(input);
        match (o.key, o.error) {
            (Some(k), _) => {
                out.push_str(&k);
                Ok(())
            }
            (None, Some(e)) => Err(e.code),
            (None, None) => Err(ErrorCode::WebInvalidUrl),
        }
    }
}

/// `document@1`'s key, lean.
pub struct LeanDocument {
    full: Policy,
}

impl Default for LeanDocument {
    fn default() -> Self {
        Self::new()
    }
}

impl LeanDocument {
    /// A new key path.
    pub fn new() -> Self {
        LeanDocument {
            full: PolicySet::builtin().get("document@1").expect("builtin"),
        }
    }

    /// Writes the key of `input` into `out` (cleared first), or returns the error code.
    pub fn key_into(&self, input: &str, out: &mut String) -> Result<(), ErrorCode> {
        out.clear();
        let text = trim_c0_space(input);
        let b = text.as_bytes();
        if input.len() > 64 * 1024 || !b.iter().all(|&c| c > 0x20 && c < 0x7f && c != b'\\') {
            // Non-ASCII, controls, spaces, backslashes: the full path decides.
            return self.slow(input, out);
        }
        let (scheme, rest) = if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
            ("http", &text[7..])
        } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
            ("https", &text[8..])
        } else {
            // Printable ASCII without `http(s)://`: the full path's next check fails too.
            return Err(ErrorCode::DocumentUnsupportedScheme);
        };
        let auth_end = rest
            .bytes()
            .position(|c| matches!(c, b'/' | b'?' | b'#'))
            .unwrap_or(rest.len());
        let authority = &rest[..auth_end];
        if authority.is_empty() || authority.bytes().any(|c| matches!(c, b'@' | b'[' | b']')) {
            return self.slow(input, out);
        }
        let (host, port) = match authority.find(':') {
            Some(i) => (&authority[..i], Some(&authority[i + 1..])),
            None => (authority, None),
        };
        if host.is_empty() || port.is_some_and(|p| p.contains(':')) {
            return self.slow(input, out);
        }
        let after = &rest[auth_end..];
        let before_frag = after.split_once('#').map_or(after, |(a, _)| a);
        let (path, query) = match before_frag.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (before_frag, None),
        };
        out.reserve(text.len());
        out.push_str(scheme);
        out.push_str("://");
        let at = out.len();
        out.push_str(host);
        out[at..].make_ascii_lowercase();
        if let Some(p) = port {
            let ok = !p.is_empty() && p.len() <= 5 && p.bytes().all(|c| c.is_ascii_digit());
            let value: u32 = match p.parse() {
                Ok(v) if ok && v <= 65535 => v,
                _ => return self.slow(input, out),
            };
            let default = if scheme == "http" { 80 } else { 443 };
            if value != default {
                use std::fmt::Write as _;
                let _ = write!(out, ":{value}");
            }
        }
        out.push_str(if path.is_empty() { "/" } else { path });
        if let Some(q) = query.filter(|q| !q.is_empty()) {
            out.push('?');
            out.push_str(q);
        }
        Ok(())
    }

    #[cold]
    fn slow(&self, input: &str, out: &mut String) -> Result<(), ErrorCode> {
        out.clear();
        let o = self.full.key(input);
        match (o.key, o.error) {
            (Some(k), _) => {
                out.push_str(&k);
                Ok(())
            }
            (None, Some(e)) => Err(e.code),
            (None, None) => Err(ErrorCode::DocumentUnsupportedScheme),
        }
    }
}

fn trim_c0_space(input: &str) -> &str {
    let b = input.as_bytes();
    let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c > b' ').map_or(start, |p| p + 1);
    &input[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<F: FnMut(&str, &mut String) -> Result<(), ErrorCode>>(id: &str, mut lean: F) {
        let Ok(corpus) = crate::corpus::Corpus::load_default() else {
            eprintln!("corpus not found; skipped");
            return;
        };
        let full = PolicySet::builtin().get(id).unwrap();
        let mut extra: Vec<String> = [
            "HTTP://Example.com:80/a//b/?utm_source=x&id=7&b=&a=1#frag",
            "https://u:p@Example.COM:8443/x/?b=2&a=1&&gclid=1",
            "https://a.test/?utm_source=x",
            "https://a.test/?&",
            "https://a.test/?",
            "https://a.test/p?x=2&x=1&x",
            "http://[::1]:80/",
            "https://a.test:0443/",
            "https://a.test:/",
            "http://a b/",
            "https://",
            "http://a:1:2/",
            "HTTPS://A.test:443",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Generated lines: case, default ports, doubled slashes, tracking, fragments.
        let bases = crate::gen::base_pool(&corpus);
        let o = crate::gen::GenOptions {
            lines: 20_000,
            distinct: 10_000,
            seed: 3,
            ..Default::default()
        };
        let mut buf = Vec::new();
        crate::gen::generate(&o, &bases, &mut buf).unwrap();
        extra.extend(String::from_utf8(buf).unwrap().lines().map(str::to_string));
        extra.extend(corpus.lines);
        let mut out = String::new();
        for l in &extra {
            let o = full.key(l);
            let r = lean(l, &mut out);
            match (o.key, o.error) {
                (Some(k), _) => assert_eq!(r.map(|_| out.as_str()), Ok(k.as_str()), "{id}: {l}"),
                (None, Some(e)) => assert_eq!(r, Err(e.code), "{id}: {l}"),
                _ => unreachable!(),
            }
        }
    }

    #[test]
    fn lean_citation_equals_the_builtin_on_the_corpus() {
        let mut lean = LeanCitation::new();
        check("citation@1", |s, out| lean.key_into(s, out));
    }

    #[test]
    fn lean_document_equals_the_builtin_on_the_corpus() {
        let lean = LeanDocument::new();
        check("document@1", |s, out| lean.key_into(s, out));
    }
}

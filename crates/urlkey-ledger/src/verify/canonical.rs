//! The publisher-declared canonical: `<link rel="canonical">` in the document head
//! (read with lol_html, a streaming parser: nothing past the head is needed) and the
//! `Link: <...>; rel="canonical"` response header.

use std::sync::{Arc, Mutex};

use lol_html::html_content::Element;
use lol_html::send::SendHandlerTypes;
use lol_html::{element, send, OutputSink};
use reqwest::Url;

#[derive(Debug, Default)]
struct HeadState {
    base_href: Option<String>,
    canonical_href: Option<String>,
    head_done: bool,
}

struct NullSink;

impl OutputSink for NullSink {
    fn handle_chunk(&mut self, _chunk: &[u8]) {}
}

/// Feeds a document's bytes, chunk by chunk, until the head is over.
pub struct HeadScanner {
    rewriter: Option<send::HtmlRewriter<'static, NullSink>>,
    state: Arc<Mutex<HeadState>>,
    error: Option<String>,
}

fn has_rel(rel: &str, wanted: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|t| t.eq_ignore_ascii_case(wanted))
}

impl Default for HeadScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl HeadScanner {
    /// A scanner for one document.
    pub fn new() -> HeadScanner {
        let state = Arc::new(Mutex::new(HeadState::default()));
        let s_link = Arc::clone(&state);
        let s_base = Arc::clone(&state);
        let s_head = Arc::clone(&state);
        let s_body = Arc::clone(&state);
        let settings = send::Settings::new_send()
            .append_element_content_handler(element!("link[rel]", move |el: &mut Element<
                '_,
                '_,
                SendHandlerTypes,
            >| {
                if let Ok(mut st) = s_link.lock() {
                    if !st.head_done && st.canonical_href.is_none() {
                        let rel = el.get_attribute("rel").unwrap_or_default();
                        if has_rel(&rel, "canonical") {
                            if let Some(href) = el.get_attribute("href") {
                                st.canonical_href = Some(href);
                            }
                        }
                    }
                }
                Ok(())
            }))
            .append_element_content_handler(element!("base[href]", move |el: &mut Element<
                '_,
                '_,
                SendHandlerTypes,
            >| {
                if let Ok(mut st) = s_base.lock() {
                    if !st.head_done && st.base_href.is_none() {
                        st.base_href = el.get_attribute("href");
                    }
                }
                Ok(())
            }))
            .append_element_content_handler(element!("head", move |el: &mut Element<
                '_,
                '_,
                SendHandlerTypes,
            >| {
                let s = Arc::clone(&s_head);
                let _ = el.on_end_tag(Box::new(move |_end| {
                    if let Ok(mut st) = s.lock() {
                        st.head_done = true;
                    }
                    Ok(())
                }));
                Ok(())
            }))
            .append_element_content_handler(element!("body", move |_el: &mut Element<
                '_,
                '_,
                SendHandlerTypes,
            >| {
                if let Ok(mut st) = s_body.lock() {
                    st.head_done = true;
                }
                Ok(())
            }));
        HeadScanner {
            rewriter: Some(send::HtmlRewriter::new(settings, NullSink)),
            state,
            error: None,
        }
    }

    /// Feeds one chunk. Returns true once the head is over (or parsing failed): the
    /// caller stops reading the body.
    pub fn feed(&mut self, chunk: &[u8]) -> bool {
        if let Some(r) = self.rewriter.as_mut() {
            if let Err(e) = r.write(chunk) {
                self.error = Some(format!("HTML parsing stopped: {e}"));
                self.rewriter = None;
                return true;
            }
        }
        self.head_done()
    }

    fn head_done(&self) -> bool {
        self.rewriter.is_none() || self.state.lock().map(|s| s.head_done).unwrap_or(true)
    }

    /// The canonical URL, resolved against the document's base URL (`<base href>` in the
    /// head, itself resolved against `final_url`; else `final_url`), and a note when
    /// something went wrong.
    pub fn finish(mut self, final_url: &Url) -> (Option<String>, Option<String>) {
        if let Some(r) = self.rewriter.take() {
            let _ = r.end();
        }
        let (base_href, href) = match self.state.lock() {
            Ok(s) => (s.base_href.clone(), s.canonical_href.clone()),
            Err(_) => (None, None),
        };
        let Some(href) = href else {
            return (None, self.error);
        };
        let base = base_href
            .and_then(|b| final_url.join(b.trim()).ok())
            .unwrap_or_else(|| final_url.clone());
        match base.join(href.trim()) {
            Ok(u) => (Some(u.to_string()), self.error),
            Err(e) => (
                None,
                Some(format!(
                    "the canonical link {href:?} does not resolve against {base}: {e}"
                )),
            ),
        }
    }
}

/// The first `rel="canonical"` target in `Link` header values, resolved against `base`.
pub fn canonical_from_link_headers<'a>(
    values: impl IntoIterator<Item = &'a str>,
    base: &Url,
) -> Option<String> {
    for value in values {
        for (target, params) in parse_link_header(value) {
            let is_canonical = params
                .iter()
                .any(|(k, v)| k.eq_ignore_ascii_case("rel") && has_rel(v, "canonical"));
            if is_canonical {
                if let Ok(u) = base.join(target.trim()) {
                    return Some(u.to_string());
                }
            }
        }
    }
    None
}

/// Splits one `Link` header value (RFC 8288) into `(target, [(param, value)])`.
pub fn parse_link_header(value: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut chars = value.char_indices().peekable();
    loop {
        // Skip to the next '<'.
        let start = loop {
            match chars.next() {
                Some((i, '<')) => break Some(i + 1),
                Some(_) => continue,
                None => break None,
            }
        };
        let Some(start) = start else { break };
        let end = loop {
            match chars.next() {
                Some((i, '>')) => break Some(i),
                Some(_) => continue,
                None => break None,
            }
        };
        let Some(end) = end else { break };
        let target = value[start..end].to_string();
        // Parameters up to the next top-level comma.
        let mut params = Vec::new();
        let mut current = String::new();
        let mut in_quotes = false;
        let mut escaped = false;
        let finish_param = |current: &mut String, params: &mut Vec<(String, String)>| {
            let p = current.trim();
            if !p.is_empty() {
                let (k, v) = match p.split_once('=') {
                    Some((k, v)) => (k.trim(), v.trim()),
                    None => (p, ""),
                };
                let v = v
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(v);
                params.push((k.to_string(), v.replace("\\\"", "\"")));
            }
            current.clear();
        };
        while let Some(&(_, c)) = chars.peek() {
            if !in_quotes && c == ',' {
                chars.next();
                break;
            }
            chars.next();
            if escaped {
                escaped = false;
                current.push(c);
                continue;
            }
            match c {
                '\\' if in_quotes => {
                    escaped = true;
                    current.push(c);
                }
                '"' => {
                    in_quotes = !in_quotes;
                    current.push(c);
                }
                ';' if !in_quotes => finish_param(&mut current, &mut params),
                _ => current.push(c),
            }
        }
        finish_param(&mut current, &mut params);
        out.push((target, params));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(doc: &str, chunk: usize, url: &str) -> (Option<String>, bool) {
        let base = Url::parse(url).expect("url");
        let mut s = HeadScanner::new();
        let mut stopped = false;
        for c in doc.as_bytes().chunks(chunk) {
            if s.feed(c) {
                stopped = true;
                break;
            }
        }
        (s.finish(&base).0, stopped)
    }

    #[test]
    fn canonical_in_head_resolves_against_the_final_url() {
        let doc = r#"<!doctype html><html><head><title>x</title>
            <LINK REL="Canonical" href="/guide?a=1"></head><body>
            <link rel="canonical" href="/wrong"></body></html>"#;
        for chunk in [1, 7, 4096] {
            let (c, stopped) = scan(doc, chunk, "https://docs.example.org/guide/?utm_source=x");
            assert_eq!(c.as_deref(), Some("https://docs.example.org/guide?a=1"));
            assert!(stopped, "stops once the head is over (chunk {chunk})");
        }
    }

    #[test]
    fn canonical_in_body_is_ignored_and_base_is_honoured() {
        let doc = r#"<html><head><base href="https://cdn.example.net/docs/"></head>
            <body><link rel="canonical" href="/body"></body></html>"#;
        assert_eq!(scan(doc, 16, "https://docs.example.org/").0, None);
        let doc =
            r#"<html><head><base href="/v2/"><link rel="alternate canonical" href="page"></head>"#;
        assert_eq!(
            scan(doc, 16, "https://docs.example.org/x").0.as_deref(),
            Some("https://docs.example.org/v2/page")
        );
    }

    #[test]
    fn link_headers() {
        let base = Url::parse("https://docs.example.org/a/b").expect("url");
        let v = r#"<https://cdn.example.org/x.css>; rel="preload"; as="style", </a/canonical>; rel="canonical""#;
        assert_eq!(
            canonical_from_link_headers([v], &base).as_deref(),
            Some("https://docs.example.org/a/canonical")
        );
        let v = r#"<https://docs.example.org/c>; title="a, b; c"; rel=canonical"#;
        assert_eq!(
            canonical_from_link_headers([v], &base).as_deref(),
            Some("https://docs.example.org/c")
        );
        assert_eq!(canonical_from_link_headers(["<x>; rel=next"], &base), None);
        assert_eq!(canonical_from_link_headers(["garbage"], &base), None);
    }
}

//! A MAP row's source and target in the form a browser sends and follows: each is parsed
//! with the URL Standard (the parser browsers use), so `/a b` becomes `/a%20b` and `/café`
//! becomes `/caf%C3%A9`, which is what reaches the server and what the compiled file must
//! hold. Existing `%XX` escapes are kept as written.

use urlkey::WebUrl;

/// The base a path is resolved against: its host never reaches a compiled file.
const BASE: &str = "http://urlkey.invalid";

/// A source as the server receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceUrl {
    /// `http` or `https` when the source was a full URL.
    pub scheme: Option<String>,
    /// `host[:port]` (lowercase, IDNA-encoded) when the source was a full URL.
    pub host: Option<String>,
    /// The path, percent-encoded as a browser sends it; starts with `/`.
    pub path: String,
    /// The query without `?` (`Some("")` for a bare `?`).
    pub query: Option<String>,
}

impl SourceUrl {
    /// The request target: path and query, as in the request line.
    pub fn path_query(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }
}

/// Why a source or target cannot be written for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlProblem {
    /// Neither a path starting with `/` nor an `http(s)` URL.
    NotAPath,
    /// A source with a `#fragment`: browsers never send one to the server.
    Fragment,
}

/// Parses a source: a path (`/old?id=7`) or an `http(s)` URL.
pub fn source(written: &str) -> Result<SourceUrl, UrlProblem> {
    let (url, full) = parse(written)?;
    if url.fragment().is_some() {
        return Err(UrlProblem::Fragment);
    }
    Ok(SourceUrl {
        scheme: full.then(|| url.scheme().to_string()),
        host: full.then(|| url.host().to_string()),
        path: url.pathname().to_string(),
        query: url.query().map(str::to_string),
    })
}

/// Parses a target: a path is kept a path (the server makes it absolute on its own
/// host), an `http(s)` URL is kept whole; a fragment is kept (the browser applies it).
pub fn target(written: &str) -> Result<String, UrlProblem> {
    let (url, full) = parse(written)?;
    if full {
        return Ok(url.href().to_string());
    }
    let mut t = url.pathname().to_string();
    if let Some(q) = url.query() {
        t.push('?');
        t.push_str(q);
    }
    if let Some(f) = url.fragment() {
        t.push('#');
        t.push_str(f);
    }
    Ok(t)
}

/// The URL and whether it was written in full (scheme and host).
fn parse(written: &str) -> Result<(WebUrl, bool), UrlProblem> {
    // `//host/x` (scheme-relative) would take the base's scheme: refused as ambiguous.
    let path = written.starts_with('/') && !written.starts_with("//");
    if path {
        let url = WebUrl::parse(written, Some(BASE)).map_err(|_| UrlProblem::NotAPath)?;
        return Ok((url, false));
    }
    match WebUrl::parse(written, None) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && !url.hostname().is_empty() => {
            Ok((url, true))
        }
        _ => Err(UrlProblem::NotAPath),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_take_the_form_a_browser_sends() {
        let s = source("/a b/café?q=x y&'=\"").unwrap();
        assert_eq!(s.path, "/a%20b/caf%C3%A9");
        assert_eq!(s.query.as_deref(), Some("q=x%20y&%27=%22"));
        assert_eq!((s.scheme, s.host), (None, None));
        let s = source("HTTPS://Old.Example.COM:8443/Keep%20Case?").unwrap();
        assert_eq!(s.host.as_deref(), Some("old.example.com:8443"));
        assert_eq!(s.scheme.as_deref(), Some("https"));
        assert_eq!(s.path_query(), "/Keep%20Case?");
        assert_eq!(source("/a/../b\\c?d\\e").unwrap().path_query(), "/b/c?d\\e");
        assert_eq!(source("/a#top"), Err(UrlProblem::Fragment));
        for bad in [
            "old-page",
            "*",
            "//cdn.example.com/x",
            "ftp://h/x",
            "mailto:a@b",
            "",
        ] {
            assert_eq!(source(bad), Err(UrlProblem::NotAPath), "{bad}");
        }
    }

    #[test]
    fn targets_keep_paths_relative_and_urls_whole() {
        assert_eq!(target("/new page#s 2").unwrap(), "/new%20page#s%202");
        assert_eq!(
            target("https://New.example/ü?x=1").unwrap(),
            "https://new.example/%C3%BC?x=1"
        );
        assert_eq!(target("new"), Err(UrlProblem::NotAPath));
    }
}

//! The URLs of a live test: the base (an origin), what is requested for a row's source,
//! and the URL its target names.

use std::fmt;

use url::Url;

/// Why a base cannot be tested against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseError {
    /// Not an absolute URL.
    Unparseable(String),
    /// Not http or https.
    Scheme(String),
    /// It carries a user name or password (never sent).
    Userinfo,
    /// It has a path, a query or a fragment: a base is an origin.
    NotAnOrigin(String),
}

impl fmt::Display for BaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseError::Unparseable(e) => write!(
                f,
                "not an absolute URL ({e}): give the site's origin, such as https://staging.example.com"
            ),
            BaseError::Scheme(s) => write!(f, "only http and https sites are tested, not {s}:"),
            BaseError::Userinfo => {
                f.write_str("a user name or password is never sent: give the origin without it")
            }
            BaseError::NotAnOrigin(u) => write!(
                f,
                "{u} has a path, query or fragment: give the origin only (scheme, host, port); \
                 each source's own path and query are requested there"
            ),
        }
    }
}

impl std::error::Error for BaseError {}

/// The origin a map is tested against: `http(s)://host[:port]`, nothing after the `/`.
///
/// ```
/// use urlkey_redirects::live::base_url;
/// assert_eq!(base_url("https://Staging.Example.com").unwrap().as_str(), "https://staging.example.com/");
/// assert!(base_url("https://staging.example.com/shop/").is_err());
/// ```
pub fn base_url(text: &str) -> Result<Url, BaseError> {
    let url = Url::parse(text.trim()).map_err(|e| BaseError::Unparseable(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BaseError::Scheme(url.scheme().to_string()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BaseError::Userinfo);
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(BaseError::NotAnOrigin(url.to_string()));
    }
    Ok(url)
}

/// What is requested for a source: its path and query at the base. A source that is a
/// full URL (or `//host/...`) gives its path and query only: its scheme and host are the
/// old site's, and the base is where the map is served now. A path without its leading
/// `/` is read from the root. The fragment is never sent.
///
/// ```
/// use urlkey_redirects::live::{base_url, request_url};
/// let base = base_url("http://127.0.0.1:8080").unwrap();
/// let r = |s| request_url(&base, s).unwrap().to_string();
/// assert_eq!(r("/old?id=7#top"), "http://127.0.0.1:8080/old?id=7");
/// assert_eq!(r("https://www.old.example/Old/Page.html"), "http://127.0.0.1:8080/Old/Page.html");
/// assert_eq!(r("old.php"), "http://127.0.0.1:8080/old.php");
/// ```
pub fn request_url(base: &Url, source: &str) -> Result<Url, url::ParseError> {
    let parsed = match Url::parse(source) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => base.join(source)?,
        Err(e) => return Err(e),
    };
    let mut url = base.clone();
    url.set_path(parsed.path());
    url.set_query(parsed.query());
    Ok(url)
}

/// The URL a target names: a full URL as written, a path resolved against the base.
pub fn target_url(base: &Url, target: &str) -> Result<Url, url::ParseError> {
    match Url::parse(target) {
        Ok(u) => Ok(u),
        Err(url::ParseError::RelativeUrlWithoutBase) => base.join(target),
        Err(e) => Err(e),
    }
}

/// Whether `a` and `b` are one URL. The fragment counts only when both have one (a
/// request never carries it, so a hop's URL has none).
pub fn same_url(a: &Url, b: &Url) -> bool {
    if a.fragment().is_some() && b.fragment().is_some() {
        return a == b;
    }
    let mut a = a.clone();
    let mut b = b.clone();
    a.set_fragment(None);
    b.set_fragment(None);
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_is_an_origin() {
        assert!(base_url("http://127.0.0.1:8080/").is_ok());
        assert!(matches!(
            base_url("example.com"),
            Err(BaseError::Unparseable(_))
        ));
        assert!(matches!(
            base_url("ftp://example.com"),
            Err(BaseError::Scheme(_))
        ));
        assert!(matches!(
            base_url("http://u:p@example.com"),
            Err(BaseError::Userinfo)
        ));
        for u in [
            "http://a.example/x",
            "http://a.example/?q",
            "http://a.example/#f",
        ] {
            assert!(matches!(base_url(u), Err(BaseError::NotAnOrigin(_))), "{u}");
        }
    }

    #[test]
    fn sources_keep_their_path_and_query_only() {
        let base = base_url("https://staging.example.com").unwrap();
        let r = |s| request_url(&base, s).unwrap().to_string();
        assert_eq!(
            r("//old.example/a?b=1"),
            "https://staging.example.com/a?b=1"
        );
        assert_eq!(
            r("/caf\u{e9} menu"),
            "https://staging.example.com/caf%C3%A9%20menu"
        );
        assert_eq!(r("/a?"), "https://staging.example.com/a?");
        assert!(request_url(&base, "http://[::1/").is_err());
    }

    #[test]
    fn targets_compare_as_urls() {
        let base = base_url("http://127.0.0.1:8080").unwrap();
        let t = |s| target_url(&base, s).unwrap();
        assert!(same_url(&t("/new"), &t("HTTP://127.0.0.1:8080/new")));
        assert!(same_url(&t("/new#top"), &t("/new")));
        assert!(!same_url(&t("/new#top"), &t("/new#bottom")));
        assert!(!same_url(&t("/new"), &t("/new/")));
        assert!(!same_url(&t("/new"), &t("/New")));
        assert!(same_url(
            &t("https://x.example:443/a"),
            &t("https://X.example/a")
        ));
    }
}

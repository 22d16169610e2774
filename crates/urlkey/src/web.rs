//! The WHATWG URL Standard, through ada (a conformant implementation of
//! <https://url.spec.whatwg.org/>). Everything the policies read of a parsed URL comes
//! from [`WebUrl`]; error classification and the 4096-unit host limit (docs/policies.md,
//! the `whatwg` front end) live here.

use crate::error::{ErrorCode, KeyError};
use crate::text;

/// The 4096-unit host limit (docs/policies.md): a non-ASCII host longer than this many UTF-16 units
/// fails before any IDNA work (domain names are at most 253 octets; the limit keeps
/// the quadratic parts of Punycode and normalization out of reach).
///
/// ```
/// let host = "\u{e9}".repeat(urlkey::web::MAX_NON_ASCII_HOST_UTF16 + 1);
/// let e = urlkey::WebUrl::parse(&format!("https://{host}/"), None).unwrap_err();
/// assert_eq!(e.code.as_str(), "web.invalid-host");
/// ```
pub const MAX_NON_ASCII_HOST_UTF16: usize = 4096;

/// What kind of host a parsed URL has (<https://url.spec.whatwg.org/#concept-host>).
///
/// ```
/// use urlkey::{HostKind, WebUrl};
/// let kind = |s| WebUrl::parse(s, None).unwrap().host_kind();
/// assert_eq!(kind("https://example.net/"), HostKind::Domain);
/// assert_eq!(kind("http://127.1/"), HostKind::Ipv4);
/// assert_eq!(kind("http://[::1]/"), HostKind::Ipv6);
/// assert_eq!(kind("file:///etc"), HostKind::Empty);
/// assert_eq!(kind("mailto:a@example.net"), HostKind::None);
/// assert_eq!(kind("foo://Example.net/"), HostKind::Opaque);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostKind {
    /// No host at all (`mailto:x`, `file:///x` has an empty host and reports `Empty`).
    None,
    /// The empty host (`file:///x`).
    Empty,
    /// A domain (special schemes), after IDNA
    /// (<https://url.spec.whatwg.org/#concept-domain-to-ascii>).
    Domain,
    /// An IPv4 address, serialized dotted-decimal
    /// (<https://url.spec.whatwg.org/#concept-ipv4-serializer>).
    Ipv4,
    /// An IPv6 address, serialized in brackets
    /// (<https://url.spec.whatwg.org/#concept-ipv6-serializer>).
    Ipv6,
    /// An opaque host (non-special schemes).
    Opaque,
}

/// A URL parsed by the Standard's basic URL parser.
///
/// ```
/// let u = urlkey::WebUrl::parse("HTTPS://user:pw@Example.net:8443/a/./b?q=1#frag", None).unwrap();
/// assert_eq!(u.href(), "https://user:pw@example.net:8443/a/b?q=1#frag");
/// assert_eq!((u.protocol(), u.scheme()), ("https:", "https"));
/// assert_eq!((u.username(), u.password()), ("user", "pw"));
/// assert_eq!((u.host(), u.hostname(), u.port()), ("example.net:8443", "example.net", "8443"));
/// assert_eq!((u.pathname(), u.search(), u.hash()), ("/a/b", "?q=1", "#frag"));
/// assert_eq!((u.query(), u.fragment()), (Some("q=1"), Some("frag")));
/// assert_eq!(u.origin(), "https://example.net:8443");
/// assert!(u.is_special() && u.is_web() && !u.has_opaque_path());
/// let p = u.pieces();
/// assert_eq!((p.userinfo, p.hostname, p.query), ("user:pw", "example.net", Some("q=1")));
/// let bad = urlkey::WebUrl::parse("https://exa mple.net/", None).unwrap_err();
/// assert_eq!(bad.code, urlkey::ErrorCode::WebInvalidHost);
/// ```
pub struct WebUrl {
    inner: ada_url::Url,
}

impl std::fmt::Debug for WebUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("WebUrl").field(&self.href()).finish()
    }
}

impl WebUrl {
    /// Parses `input` (optionally against `base`) with the URL Standard.
    ///
    /// ```
    /// let url = urlkey::WebUrl::parse("HTTP://Example.COM:80/a/../b", None).unwrap();
    /// assert_eq!(url.href(), "http://example.com/b");
    /// ```
    pub fn parse(input: &str, base: Option<&str>) -> Result<WebUrl, KeyError> {
        if let Some(e) = check_host_length(input) {
            return Err(e);
        }
        match ada_url::Url::parse(input, base) {
            Ok(inner) => Ok(WebUrl { inner }),
            Err(_) => Err(classify_failure(input, base)),
        }
    }

    /// The serialization (`href`).
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.href(), "https://user:pw@example.net:8443/a?q=1#f");
    /// ```
    pub fn href(&self) -> &str {
        self.inner.href()
    }
    /// `protocol`: the scheme and `:`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.protocol(), "https:");
    /// ```
    pub fn protocol(&self) -> &str {
        self.inner.protocol()
    }
    /// The scheme, without `:`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.scheme(), "https");
    /// ```
    pub fn scheme(&self) -> &str {
        let p = self.inner.protocol();
        &p[..p.len().saturating_sub(1)]
    }
    /// `username`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.username(), "user");
    /// ```
    pub fn username(&self) -> &str {
        self.inner.username()
    }
    /// `password`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.password(), "pw");
    /// ```
    pub fn password(&self) -> &str {
        self.inner.password()
    }
    /// `host`: hostname and, when not default, `:port`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.host(), "example.net:8443");
    /// ```
    pub fn host(&self) -> &str {
        self.inner.host()
    }
    /// `hostname`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.hostname(), "example.net");
    /// ```
    pub fn hostname(&self) -> &str {
        self.inner.hostname()
    }
    /// `port`: empty when absent or default.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.port(), "8443");
    /// let d = urlkey::WebUrl::parse("https://example.net:443/", None).unwrap();
    /// assert_eq!(d.port(), "");
    /// ```
    pub fn port(&self) -> &str {
        self.inner.port()
    }
    /// `pathname`.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.pathname(), "/a");
    /// ```
    pub fn pathname(&self) -> &str {
        self.inner.pathname()
    }
    /// `search`: `?` and the query, or empty when the query is null or empty.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.search(), "?q=1");
    /// ```
    pub fn search(&self) -> &str {
        self.inner.search()
    }
    /// `hash`: `#` and the fragment, or empty when the fragment is null or empty.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.hash(), "#f");
    /// ```
    pub fn hash(&self) -> &str {
        self.inner.hash()
    }
    /// The origin's serialization (`null` for opaque origins).
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.origin(), "https://example.net:8443");
    /// ```
    pub fn origin(&self) -> String {
        self.inner.origin()
    }
    /// The query without `?`, distinguishing a null query (`None`) from an empty one.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.query(), Some("q=1"));
    /// let empty = urlkey::WebUrl::parse("https://example.net/?", None).unwrap();
    /// assert_eq!((empty.query(), empty.search()), (Some(""), ""));
    /// ```
    pub fn query(&self) -> Option<&str> {
        let c = self.inner.components();
        let href = self.inner.href();
        c.search_start.map(|s| {
            let s = s as usize + 1;
            let end = c.hash_start.map_or(href.len(), |h| h as usize);
            &href[s.min(end)..end]
        })
    }
    /// The fragment without `#`, distinguishing a null fragment from an empty one.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.fragment(), Some("f"));
    /// ```
    pub fn fragment(&self) -> Option<&str> {
        let c = self.inner.components();
        let href = self.inner.href();
        c.hash_start.map(|h| &href[h as usize + 1..])
    }
    /// True for a special scheme (`http`, `https`, `ws`, `wss`, `ftp`, `file`), as the
    /// parser classified it.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert!(u.is_special());
    /// assert!(!urlkey::WebUrl::parse("foo://x/", None).unwrap().is_special());
    /// ```
    pub fn is_special(&self) -> bool {
        self.inner.scheme_type() != ada_url::SchemeType::NotSpecial
    }
    /// True for `http` and `https`, as the parser classified the scheme.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert!(u.is_web());
    /// assert!(!urlkey::WebUrl::parse("ftp://x/", None).unwrap().is_web());
    /// ```
    pub fn is_web(&self) -> bool {
        matches!(
            self.inner.scheme_type(),
            ada_url::SchemeType::Http | ada_url::SchemeType::Https
        )
    }
    /// True when the URL has an opaque path (`mailto:x`, `javascript:...`).
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert!(!u.has_opaque_path());
    /// assert!(urlkey::WebUrl::parse("mailto:x@example.net", None).unwrap().has_opaque_path());
    /// ```
    pub fn has_opaque_path(&self) -> bool {
        !self.inner.has_hostname() && !self.inner.pathname().starts_with('/')
    }
    /// What kind of host this is.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// assert_eq!(u.host_kind(), urlkey::HostKind::Domain);
    /// ```
    pub fn host_kind(&self) -> HostKind {
        if !self.inner.has_hostname() {
            return HostKind::None;
        }
        if self.inner.has_empty_hostname() {
            return HostKind::Empty;
        }
        match self.inner.host_type() {
            ada_url::HostType::IPV4 => HostKind::Ipv4,
            ada_url::HostType::IPV6 => HostKind::Ipv6,
            ada_url::HostType::Domain => {
                if text::is_special_scheme(self.scheme()) {
                    HostKind::Domain
                } else {
                    HostKind::Opaque
                }
            }
        }
    }
}

/// A parsed URL's components, sliced from its href with one look at the parser's
/// offsets (ada's `url_components`) instead of a call into the parser per component.
/// Each field equals the [`WebUrl`] getter of the same name.
///
/// ```
/// let u = urlkey::WebUrl::parse("mailto:someone@example.net", None).unwrap();
/// let p: urlkey::web::Pieces<'_> = u.pieces();
/// assert_eq!((p.scheme, p.pathname, p.opaque_path), ("mailto", "someone@example.net", true));
/// assert_eq!(p.host_kind, urlkey::HostKind::None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pieces<'u> {
    /// The serialization.
    pub href: &'u str,
    /// The scheme, without `:`.
    pub scheme: &'u str,
    /// `username`.
    pub username: &'u str,
    /// `password`.
    pub password: &'u str,
    /// `username:password` when there is a password, else the username.
    pub userinfo: &'u str,
    /// `hostname`.
    pub hostname: &'u str,
    /// `port`: empty when absent or default.
    pub port: &'u str,
    /// `pathname`.
    pub pathname: &'u str,
    /// The query without `?` (`None` when null).
    pub query: Option<&'u str>,
    /// The fragment without `#` (`None` when null).
    pub fragment: Option<&'u str>,
    /// What kind of host.
    pub host_kind: HostKind,
    /// True for an opaque path.
    pub opaque_path: bool,
}

impl WebUrl {
    /// Every component at once. The slicing follows ada's `url_aggregator` getters
    /// (`get_username`, `get_password`, `get_hostname`, `get_port`, `get_pathname`,
    /// `has_authority`, `has_empty_hostname`); a test checks it against the getters on
    /// every WPT success case and the whole corpus.
    ///
    /// ```
    /// let u = urlkey::WebUrl::parse("https://user:pw@Example.net:8443/a?q=1#f", None).unwrap();
    /// let p = u.pieces();
    /// assert_eq!((p.href, p.hostname, p.port), (u.href(), u.hostname(), u.port()));
    /// assert_eq!((p.query, p.fragment), (u.query(), u.fragment()));
    /// ```
    pub fn pieces(&self) -> Pieces<'_> {
        let href = self.inner.href();
        let c = self.inner.components();
        let b = href.as_bytes();
        let len = href.len() as u32;
        let at = |i: u32, j: u32| href.get(i as usize..j as usize).unwrap_or("");
        let pe = c.protocol_end;
        let scheme = at(0, pe.saturating_sub(1));
        // has_authority: `//` right after the scheme's `:`.
        let has_host = pe + 2 <= c.host_start
            && b.get(pe as usize) == Some(&b'/')
            && b.get(pe as usize + 1) == Some(&b'/');
        let username = if pe + 2 < c.username_end {
            at(pe + 2, c.username_end)
        } else {
            ""
        };
        let password = if c.host_start > c.username_end {
            at(c.username_end + 1, c.host_start)
        } else {
            ""
        };
        let userinfo = if password.is_empty() {
            username
        } else {
            at(pe + 2, c.host_start)
        };
        let mut host_start = c.host_start;
        if c.host_end > c.host_start && b.get(host_start as usize) == Some(&b'@') {
            host_start += 1;
        }
        let hostname = at(host_start, c.host_end);
        let path_start = c.pathname_start.unwrap_or(len);
        let port = if c.port.is_some() {
            at(c.host_end + 1, path_start)
        } else {
            ""
        };
        let path_end = c.search_start.or(c.hash_start).unwrap_or(len);
        let pathname = at(path_start, path_end);
        let query = c.search_start.map(|s| {
            at(
                (s + 1).min(c.hash_start.unwrap_or(len)),
                c.hash_start.unwrap_or(len),
            )
        });
        let fragment = c.hash_start.map(|h| at(h + 1, len));
        let host_kind = if !has_host {
            HostKind::None
        } else if c.host_start == c.host_end
            || (c.host_end == c.host_start + 1 && c.username_end != c.host_start)
        {
            HostKind::Empty
        } else {
            match self.inner.host_type() {
                ada_url::HostType::IPV4 => HostKind::Ipv4,
                ada_url::HostType::IPV6 => HostKind::Ipv6,
                ada_url::HostType::Domain if self.is_special() => HostKind::Domain,
                ada_url::HostType::Domain => HostKind::Opaque,
            }
        };
        Pieces {
            href,
            scheme,
            username,
            password,
            userinfo,
            hostname,
            port,
            pathname,
            query,
            fragment,
            host_kind,
            opaque_path: !has_host && !pathname.starts_with('/'),
        }
    }
}

/// The 4096-unit host limit (docs/policies.md): a non-ASCII host over 4096 UTF-16 units fails with
/// `web.invalid-host` before the parser runs IDNA on it.
///
/// The host measured is the one that goes into UTS #46, so that two spellings of one host
/// are limited alike: after the
/// Standard's removal of every ASCII tab and newline
/// (<https://url.spec.whatwg.org/#concept-basic-url-parser>, step 3) and, for a special
/// scheme's domain, after percent-decoding and UTF-8 decoding
/// (<https://url.spec.whatwg.org/#concept-host-parser>, steps 4-5), so neither `%C3%BC`
/// escapes nor removed tabs change the count. A host that is ASCII once decoded is never
/// run through UTS #46 (docs/policies.md, "The 4096-unit host limit") and is not
/// limited. An opaque host (a non-special scheme) is not percent-decoded by the Standard:
/// it is measured as written, less tabs and newlines.
pub(crate) fn check_host_length(input: &str) -> Option<KeyError> {
    // A host has at most as many UTF-16 units as the input has bytes (decoding only
    // shrinks text), so short input, and ASCII input without a `%`, cannot exceed it.
    if input.len() <= MAX_NON_ASCII_HOST_UTF16
        || (input.is_ascii() && memchr::memchr(b'%', input.as_bytes()).is_none())
    {
        return None;
    }
    let (trimmed, _) = text::trim_c0_space(input);
    let cleaned: std::borrow::Cow<'_, str> = if trimmed.contains(['\t', '\n', '\r']) {
        trimmed
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect::<String>()
            .into()
    } else {
        trimmed.into()
    };
    let scheme = text::leading_scheme(&cleaned);
    let special = scheme.is_none_or(text::is_special_scheme);
    let after_scheme = match scheme {
        Some(s) => &cleaned[s.len() + 1..],
        None => &cleaned[..],
    };
    let rest = if special {
        after_scheme.trim_start_matches(['/', '\\'])
    } else {
        after_scheme.strip_prefix("//")?
    };
    let end = rest
        .find(|c| c == '/' || c == '?' || c == '#' || (special && c == '\\'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // The host state ends the host at the first `:` outside brackets.
    let host = if hostport.starts_with('[') {
        hostport
    } else {
        hostport.split_once(':').map_or(hostport, |(h, _)| h)
    };
    let units = if special && host.contains('%') {
        let decoded = crate::query::percent_decode(host);
        let decoded = String::from_utf8_lossy(&decoded);
        if decoded.is_ascii() {
            return None;
        }
        decoded.encode_utf16().count()
    } else {
        if host.is_ascii() {
            return None;
        }
        host.encode_utf16().count()
    };
    (units > MAX_NON_ASCII_HOST_UTF16).then(|| {
        KeyError::new(
            ErrorCode::WebInvalidHost,
            format!(
                "the non-ASCII host is {units} UTF-16 units long once tabs and newlines are removed and escapes decoded; the limit is {MAX_NON_ASCII_HOST_UTF16}"
            ),
        )
    })
}

/// The parser says only "failure"; find the part to blame so the error code is useful.
/// Runs only on the failure path.
fn classify_failure(input: &str, base: Option<&str>) -> KeyError {
    let (trimmed, _) = text::trim_c0_space(input);
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some(scheme) = text::leading_scheme(&cleaned) else {
        let msg = if base.is_some() {
            "not a valid URL, even against the base"
        } else {
            "not an absolute URL: no scheme (relative input needs a base)"
        };
        return KeyError::new(ErrorCode::WebInvalidUrl, msg);
    };
    let rest = &cleaned[scheme.len() + 1..];
    let special = text::is_special_scheme(scheme);
    let after = if special {
        rest.trim_start_matches(['/', '\\'])
    } else if let Some(r) = rest.strip_prefix("//") {
        r
    } else {
        return KeyError::new(ErrorCode::WebInvalidUrl, "not a valid URL");
    };
    let end = after
        .find(|c| c == '/' || c == '?' || c == '#' || (special && c == '\\'))
        .unwrap_or(after.len());
    let authority = &after[..end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // The Standard's host state ends the host at the first ':' outside brackets.
    let (host, port) = match split_host_port(hostport) {
        (h, _) if h.starts_with('[') => split_host_port(hostport),
        _ => match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        },
    };
    if host.is_empty() && special && !scheme.eq_ignore_ascii_case("file") {
        return KeyError::new(
            ErrorCode::WebHostMissing,
            format!("a {scheme}: URL needs a host"),
        );
    }
    if let Some(port) = port {
        if !port.is_empty()
            && (!port.bytes().all(|b| b.is_ascii_digit())
                || port.parse::<u32>().map_or(true, |p| p > 65535))
        {
            return KeyError::new(
                ErrorCode::WebInvalidPort,
                format!("the port {port:?} is not a number from 0 to 65535"),
            );
        }
    }
    KeyError::new(
        ErrorCode::WebInvalidHost,
        format!("the host {host:?} is not valid"),
    )
}

/// Splits `host[:port]`, keeping a bracketed IPv6 literal whole.
pub(crate) fn split_host_port(hostport: &str) -> (&str, Option<&str>) {
    if hostport.starts_with('[') {
        if let Some(close) = hostport.find(']') {
            let rest = &hostport[close + 1..];
            return (&hostport[..=close], rest.strip_prefix(':'));
        }
        return (hostport, None);
    }
    match hostport.rfind(':') {
        Some(i) => (&hostport[..i], Some(&hostport[i + 1..])),
        None => (hostport, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(input: &str) -> &'static str {
        WebUrl::parse(input, None).unwrap_err().code.as_str()
    }

    #[test]
    fn failures_are_classified() {
        assert_eq!(code("https://"), "web.host-missing");
        assert_eq!(code("http://?x"), "web.host-missing");
        assert_eq!(code("https://a:99999/"), "web.invalid-port");
        assert_eq!(code("https://a:x/"), "web.invalid-port");
        assert_eq!(code("https://example.com:443:443/"), "web.invalid-port");
        assert_eq!(code("https://exa mple.com/"), "web.invalid-host");
        assert_eq!(code("https://[::1/"), "web.invalid-host");
        assert_eq!(code("/relative"), "web.invalid-url");
        assert_eq!(code("example.com/x"), "web.invalid-url");
    }

    #[test]
    fn long_non_ascii_host_is_refused_before_idna() {
        let host = "é".repeat(MAX_NON_ASCII_HOST_UTF16 + 1);
        let e = WebUrl::parse(&format!("https://{host}/"), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::WebInvalidHost);
        assert!(e.message.contains("4097"), "{}", e.message);
    }

    #[test]
    fn host_limit_measures_the_host_that_goes_into_uts46() {
        let at = |host: String| check_host_length(&format!("https://{host}/p"));
        // Escapes decode: 4093 "ü" + ".com" = 4097 units.
        assert!(at(format!("{}.com", "%C3%BC".repeat(4093))).is_some());
        assert!(at(format!("{}.com", "%C3%BC".repeat(4092))).is_none());
        // Lowercase hex and credentials and port around the host.
        assert!(at(format!("u:p@{}.com:8080", "%c3%bc".repeat(4093))).is_some());
        // A decoded ASCII host is not limited.
        assert!(at(format!("{}.com", "%61".repeat(5000))).is_none());
        // Tabs and newlines do not count.
        assert!(at(format!("{}\t\n.com", "ü".repeat(4092))).is_none());
        assert!(at(format!("{}\t.com", "ü".repeat(4093))).is_some());
        // An opaque host is not decoded, and is measured as written.
        assert!(check_host_length(&format!("foo://{}.x/", "%C3%BC".repeat(4093))).is_none());
        assert!(check_host_length(&format!("foo://{}.x/", "ü".repeat(4097))).is_some());
    }

    #[test]
    fn components() {
        let u = WebUrl::parse("https://u:p@Example.com:8443/a?q#f", None).unwrap();
        assert_eq!(u.scheme(), "https");
        assert_eq!(u.hostname(), "example.com");
        assert_eq!(u.port(), "8443");
        assert_eq!(u.query(), Some("q"));
        assert_eq!(u.fragment(), Some("f"));
        assert_eq!(u.host_kind(), HostKind::Domain);
        let u = WebUrl::parse("https://a/?#", None).unwrap();
        assert_eq!(u.query(), Some(""));
        assert_eq!(u.fragment(), Some(""));
        let u = WebUrl::parse("mailto:x@y.z", None).unwrap();
        assert!(u.has_opaque_path());
        assert_eq!(u.host_kind(), HostKind::None);
        assert_eq!(
            WebUrl::parse("http://10.0.0.1/", None).unwrap().host_kind(),
            HostKind::Ipv4
        );
        assert_eq!(
            WebUrl::parse("foo://h/", None).unwrap().host_kind(),
            HostKind::Opaque
        );
        assert_eq!(
            WebUrl::parse("file:///x", None).unwrap().host_kind(),
            HostKind::Empty
        );
    }
}

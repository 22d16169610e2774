//! What both registries share: how an entry's pattern matches a parameter name
//! ([`MatchKind`]), where a parameter is ([`Place`]), and how a host is on a site
//! ([`on_site`]).

/// How a registry entry matches a parameter name.
///
/// ```
/// use urlkey::tracking::{MatchKind, REGISTRY};
/// let utm = REGISTRY.iter().find(|r| r.pattern == "utm_source").unwrap();
/// assert_eq!(utm.kind, MatchKind::Exact);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    /// The whole name, ASCII case-insensitive.
    Exact,
    /// The start of the name, ASCII case-insensitive.
    Prefix,
}

/// What a rule needs to know about the URL it cleans.
///
/// ```
/// use urlkey::tracking::Place;
/// let clean = urlkey::TrackingSet::registry_v2();
/// let youtube = Place { host: "www.youtube.com", path: "/watch", query: "v=x&si=abc" };
/// let elsewhere = Place { host: "example.com", path: "/", query: "si=abc" };
/// assert!(clean.matches_at("si", &youtube));
/// assert!(!clean.matches_at("si", &elsewhere));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The host, lowercase (the URL Standard's serialization); empty when there is none.
    pub host: &'a str,
    /// The path as written.
    pub path: &'a str,
    /// The query without `?`.
    pub query: &'a str,
}

/// True when `host` is `site` or a host under it (`a.youtube.com` for `youtube.com`);
/// a final root `.` is ignored, so `youtube.com.` is YouTube too.
///
/// ```
/// use urlkey::tracking::on_site;
/// assert!(on_site("m.youtube.com.", "youtube.com"));
/// assert!(!on_site("notyoutube.com", "youtube.com"));
/// ```
pub fn on_site(host: &str, site: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let (h, s) = (host.as_bytes(), site.as_bytes());
    if h.len() < s.len() || !h[h.len() - s.len()..].eq_ignore_ascii_case(s) {
        return false;
    }
    h.len() == s.len() || h[h.len() - s.len() - 1] == b'.'
}

pub(crate) fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_cover_their_subdomains_and_nothing_else() {
        assert!(on_site("youtube.com", "youtube.com"));
        assert!(on_site("music.youtube.com", "youtube.com"));
        assert!(on_site("www.youtube.com.", "youtube.com"));
        assert!(on_site("WWW.YouTube.com", "youtube.com"));
        assert!(!on_site("notyoutube.com", "youtube.com"));
        assert!(!on_site("youtube.com.evil.example", "youtube.com"));
        assert!(!on_site("", "youtube.com"));
        assert!(!on_site("com", "youtube.com"));
    }
}

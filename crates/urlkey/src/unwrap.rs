//! Redirect wrappers: links that a platform rewrites to pass through its own
//! page first (`l.facebook.com/l.php?u=…`, Outlook Safe Links, `google.com/url?q=…`).
//! The target is in the wrapper's own query, so unwrapping is reading text: nothing is
//! ever fetched. A shortener (`t.co`, `bit.ly`) hides its target on a server and is not
//! a wrapper.
//!
//! The `unwrap-redirect` rule (`policy/rules/unwrap_redirect.rs`) uses [`WRAPPERS`] and [`target_of`].
//! A wrapper whose platform documents it carries that page as `source`; the ones no
//! platform page describes (Google's `/url`, YouTube's `/redirect`, VK, Reddit,
//! LinkedIn) say so in `note` with an empty `source`.

use crate::query::{parse_form, raw_params};
use crate::tracking::on_site;

/// The date the redirect wrappers' pages were read ([`WRAPPERS`]).
pub const READ: &str = "2026-12-01";

/// How many wrappers inside each other are unwrapped. A link wrapped more deeply is kept
/// as written (fact `redirect-wrapper-kept`), so that cleaning the result again changes
/// nothing.
pub const MAX_DEPTH: usize = 4;

/// Which paths of a wrapper's host carry a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum PathMatch {
    /// Exactly this path.
    Is(&'static str),
    /// Any path starting with this.
    StartsWith(&'static str),
}

/// One documented (or plainly observed) redirect wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Wrapper {
    /// The name its transformation carries (`facebook-link-shim`).
    pub name: &'static str,
    /// Who wraps.
    pub platform: &'static str,
    /// The hosts: each a site (the host and every host under it), or exact with `=`.
    pub hosts: &'static [&'static str],
    /// The paths that redirect.
    pub paths: &'static [PathMatch],
    /// The query parameters that hold the target, in order of preference.
    pub params: &'static [&'static str],
    /// The platform's page about the wrapper, empty when there is none.
    pub source: &'static str,
    /// When the page was read.
    pub read: &'static str,
    /// The wrapper-list version that added it: `unwrap-redirect` of the released policies
    /// reads [`WRAPPERS_VERSION`] and never sees a wrapper added later (docs/policies.md,
    /// "Pinned lists").
    pub since: u8,
    /// What to know about it.
    pub note: &'static str,
}

impl Wrapper {
    /// True when a URL with this host and path is this wrapper.
    pub fn wraps(&self, host: &str, path: &str) -> bool {
        let host_ok = self.hosts.iter().any(|h| match h.strip_prefix('=') {
            Some(exact) => host.eq_ignore_ascii_case(exact),
            None => on_site(host, h),
        });
        host_ok
            && self.paths.iter().any(|p| match *p {
                PathMatch::Is(x) => path == x,
                PathMatch::StartsWith(x) => path.starts_with(x),
            })
    }

    /// The decoded target in `query` (the first of [`Wrapper::params`] that is present
    /// and not empty), form-decoded as a browser reads the query.
    pub fn target(&self, query: &str) -> Option<String> {
        // Most queries hold none of the names: look at the raw names before decoding.
        let present = raw_params(query).any(|r| self.params.contains(&r.name));
        if !present {
            return None;
        }
        let pairs = parse_form(query);
        self.params.iter().find_map(|want| {
            pairs
                .iter()
                .find(|(n, v)| n == want && !v.is_empty())
                .map(|(_, v)| v.clone())
        })
    }
}

const FACEBOOK_LINK_SHIM: &str = "https://www.facebook.com/notes/facebook-security/link-shim-protecting-the-people-who-use-facebook-from-malicious-urls/10150492832835766";

/// The wrapper-list version `unwrap-redirect` reads. A released policy's keys never
/// change, so a wrapper added to [`WRAPPERS`] carries a higher `since` and reaches only the
/// policy versions that ask for it (a test pins every builtin's list:
/// `tests/pinned.rs`).
pub const WRAPPERS_VERSION: u8 = 1;

/// The wrappers of list version `version`: every entry with `since <= version`, in order.
pub fn wrappers(version: u8) -> impl Iterator<Item = &'static Wrapper> {
    WRAPPERS.iter().filter(move |w| w.since <= version)
}

/// Every wrapper `unwrap-redirect` knows, in the order it tries them.
pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "google-url",
        platform: "Google",
        hosts: &["=google.com", "=www.google.com"],
        paths: &[PathMatch::Is("/url")],
        params: &["q", "url"],
        source: "",
        read: READ,
        since: 1,
        note: "Search and Gmail link redirect; no Google page documents it (direct use shows a redirect notice)",
    },
    Wrapper {
        name: "facebook-link-shim",
        platform: "Facebook",
        hosts: &["=l.facebook.com", "=lm.facebook.com", "=www.facebook.com", "=m.facebook.com"],
        paths: &[PathMatch::Is("/l.php")],
        params: &["u"],
        source: FACEBOOK_LINK_SHIM,
        read: READ,
        since: 1,
        note: "the link shim every outbound Facebook link goes through",
    },
    Wrapper {
        name: "instagram-link-shim",
        platform: "Instagram",
        hosts: &["=l.instagram.com"],
        paths: &[PathMatch::Is("/")],
        params: &["u"],
        source: FACEBOOK_LINK_SHIM,
        read: READ,
        since: 1,
        note: "Meta's link shim on Instagram; the page describes Facebook's, Instagram's has the same u= form",
    },
    Wrapper {
        name: "outlook-safe-links",
        platform: "Microsoft Defender for Office 365",
        hosts: &["safelinks.protection.outlook.com"],
        paths: &[PathMatch::Is("/")],
        params: &["url"],
        source: "https://learn.microsoft.com/en-us/microsoft-365/security/office-365-security/safe-links-about",
        read: READ,
        since: 1,
        note: "Safe Links URL rewriting (nam02.safelinks.protection.outlook.com/?url=...)",
    },
    Wrapper {
        name: "youtube-redirect",
        platform: "YouTube",
        hosts: &["=youtube.com", "=www.youtube.com", "=m.youtube.com"],
        paths: &[PathMatch::Is("/redirect")],
        params: &["q"],
        source: "",
        read: READ,
        since: 1,
        note: "links in descriptions and comments; no YouTube page documents the form",
    },
    Wrapper {
        name: "slack-redirect",
        platform: "Slack",
        hosts: &["=slack-redir.net"],
        paths: &[PathMatch::Is("/link")],
        params: &["url"],
        source: "https://slack.com/help/articles/204399413-Manage-referrer-information",
        read: READ,
        since: 1,
        note: "the redirect that hides the workspace URL from the target's logs",
    },
    Wrapper {
        name: "steam-linkfilter",
        platform: "Steam",
        hosts: &["=steamcommunity.com"],
        paths: &[PathMatch::Is("/linkfilter/"), PathMatch::Is("/linkfilter")],
        params: &["url", "u"],
        source: "https://help.steampowered.com/en/faqs/view/628C-E332-BD8C-4D36",
        read: READ,
        since: 1,
        note: "the link filter of Steam Community; the page describes the filtering, not the URL form",
    },
    Wrapper {
        name: "vk-away",
        platform: "VK",
        hosts: &["=vk.com", "=m.vk.com"],
        paths: &[PathMatch::Is("/away.php")],
        params: &["to"],
        source: "",
        read: READ,
        since: 1,
        note: "VK's outbound-link page; no VK page documents the form",
    },
    Wrapper {
        name: "reddit-outbound",
        platform: "Reddit",
        hosts: &["=out.reddit.com"],
        paths: &[PathMatch::StartsWith("/")],
        params: &["url"],
        source: "",
        read: READ,
        since: 1,
        note: "Reddit's outbound-click redirect; no Reddit page documents the form",
    },
    Wrapper {
        name: "linkedin-safety-go",
        platform: "LinkedIn",
        hosts: &["=www.linkedin.com", "=linkedin.com"],
        paths: &[PathMatch::Is("/safety/go"), PathMatch::Is("/safety/go/")],
        params: &["url"],
        source: "",
        read: READ,
        since: 1,
        note: "LinkedIn's external-link page; no LinkedIn page documents the form",
    },
];

/// What a wrapper holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// An absolute http(s) URL: the wrapper can be replaced by it.
    Web(String),
    /// Something else (`javascript:…`, a relative path, text that does not parse): the
    /// wrapper is kept.
    Other,
}

/// The wrapper at `host` and `path` and what its `query` holds, if the URL is a wrapper
/// with a target.
pub fn target_of(host: &str, path: &str, query: &str) -> Option<(&'static Wrapper, Found)> {
    let w = wrappers(WRAPPERS_VERSION).find(|w| w.wraps(host, path))?;
    let t = w.target(query)?;
    let found = match crate::web::WebUrl::parse(&t, None) {
        Ok(u) if u.is_web() => Found::Web(t),
        _ => Found::Other,
    };
    Some((w, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wrapper_is_named_once_and_has_a_source_or_says_why_not() {
        for (i, w) in WRAPPERS.iter().enumerate() {
            assert!(
                WRAPPERS[i + 1..].iter().all(|o| o.name != w.name),
                "{}",
                w.name
            );
            assert!(
                w.source.is_empty() || w.source.starts_with("https://"),
                "{}",
                w.name
            );
            assert!(!w.source.is_empty() || w.note.contains("no "), "{}", w.name);
            assert!(!w.hosts.is_empty() && !w.paths.is_empty() && !w.params.is_empty());
        }
    }

    #[test]
    fn targets_are_read_from_the_query_never_fetched() {
        let (w, f) = target_of(
            "l.facebook.com",
            "/l.php",
            "u=https%3A%2F%2Fa.example%2Fx&h=AT0",
        )
        .expect("wrapper");
        assert_eq!(w.name, "facebook-link-shim");
        assert_eq!(f, Found::Web("https://a.example/x".into()));
        let (_, f) = target_of("www.google.com", "/url", "q=javascript:alert(1)").expect("wrapper");
        assert_eq!(f, Found::Other);
        let (_, f) = target_of(
            "www.google.com",
            "/url",
            "sa=t&url=https://a.example/&ved=x",
        )
        .expect("wrapper");
        assert_eq!(f, Found::Web("https://a.example/".into()));
        assert_eq!(
            target_of("www.google.com", "/search", "q=https://a.example/"),
            None
        );
        assert_eq!(
            target_of("t.co", "/abc", "url=https://a.example/"),
            None,
            "a shortener is not a wrapper"
        );
        assert_eq!(target_of("bit.ly", "/x", ""), None);
        assert_eq!(target_of("www.google.com", "/url", "q="), None);
        let (_, f) = target_of("www.google.com", "/url", "q=/relative").expect("wrapper");
        assert_eq!(f, Found::Other);
    }
}

//! Social-profile shapes (docs/policies.md, "Inspecting one URL").
//!
//! [`profile`] says whether a parsed `http`/`https` address has the *shape* of a profile
//! on one of a few networks. A match says nothing about whether the account exists.
//!
//! Rules, as docs/policies.md states them (hosts match the domain and any subdomain, a root `.`
//! on the host and one trailing `/` on the path are ignored):
//!
//! | Network | Hosts | Path |
//! |---|---|---|
//! | LinkedIn | `linkedin.com` | `/in/<h>`, `/company/<h>`, `/school/<h>`, `/showcase/<h>`, `/pub/<h>` (more segments may follow) |
//! | X | `x.com`, `twitter.com` | a single segment of 1-15 `[A-Za-z0-9_]`, not a site page |
//! | GitHub | `github.com` | a first segment of 1-39 `[A-Za-z0-9-]`, not a site page, or `/orgs/<h>` (more segments may follow) |
//! | Facebook | `facebook.com`, `fb.com` | a first segment that is not a site page, or `profile.php`, `people/<h>`, `groups/<h>` |
//! | Instagram | `instagram.com` | a single segment of 1-30 `[A-Za-z0-9._]`, not a site page |
//! | YouTube | `youtube.com` | `/@<h>`, `/channel/<h>`, `/c/<h>`, `/user/<h>` (more segments may follow) |
//! | TikTok | `tiktok.com` | `/@<h>` alone |
//! | Mastodon-style | any other host except `medium.com`, `substack.com`, `threads.net`, `threads.com` | a single `@<name>` segment |
//!
//! ## The handle
//!
//! The seed does not define a handle; this module's choice: the handle is the part of
//! the path that names the account, **as written** (case kept, percent-escapes left as
//! the URL parser left them, no leading `/`). Where a network has several namespaces
//! that the path tells apart, the namespace is kept, so that two different accounts
//! never get the same handle. Namespace keywords (`in`, `company`, `orgs`, `channel`,
//! `groups`, `profile.php`, ...) are matched ignoring ASCII case, like site pages, and
//! written in lowercase in the handle:
//!
//! - LinkedIn: `kind/name`, e.g. `/company/acme/jobs` → `company/acme`, `/in/jdoe` → `in/jdoe`.
//! - YouTube: `@name` for `/@name`, else `kind/name` (`channel/UC…`, `c/name`, `user/name`).
//! - X, Instagram: the segment (`jack`, `nasa`).
//! - GitHub: the account name; `/orgs/rust-lang/people` → `rust-lang` (organizations and
//!   users share one namespace on GitHub).
//! - Facebook: the first segment (`zuck`); `groups/<g>`; `people/<name>` or
//!   `people/<name>/<id>`; `profile.php` (or, through [`profile_with_query`], the value
//!   of its `id` parameter, since `facebook.com/4` and `profile.php?id=4` are one account).
//! - TikTok: `@name`.
//! - Mastodon-style: the fediverse form `@name@host` (host without root dot), because the
//!   name alone does not identify an account on a federated network; a segment that is
//!   already `@name@server` (a remote account shown by another server) is kept as is.

use serde::Serialize;

/// A network whose profile addresses [`profile`] recognizes.
///
/// ```
/// use urlkey::profile::{profile, Network};
/// assert_eq!(profile("https", "github.com", "/rust-lang").unwrap().network, Network::Github);
/// assert_eq!(profile("https", "mastodon.social", "/@alice").unwrap().network, Network::Mastodon);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// LinkedIn (`linkedin.com`).
    Linkedin,
    /// X, formerly Twitter (`x.com`, `twitter.com`).
    X,
    /// GitHub (`github.com`).
    Github,
    /// Facebook (`facebook.com`, `fb.com`).
    Facebook,
    /// Instagram (`instagram.com`).
    Instagram,
    /// YouTube (`youtube.com`).
    Youtube,
    /// TikTok (`tiktok.com`).
    Tiktok,
    /// A Mastodon-style (fediverse) `/@name` address on any other host.
    Mastodon,
}

impl Network {
    /// The network's lowercase name, the same as its serde serialization.
    ///
    /// ```
    /// use urlkey::profile::Network;
    /// assert_eq!(Network::Linkedin.as_str(), "linkedin");
    /// assert_eq!(Network::X.as_str(), "x");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Network::Linkedin => "linkedin",
            Network::X => "x",
            Network::Github => "github",
            Network::Facebook => "facebook",
            Network::Instagram => "instagram",
            Network::Youtube => "youtube",
            Network::Tiktok => "tiktok",
            Network::Mastodon => "mastodon",
        }
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An address that has the shape of a profile: the network and the handle (see the
/// [module documentation](self) for what the handle holds on each network).
///
/// ```
/// let p = urlkey::profile::profile("https", "www.youtube.com", "/@somechannel").unwrap();
/// assert_eq!(p.handle, "@somechannel");
/// assert_eq!(p.network.to_string(), "youtube");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// The network.
    pub network: Network,
    /// The handle, as written in the path (see the module documentation).
    pub handle: String,
}

// ---------------------------------------------------------------------------------------
// Hosts (docs/policies.md, "Inspecting one URL"). Each matches the domain and any subdomain.

const LINKEDIN_HOSTS: [&str; 1] = ["linkedin.com"];
const X_HOSTS: [&str; 2] = ["x.com", "twitter.com"];
const GITHUB_HOSTS: [&str; 1] = ["github.com"];
const FACEBOOK_HOSTS: [&str; 2] = ["facebook.com", "fb.com"];
const INSTAGRAM_HOSTS: [&str; 1] = ["instagram.com"];
const YOUTUBE_HOSTS: [&str; 1] = ["youtube.com"];
const TIKTOK_HOSTS: [&str; 1] = ["tiktok.com"];

/// Hosts where `/@name` means something other than a fediverse account
/// (a Medium author, a Substack writer, a Threads profile). No Mastodon match there.
const NOT_MASTODON_HOSTS: [&str; 4] = ["medium.com", "substack.com", "threads.net", "threads.com"];

/// The LinkedIn path prefixes of member, company, school and showcase pages.
const LINKEDIN_KINDS: [&str; 5] = ["in", "company", "school", "showcase", "pub"];

/// The YouTube path prefixes of channels (besides `/@handle`).
const YOUTUBE_KINDS: [&str; 3] = ["channel", "c", "user"];

// ---------------------------------------------------------------------------------------
// Site pages. The profile rules name a few of each list and end with "..."; the rest are the
// networks' own top-level pages (reserved names that are not accounts), compared
// ignoring ASCII case.

/// X site pages (`home`, `explore`, `search`, `settings`, `i`, `intent`, ...).
pub(crate) const X_SITE_PAGES: [&str; 32] = [
    "home",
    "explore",
    "search",
    "settings",
    "i",
    "intent",
    "notifications",
    "messages",
    "login",
    "logout",
    "signup",
    "tos",
    "privacy",
    "share",
    "hashtag",
    "compose",
    "account",
    "about",
    "download",
    "jobs",
    "lists",
    "bookmarks",
    "communities",
    "premium",
    "help",
    "oauth",
    "widgets",
    "who_to_follow",
    "rules",
    "en",
    "people",
    "topics",
];

/// GitHub site pages (a profile is "not a site page"; `orgs` is handled as `/orgs/<h>`).
pub(crate) const GITHUB_SITE_PAGES: [&str; 45] = [
    "about",
    "features",
    "pricing",
    "login",
    "logout",
    "join",
    "signup",
    "settings",
    "orgs",
    "users",
    "marketplace",
    "explore",
    "topics",
    "collections",
    "trending",
    "sponsors",
    "issues",
    "pulls",
    "notifications",
    "new",
    "organizations",
    "enterprise",
    "enterprises",
    "security",
    "site",
    "contact",
    "customer-stories",
    "readme",
    "team",
    "codespaces",
    "dashboard",
    "discussions",
    "search",
    "apps",
    "account",
    "stars",
    "watching",
    "events",
    "solutions",
    "resources",
    "copilot",
    "mobile",
    "home",
    "nonprofit",
    "education",
];

/// Facebook site pages (`sharer`, `login`, `events`, `watch`, ...;
/// `profile.php`, `people` and `groups` are handled as profiles).
pub(crate) const FACEBOOK_SITE_PAGES: [&str; 58] = [
    "sharer",
    "sharer.php",
    "share",
    "share.php",
    "login",
    "login.php",
    "logout.php",
    "signup",
    "reg",
    "recover",
    "checkpoint",
    "events",
    "watch",
    "marketplace",
    "pages",
    "pg",
    "help",
    "privacy",
    "policies",
    "policy.php",
    "legal",
    "terms",
    "terms.php",
    "dialog",
    "plugins",
    "home.php",
    "index.php",
    "l.php",
    "r.php",
    "tr",
    "photo.php",
    "photo",
    "photos",
    "video.php",
    "videos",
    "story.php",
    "permalink.php",
    "hashtag",
    "search",
    "settings",
    "notifications",
    "messages",
    "friends",
    "bookmarks",
    "saved",
    "reel",
    "reels",
    "stories",
    "gaming",
    "business",
    "ads",
    "careers",
    "about",
    "fundraisers",
    "memories",
    "live",
    "media",
    "places",
];

/// Instagram site pages (`p`, `reel`, `explore`, ...).
pub(crate) const INSTAGRAM_SITE_PAGES: [&str; 24] = [
    "p",
    "reel",
    "reels",
    "explore",
    "stories",
    "accounts",
    "direct",
    "about",
    "developer",
    "legal",
    "tv",
    "web",
    "challenge",
    "emails",
    "press",
    "privacy",
    "terms",
    "oauth",
    "session",
    "graphql",
    "api",
    "static",
    "directory",
    "create",
];

// ---------------------------------------------------------------------------------------

/// The profile shape of an address, from its scheme, host and path (docs/policies.md,
/// "Inspecting one URL").
///
/// - `scheme`: without the `:`, any case; only `http` and `https` can match.
/// - `host`: the WHATWG-serialized host name (lowercase, punycode); a root `.` is ignored.
/// - `path`: the WHATWG path name (starts with `/`, percent-encoded as the parser left
///   it); one trailing `/` is ignored.
///
/// The query is not looked at, so `facebook.com/profile.php?id=4` has the handle
/// `profile.php`; use [`profile_with_query`] to get `4`.
///
/// ```
/// use urlkey::profile::{profile, Network};
/// let p = profile("https", "www.linkedin.com", "/company/acme/").unwrap();
/// assert_eq!((p.network, p.handle.as_str()), (Network::Linkedin, "company/acme"));
/// assert_eq!(profile("https", "x.com", "/jack").unwrap().handle, "jack");
/// assert_eq!(profile("https", "x.com", "/explore"), None); // a site page
/// assert_eq!(profile("ftp", "x.com", "/jack"), None);
/// ```
pub fn profile(scheme: &str, host: &str, path: &str) -> Option<Profile> {
    profile_with_query(scheme, host, path, None)
}

/// [`profile`], also given the query (with or without its leading `?`), which only
/// changes one thing: for Facebook's `profile.php` the handle is the value of the first
/// non-empty `id` parameter (as written), when there is one.
///
/// ```
/// use urlkey::profile::{profile_with_query, Network};
/// let p = profile_with_query("https", "m.facebook.com", "/profile.php", Some("?id=4")).unwrap();
/// assert_eq!((p.network, p.handle.as_str()), (Network::Facebook, "4"));
/// let p = profile_with_query("https", "facebook.com", "/profile.php", None).unwrap();
/// assert_eq!(p.handle, "profile.php");
/// ```
pub fn profile_with_query(
    scheme: &str,
    host: &str,
    path: &str,
    query: Option<&str>,
) -> Option<Profile> {
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() {
        return None;
    }
    let path = path.strip_prefix('/')?;
    let path = path.strip_suffix('/').unwrap_or(path);
    if path.is_empty() {
        return None;
    }
    let segs: Vec<&str> = path.split('/').collect();

    let on = |hosts: &[&str]| hosts.iter().any(|d| host_matches(host, d));
    let (network, handle) = if on(&LINKEDIN_HOSTS) {
        (Network::Linkedin, linkedin(&segs)?)
    } else if on(&X_HOSTS) {
        (Network::X, x(&segs)?)
    } else if on(&GITHUB_HOSTS) {
        (Network::Github, github(&segs)?)
    } else if on(&FACEBOOK_HOSTS) {
        (Network::Facebook, facebook(&segs, query)?)
    } else if on(&INSTAGRAM_HOSTS) {
        (Network::Instagram, instagram(&segs)?)
    } else if on(&YOUTUBE_HOSTS) {
        (Network::Youtube, youtube(&segs)?)
    } else if on(&TIKTOK_HOSTS) {
        (Network::Tiktok, tiktok(&segs)?)
    } else if on(&NOT_MASTODON_HOSTS) {
        return None;
    } else {
        (Network::Mastodon, mastodon(&segs, host)?)
    };
    Some(Profile { network, handle })
}

/// `host` is `domain` or a subdomain of it (ASCII case-insensitive).
fn host_matches(host: &str, domain: &str) -> bool {
    if host.len() == domain.len() {
        return host.eq_ignore_ascii_case(domain);
    }
    host.len() > domain.len()
        && host.is_char_boundary(host.len() - domain.len())
        && host[host.len() - domain.len()..].eq_ignore_ascii_case(domain)
        && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
}

fn is_site_page(list: &[&str], seg: &str) -> bool {
    list.iter().any(|p| p.eq_ignore_ascii_case(seg))
}

fn chars_ok(seg: &str, max: usize, ok: impl Fn(u8) -> bool) -> bool {
    (1..=max).contains(&seg.len()) && seg.bytes().all(ok)
}

/// The keyword among `kinds` that `seg` is (ASCII case-insensitive), in its lowercase form.
fn kind_of(kinds: &[&'static str], seg: &str) -> Option<&'static str> {
    kinds.iter().copied().find(|k| k.eq_ignore_ascii_case(seg))
}

fn linkedin(segs: &[&str]) -> Option<String> {
    match segs {
        [kind, name, ..] if !name.is_empty() => {
            Some(format!("{}/{name}", kind_of(&LINKEDIN_KINDS, kind)?))
        }
        _ => None,
    }
}

fn x(segs: &[&str]) -> Option<String> {
    match segs {
        [name]
            if chars_ok(name, 15, |b| b.is_ascii_alphanumeric() || b == b'_')
                && !is_site_page(&X_SITE_PAGES, name) =>
        {
            Some((*name).to_string())
        }
        _ => None,
    }
}

fn github_name(seg: &str) -> bool {
    chars_ok(seg, 39, |b| b.is_ascii_alphanumeric() || b == b'-')
}

fn github(segs: &[&str]) -> Option<String> {
    match segs {
        [orgs, rest @ ..] if orgs.eq_ignore_ascii_case("orgs") => match rest {
            [name, ..] if github_name(name) => Some((*name).to_string()),
            _ => None,
        },
        [name, ..] if github_name(name) && !is_site_page(&GITHUB_SITE_PAGES, name) => {
            Some((*name).to_string())
        }
        _ => None,
    }
}

fn facebook(segs: &[&str], query: Option<&str>) -> Option<String> {
    let (first, rest) = segs.split_first()?;
    match kind_of(&["profile.php", "people", "groups"], first) {
        Some("profile.php") => {
            let id = query.and_then(|q| {
                crate::query::raw_params(q.strip_prefix('?').unwrap_or(q))
                    .find(|p| p.name == "id" && !p.value.is_empty())
                    .map(|p| p.value.to_string())
            });
            Some(id.unwrap_or_else(|| "profile.php".to_string()))
        }
        Some("people") => match rest {
            [name, id, ..] if !name.is_empty() && !id.is_empty() => {
                Some(format!("people/{name}/{id}"))
            }
            [name, ..] if !name.is_empty() => Some(format!("people/{name}")),
            _ => None,
        },
        Some(kind) => match rest {
            [name, ..] if !name.is_empty() => Some(format!("{kind}/{name}")),
            _ => None,
        },
        None if !first.is_empty() && !is_site_page(&FACEBOOK_SITE_PAGES, first) => {
            Some((*first).to_string())
        }
        None => None,
    }
}

fn instagram(segs: &[&str]) -> Option<String> {
    match segs {
        [name]
            if chars_ok(name, 30, |b| {
                b.is_ascii_alphanumeric() || b == b'.' || b == b'_'
            }) && !is_site_page(&INSTAGRAM_SITE_PAGES, name) =>
        {
            Some((*name).to_string())
        }
        _ => None,
    }
}

fn youtube(segs: &[&str]) -> Option<String> {
    match segs {
        [at, ..] if at.len() > 1 && at.starts_with('@') => Some((*at).to_string()),
        [kind, name, ..] if !name.is_empty() => {
            Some(format!("{}/{name}", kind_of(&YOUTUBE_KINDS, kind)?))
        }
        _ => None,
    }
}

fn tiktok(segs: &[&str]) -> Option<String> {
    match segs {
        [at] if at.len() > 1 && at.starts_with('@') => Some((*at).to_string()),
        _ => None,
    }
}

fn mastodon(segs: &[&str], host: &str) -> Option<String> {
    match segs {
        [at] if at.len() > 1 && at.starts_with('@') => {
            let name = &at[1..];
            if name.starts_with('@') || name.ends_with('@') {
                None
            } else if name.contains('@') {
                Some((*at).to_string())
            } else {
                Some(format!("{at}@{}", host.to_ascii_lowercase()))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(scheme: &str, host: &str, path: &str) -> Option<(Network, String)> {
        profile(scheme, host, path).map(|p| (p.network, p.handle))
    }
    fn yes(host: &str, path: &str, network: Network, handle: &str) {
        assert_eq!(
            h("https", host, path),
            Some((network, handle.to_string())),
            "https://{host}{path}"
        );
    }
    fn no(host: &str, path: &str) {
        assert_eq!(h("https", host, path), None, "https://{host}{path}");
    }

    #[test]
    fn network_names_match_serde() {
        for n in [
            Network::Linkedin,
            Network::X,
            Network::Github,
            Network::Facebook,
            Network::Instagram,
            Network::Youtube,
            Network::Tiktok,
            Network::Mastodon,
        ] {
            assert_eq!(
                serde_json::to_string(&n).unwrap(),
                format!("\"{}\"", n.as_str())
            );
            assert_eq!(n.to_string(), n.as_str());
        }
        let p = profile("https", "x.com", "/jack").unwrap();
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"network":"x","handle":"jack"}"#
        );
    }

    #[test]
    fn linkedin() {
        use Network::Linkedin as L;
        yes("www.linkedin.com", "/in/jdoe", L, "in/jdoe");
        yes("linkedin.com", "/company/acme/", L, "company/acme");
        yes("uk.linkedin.com", "/school/mit/about", L, "school/mit");
        yes(
            "linkedin.com",
            "/showcase/acme-cloud",
            L,
            "showcase/acme-cloud",
        );
        yes("linkedin.com", "/pub/jane-doe/1/2/3", L, "pub/jane-doe");
        yes("linkedin.com", "/in/j%C3%BCrgen", L, "in/j%C3%BCrgen"); // as written
        no("linkedin.com", "/feed/"); // not a profile prefix
        no("linkedin.com", "/in/"); // prefix without a handle
        no("linkedin.com", "/in//x"); // empty handle segment
        no("linkedin.com", "/"); // home page
        no("notlinkedin.com", "/in/jdoe"); // wrong host (not a subdomain)
        no("linkedin.com.evil.example", "/in/jdoe"); // wrong host
        yes("linkedin.com", "/IN/jdoe", L, "in/jdoe"); // keyword in any case, kept lowercase
        assert_eq!(h("ftp", "linkedin.com", "/in/jdoe"), None); // non-http scheme
    }

    #[test]
    fn x() {
        use Network::X;
        yes("x.com", "/jack", X, "jack");
        yes("twitter.com", "/Jack_Dorsey", X, "Jack_Dorsey");
        yes(
            "mobile.twitter.com",
            "/abcdefghijklmno",
            X,
            "abcdefghijklmno",
        ); // 15
        yes("www.x.com", "/nasa/", X, "nasa");
        no("x.com", "/abcdefghijklmnop"); // 16 characters: too long
        no("x.com", "/explore"); // site page
        no("x.com", "/Settings"); // site page, any case
        no("twitter.com", "/i"); // site page
        no("x.com", "/jack/status/20"); // extra segments: a post
        no("x.com", "/jack.dorsey"); // '.' not allowed
        no("x.com", "/@jack"); // '@' not allowed, and not Mastodon on x.com
        no("box.com", "/jack"); // wrong host
        assert_eq!(h("mailto", "x.com", "/jack"), None); // non-http scheme
    }

    #[test]
    fn github() {
        use Network::Github as G;
        yes("github.com", "/octocat", G, "octocat");
        yes("github.com", "/rust-lang/rust", G, "rust-lang"); // first segment
        yes("www.github.com", "/orgs/rust-lang/people", G, "rust-lang");
        yes("github.com", "/orgs/rust-lang", G, "rust-lang");
        yes(
            "github.com",
            &format!("/{}", "a".repeat(39)),
            G,
            &"a".repeat(39),
        );
        no("github.com", &format!("/{}", "a".repeat(40))); // too long
        no("github.com", "/pricing"); // site page
        no("github.com", "/Marketplace/actions"); // site page, any case
        no("github.com", "/orgs"); // orgs without a name
        no("github.com", "/orgs/bad_name"); // '_' not allowed
        no("github.com", "/foo.bar"); // '.' not allowed
        no("github.io", "/octocat"); // wrong host
        no("gist.github.com.example", "/octocat"); // wrong host
        assert_eq!(h("javascript", "github.com", "/octocat"), None);
    }

    #[test]
    fn facebook() {
        use Network::Facebook as F;
        yes("www.facebook.com", "/zuck", F, "zuck");
        yes("fb.com", "/john.smith.123/", F, "john.smith.123");
        yes("m.facebook.com", "/profile.php", F, "profile.php");
        yes(
            "facebook.com",
            "/people/John-Smith/100012345",
            F,
            "people/John-Smith/100012345",
        );
        yes("facebook.com", "/people/John-Smith", F, "people/John-Smith");
        yes(
            "facebook.com",
            "/groups/rustlang/posts/1",
            F,
            "groups/rustlang",
        );
        yes("facebook.com", "/acme/photos", F, "acme"); // first segment
        no("facebook.com", "/sharer.php"); // site page
        no("facebook.com", "/Watch"); // site page, any case
        no("facebook.com", "/events/123"); // site page
        no("facebook.com", "/groups"); // the groups directory
        no("facebook.com", "/people/"); // no name
        no("facebook.com", "/"); // home
        no("facebookk.com", "/zuck"); // wrong host
        assert_eq!(h("file", "facebook.com", "/zuck"), None); // non-http scheme
    }

    #[test]
    fn facebook_profile_php_id() {
        let q = |query: Option<&str>| {
            profile_with_query("https", "facebook.com", "/profile.php", query)
                .unwrap()
                .handle
        };
        assert_eq!(q(Some("?id=4")), "4");
        assert_eq!(q(Some("id=4&sk=about")), "4");
        assert_eq!(q(Some("?sk=about&id=100012345")), "100012345");
        assert_eq!(q(Some("?id=&x=1")), "profile.php"); // empty id
        assert_eq!(q(Some("?ID=4")), "profile.php"); // names are case-sensitive
        assert_eq!(q(None), "profile.php");
        // The query changes nothing else.
        let p = profile_with_query("https", "facebook.com", "/zuck", Some("?id=4")).unwrap();
        assert_eq!(p.handle, "zuck");
    }

    #[test]
    fn instagram() {
        use Network::Instagram as I;
        yes("instagram.com", "/nasa", I, "nasa");
        yes("www.instagram.com", "/john.doe_99/", I, "john.doe_99");
        yes(
            "instagram.com",
            &format!("/{}", "b".repeat(30)),
            I,
            &"b".repeat(30),
        );
        no("instagram.com", &format!("/{}", "b".repeat(31))); // too long
        no("instagram.com", "/p"); // site page
        no("instagram.com", "/Explore"); // site page, any case
        no("instagram.com", "/p/Cx12AbC"); // a post: extra segment
        no("instagram.com", "/nasa/reels"); // extra segment
        no("instagram.com", "/john-doe"); // '-' not allowed
        no("instagram.co", "/nasa"); // wrong host
        assert_eq!(h("ws", "instagram.com", "/nasa"), None); // non-http scheme
    }

    #[test]
    fn youtube() {
        use Network::Youtube as Y;
        yes("www.youtube.com", "/@mkbhd", Y, "@mkbhd");
        yes("m.youtube.com", "/@mkbhd/videos", Y, "@mkbhd");
        yes(
            "youtube.com",
            "/channel/UC_x5XG1OV2P6uZZ5FSM9Ttw",
            Y,
            "channel/UC_x5XG1OV2P6uZZ5FSM9Ttw",
        );
        yes("youtube.com", "/c/LinusTechTips/", Y, "c/LinusTechTips");
        yes("youtube.com", "/user/pewdiepie", Y, "user/pewdiepie");
        no("youtube.com", "/watch"); // a video page
        no("youtube.com", "/@"); // '@' without a name
        no("youtube.com", "/channel/"); // no id
        no("youtube.com", "/mkbhd"); // bare name is not one of the shapes
                                     // The rules name youtube.com only: youtu.be/@x is "any other host", Mastodon-style.
        assert_eq!(h("https", "youtu.be", "/@x").unwrap().0, Network::Mastodon);
        no("notyoutube.com.example", "/c/x"); // wrong host
        assert_eq!(h("ftp", "youtube.com", "/@mkbhd"), None);
    }

    #[test]
    fn tiktok() {
        use Network::Tiktok as T;
        yes("www.tiktok.com", "/@charlidamelio", T, "@charlidamelio");
        yes("tiktok.com", "/@a.b_c/", T, "@a.b_c");
        yes("m.tiktok.com", "/@x", T, "@x");
        no("tiktok.com", "/@charlidamelio/video/123"); // not alone
        no("tiktok.com", "/charlidamelio"); // no '@'
        no("tiktok.com", "/@"); // empty
        no("tiktok.com", "/discover"); // site page
        no("tiktok.com.", "/x"); // no '@' (root dot ignored)
        no("medium.com", "/@x"); // wrong host (and excluded from Mastodon-style)
        assert_eq!(h("tiktok", "tiktok.com", "/@x"), None); // non-http scheme
    }

    #[test]
    fn mastodon() {
        use Network::Mastodon as M;
        yes(
            "mastodon.social",
            "/@Gargron",
            M,
            "@Gargron@mastodon.social",
        );
        yes("fosstodon.org.", "/@alice/", M, "@alice@fosstodon.org"); // root dot
        yes(
            "mastodon.social",
            "/@bob@example.org",
            M,
            "@bob@example.org",
        ); // remote account
        yes("tiktok.co", "/@x", M, "@x@tiktok.co"); // not tiktok.com
        no("mastodon.social", "/@Gargron/1234567"); // extra segment: a post
        no("mastodon.social", "/Gargron"); // no '@'
        no("mastodon.social", "/@"); // empty name
        no("mastodon.social", "/@@x"); // malformed
        no("medium.com", "/@author"); // excluded host
        no("blog.medium.com", "/@author"); // subdomain of an excluded host
        no("substack.com", "/@writer"); // excluded host
        no("www.threads.net", "/@zuck"); // excluded host
        no("threads.com", "/@zuck"); // excluded host
        no("x.com", "/@jack"); // a listed network: its own rules apply
        assert_eq!(h("http", "mastodon.social", "/@Gargron").unwrap().0, M);
        assert_eq!(h("gopher", "mastodon.social", "/@Gargron"), None); // non-http
    }

    #[test]
    fn keywords_ignore_ascii_case() {
        use Network::*;
        yes(
            "facebook.com",
            "/Groups/rustlang",
            Facebook,
            "groups/rustlang",
        );
        yes("facebook.com", "/PEOPLE/Jo/1", Facebook, "people/Jo/1");
        yes("facebook.com", "/Profile.PHP", Facebook, "profile.php");
        no("facebook.com", "/GROUPS"); // the directory, not an account named GROUPS
        yes("github.com", "/ORGS/rust-lang", Github, "rust-lang");
        no("github.com", "/Orgs"); // not an account named Orgs
        yes("youtube.com", "/Channel/UC1", Youtube, "channel/UC1");
        yes("linkedin.com", "/Company/Acme", Linkedin, "company/Acme"); // name as written
    }

    #[test]
    fn schemes_root_dot_and_trailing_slash() {
        use Network::*;
        assert_eq!(h("HTTP", "x.com", "/jack"), Some((X, "jack".into())));
        assert_eq!(h("HttpS", "x.com", "/jack"), Some((X, "jack".into())));
        assert_eq!(h("https:", "x.com", "/jack"), None); // scheme with its ':'
                                                         // A root dot on the host is ignored.
        yes("x.com.", "/jack", X, "jack");
        yes("www.linkedin.com.", "/in/jdoe/", Linkedin, "in/jdoe");
        yes("github.com.", "/octocat", Github, "octocat");
        no("x.com..", "/jack"); // only one root dot
                                // One trailing slash is ignored; two leave an empty segment.
        yes("instagram.com", "/nasa/", Instagram, "nasa");
        yes("tiktok.com", "/@x/", Tiktok, "@x");
        no("x.com", "/jack//");
        no("instagram.com", "//nasa");
        // No path, or a bare '/'.
        no("x.com", "");
        no("x.com", "/");
        no("", "/jack");
        no(".", "/@x");
    }

    #[test]
    fn host_matching() {
        assert!(host_matches("x.com", "x.com"));
        assert!(host_matches("mobile.x.com", "x.com"));
        assert!(host_matches("a.b.X.COM", "x.com"));
        assert!(!host_matches("box.com", "x.com"));
        assert!(!host_matches("xcom", "x.com"));
        assert!(!host_matches("é.com", "x.com"));
    }
}

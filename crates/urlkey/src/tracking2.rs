//! Tracking registry 2 (issue 18): names and prefixes with a **scope** (everywhere, or a
//! list of sites), **exceptions** (where the parameter is kept even in scope) and the
//! platform's own documentation page, read on the date given.
//!
//! Registry 1 (`tracking.rs`) is frozen with the policies that use it; this table is a
//! separate list, `registry@2`, used by `clean@1`. It is written from the platforms'
//! documentation, not copied from ClearURLs, AdGuard or Brave (their lists are GPL/LGPL).
//!
//! An entry whose parameter no platform page documents (`documented: false`: YouTube's and
//! Spotify's `si`, Instagram's `igsh`/`igshid`) says so in its `note`; it is scoped to the
//! platform's own hosts, where the value is a share token and not content.

use crate::query::raw_params;
use crate::tracking::MatchKind;

/// Where an entry applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "sites", rename_all = "kebab-case")]
pub enum Scope {
    /// On every host: the platform appends it to links to other people's sites.
    Global,
    /// Only on these sites: a site is a host and every host under it (`youtube.com`
    /// covers `www.youtube.com` and `music.youtube.com`).
    Sites(&'static [&'static str]),
}

/// Where an entry's parameter is kept even in scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum Exception {
    /// On this site (a host and every host under it).
    Host(&'static str),
    /// When the path contains this text, ignoring ASCII case (`unsubscribe`).
    PathContains(&'static str),
    /// When the query also has a parameter of this name, ignoring ASCII case.
    WithParameter(&'static str),
}

/// One entry of registry 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ScopedRule {
    /// The name or prefix, lowercase.
    pub pattern: &'static str,
    /// Exact name or prefix, matched ignoring ASCII case on the name as written.
    pub kind: MatchKind,
    /// Where it applies.
    pub scope: Scope,
    /// Where it is kept anyway.
    pub exceptions: &'static [Exception],
    /// Who sets it.
    pub platform: &'static str,
    /// The platform's page that documents it (empty when none does: see `note`).
    pub source: &'static str,
    /// When the page was read.
    pub read: &'static str,
    /// False when no platform page names the parameter.
    pub documented: bool,
    /// Why it is on the list, and anything a reader of the source should know.
    pub note: &'static str,
}

/// What a rule needs to know about the URL it cleans.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The host, lowercase (the URL Standard's serialization); empty when there is none.
    pub host: &'a str,
    /// The path as written.
    pub path: &'a str,
    /// The query without `?`.
    pub query: &'a str,
}

/// Why an entry left a parameter alone, or removed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The name matches, the host is in scope, no exception holds: removed.
    Removed,
    /// The name matches but the host is outside the scope.
    OutOfScope,
    /// The name matches, in scope, but this exception keeps it.
    Excepted(Exception),
}

impl ScopedRule {
    /// True when `name` (as written, never percent-decoded) is this entry's parameter.
    pub fn names(&self, name: &str) -> bool {
        let (p, b) = (self.pattern.as_bytes(), name.as_bytes());
        match self.kind {
            MatchKind::Exact => p.eq_ignore_ascii_case(b),
            MatchKind::Prefix => b.len() >= p.len() && p.eq_ignore_ascii_case(&b[..p.len()]),
        }
    }

    /// What this entry does to a parameter it names, at `place`.
    pub fn verdict(&self, place: &Place<'_>) -> Verdict {
        if let Scope::Sites(sites) = self.scope {
            if !sites.iter().any(|s| on_site(place.host, s)) {
                return Verdict::OutOfScope;
            }
        }
        match self.exceptions.iter().find(|e| e.holds(place)) {
            Some(e) => Verdict::Excepted(*e),
            None => Verdict::Removed,
        }
    }
}

impl Exception {
    /// True when the exception keeps the parameter at `place`.
    pub fn holds(&self, place: &Place<'_>) -> bool {
        match *self {
            Exception::Host(site) => on_site(place.host, site),
            Exception::PathContains(text) => contains_ignore_case(place.path, text),
            Exception::WithParameter(name) => raw_params(place.query)
                .any(|p| p.name.as_bytes().eq_ignore_ascii_case(name.as_bytes())),
        }
    }
}

/// True when `host` is `site` or a host under it (`a.youtube.com` for `youtube.com`);
/// a final root `.` is ignored, so `youtube.com.` is YouTube too.
pub fn on_site(host: &str, site: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let (h, s) = (host.as_bytes(), site.as_bytes());
    if h.len() < s.len() || !h[h.len() - s.len()..].eq_ignore_ascii_case(s) {
        return false;
    }
    h.len() == s.len() || h[h.len() - s.len() - 1] == b'.'
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// The date every source below was read.
pub const READ: &str = "2026-12-01";

const GA4_CAMPAIGNS: &str = "https://support.google.com/analytics/answer/10917952";
const GOOGLE_ADS_API_CLICKS: &str =
    "https://developers.google.com/google-ads/api/docs/conversions/upload-clicks";
const GAD_SOURCE: &str = "https://support.google.com/google-ads/answer/13327296";
const MAILCHIMP: &str = "https://mailchimp.com/developer/marketing/docs/e-commerce/";
const HUBSPOT: &str =
    "https://knowledge.hubspot.com/email/links-in-emails-or-ctas-lead-to-an-error-page";
const YANDEX: &str = "https://yandex.ru/support/direct/en/statistics/url-tags";
const MATOMO_URLS: &str =
    "https://matomo.org/faq/reports/advanced-how-to-manually-build-campaign-tracking-urls";
const MATOMO_NAMES: &str = "https://matomo.org/faq/how-to/faq_120";
const PIANO: &str = "https://developers.atinternet-solutions.com/piano-analytics/data-collection/how-to-send-events/marketing-campaigns";
const ADOBE_IDS: &str =
    "https://experienceleague.adobe.com/en/docs/advertising/integrations/customer-journey-analytics/ids";
const OMEDA: &str = "https://training.omeda.com/knowledge-base/olytics-overview/";

/// A global entry from the platform's documentation.
macro_rules! global {
    ($p:expr, $k:ident, $platform:expr, $src:expr, $note:expr) => {
        ScopedRule {
            pattern: $p,
            kind: MatchKind::$k,
            scope: Scope::Global,
            exceptions: &[],
            platform: $platform,
            source: $src,
            read: READ,
            documented: true,
            note: $note,
        }
    };
}

const YOUTUBE: &[&str] = &["youtube.com", "youtu.be"];
const INSTAGRAM: &[&str] = &["instagram.com"];
const SPOTIFY: &[&str] = &["open.spotify.com"];
const X_SITES: &[&str] = &["twitter.com", "x.com"];

/// Registry 2: every entry, in the order `urlkey rules --registry 2` prints them.
pub const REGISTRY_2: &[ScopedRule] = &[
    // Google Analytics 4 campaign parameters, and the `utm_` namespace they share.
    global!("utm_source", Exact, "Google Analytics", GA4_CAMPAIGNS, "campaign source"),
    global!("utm_medium", Exact, "Google Analytics", GA4_CAMPAIGNS, "campaign medium"),
    global!("utm_campaign", Exact, "Google Analytics", GA4_CAMPAIGNS, "campaign name"),
    global!("utm_term", Exact, "Google Analytics", GA4_CAMPAIGNS, "paid keyword"),
    global!("utm_content", Exact, "Google Analytics", GA4_CAMPAIGNS, "ad or link variant"),
    global!("utm_id", Exact, "Google Analytics", GA4_CAMPAIGNS, "campaign id"),
    global!("utm_source_platform", Exact, "Google Analytics", GA4_CAMPAIGNS, "buying platform"),
    global!("utm_creative_format", Exact, "Google Analytics", GA4_CAMPAIGNS, "creative format"),
    global!("utm_marketing_tactic", Exact, "Google Analytics", GA4_CAMPAIGNS, "targeting tactic"),
    global!("utm_", Prefix, "Google Analytics", GA4_CAMPAIGNS, "any other name of the utm_ namespace (utm_reader, utm_name)"),
    // Google Ads, Merchant Center, Campaign Manager, Search Ads 360, the Google tag.
    global!("gclid", Exact, "Google Ads", "https://support.google.com/google-ads/answer/3095550", "auto-tagging click id"),
    global!("gclsrc", Exact, "Google Search Ads 360", "https://support.google.com/searchads/answer/7342044", "which system generated the gclid"),
    global!("dclid", Exact, "Google Campaign Manager 360", "https://support.google.com/campaignmanager/answer/9182069", "display click id"),
    global!("gbraid", Exact, "Google Ads", GOOGLE_ADS_API_CLICKS, "app-to-web click id (iOS)"),
    global!("wbraid", Exact, "Google Ads", GOOGLE_ADS_API_CLICKS, "web-to-app click id (iOS)"),
    global!("gad_source", Exact, "Google Ads", GAD_SOURCE, "ad click source"),
    global!("gad", Exact, "Google Ads", GAD_SOURCE, "the former name of gad_source (the page says so)"),
    global!("gad_campaignid", Exact, "Google Ads", "https://support.google.com/google-ads/answer/16193746", "campaign that drove the click"),
    global!("srsltid", Exact, "Google Merchant Center", "https://support.google.com/merchants/answer/11127659", "result id of Merchant Center auto-tagging: on shop links in Search and AI answers"),
    global!("_gl", Exact, "Google tag", "https://developers.google.com/tag-platform/devguides/cross-domain", "cross-domain linker: first-party cookie values"),
    // Advertising platforms' click ids.
    global!("fbclid", Exact, "Meta", "https://developers.facebook.com/documentation/ads-commerce/conversions-api/parameters/fbp-and-fbc", "click id (source as in registry 1)"),
    global!("msclkid", Exact, "Microsoft Advertising", "https://help.ads.microsoft.com/apex/index/3/en/60125", "auto-tagging click id"),
    global!("ttclid", Exact, "TikTok", "https://ads.tiktok.com/resources/help/article/tiktok-click-id", "click id (source as in registry 1, not re-read)"),
    global!("twclid", Exact, "X Ads", "https://docs.x.com/x-ads-api/measurement/web-conversions", "click id (source as in registry 1)"),
    global!("li_fat_id", Exact, "LinkedIn", "https://learn.microsoft.com/en-us/linkedin/marketing/conversions/enabling-first-party-cookies", "first-party ad tracking id (source as in registry 1)"),
    global!("epik", Exact, "Pinterest", "https://help.pinterest.com/en/business/article/add-event-codes", "click id"),
    global!("yclid", Exact, "Yandex Direct", YANDEX, "click id (the page: only yclid and _openstat survive a long URL)"),
    global!("_openstat", Exact, "Yandex Direct", YANDEX, "Openstat campaign tag"),
    global!("ef_id", Exact, "Adobe Advertising", ADOBE_IDS, "EF ID: click or exposure token"),
    global!("s_kwcid", Exact, "Adobe Advertising", ADOBE_IDS, "AMO ID (the page: also called s_kwcid)"),
    // E-mail and marketing-automation platforms.
    global!("mc_cid", Exact, "Mailchimp", MAILCHIMP, "campaign id"),
    global!("mc_eid", Exact, "Mailchimp", MAILCHIMP, "recipient id"),
    global!("_hsenc", Exact, "HubSpot", HUBSPOT, "recipient token of e-mail links"),
    global!("_hsmi", Exact, "HubSpot", HUBSPOT, "e-mail message id"),
    global!("hsctatracking", Exact, "HubSpot", HUBSPOT, "call-to-action click tracking (written hsCtaTracking)"),
    ScopedRule {
        pattern: "mkt_tok",
        kind: MatchKind::Exact,
        scope: Scope::Global,
        exceptions: &[
            Exception::WithParameter("mkt_unsubscribe"),
            Exception::PathContains("unsubscribe"),
        ],
        platform: "Adobe Marketo Engage",
        source: "https://nation.marketo.com/docs/DOC-6169-unsubscribes-not-tracking-in-reporting",
        read: READ,
        documented: true,
        note: "recipient token; kept on unsubscribe links, which need it (the page: ?mkt_unsubscribe=1&mkt_tok=...)",
    },
    global!("_kx", Exact, "Klaviyo", "https://help.klaviyo.com/hc/en-us/articles/360034666712", "e-mail to website tracking id"),
    global!("vero_id", Exact, "Vero", "https://help.getvero.com/vero-1/articles/what-is-vero_id", "recipient id"),
    global!("vero_conv", Exact, "Vero", "https://help.getvero.com/vero-2/campaigns/conversion-tracking", "conversion tracking id"),
    global!("oly_enc_id", Exact, "Omeda Olytics", OMEDA, "encrypted customer id"),
    global!("oly_anon_id", Exact, "Omeda Olytics", OMEDA, "anonymous visitor id"),
    // Web analytics: Matomo (and Piwik before it), Piano Analytics (AT Internet).
    global!("mtm_campaign", Exact, "Matomo", MATOMO_URLS, "campaign name"),
    global!("mtm_source", Exact, "Matomo", MATOMO_URLS, "campaign source"),
    global!("mtm_medium", Exact, "Matomo", MATOMO_URLS, "campaign medium"),
    global!("mtm_keyword", Exact, "Matomo", MATOMO_URLS, "campaign keyword"),
    global!("mtm_content", Exact, "Matomo", MATOMO_URLS, "campaign content"),
    global!("mtm_cid", Exact, "Matomo", MATOMO_URLS, "campaign id"),
    global!("mtm_group", Exact, "Matomo", MATOMO_URLS, "campaign group"),
    global!("mtm_placement", Exact, "Matomo", MATOMO_URLS, "campaign placement"),
    global!("mtm_kwd", Exact, "Matomo", MATOMO_NAMES, "campaign keyword"),
    global!("matomo_campaign", Exact, "Matomo", MATOMO_NAMES, "campaign name"),
    global!("pk_campaign", Exact, "Matomo", MATOMO_NAMES, "campaign name (Piwik)"),
    global!("piwik_campaign", Exact, "Matomo", MATOMO_NAMES, "campaign name (Piwik)"),
    global!("pk_kwd", Exact, "Matomo", MATOMO_NAMES, "campaign keyword (Piwik)"),
    global!("piwik_kwd", Exact, "Matomo", MATOMO_NAMES, "campaign keyword (Piwik)"),
    global!("pk_keyword", Exact, "Matomo", MATOMO_NAMES, "campaign keyword (Piwik)"),
    global!("at_medium", Exact, "Piano Analytics", PIANO, "campaign medium"),
    global!("at_campaign", Exact, "Piano Analytics", PIANO, "campaign name"),
    global!("xtor", Exact, "Piano Analytics (AT Internet)", PIANO, "the legacy campaign format the page names"),
    // Platform share links: scoped to the platform's own hosts.
    ScopedRule {
        pattern: "ref_src",
        kind: MatchKind::Exact,
        scope: Scope::Sites(X_SITES),
        exceptions: &[],
        platform: "X",
        source: "https://docs.x.com/x-for-websites/embedded-posts/overview",
        read: READ,
        documented: true,
        note: "embed attribution (?ref_src=twsrc%5Etfw in embed markup); a content parameter elsewhere",
    },
    ScopedRule {
        pattern: "si",
        kind: MatchKind::Exact,
        scope: Scope::Sites(YOUTUBE),
        exceptions: &[],
        platform: "YouTube",
        source: "",
        read: READ,
        documented: false,
        note: "share id added by the Share button; no YouTube page names it; a content parameter elsewhere",
    },
    ScopedRule {
        pattern: "si",
        kind: MatchKind::Exact,
        scope: Scope::Sites(SPOTIFY),
        exceptions: &[],
        platform: "Spotify",
        source: "",
        read: READ,
        documented: false,
        note: "share id added by Share > Copy link; no Spotify page names it",
    },
    ScopedRule {
        pattern: "igsh",
        kind: MatchKind::Exact,
        scope: Scope::Sites(INSTAGRAM),
        exceptions: &[],
        platform: "Instagram",
        source: "",
        read: READ,
        documented: false,
        note: "share id added by Share > Copy link; no Instagram page names it",
    },
    ScopedRule {
        pattern: "igshid",
        kind: MatchKind::Exact,
        scope: Scope::Sites(INSTAGRAM),
        exceptions: &[],
        platform: "Instagram",
        source: "",
        read: READ,
        documented: false,
        note: "the older name of igsh; no Instagram page names it",
    },
];

/// The entries that name `name` at `place`, each with its verdict, in table order: what
/// `urlkey rules --check` prints.
pub fn verdicts(name: &str, place: &Place<'_>) -> Vec<(&'static ScopedRule, Verdict)> {
    REGISTRY_2
        .iter()
        .filter(|r| r.names(name))
        .map(|r| (r, r.verdict(place)))
        .collect()
}

/// True when some entry removes `name` at `place`.
pub fn removes(rules: &[ScopedRule], name: &str, place: &Place<'_>) -> bool {
    rules
        .iter()
        .any(|r| r.names(name) && r.verdict(place) == Verdict::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place<'a>(host: &'a str, path: &'a str, query: &'a str) -> Place<'a> {
        Place { host, path, query }
    }

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

    #[test]
    fn registry_2_has_sixty_documented_entries_each_with_a_page() {
        let documented: Vec<_> = REGISTRY_2.iter().filter(|r| r.documented).collect();
        assert!(documented.len() >= 60, "{}", documented.len());
        for r in REGISTRY_2 {
            assert_eq!(r.pattern, r.pattern.to_ascii_lowercase(), "{}", r.pattern);
            assert_eq!(r.read, READ);
            assert!(
                !r.platform.is_empty() && !r.note.is_empty(),
                "{}",
                r.pattern
            );
            if r.documented {
                assert!(
                    r.source.starts_with("https://"),
                    "{}: {}",
                    r.pattern,
                    r.source
                );
            } else {
                assert!(r.source.is_empty(), "{}", r.pattern);
                assert!(matches!(r.scope, Scope::Sites(_)), "{}", r.pattern);
            }
        }
        // One entry per (name, platform): a repeat would print twice in --check.
        for (i, a) in REGISTRY_2.iter().enumerate() {
            for b in &REGISTRY_2[i + 1..] {
                assert!(
                    (a.pattern, a.platform) != (b.pattern, b.platform),
                    "{} twice",
                    a.pattern
                );
            }
        }
    }

    #[test]
    fn scope_and_exceptions_decide_each_verdict() {
        let si = |host| {
            verdicts("si", &place(host, "/watch", "v=x&si=1"))
                .iter()
                .any(|(_, v)| *v == Verdict::Removed)
        };
        assert!(si("www.youtube.com") && si("youtu.be") && si("open.spotify.com"));
        assert!(!si("example.com"), "si is a content parameter elsewhere");
        let tok =
            |path, query| removes(REGISTRY_2, "mkt_tok", &place("go.example.com", path, query));
        assert!(tok("/lp/offer.html", "mkt_tok=abc"));
        assert!(!tok("/UnsubscribePage.html", "mkt_tok=abc"));
        assert!(!tok("/lp/offer.html", "mkt_unsubscribe=1&mkt_tok=abc"));
        assert_eq!(
            verdicts("mkt_tok", &place("go.example.com", "/unsubscribe", ""))[0].1,
            Verdict::Excepted(Exception::PathContains("unsubscribe"))
        );
        assert!(removes(
            REGISTRY_2,
            "UTM_Reader",
            &place("a.example", "/", "")
        ));
        assert!(!removes(
            REGISTRY_2,
            "utm%5Fsource",
            &place("a.example", "/", "")
        ));
        assert!(!removes(REGISTRY_2, "ref", &place("a.example", "/", "")));
    }
}

//! Tracking registry 2: names and prefixes with a **scope** (everywhere, or a list of
//! sites), **exceptions** (where the parameter is kept even in scope) and the **sources**
//! that back each entry, with the date each was read.
//!
//! Registry 1 ([`super::registry1`]) is frozen with the policies that use it; this table is a
//! separate list, `registry@2`, used by `clean@1`. A source is the platform's own page
//! (an `https://` URL) or an entry of a published list, written `List:section:name`
//! ([`LISTS`] pins each list to the commit read: ClearURLs' rules, Brave's query filter,
//! AdGuard's URL tracking filter). The entries cite those lists; none is copied from them
//! (their licences are LGPL, MPL and GPL).
//!
//! An entry whose parameter no platform page names (`documented: false`: YouTube's and
//! Spotify's `si`, Instagram's `igsh`/`igshid`, `twclid`, ...) cites the lists alone. A
//! name with no citable source at all is not in the registry but in [`OPT_IN`], which no
//! builtin policy uses.

use crate::query::raw_params;

use super::matching::{contains_ignore_case, on_site, MatchKind, Place};

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
    /// What backs it, the platform's page first when there is one. Never empty in
    /// [`REGISTRY_2`].
    pub sources: &'static [Source],
    /// True when one of the sources is the platform's own page, false when only
    /// published lists name the parameter.
    pub documented: bool,
    /// Why it is on the list, and anything a reader of the source should know.
    pub note: &'static str,
    /// The registry version that added it (`2` for `registry@2`): the list `registry@N`
    /// is every entry with `since <= N`, so an entry added later never reaches a released
    /// policy (docs/policies.md, "Pinned lists").
    pub since: u8,
}

/// One citation of an entry, with the date it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    /// An `https://` URL, or `List:section:name` for an entry of a list in [`LISTS`].
    pub cite: &'static str,
    /// When it was read (YYYY-MM-DD).
    pub read: &'static str,
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
        self.verdict_beside(place, &|_| false)
    }

    /// [`Self::verdict`] in a set that also removes what `removed` says: a `with parameter`
    /// exception holds only when that parameter stays, or the key of the key would differ.
    pub fn verdict_beside(&self, place: &Place<'_>, removed: &dyn Fn(&str) -> bool) -> Verdict {
        if let Scope::Sites(sites) = self.scope {
            if !sites.iter().any(|s| on_site(place.host, s)) {
                return Verdict::OutOfScope;
            }
        }
        match self
            .exceptions
            .iter()
            .find(|e| e.holds_beside(place, removed))
        {
            Some(e) => Verdict::Excepted(*e),
            None => Verdict::Removed,
        }
    }
}

impl Exception {
    /// True when the exception keeps the parameter at `place`.
    pub fn holds(&self, place: &Place<'_>) -> bool {
        self.holds_beside(place, &|_| false)
    }

    /// [`Self::holds`] when the parameters `removed` names go too: the parameter a `with
    /// parameter` exception needs must be one that stays.
    pub fn holds_beside(&self, place: &Place<'_>, removed: &dyn Fn(&str) -> bool) -> bool {
        match *self {
            Exception::Host(site) => on_site(place.host, site),
            Exception::PathContains(text) => contains_ignore_case(place.path, text),
            Exception::WithParameter(name) => raw_params(place.query).any(|p| {
                p.name.as_bytes().eq_ignore_ascii_case(name.as_bytes()) && !removed(p.name)
            }),
        }
    }
}

/// The date every source of registry 2 was read: the pages in archived copies, the lists
/// at the commits in [`LISTS`].
pub const SOURCES_READ: &str = "2026-12-04";

/// A published list that an entry may cite as `List:section:name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PublishedList {
    /// The first part of a citation (`ClearURLs`).
    pub id: &'static str,
    /// What the second and third parts name.
    pub form: &'static str,
    /// The file, at the commit that was read.
    pub at: &'static str,
}

/// The lists that registry 2 cites, each pinned to the commit that was read.
pub const LISTS: &[PublishedList] = &[
    PublishedList {
        id: "ClearURLs",
        form: "ClearURLs:PROVIDER:RULE, a rule of providers.PROVIDER.rules (matched as a whole name, ignoring case)",
        at: "https://github.com/ClearURLs/Rules/blob/9317c06bf56ae3b447f56c14dc2e03a68ab53dee/data.min.json (commit of 2025-07-29)",
    },
    PublishedList {
        id: "Brave",
        form: "Brave:TABLE:NAME, a name of that table of Brave's query filter",
        at: "https://github.com/brave/brave-core/blob/0c7f00e55270713337549a38a127f7e441383c23/components/query_filter/utils.cc",
    },
    PublishedList {
        id: "AdGuard",
        form: "AdGuard:general_url:NAME, a $removeparam=NAME rule of AdGuard's URL tracking filter",
        at: "https://github.com/AdguardTeam/AdguardFilters/blob/002b06615b38c64b27fadafad6cf5323e752090f/TrackParamFilter/sections/general_url.txt",
    },
];

const fn cite(cite: &'static str) -> Source {
    Source {
        cite,
        read: SOURCES_READ,
    }
}

/// True when one of `sources` is a page (`https://`), not a list entry.
const fn has_page(sources: &[Source]) -> bool {
    let mut i = 0;
    while i < sources.len() {
        let c = sources[i].cite.as_bytes();
        let p = b"https://";
        if c.len() > p.len() {
            let mut j = 0;
            while j < p.len() && c[j] == p[j] {
                j += 1;
            }
            if j == p.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

// The platforms' own pages, each read on SOURCES_READ (an archived copy) and naming the
// parameters cited to it.
const GA4_CAMPAIGNS: Source = cite("https://support.google.com/analytics/answer/10917952");
const GOOGLE_ADS_AUTO_TAGGING: Source =
    cite("https://support.google.com/google-ads/answer/1752125");
const SA360_CLICK_IDS: Source = cite("https://support.google.com/searchads/answer/7342044");
const SA360_ANALYTICS_PARAMS: Source = cite("https://support.google.com/searchads/answer/6292795");
const GOOGLE_ADS_API_CLICK_RESULT: Source =
    cite("https://developers.google.com/google-ads/api/reference/rpc/v21/ClickConversionResult");
const GAD_SOURCE: Source = cite("https://support.google.com/google-ads/answer/13327296");
const GAD_PARAMS: Source = cite("https://support.google.com/google-ads/answer/16193746");
const MERCHANT_AUTO_TAGGING: Source = cite("https://support.google.com/merchants/answer/15191080");
const TAG_CROSS_DOMAIN: Source =
    cite("https://developers.google.com/tag-platform/devguides/cross-domain");
const META_CLICK_ID: Source = cite("https://developers.facebook.com/documentation/ads-commerce/conversions-api/parameters/fbp-and-fbc");
const MSCLKID: Source = cite("https://help.ads.microsoft.com/apex/index/3/en/60125");
const TIKTOK_CLICK_ID: Source = cite("https://ads.tiktok.com/help/article/tiktok-click-id");
const LINKEDIN_CLICK_ID: Source = cite(
    "https://learn.microsoft.com/en-us/linkedin/marketing/conversions/enabling-first-party-cookies",
);
const YANDEX: Source = cite("https://yandex.ru/support/direct/en/statistics/url-tags");
const ADOBE_EF_ID: Source =
    cite("https://experienceleague.adobe.com/en/docs/analytics/components/dimensions/amo-ef-id");
const ADOBE_AMO_ID: Source =
    cite("https://experienceleague.adobe.com/en/docs/advertising/integrations/analytics/mc/mc-ids");
const MARKETO: Source =
    cite("https://nation.marketo.com/docs/DOC-6169-unsubscribes-not-tracking-in-reporting");
const VERO_ID: Source = cite("https://help.getvero.com/vero-1/articles/what-is-vero_id");
const VERO_CONV: Source = cite("https://help.getvero.com/vero-2/campaigns/conversion-tracking");
const OMEDA: Source = cite("https://training.omeda.com/knowledge-base/olytics-overview/");
const MATOMO_URLS: Source =
    cite("https://matomo.org/faq/reports/advanced-how-to-manually-build-campaign-tracking-urls/");
const MATOMO_DOCS: Source = cite("https://matomo.org/docs/tracking-campaigns/");
// Matomo's default configuration: the campaign-name and campaign-keyword parameter names it reads.
const MATOMO_NAME_VARS: Source = cite("https://github.com/matomo-org/matomo/blob/f09912cb702a76d06ab1a129a8e0a4e2a61818a8/config/global.ini.php#L1003");
const MATOMO_KEYWORD_VARS: Source = cite("https://github.com/matomo-org/matomo/blob/f09912cb702a76d06ab1a129a8e0a4e2a61818a8/config/global.ini.php#L1009");
const PIANO: Source = cite("https://developers.atinternet-solutions.com/piano-analytics-tagging-en/event-tagging-piano-analytics-en/marketing-campaign-management-en/");

// Entries of the published lists (LISTS), read on SOURCES_READ at the pinned commits.
const CLEARURLS_UTM: Source = cite("ClearURLs:globalRules:(?:%3F)?utm(?:_[a-z_]*)?");
const CLEARURLS_MTM: Source = cite("ClearURLs:globalRules:(?:%3F)?mtm(?:_[a-z_]*)?");
const CLEARURLS_MC: Source = cite("ClearURLs:globalRules:(?:%3F)?mc_(?:eid|cid|tc)");

/// A global entry.
macro_rules! global {
    ($p:expr, $k:ident, $platform:expr, [$($src:expr),+ $(,)?], $note:expr) => {
        ScopedRule {
            pattern: $p,
            kind: MatchKind::$k,
            scope: Scope::Global,
            exceptions: &[],
            platform: $platform,
            sources: &[$($src),+],
            documented: has_page(&[$($src),+]),
            note: $note,
            since: FIRST_VERSION,
        }
    };
}

/// An entry scoped to the platform's own sites.
macro_rules! scoped {
    ($p:expr, $sites:expr, $platform:expr, [$($src:expr),+ $(,)?], $note:expr) => {
        ScopedRule {
            pattern: $p,
            kind: MatchKind::Exact,
            scope: Scope::Sites($sites),
            exceptions: &[],
            platform: $platform,
            sources: &[$($src),+],
            documented: has_page(&[$($src),+]),
            note: $note,
            since: FIRST_VERSION,
        }
    };
}

const YOUTUBE: &[&str] = &["youtube.com", "youtu.be"];
const INSTAGRAM: &[&str] = &["instagram.com"];
const SPOTIFY: &[&str] = &["open.spotify.com"];
const X_SITES: &[&str] = &["twitter.com", "x.com"];

/// The first version of this table: `registry@2`, the list `clean@1` shipped with.
pub const FIRST_VERSION: u8 = 2;

/// The newest version of this table. An entry added after a policy's release carries
/// `since: LATEST_VERSION + 1`, and this constant moves with it: `registry@2` and the
/// policies pinned to it keep their keys (docs/policies.md, "Pinned lists").
pub const LATEST_VERSION: u8 = 2;

/// The entries of `registry@{version}`: every entry of [`REGISTRY_2`] with
/// `since <= version`, in table order. `None` for a version this table does not have.
pub fn entries_of(version: u8) -> Option<&'static [ScopedRule]> {
    use std::sync::LazyLock;
    static VERSIONS: LazyLock<Vec<Vec<ScopedRule>>> = LazyLock::new(|| {
        (FIRST_VERSION..=LATEST_VERSION)
            .map(|v| {
                REGISTRY_2
                    .iter()
                    .filter(|r| r.since <= v)
                    .copied()
                    .collect()
            })
            .collect()
    });
    let i = version.checked_sub(FIRST_VERSION)?;
    VERSIONS.get(usize::from(i)).map(Vec::as_slice)
}

/// Registry 2: every entry, in the order `urlkey rules --registry 2` prints them. Each
/// names at least one source: the platform's page or an entry of a list in [`LISTS`].
pub const REGISTRY_2: &[ScopedRule] = &[
    // Google Analytics 4 campaign parameters, and the `utm_` namespace they share.
    global!("utm_source", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "campaign source"),
    global!("utm_medium", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "campaign medium"),
    global!("utm_campaign", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "campaign name"),
    global!("utm_term", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "paid keyword"),
    global!("utm_content", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "ad or link variant"),
    global!("utm_id", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "campaign id"),
    global!("utm_source_platform", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "buying platform"),
    global!("utm_creative_format", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "creative format"),
    global!("utm_marketing_tactic", Exact, "Google Analytics", [GA4_CAMPAIGNS, CLEARURLS_UTM], "targeting tactic"),
    global!("utm_", Prefix, "Google Analytics", [CLEARURLS_UTM, GA4_CAMPAIGNS], "any other name of the utm_ namespace (utm_reader, utm_name): ClearURLs removes the whole namespace, the GA4 page names the nine above"),
    // Google Ads, Merchant Center, Campaign Manager, Search Ads 360, the Google tag.
    global!("gclid", Exact, "Google Ads", [GOOGLE_ADS_AUTO_TAGGING, cite("ClearURLs:globalRules:(?:%3F)?gclid"), cite("Brave:kSimpleQueryStringTrackers:gclid")], "auto-tagging click id"),
    global!("gclsrc", Exact, "Google Search Ads 360", [SA360_CLICK_IDS, cite("AdGuard:general_url:gclsrc")], "which system generated the gclid"),
    global!("dclid", Exact, "Google Campaign Manager 360", [SA360_ANALYTICS_PARAMS, cite("ClearURLs:globalRules:(?:%3F)?dclid"), cite("Brave:kSimpleQueryStringTrackers:dclid")], "display click id (the page: other Google products add parameters such as dclid)"),
    global!("gbraid", Exact, "Google Ads", [GOOGLE_ADS_API_CLICK_RESULT, cite("AdGuard:general_url:gbraid")], "click id of clicks tied to app conversions (iOS)"),
    global!("wbraid", Exact, "Google Ads", [GOOGLE_ADS_API_CLICK_RESULT, cite("Brave:kSimpleQueryStringTrackers:wbraid"), cite("AdGuard:general_url:wbraid")], "click id of clicks tied to web conversions (iOS)"),
    global!("gad_source", Exact, "Google Ads", [GAD_SOURCE], "ad click source"),
    global!("gad", Exact, "Google Ads", [GAD_SOURCE], "the former name of gad_source (the page says so)"),
    global!("gad_campaignid", Exact, "Google Ads", [GAD_PARAMS], "campaign that drove the click"),
    global!("srsltid", Exact, "Google Merchant Center", [MERCHANT_AUTO_TAGGING, cite("ClearURLs:globalRules:(?:%3F)?srsltid"), cite("Brave:kSimpleQueryStringTrackers:srsltid")], "result id of Merchant Center auto-tagging: on shop links in Search"),
    global!("_gl", Exact, "Google tag", [TAG_CROSS_DOMAIN, cite("ClearURLs:globalRules:(?:%3F)?_gl"), cite("Brave:kSimpleQueryStringTrackers:_gl")], "cross-domain linker: first-party cookie values"),
    // Advertising platforms' click ids.
    global!("fbclid", Exact, "Meta", [META_CLICK_ID, cite("ClearURLs:globalRules:(?:%3F)?fbclid"), cite("Brave:kSimpleQueryStringTrackers:fbclid")], "click id"),
    global!("msclkid", Exact, "Microsoft Advertising", [MSCLKID, cite("ClearURLs:globalRules:(?:%3F)?msclkid"), cite("Brave:kSimpleQueryStringTrackers:msclkid")], "auto-tagging click id"),
    global!("ttclid", Exact, "TikTok", [TIKTOK_CLICK_ID], "click id"),
    global!("twclid", Exact, "X Ads", [cite("ClearURLs:globalRules:(?:%3F)?twclid"), cite("Brave:kSimpleQueryStringTrackers:twclid"), cite("AdGuard:general_url:twclid")], "click id; no X page found names it"),
    global!("li_fat_id", Exact, "LinkedIn", [LINKEDIN_CLICK_ID], "first-party ad tracking click id"),
    global!("yclid", Exact, "Yandex Direct", [YANDEX, cite("ClearURLs:globalRules:(?:%3F)?yclid"), cite("Brave:kSimpleQueryStringTrackers:yclid")], "click id (the page: only yclid and _openstat survive a long URL)"),
    global!("_openstat", Exact, "Yandex Direct", [YANDEX, cite("ClearURLs:globalRules:(?:%3F)?_openstat"), cite("Brave:kSimpleQueryStringTrackers:_openstat")], "Openstat campaign tag"),
    global!("ef_id", Exact, "Adobe Advertising", [ADOBE_EF_ID], "EF ID: click or exposure token"),
    global!("s_kwcid", Exact, "Adobe Advertising", [ADOBE_AMO_ID], "AMO ID, set as the s_kwcid query string parameter"),
    // E-mail and marketing-automation platforms.
    global!("mc_cid", Exact, "Mailchimp", [CLEARURLS_MC], "campaign id; no Mailchimp page found names it"),
    global!("mc_eid", Exact, "Mailchimp", [CLEARURLS_MC, cite("Brave:kSimpleQueryStringTrackers:mc_eid"), cite("AdGuard:general_url:mc_eid")], "recipient id; no Mailchimp page found names it"),
    global!("_hsenc", Exact, "HubSpot", [cite("ClearURLs:globalRules:(?:%3F)?_hsenc"), cite("Brave:kSimpleQueryStringTrackers:_hsenc")], "recipient token of e-mail links; no HubSpot page found names it"),
    global!("hsctatracking", Exact, "HubSpot", [cite("ClearURLs:globalRules:(?:%3F)?hsCtaTracking"), cite("Brave:kSimpleQueryStringTrackers:hsCtaTracking")], "call-to-action click tracking (written hsCtaTracking); no HubSpot page found names it"),
    ScopedRule {
        pattern: "mkt_tok",
        kind: MatchKind::Exact,
        scope: Scope::Global,
        exceptions: &[
            Exception::WithParameter("mkt_unsubscribe"),
            Exception::PathContains("unsubscribe"),
        ],
        platform: "Adobe Marketo Engage",
        sources: &[MARKETO, cite("ClearURLs:globalRules:(?:%3F)?mkt_tok")],
        documented: true,
        note: "recipient token; kept on unsubscribe links, which need it (the page: ?mkt_unsubscribe=1&mkt_tok=...)",
        since: FIRST_VERSION,
    },
    global!("_kx", Exact, "Klaviyo", [cite("Brave:kSimpleQueryStringTrackers:_kx"), cite("AdGuard:general_url:_kx")], "e-mail to website tracking id; no Klaviyo page found names it"),
    global!("vero_id", Exact, "Vero", [VERO_ID, cite("ClearURLs:globalRules:(?:%3F)?vero_id"), cite("Brave:kSimpleQueryStringTrackers:vero_id")], "recipient id"),
    global!("vero_conv", Exact, "Vero", [VERO_CONV, cite("ClearURLs:globalRules:(?:%3F)?vero_conv"), cite("Brave:kSimpleQueryStringTrackers:vero_conv")], "conversion tracking id"),
    global!("oly_enc_id", Exact, "Omeda Olytics", [OMEDA, cite("ClearURLs:globalRules:(?:%3F)?oly_enc_id"), cite("Brave:kSimpleQueryStringTrackers:oly_enc_id")], "encrypted customer id, appended to e-mail links"),
    global!("oly_anon_id", Exact, "Omeda Olytics", [cite("ClearURLs:globalRules:(?:%3F)?oly_anon_id"), cite("Brave:kSimpleQueryStringTrackers:oly_anon_id"), OMEDA], "anonymous visitor id (the page names its cookie)"),
    // Web analytics: Matomo (and Piwik before it), Piano Analytics (AT Internet).
    global!("mtm_campaign", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign name"),
    global!("mtm_source", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign source"),
    global!("mtm_medium", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign medium"),
    global!("mtm_keyword", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign keyword"),
    global!("mtm_content", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign content"),
    global!("mtm_cid", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign id"),
    global!("mtm_group", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign group"),
    global!("mtm_placement", Exact, "Matomo", [MATOMO_URLS, CLEARURLS_MTM], "campaign placement"),
    global!("mtm_kwd", Exact, "Matomo", [MATOMO_KEYWORD_VARS, CLEARURLS_MTM], "campaign keyword"),
    global!("matomo_campaign", Exact, "Matomo", [MATOMO_NAME_VARS], "campaign name"),
    global!("pk_campaign", Exact, "Matomo", [MATOMO_DOCS, MATOMO_NAME_VARS, cite("AdGuard:general_url:pk_campaign")], "campaign name (Piwik)"),
    global!("piwik_campaign", Exact, "Matomo", [MATOMO_NAME_VARS], "campaign name (Piwik)"),
    global!("pk_kwd", Exact, "Matomo", [MATOMO_KEYWORD_VARS], "campaign keyword (Piwik)"),
    global!("piwik_kwd", Exact, "Matomo", [MATOMO_KEYWORD_VARS], "campaign keyword (Piwik)"),
    global!("pk_keyword", Exact, "Matomo", [MATOMO_KEYWORD_VARS], "campaign keyword (Piwik)"),
    global!("at_medium", Exact, "Piano Analytics", [PIANO], "campaign medium"),
    global!("at_campaign", Exact, "Piano Analytics", [PIANO], "campaign name"),
    global!("xtor", Exact, "Piano Analytics (AT Internet)", [cite("AdGuard:general_url:xtor")], "AT Internet's campaign parameter; no Piano page found names it"),
    // Platform share links: scoped to the platform's own hosts.
    scoped!("ref_src", X_SITES, "X", [cite("Brave:kScopedQueryStringTrackers:ref_src"), cite("ClearURLs:twitter:(?:ref_?)?src"), cite("ClearURLs:x:(?:ref_?)?src")], "embed attribution (?ref_src=twsrc%5Etfw); Brave scopes it to twitter.com and x.com too; no X page found names it; a content parameter elsewhere"),
    scoped!("si", YOUTUBE, "YouTube", [cite("Brave:kScopedQueryStringTrackers:si"), cite("ClearURLs:youtube:si")], "share id added by the Share button; no YouTube page names it; a content parameter elsewhere"),
    scoped!("si", SPOTIFY, "Spotify", [cite("ClearURLs:spotify.com:si")], "share id added by Share > Copy link; no Spotify page names it"),
    scoped!("igsh", INSTAGRAM, "Instagram", [cite("Brave:kScopedQueryStringTrackers:igsh"), cite("ClearURLs:instagram:igsh")], "share id added by Share > Copy link; no Instagram page names it"),
    scoped!("igshid", INSTAGRAM, "Instagram", [cite("Brave:kScopedQueryStringTrackers:igshid"), cite("ClearURLs:instagram:igshid")], "the older name of igsh; no Instagram page names it"),
];

/// Names no citable source backs: no builtin list removes them. A policy file opts in
/// with `add_names` on its `remove-tracking-parameters` rule (docs/policies.md).
pub const OPT_IN: &[ScopedRule] = &[
    ScopedRule {
        pattern: "epik",
        kind: MatchKind::Exact,
        scope: Scope::Global,
        exceptions: &[],
        platform: "Pinterest",
        sources: &[],
        documented: false,
        since: FIRST_VERSION,
        note: "click id of Pinterest ads; Pinterest's tag page (help.pinterest.com, add-event-codes) does not name it, and neither do ClearURLs, Brave's query filter nor AdGuard's URL tracking filter",
    },
    ScopedRule {
        pattern: "_hsmi",
        kind: MatchKind::Exact,
        scope: Scope::Global,
        exceptions: &[],
        platform: "HubSpot",
        sources: &[],
        documented: false,
        since: FIRST_VERSION,
        note: "e-mail message id of HubSpot links; no HubSpot page found names it, ClearURLs lists it only for deeplearning.ai, Brave's filter, which lists _hsenc, leaves it out (its issue brave/brave-browser#9019 calls it low-entropy)",
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

/// The parameters whose presence keeps another (`Exception::WithParameter`), in `rules`.
pub fn exception_parameters(rules: &[ScopedRule]) -> impl Iterator<Item = &'static str> + '_ {
    rules
        .iter()
        .flat_map(|r| r.exceptions)
        .filter_map(|e| match e {
            Exception::WithParameter(name) => Some(*name),
            _ => None,
        })
}

/// True when some entry removes `name` at `place`.
pub fn removes(rules: &[ScopedRule], name: &str, place: &Place<'_>) -> bool {
    removes_beside(rules, name, place, &|_| false)
}

/// [`removes`] in a set that also removes what `removed` says (its own names and
/// prefixes).
pub fn removes_beside(
    rules: &[ScopedRule],
    name: &str,
    place: &Place<'_>,
    removed: &dyn Fn(&str) -> bool,
) -> bool {
    rules
        .iter()
        .any(|r| r.names(name) && r.verdict_beside(place, removed) == Verdict::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place<'a>(host: &'a str, path: &'a str, query: &'a str) -> Place<'a> {
        Place { host, path, query }
    }

    /// A date written YYYY-MM-DD, with a month and a day that exist.
    fn is_date(d: &str) -> bool {
        let b = d.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !digits(0..4) {
            return false;
        }
        if !digits(5..7) || !digits(8..10) {
            return false;
        }
        let (m, day): (u32, u32) = (d[5..7].parse().unwrap_or(0), d[8..10].parse().unwrap_or(0));
        (1..=12).contains(&m) && (1..=31).contains(&day)
    }

    /// What is wrong with a citation, if anything: a well-formed absolute https URL, or
    /// `List:section:name` for a list of [`LISTS`] whose name is the entry's parameter.
    fn citation_problem(cite: &str, pattern: &str) -> Option<String> {
        if cite.starts_with("https://") {
            if cite.chars().any(char::is_whitespace) {
                return Some("white space in a URL".into());
            }
            return match crate::WebUrl::parse(cite, None) {
                Ok(u) if u.href() == cite => None,
                Ok(u) => Some(format!("not in serialized form: {}", u.href())),
                Err(e) => Some(format!("not a URL: {}", e.code)),
            };
        }
        let mut parts = cite.splitn(3, ':');
        let (list, section, name) = (parts.next(), parts.next(), parts.next());
        let (Some(list), Some(section), Some(name)) = (list, section, name) else {
            return Some("neither https:// nor List:section:name".into());
        };
        if !LISTS.iter().any(|l| l.id == list) {
            return Some(format!("unknown list {list}"));
        }
        if section.is_empty() || name.is_empty() || cite.chars().any(char::is_whitespace) {
            return Some("empty section or name".into());
        }
        // Brave and AdGuard list plain names; ClearURLs rules are regular expressions, so
        // only a rule without metacharacters is compared.
        let plain = !name.contains(['(', '[', '?', '*', '|', '\\', '+', '.']);
        if (list != "ClearURLs" || plain) && !name.eq_ignore_ascii_case(pattern) {
            return Some(format!("names {name}, not {pattern}"));
        }
        None
    }

    #[test]
    fn every_entry_names_a_source_with_a_read_date() {
        assert!(REGISTRY_2.len() >= 60, "{}", REGISTRY_2.len());
        for r in REGISTRY_2 {
            assert_eq!(r.pattern, r.pattern.to_ascii_lowercase(), "{}", r.pattern);
            assert!(
                !r.platform.is_empty() && !r.note.is_empty(),
                "{}",
                r.pattern
            );
            assert!(
                !r.sources.is_empty(),
                "{} ({}): no source",
                r.pattern,
                r.platform
            );
            for s in r.sources {
                assert!(is_date(s.read), "{}: read {:?}", r.pattern, s.read);
                if let Some(p) = citation_problem(s.cite, r.pattern) {
                    panic!("{} ({}): {}: {p}", r.pattern, r.platform, s.cite);
                }
            }
            assert_eq!(r.documented, has_page(r.sources), "{}", r.pattern);
            if !r.documented {
                // Without a platform page, the note says so.
                assert!(r.note.contains("no "), "{}: {}", r.pattern, r.note);
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
        for l in LISTS {
            assert!(l.at.starts_with("https://github.com/"), "{}", l.id);
        }
    }

    #[test]
    fn the_citation_check_rejects_what_is_not_a_citation() {
        for (cite, pattern) in [
            ("", "x"),
            ("support.google.com/answer/1", "x"),
            ("https://exa mple.com/", "x"),
            ("https://example.com", "x"),
            ("http://example.com/", "x"),
            ("ClearURLs", "x"),
            ("ClearURLs:globalRules", "x"),
            ("ClearURLs::x", "x"),
            ("ClearURLs:globalRules:", "x"),
            ("Ghostery:list:x", "x"),
            ("Brave:kSimpleQueryStringTrackers:gclid", "fbclid"),
            ("ClearURLs:globalRules:gclid", "fbclid"),
        ] {
            assert!(citation_problem(cite, pattern).is_some(), "{cite:?} passed");
        }
        assert!(citation_problem("https://example.com/", "x").is_none());
        assert!(citation_problem("ClearURLs:globalRules:(?:%3F)?gclid", "x").is_none());
        assert!(citation_problem(
            "Brave:kSimpleQueryStringTrackers:hsCtaTracking",
            "hsctatracking"
        )
        .is_none());
        for d in [
            "2026-12-4",
            "2026-13-01",
            "2026-00-10",
            "26-12-04",
            "2026/12/04",
            "",
        ] {
            assert!(!is_date(d), "{d}");
        }
        assert!(is_date(SOURCES_READ) && is_date(crate::unwrap::READ));
    }

    #[test]
    fn opt_in_names_have_no_source_and_are_not_in_registry_2() {
        for o in OPT_IN {
            assert!(o.sources.is_empty() && !o.documented, "{}", o.pattern);
            assert!(!o.note.is_empty());
            let place = place("shop.example", "/", "");
            assert!(!removes(REGISTRY_2, o.pattern, &place), "{}", o.pattern);
            assert!(verdicts(o.pattern, &place).is_empty(), "{}", o.pattern);
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

//! Tracking registry 1 (`registry@1`): every name or prefix with the public page that
//! documents it and the seed document whose list put it there. Frozen with the policies
//! that use it: a name added here would change `mapper@1`'s keys, so a new name goes to
//! registry 2 ([`super::registry2`]) or a new list version.
//!
//! It holds two seed documents' lists, and each policy names the one it uses: `webkey@1`
//! is the comparison key's closed table exactly, `citation@1` the citation ledger's
//! analytics allowlist, `registry@1` both (`mapper@1`); docs/policies.md, "Tracking
//! registry", says where each entry comes from.

use super::matching::MatchKind;

/// One registry entry.
///
/// ```
/// let gclid = urlkey::REGISTRY.iter().find(|r| r.pattern == "gclid").unwrap();
/// assert!(gclid.citation);
/// assert!(gclid.source.contains("support.google.com"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TrackingRule {
    /// The name or prefix, lowercase.
    pub pattern: &'static str,
    /// Exact name or prefix.
    pub kind: MatchKind,
    /// The platform and page that documents it.
    pub source: &'static str,
    /// Which seed document put it on the list.
    pub seed: &'static str,
    /// True when `citation@1` (its analytics allowlist: docs/policies.md, "Tracking
    /// registry") removes it too.
    pub citation: bool,
}

const GA4: &str = "Google Analytics 4, \"Collect campaign data with custom URLs\", support.google.com/analytics/answer/10917952";

macro_rules! rule {
    ($p:expr, $k:ident, $src:expr, $seed:expr, $cit:expr) => {
        TrackingRule {
            pattern: $p,
            kind: MatchKind::$k,
            source: $src,
            seed: $seed,
            citation: $cit,
        }
    };
}

/// The registry, version 1 (docs/policies.md, "Tracking registry"): the comparison key's
/// table (read 2026-11-05) and the citation ledger's additions.
///
/// ```
/// let set = urlkey::TrackingSet::registry_v1();
/// assert!(urlkey::REGISTRY.iter().all(|r| set.may_remove(r.pattern)));
/// ```
pub const REGISTRY: &[TrackingRule] = &[
    rule!("utm_source", Exact, GA4, "001", true),
    rule!("utm_medium", Exact, GA4, "001", true),
    rule!("utm_campaign", Exact, GA4, "001", true),
    rule!("utm_term", Exact, GA4, "001", true),
    rule!("utm_content", Exact, GA4, "001", true),
    rule!("utm_id", Exact, GA4, "001", true),
    rule!("utm_source_platform", Exact, GA4, "001", true),
    rule!("utm_creative_format", Exact, GA4, "001", true),
    rule!("utm_marketing_tactic", Exact, GA4, "001", true),
    rule!("gclid", Exact, "Google Ads, \"About auto-tagging\", support.google.com/google-ads/answer/3095550", "001", true),
    rule!("gbraid", Exact, "Google Ads API, \"Upload click conversions\", developers.google.com/google-ads/api/docs/conversions/upload-clicks", "001", false),
    rule!("wbraid", Exact, "Google Ads API, \"Upload click conversions\", developers.google.com/google-ads/api/docs/conversions/upload-clicks", "001", false),
    rule!("msclkid", Exact, "Microsoft Advertising help, \"Auto-tagging of Microsoft Click ID (MSCLKID)\", help.ads.microsoft.com/apex/index/3/en/60125", "001", true),
    rule!("fbclid", Exact, "Meta, \"ClickID and the fbp and fbc Parameters\", developers.facebook.com/documentation/ads-commerce/conversions-api/parameters/fbp-and-fbc", "001", true),
    rule!("ttclid", Exact, "TikTok Ads Manager, \"About TikTok Click ID\", ads.tiktok.com/resources/help/article/tiktok-click-id", "001", false),
    rule!("twclid", Exact, "X Ads API, \"Web conversions\", docs.x.com/x-ads-api/measurement/web-conversions", "001", false),
    rule!("li_fat_id", Exact, "LinkedIn Marketing API, \"Enabling first-party cookies\", learn.microsoft.com/en-us/linkedin/marketing/conversions/enabling-first-party-cookies", "001", false),
    rule!("mc_cid", Exact, "Mailchimp developer documentation, \"E-commerce\", mailchimp.com/developer/marketing/docs/e-commerce/", "001", true),
    rule!("mc_eid", Exact, "Mailchimp developer documentation, \"E-commerce\", mailchimp.com/developer/marketing/docs/e-commerce/", "001", true),
    rule!("dclid", Exact, "Google Campaign Manager 360, \"About DCLID\", support.google.com/campaignmanager/answer/9182069 (seed 004's allowlist)", "004", true),
    rule!("utm_", Prefix, "Seed 004's analytics allowlist (utm_*): GA4 campaign parameters, support.google.com/analytics/answer/10917952", "004", true),
    rule!("_hs", Prefix, "Seed 004's analytics allowlist (_hs*): HubSpot, \"Track emails with UTM and _hsenc/_hsmi parameters\", knowledge.hubspot.com", "004", true),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_a_source() {
        for r in REGISTRY {
            assert!(!r.source.is_empty() && r.pattern == r.pattern.to_ascii_lowercase());
        }
    }
}

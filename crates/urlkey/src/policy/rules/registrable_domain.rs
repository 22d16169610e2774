//! `registrable-domain`: a domain host becomes its registrable domain (public suffix plus
//! one label, from the Public Suffix List; <https://url.spec.whatwg.org/#host-registrable-domain>).
//! IP addresses, opaque hosts, public suffixes themselves, single labels and names with
//! empty labels are kept whole. Risky: `a.example.com` and `example.com` are two sites.

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::web::HostKind;

use super::edit::{cut, replace_host};
use super::step::{Example, RiskClass, Step};

/// The `registrable-domain` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct RegistrableDomain;

impl Step for RegistrableDomain {
    const NAME: &'static str = "registrable-domain";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://news.example.com/x",
        after: "https://example.com/x",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.host_kind == HostKind::Domain
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, psl: Option<&PublicSuffixList>) {
        registrable_domain(p, log, psl);
    }
}

/// `registrable-domain`: a domain host reduced to its registrable domain, the host's
/// tail, so it stays borrowed. A function of its own so that `webkey@1`'s fused
/// rules ([`crate::policy::fused::webkey_key_rules`]) run it without the dispatch.
#[inline]
pub(in crate::policy) fn registrable_domain(
    p: &mut Parts<'_>,
    log: &mut Log,
    psl: Option<&PublicSuffixList>,
) {
    if p.host_kind != HostKind::Domain {
        return;
    }
    log.used_psl = true;
    let Some(psl) = psl else { return };
    if let Some(h) = &p.host {
        // The registrable domain is the host's tail (`PublicSuffixList::registrable_domain`
        // slices the host); a start of 0 is the whole host, nothing to change.
        if let Some(start) = psl.registrable_start(h) {
            if start != 0 && h.is_char_boundary(start) {
                let rd = cut(h, start..h.len());
                replace_host(p, rd, RegistrableDomain::NAME, log);
            }
        }
    }
}

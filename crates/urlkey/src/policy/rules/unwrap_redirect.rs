//! `unwrap-redirect` (canonical): a redirect wrapper (`l.facebook.com/l.php?u=...`,
//! Outlook Safe Links, the others of [`crate::unwrap::WRAPPERS`]) becomes the absolute
//! http(s) URL in its query, up to [`MAX_DEPTH`] wrappers deep. Nothing is fetched. Risky:
//! a wrapper's page may answer otherwise (a Safe Links block page), and some wrappers no
//! platform documents (docs/policies.md, "Redirect wrappers").

use crate::outcome::Component;
use crate::policy::front;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::unwrap::{target_of, Found, MAX_DEPTH};
use crate::web::WebUrl;

use super::need;
use super::step::{Example, RiskClass, Step};

/// The `unwrap-redirect` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct UnwrapRedirect;

impl Step for UnwrapRedirect {
    const NAME: &'static str = "unwrap-redirect";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://l.facebook.com/l.php?u=https%3A%2F%2Fa.example%2Fx",
        after: "https://a.example/x",
    };
    const CANONICAL: bool = true;

    fn needs(&self) -> u16 {
        need::QUERY
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.host.is_some() && p.query.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        unwrap_redirect(p, log);
    }
}

/// `unwrap-redirect`: follows the wrappers in the query, never the network. A chain
/// deeper than [`MAX_DEPTH`] is kept whole, so that the rule is idempotent: cleaning its
/// own output changes nothing.
fn unwrap_redirect(p: &mut Parts<'_>, log: &mut Log) {
    let mut hops: Vec<(&'static str, Parts<'static>)> = Vec::new();
    let mut kept = false;
    loop {
        let here: &Parts<'_> = hops.last().map_or(&*p, |(_, parts)| parts);
        let (Some(host), Some(query)) = (here.host.as_deref(), here.query.as_deref()) else {
            break;
        };
        let Some((wrapper, found)) = target_of(host, &here.path, query) else {
            break;
        };
        let Found::Web(target) = found else {
            kept = true;
            break;
        };
        if hops.len() == MAX_DEPTH {
            log.wrapper_kept = true;
            return;
        }
        // `target_of` parsed it already: a second parse of the same text cannot fail.
        let Ok(url) = WebUrl::parse(&target, None) else {
            kept = true;
            break;
        };
        let Ok(parts) = front::parts_from_url(&url.pieces(), false, true) else {
            kept = true;
            break;
        };
        hops.push((wrapper.name, parts.into_owned()));
    }
    log.wrapper_kept |= kept;
    let mut before = if log.quiet || hops.is_empty() {
        String::new()
    } else {
        p.component_text(Component::Url)
    };
    for (wrapper, parts) in &hops {
        let after = if log.quiet {
            String::new()
        } else {
            parts.component_text(Component::Url)
        };
        log.record_unwrap(
            wrapper,
            std::mem::replace(&mut before, after.clone()),
            after,
        );
    }
    if let Some((_, last)) = hops.pop() {
        *p = last;
    }
}

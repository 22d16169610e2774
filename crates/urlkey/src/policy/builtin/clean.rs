//! `clean@1`: a shareable clean link (docs/policies.md, "`clean@1` — clean link").

use super::prelude::*;

/// The URL Standard's form, wrappers unwrapped, registry-2 tracking removed in scope.
pub(crate) const POLICY: Builtin = Builtin {
    id: "clean@1",
    listed: 6,
    description: "Clean link: the URL Standard's form, redirect wrappers unwrapped (no network), registry-2 tracking parameters removed where they apply; path, other parameters in their order and the fragment kept.",
    front: FrontEnd::Whatwg {
        schemes: Schemes::Any,
        infer_scheme: false,
    },
    rules,
    key_form: KeyForm::Href,
    accepts_base: false,
    options: &[],
    codes: &[],
};

fn rules() -> Vec<Rule> {
    vec![
        // First: the target's own tracking parameters are removed too.
        Rule::UnwrapRedirect(UnwrapRedirect),
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(TrackingSet::registry_v2())),
    ]
}

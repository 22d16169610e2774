//! `webkey@1`, the comparison key v1 (docs/policies.md, "`webkey@1` — comparison key
//! v1").

use super::prelude::*;

/// Scheme inferred, registrable domain, path folded, sorted query.
pub(crate) const POLICY: Builtin = Builtin {
    id: "webkey@1",
    listed: 5,
    description: "Comparison key v1 (seed 001): scheme inferred, registrable domain, path case and escapes folded, default documents and trailing slash dropped, sorted query.",
    front: FrontEnd::Whatwg {
        schemes: Schemes::Any,
        infer_scheme: true,
    },
    rules,
    key_form: KeyForm::WebKey,
    accepts_base: false,
    options: &[],
    codes: &[],
};

fn rules() -> Vec<Rule> {
    vec![
        // The comparison key's closed table, not the whole registry: "Each name is on the
        // list because a platform documents it" (docs/policies.md, "Tracking registry").
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(TrackingSet::webkey_v1())),
        Rule::RemoveFragment(RemoveFragment { keep_routes: false }),
        Rule::DropCredentials(DropCredentials),
        Rule::StripRootDot(StripRootDot),
        Rule::RegistrableDomain(RegistrableDomain),
        Rule::DecodeUnreserved(DecodeUnreserved),
        Rule::LowercasePath(LowercasePath),
        Rule::CollapseSlashes(CollapseSlashes),
        Rule::DropDefaultDocument(DropDefaultDocument),
        Rule::RemoveTrailingSlash(RemoveTrailingSlash { mode: TrailingSlash::All }),
        Rule::DropEmptyParameters(DropEmptyParameters),
        Rule::SortQuery(SortQuery { order: SortOrder::Ordinal }),
        Rule::DropEmptyQuery(DropEmptyQuery),
        Rule::DropOpaqueQuery(DropOpaqueQuery),
    ]
}

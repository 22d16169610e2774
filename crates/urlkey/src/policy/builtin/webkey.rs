//! `webkey@1`: seed 001's comparison key (docs/policies.md, "`webkey@1` — comparison key v1
//! (seed 001)").

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
        // Seed 001's closed table, not the registry (issue 13, item 1).
        Rule::RemoveTrackingParameters(TrackingSet::webkey_v1()),
        Rule::RemoveFragment { keep_routes: false },
        Rule::DropCredentials,
        Rule::StripRootDot,
        Rule::RegistrableDomain,
        Rule::DecodeUnreserved,
        Rule::LowercasePath,
        Rule::CollapseSlashes,
        Rule::DropDefaultDocument,
        Rule::RemoveTrailingSlash(TrailingSlash::All),
        Rule::DropEmptyParameters,
        Rule::SortQuery(SortOrder::Ordinal),
        Rule::DropEmptyQuery,
        Rule::DropOpaqueQuery,
    ]
}

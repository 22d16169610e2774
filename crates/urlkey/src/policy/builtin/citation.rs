//! `citation@1`, the citation key (docs/policies.md, "`citation@1` — citation
//! key").

use super::prelude::*;

/// Absolute http(s) only; fragment and analytics parameters removed, sorted, no final `/`.
pub(crate) const POLICY: Builtin = Builtin {
    id: "citation@1",
    listed: 4,
    description: "Citation key (seed 004): absolute http(s) only; fragment and analytics parameters removed, empty pieces dropped, parameters sorted, non-root trailing slash removed (+keep-trailing-slash keeps it).",
    front: FrontEnd::Whatwg {
        schemes: Schemes::Web(ErrorCode::CitationUnsupportedScheme),
        infer_scheme: false,
    },
    rules,
    key_form: KeyForm::Url,
    accepts_base: false,
    options: &[BuiltinOption {
        name: "keep-trailing-slash",
        apply: keep_trailing_slash,
    }],
    codes: &[ErrorCode::CitationUnsupportedScheme],
};

fn rules() -> Vec<Rule> {
    rules_with(TrackingSet::citation_v1())
}

/// The citation rules with `tracking` as their list of parameters to remove: `citation@1`
/// with its own list, `citation@2` with its longer one.
pub(super) fn rules_with(tracking: TrackingSet) -> Vec<Rule> {
    vec![
        Rule::RemoveFragment(RemoveFragment { keep_routes: false }),
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(tracking)),
        Rule::DropCredentials(DropCredentials),
        // As in mapper@1: empty pieces are not parameters (the URL Standard's
        // application/x-www-form-urlencoded parser skips them,
        // https://url.spec.whatwg.org/#urlencoded-parsing).
        Rule::DropEmptyParameters(DropEmptyParameters),
        Rule::SortQuery(SortQuery { order: SortOrder::NameValue }),
        Rule::DropEmptyQuery(DropEmptyQuery),
        Rule::RemoveTrailingSlash(RemoveTrailingSlash { mode: TrailingSlash::NonRoot }),
    ]
}

/// `+keep-trailing-slash`: the same rules without the last one (for `citation@2` too).
pub(super) fn keep_trailing_slash(rules: &mut Vec<Rule>) {
    rules.retain(|r| !matches!(r, Rule::RemoveTrailingSlash(_)));
}

//! `mapper@1`, the Legacy URL Mapper (docs/policies.md, "`mapper@1` — Legacy URL
//! Mapper").

use super::prelude::*;

/// The Legacy URL Mapper's key: http(s) or path-only input, tracking and empty pieces
/// removed, sorted (docs/policies.md, "`mapper@1`").
pub(crate) const POLICY: Builtin = Builtin {
    id: "mapper@1",
    listed: 2,
    description: "Legacy URL Mapper (seed 000): http(s) or path-only; slashes collapsed, tracking removed, empty pieces dropped, parameters sorted, fragment dropped.",
    front: FrontEnd::Mapper,
    rules,
    key_form: KeyForm::Url,
    accepts_base: false,
    options: &[],
    codes: &[
        ErrorCode::MapperWhitespace,
        ErrorCode::MapperControlCharacter,
        ErrorCode::MapperSchemeRelative,
        ErrorCode::MapperUnsupportedScheme,
    ],
};

fn rules() -> Vec<Rule> {
    vec![
        Rule::RemoveTrackingParameters(RemoveTrackingParameters(TrackingSet::registry_v1())),
        Rule::RemoveFragment(RemoveFragment { keep_routes: false }),
        Rule::DropCredentials(DropCredentials),
        Rule::CollapseSlashes(CollapseSlashes),
        // Empty pieces are not parameters: the browser's own
        // parsing skips them (https://url.spec.whatwg.org/#urlencoded-parsing).
        Rule::DropEmptyParameters(DropEmptyParameters),
        Rule::SortQuery(SortQuery { order: SortOrder::NameValue }),
        Rule::DropEmptyQuery(DropEmptyQuery),
    ]
}

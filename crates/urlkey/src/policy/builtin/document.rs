//! `document@1`, the document key (docs/policies.md, "`document@1` — document key").
//! Its rule list is also the one the fused single-pass path
//! (`policy/fused.rs`) implements: that path is chosen by comparing a definition's rules
//! with these, so the list exists once.

use super::prelude::*;

/// A strict component split; scheme and host lowercased, default port and fragment removed.
pub(crate) const POLICY: Builtin = Builtin {
    id: "document@1",
    listed: 3,
    description: "Document key (seed 002): a strict component split, not the WHATWG parser; scheme and host lowercased, default port and fragment removed, everything else byte for byte.",
    front: FrontEnd::Document,
    rules,
    key_form: KeyForm::Url,
    accepts_base: false,
    options: &[],
    codes: &[
        ErrorCode::DocumentForbiddenCharacter,
        ErrorCode::DocumentUnsupportedScheme,
        ErrorCode::DocumentCredentials,
        ErrorCode::DocumentInvalidHost,
        ErrorCode::DocumentEmptyPort,
        ErrorCode::DocumentInvalidPort,
    ],
};

/// `document@1`'s rules, in order (docs/policies.md, "`document@1`").
fn rules() -> Vec<Rule> {
    vec![
        Rule::LowercaseScheme(LowercaseScheme),
        Rule::LowercaseHost(LowercaseHost),
        Rule::NormalizePort(NormalizePort),
        Rule::EmptyPathToRoot(EmptyPathToRoot),
        Rule::RemoveFragment(RemoveFragment { keep_routes: false }),
        Rule::DropEmptyQuery(DropEmptyQuery),
    ]
}

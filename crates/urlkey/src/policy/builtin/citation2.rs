//! `citation@2`, the citation key with 2026's click and session ids (docs/policies.md,
//! "`citation@2` — citation key, 2026 click ids"): `citation@1`'s rules, with the list
//! `citation@2` in place of `citation@1`'s. `citation@1` is released and keeps its list.

use super::prelude::*;

/// `citation@1` that also removes registry 2's click and session ids (`srsltid`, ...).
pub(crate) const POLICY: Builtin = Builtin {
    id: "citation@2",
    listed: 7,
    description: "Citation key (seed 004) with 2026's click ids: citation@1, whose list also removes the click and session ids of registry 2 that citation@1 keeps (srsltid, gbraid, wbraid, _gl, ttclid, twclid, li_fat_id, yclid, ef_id); +keep-trailing-slash keeps a non-root trailing slash.",
    front: FrontEnd::Whatwg {
        schemes: Schemes::Web(ErrorCode::CitationUnsupportedScheme),
        infer_scheme: false,
    },
    rules,
    key_form: KeyForm::Url,
    accepts_base: false,
    options: &[BuiltinOption {
        name: "keep-trailing-slash",
        apply: super::citation::keep_trailing_slash,
    }],
    // `citation.unsupported-scheme` is citation@1's code (a code has one owner); this
    // policy gives it for the same inputs.
    codes: &[],
};

/// `citation@1`'s rules with the `citation@2` list.
fn rules() -> Vec<Rule> {
    super::citation::rules_with(TrackingSet::citation_v2())
}

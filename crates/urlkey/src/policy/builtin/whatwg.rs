//! `whatwg@1`: the URL Standard's serialization, untouched (docs/policies.md, "`whatwg@1` —
//! the baseline").

use super::prelude::*;

/// The baseline: key = canonical form = the Standard's `href`.
pub(crate) const POLICY: Builtin = Builtin {
    id: "whatwg@1",
    listed: 1,
    description: "The URL Standard's serialization (href), untouched: the baseline. Any scheme; resolves against a base URL when one is given.",
    front: FrontEnd::Whatwg {
        schemes: Schemes::Any,
        infer_scheme: false,
    },
    rules,
    key_form: KeyForm::Href,
    accepts_base: true,
    options: &[],
    codes: &[],
};

fn rules() -> Vec<Rule> {
    Vec::new()
}

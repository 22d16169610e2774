//! `drop-empty-parameters`: removes empty pieces of the query (nothing between two `&`, a
//! leading or a trailing `&`); a query left empty disappears. `?=` is a piece (an empty
//! name and value), not an empty one. Risky: a server reads the raw query.

use std::borrow::Cow;

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace_query;
use super::need;
use super::step::{Example, RiskClass, Step};

/// The `drop-empty-parameters` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DropEmptyParameters;

impl Step for DropEmptyParameters {
    const NAME: &'static str = "drop-empty-parameters";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x?a=1&",
        after: "https://a.example/x?a=1",
    };

    fn needs(&self) -> u16 {
        need::QUERY
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.query.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if let Some(q) = &p.query {
            if has_empty_piece(q) {
                let mut joined = scratch::string(q.len());
                for piece in q.split('&').filter(|s| !s.is_empty()) {
                    if !joined.is_empty() {
                        joined.push('&');
                    }
                    joined.push_str(piece);
                }
                let new = if joined.is_empty() {
                    scratch::give(joined);
                    None
                } else {
                    Some(Cow::Owned(joined))
                };
                replace_query(p, new, Self::NAME, log);
            }
        }
    }
}

/// True when a non-empty query has an empty piece (`q.split('&').any(str::is_empty)`): a
/// `&` at either end or two in a row, found without the pattern searcher.
fn has_empty_piece(q: &str) -> bool {
    let b = q.as_bytes();
    match (b.first(), b.last()) {
        (None, _) => false,
        (Some(b'&'), _) | (_, Some(b'&')) => true,
        _ => b.windows(2).any(|w| w == b"&&"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_pieces_are_found_as_split_finds_them() {
        for q in [
            "", "&", "&&", "a", "a&", "&a", "a&&b", "a&b", "a=&b=", "=&=", "a&b&", "ab&&",
        ] {
            let want = q.split('&').any(str::is_empty) && !q.is_empty();
            assert_eq!(has_empty_piece(q), want, "{q:?}");
        }
    }
}

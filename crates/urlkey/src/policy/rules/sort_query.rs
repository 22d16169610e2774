//! `sort-query`: the query's pieces sorted, by name then value (`name-value`) or by the
//! whole raw piece (`ordinal`), comparing raw bytes; ties keep their order and each piece
//! is written back as it was. Risky: a server may read parameters in order.

use std::borrow::Cow;

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::query::{raw_params, RawParam};
use crate::scratch;

use super::edit::replace_query;
use super::need;
use super::step::{Example, RiskClass, Step};

/// How `sort-query` orders parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SortOrder {
    /// By name, then by value, comparing the raw text byte by byte (`mapper@1`,
    /// `citation@1`).
    NameValue,
    /// By the whole raw `name=value` piece, byte by byte (`webkey@1`).
    Ordinal,
}

/// The `sort-query` rule; a policy file writes `order = "ordinal"` for the other order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SortQuery {
    /// How the parameters are ordered.
    #[serde(default = "SortQuery::default_order")]
    pub order: SortOrder,
}

impl SortQuery {
    fn default_order() -> SortOrder {
        SortOrder::NameValue
    }
}

impl Step for SortQuery {
    const NAME: &'static str = "sort-query";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x?b=1&a=2",
        after: "https://a.example/x?a=2&b=1",
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
            if let Some(sorted) = sort_query(q, self.order) {
                replace_query(p, Some(Cow::Owned(sorted)), Self::NAME, log);
            }
        }
    }
}

/// How many parameters [`sort_query`] sorts in a table on the stack; a longer query's
/// table is allocated.
const SORTED_ON_STACK: usize = 64;

/// One parameter of a query being sorted: its piece `start..end` in the query, the end of
/// its name (`end` when it has no `=`) and its place in the query.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: usize,
    end: usize,
    name_end: usize,
    place: usize,
}

impl Span {
    fn param<'q>(&self, q: &'q str) -> RawParam<'q> {
        RawParam {
            piece: &q[self.start..self.end],
            name: &q[self.start..self.name_end],
            value: q.get(self.name_end + 1..self.end).unwrap_or(""),
        }
    }
}

/// The order of two parameters (the first `=` splits name and value).
fn param_order(a: &RawParam<'_>, b: &RawParam<'_>, order: SortOrder) -> std::cmp::Ordering {
    match order {
        SortOrder::NameValue => {
            (a.name.as_bytes(), a.value.as_bytes()).cmp(&(b.name.as_bytes(), b.value.as_bytes()))
        }
        SortOrder::Ordinal => a.piece.as_bytes().cmp(b.piece.as_bytes()),
    }
}

/// The sorted query, or `None` when it is already in order. A stable sort: parameters
/// that compare equal keep their order (the table sorts in place, with each parameter's
/// place as the last key, so no buffer is allocated for the sort).
fn sort_query(q: &str, order: SortOrder) -> Option<String> {
    let mut count = 0;
    let mut in_order = true;
    let mut prev: Option<RawParam<'_>> = None;
    for r in raw_params(q) {
        if let Some(p) = &prev {
            in_order &= param_order(p, &r, order).is_le();
        }
        prev = Some(r);
        count += 1;
    }
    if in_order {
        return None;
    }
    let mut on_stack = [Span::default(); SORTED_ON_STACK];
    let mut on_heap = Vec::new();
    let table: &mut [Span] = if count <= SORTED_ON_STACK {
        &mut on_stack[..count]
    } else {
        on_heap.resize(count, Span::default());
        &mut on_heap
    };
    let mut start = 0;
    for (place, piece) in q.split('&').enumerate() {
        let end = start + piece.len();
        let name_end = piece.find('=').map_or(end, |i| start + i);
        table[place] = Span {
            start,
            end,
            name_end,
            place,
        };
        start = end + 1;
    }
    table.sort_unstable_by(|a, b| {
        param_order(&a.param(q), &b.param(q), order).then(a.place.cmp(&b.place))
    });
    let mut out = scratch::string(q.len());
    for (i, span) in table.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(&q[span.start..span.end]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_by_name_value_differs_from_ordinal() {
        assert_eq!(
            sort_query("b=2&a=1", SortOrder::NameValue).as_deref(),
            Some("a=1&b=2")
        );
        assert_eq!(sort_query("a=1&b=2", SortOrder::NameValue), None);
        // '-' (0x2d) sorts before '=' (0x3d) as a whole piece, after it by name.
        assert_eq!(
            sort_query("a-b=2&a=1", SortOrder::NameValue),
            Some("a=1&a-b=2".into())
        );
        assert_eq!(
            sort_query("a=1&a-b=2", SortOrder::Ordinal),
            Some("a-b=2&a=1".into())
        );
        assert_eq!(
            sort_query("x=2&x=1&x", SortOrder::NameValue),
            Some("x&x=1&x=2".into())
        );
    }

    /// The sort as it was written before it sorted a table in place: a stable sort of
    /// the parsed pieces.
    fn stable_sort_reference(q: &str, order: SortOrder) -> String {
        let mut params: Vec<RawParam<'_>> = raw_params(q).collect();
        params.sort_by(|a, b| param_order(a, b, order));
        params.iter().map(|r| r.piece).collect::<Vec<_>>().join("&")
    }

    #[test]
    fn sorting_in_place_equals_a_stable_sort() {
        // Ties under name-value order ("a" and "a=" are both name "a", value ""), empty
        // pieces, and queries longer than the table on the stack.
        let mut queries = vec![
            "a=&a&b=1&a".to_string(),
            "b&&a=&a&".to_string(),
            "x=1&x&x=&x=1&y=2&x=0".to_string(),
        ];
        for n in [
            SORTED_ON_STACK - 1,
            SORTED_ON_STACK,
            SORTED_ON_STACK + 1,
            200,
        ] {
            let q: Vec<String> = (0..n)
                .map(|i| match i % 4 {
                    0 => format!("p{}", (i * 7919) % 13),
                    1 => format!("p{}=", (i * 31) % 13),
                    2 => String::new(),
                    _ => format!("p{}={}", (i * 17) % 13, i % 3),
                })
                .collect();
            queries.push(q.join("&"));
        }
        for q in &queries {
            for order in [SortOrder::NameValue, SortOrder::Ordinal] {
                let expected = stable_sort_reference(q, order);
                let got = sort_query(q, order);
                match got {
                    Some(sorted) => assert_eq!(sorted, expected, "{q:?} {order:?}"),
                    None => assert_eq!(*q, expected, "{q:?} {order:?}: said to be in order"),
                }
            }
        }
    }
}

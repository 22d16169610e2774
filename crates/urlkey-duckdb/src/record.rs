//! The row of `urlkey_outcome`: its fields, in order, and the flattening of an
//! [`Outcome`] into them. One definition, read by the SQL type
//! (`scalars::outcome_type`) and by the writer (`scalars::write_outcomes`); the Polars
//! plugin has the same fields in the same order.
//!
//! Pure Rust: nothing here calls DuckDB, so the unit tests run under `cargo test`.

use urlkey::{Fact, Outcome, PublicSuffixList, Transformation};

/// The SQL type of one field of the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `VARCHAR`.
    Text,
    /// `VARCHAR[]`.
    TextList,
    /// `STRUCT(rule, component, before, after, wrapper)[]` ([`TRANSFORMATION_FIELDS`]).
    Transformations,
}

/// The fields of `urlkey_outcome`'s `STRUCT`, in order.
pub const FIELDS: [(&str, Kind); 13] = [
    ("policy", Kind::Text),
    ("status", Kind::Text),
    ("key", Kind::Text),
    ("canonical", Kind::Text),
    ("error_code", Kind::Text),
    ("error_message", Kind::Text),
    ("removed_params", Kind::TextList),
    ("transformations", Kind::Transformations),
    ("facts", Kind::TextList),
    ("host", Kind::Text),
    ("signature", Kind::Text),
    ("registrable_domain", Kind::Text),
    ("psl_version", Kind::Text),
];

/// The fields of one transformation (all `VARCHAR`; `wrapper` is NULL but for an
/// `unwrap-redirect` step).
pub const TRANSFORMATION_FIELDS: [&str; 5] = ["rule", "component", "before", "after", "wrapper"];

/// The SQL text of the row's type, as `duckdb_functions()` and `typeof()` show it.
pub fn sql_type() -> String {
    let fields: Vec<String> = FIELDS
        .iter()
        .map(|(name, kind)| {
            let t = match kind {
                Kind::Text => "VARCHAR".to_string(),
                Kind::TextList => "VARCHAR[]".to_string(),
                Kind::Transformations => format!(
                    "STRUCT({})[]",
                    TRANSFORMATION_FIELDS
                        .iter()
                        .map(|f| format!("\"{f}\" VARCHAR"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!("\"{name}\" {t}")
        })
        .collect();
    format!("STRUCT({})", fields.join(", "))
}

/// One cell of the row, borrowed from the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell<'a> {
    /// A `VARCHAR`, `None` for NULL.
    Text(Option<&'a str>),
    /// `removed_params`.
    Params(&'a [String]),
    /// `facts`.
    Facts(&'a [Fact]),
    /// `transformations`.
    Transformations(&'a [Transformation]),
}

impl Cell<'_> {
    /// How many list elements the cell has (0 for a text).
    pub fn list_len(&self) -> usize {
        match self {
            Cell::Text(_) => 0,
            Cell::Params(p) => p.len(),
            Cell::Facts(f) => f.len(),
            Cell::Transformations(t) => t.len(),
        }
    }

    /// The `i`-th element of a list of text.
    pub fn text_at(&self, i: usize) -> &str {
        match self {
            Cell::Params(p) => &p[i],
            Cell::Facts(f) => f[i].as_str(),
            _ => "",
        }
    }
}

/// `ok` or `invalid`, as `urlkey key` writes the status.
pub fn status(o: &Outcome) -> &'static str {
    if o.is_valid() {
        "ok"
    } else {
        "invalid"
    }
}

/// The row of one outcome under the policy `policy` (its resolved id): the cells in
/// [`FIELDS`] order. `psl` is the builtin set's list: its version is on every row and
/// `registrable_domain` is [`Outcome::registrable_domain`] under it.
pub fn cells<'a>(policy: &'a str, o: &'a Outcome, psl: &'a PublicSuffixList) -> [Cell<'a>; 13] {
    let err = o.error.as_ref();
    [
        Cell::Text(Some(policy)),
        Cell::Text(Some(status(o))),
        Cell::Text(o.key.as_deref()),
        Cell::Text(o.canonical.as_deref()),
        Cell::Text(err.map(|e| e.code.as_str())),
        Cell::Text(err.map(|e| e.message.as_str())),
        Cell::Params(&o.removed_params),
        Cell::Transformations(&o.transformations),
        Cell::Facts(&o.facts),
        Cell::Text(o.host.as_deref()),
        Cell::Text(o.signature.as_deref()),
        Cell::Text(o.registrable_domain(psl)),
        Cell::Text(Some(psl.version())),
    ]
}

/// The cells of one transformation in [`TRANSFORMATION_FIELDS`] order.
pub fn transformation_cells(t: &Transformation) -> [Option<&str>; 5] {
    [
        Some(t.rule),
        Some(t.component.as_str()),
        Some(t.before.as_str()),
        Some(t.after.as_str()),
        t.wrapper,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use urlkey::PolicySet;

    fn text(c: Cell<'_>) -> Option<&str> {
        match c {
            Cell::Text(t) => t,
            other => panic!("not a text cell: {other:?}"),
        }
    }

    #[test]
    fn the_fields_are_the_issue_s_list_in_order() {
        let names: Vec<&str> = FIELDS.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "policy",
                "status",
                "key",
                "canonical",
                "error_code",
                "error_message",
                "removed_params",
                "transformations",
                "facts",
                "host",
                "signature",
                "registrable_domain",
                "psl_version"
            ]
        );
        assert!(sql_type().starts_with("STRUCT(\"policy\" VARCHAR, \"status\" VARCHAR,"));
        assert!(sql_type().contains("\"removed_params\" VARCHAR[], \"transformations\" STRUCT(\"rule\" VARCHAR, \"component\" VARCHAR, \"before\" VARCHAR, \"after\" VARCHAR, \"wrapper\" VARCHAR)[], \"facts\" VARCHAR[]"));
    }

    #[test]
    fn a_valid_outcome_flattens_to_its_fields() {
        let set = PolicySet::builtin();
        let p = set.get("citation@1").unwrap();
        let o = p.key("HTTPS://www.BBC.co.uk/news/?utm_source=x&b=2#top");
        let c = cells(p.id(), &o, set.psl());
        assert_eq!(c.len(), FIELDS.len());
        for (cell, (name, kind)) in c.iter().zip(FIELDS) {
            let got = match cell {
                Cell::Text(_) => Kind::Text,
                Cell::Params(_) | Cell::Facts(_) => Kind::TextList,
                Cell::Transformations(_) => Kind::Transformations,
            };
            assert_eq!(got, kind, "{name}");
        }
        assert_eq!(text(c[0]), Some("citation@1"));
        assert_eq!(text(c[1]), Some("ok"));
        assert_eq!(text(c[2]), o.key.as_deref());
        assert!(text(c[2]).is_some());
        assert_eq!(text(c[3]), o.canonical.as_deref());
        assert_eq!(text(c[4]), None);
        assert_eq!(text(c[5]), None);
        assert_eq!(c[6], Cell::Params(&o.removed_params));
        assert_eq!(c[6].list_len(), 1);
        assert_eq!(c[6].text_at(0), "utm_source");
        assert_eq!(c[7].list_len(), o.transformations.len());
        assert!(c[7].list_len() > 0);
        let facts: Vec<&str> = (0..c[8].list_len()).map(|i| c[8].text_at(i)).collect();
        assert!(facts.contains(&"tracking-parameters-removed"), "{facts:?}");
        assert_eq!(text(c[9]), Some("www.bbc.co.uk"));
        assert_eq!(text(c[10]), o.signature.as_deref());
        assert_eq!(text(c[11]), Some("bbc.co.uk"));
        assert_eq!(text(c[12]), Some(set.psl().version()));
    }

    #[test]
    fn an_invalid_outcome_has_its_code_and_no_key() {
        let set = PolicySet::builtin();
        let p = set.get("citation@1").unwrap();
        let o = p.key("mailto:someone@example.net");
        let c = cells(p.id(), &o, set.psl());
        assert_eq!(text(c[1]), Some("invalid"));
        assert_eq!(text(c[2]), None);
        assert_eq!(text(c[3]), None);
        assert_eq!(text(c[4]), Some("citation.unsupported-scheme"));
        assert!(text(c[5]).is_some_and(|m| !m.is_empty()));
        assert_eq!(text(c[11]), None);
        // The list's version is on invalid rows too.
        assert_eq!(text(c[12]), Some(set.psl().version()));
    }

    #[test]
    fn only_an_unwrap_names_its_wrapper() {
        let set = PolicySet::builtin();
        let p = set.get("clean@1").unwrap();
        let o = p.key("https://www.google.com/url?q=https://news.example.org/a%3Fb%3D1&sa=D");
        let unwrap = o
            .transformations
            .iter()
            .find(|t| t.rule == "unwrap-redirect")
            .expect("an unwrap step");
        let cells = transformation_cells(unwrap);
        assert_eq!(cells[0], Some("unwrap-redirect"));
        assert_eq!(cells[1], Some("url"));
        assert!(cells[4].is_some());
        let c = cells_of_other(&o);
        assert!(c.iter().all(|t| t[4].is_none()));
        assert_eq!(
            super::cells(p.id(), &o, set.psl())[11],
            Cell::Text(Some("example.org"))
        );
    }

    fn cells_of_other(o: &Outcome) -> Vec<[Option<&str>; 5]> {
        o.transformations
            .iter()
            .filter(|t| t.rule != "unwrap-redirect")
            .map(transformation_cells)
            .collect()
    }
}

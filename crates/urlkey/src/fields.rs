//! The outcome's fields, defined once: their names, types, nullability and how each is read
//! from an [`Outcome`]. Every engine that writes outcomes as columns derives its columns
//! from [`FIELDS`]: the Python `keys()` batch, the Polars `outcome` struct, the DuckDB
//! `urlkey_outcome` STRUCT and the columns of `urlkey key` (which keeps its released names,
//! such as `error` for the code and message, by an explicit list in `urlkey-batch`).
//!
//! No Arrow, Polars or DuckDB here: each engine maps a [`FieldType`] to its own type.
//!
//! ```
//! use urlkey::fields::{self, Row, Value};
//! use urlkey::PolicySet;
//!
//! let set = PolicySet::builtin();
//! let policy = set.get("citation@1").expect("a builtin policy");
//! let outcome = policy.key("https://www.bbc.co.uk/news/?utm_source=x");
//! let row = Row { policy: policy.id(), outcome: &outcome, psl: set.psl() };
//!
//! let key = fields::by_name("key").expect("a field");
//! assert_eq!(key.read(&row), Value::Text(Some("https://www.bbc.co.uk/news")));
//! let domain = fields::by_name("registrable_domain").expect("a field");
//! assert_eq!(domain.read(&row), Value::Text(Some("bbc.co.uk")));
//! // The engines' struct: every field but `psl`, in table order.
//! let names: Vec<&str> = fields::engine_fields().map(|f| f.name).collect();
//! assert_eq!(names.first(), Some(&"policy"));
//! assert_eq!(names.last(), Some(&"psl_version"));
//! ```

use crate::outcome::{Fact, Outcome, Transformation};
use crate::psl::PublicSuffixList;

/// The type of a field; each engine maps it to its own (Arrow, Polars, DuckDB SQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Text ([`Value::Text`]).
    Text,
    /// A list of texts, never null on a row ([`Value::TextList`]).
    TextList,
    /// The transformations, never null on a row: a list of records whose fields are
    /// [`TRANSFORMATION_FIELDS`] ([`Value::Transformations`]).
    Transformations,
}

/// What a field is read from: one outcome, the policy id it ran under and the Public
/// Suffix List of its policy set (`PolicySet::psl`).
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The id of the policy that made the outcome (`citation@1`).
    pub policy: &'a str,
    /// The outcome.
    pub outcome: &'a Outcome,
    /// The policy set's list: `registrable_domain` is read under it, `psl_version` is its
    /// version.
    pub psl: &'a PublicSuffixList,
}

/// A list of texts, borrowed from the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextList<'a> {
    /// Texts as the outcome holds them (`removed_params`).
    Strings(&'a [String]),
    /// Facts, read by their kebab-case names.
    Facts(&'a [Fact]),
}

impl<'a> TextList<'a> {
    /// How many texts.
    pub fn len(&self) -> usize {
        match self {
            TextList::Strings(s) => s.len(),
            TextList::Facts(f) => f.len(),
        }
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The texts, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + 'a {
        let (strings, facts): (&'a [String], &'a [Fact]) = match *self {
            TextList::Strings(s) => (s, &[]),
            TextList::Facts(f) => (&[], f),
        };
        strings
            .iter()
            .map(String::as_str)
            .chain(facts.iter().map(|f| f.as_str()))
    }
}

/// One field's value on one row, borrowed from the [`Row`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// A [`FieldType::Text`]; `None` is null.
    Text(Option<&'a str>),
    /// A [`FieldType::TextList`].
    TextList(TextList<'a>),
    /// A [`FieldType::Transformations`].
    Transformations(&'a [Transformation]),
}

impl Value<'_> {
    /// The value's type.
    pub fn field_type(&self) -> FieldType {
        match self {
            Value::Text(_) => FieldType::Text,
            Value::TextList(_) => FieldType::TextList,
            Value::Transformations(_) => FieldType::Transformations,
        }
    }
}

/// One field of the outcome.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Its name (the engines' column or struct field name).
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// Whether a row's value can be null.
    pub nullable: bool,
    /// Whether the engines' outcome (Python `keys()`, Polars `outcome`, DuckDB
    /// `urlkey_outcome`) carries it: every field but `psl`, which only `urlkey key` writes
    /// (the engines give `psl_version` on every row instead).
    pub in_engines: bool,
    read: for<'a> fn(&Row<'a>) -> Value<'a>,
}

impl Field {
    /// The field's value on `row`.
    pub fn read<'a>(&self, row: &Row<'a>) -> Value<'a> {
        (self.read)(row)
    }
}

/// `ok` or `invalid`, as every engine writes the status.
pub fn status(o: &Outcome) -> &'static str {
    if o.is_valid() {
        "ok"
    } else {
        "invalid"
    }
}

const fn text(
    name: &'static str,
    nullable: bool,
    read: for<'a> fn(&Row<'a>) -> Value<'a>,
) -> Field {
    Field {
        name,
        ty: FieldType::Text,
        nullable,
        in_engines: true,
        read,
    }
}

const fn list(name: &'static str, ty: FieldType, read: for<'a> fn(&Row<'a>) -> Value<'a>) -> Field {
    Field {
        name,
        ty,
        nullable: false,
        in_engines: true,
        read,
    }
}

/// The policy's id.
pub const POLICY: Field = text("policy", false, |r| Value::Text(Some(r.policy)));
/// `ok` or `invalid` ([`status`]).
pub const STATUS: Field = text("status", false, |r| Value::Text(Some(status(r.outcome))));
/// The key; null when invalid.
pub const KEY: Field = text("key", true, |r| Value::Text(r.outcome.key.as_deref()));
/// The canonical form; null when invalid.
pub const CANONICAL: Field = text("canonical", true, |r| {
    Value::Text(r.outcome.canonical.as_deref())
});
/// The error's stable code; null when valid.
pub const ERROR_CODE: Field = text("error_code", true, |r| {
    Value::Text(r.outcome.error.as_ref().map(|e| e.code.as_str()))
});
/// The error's message; null when valid.
pub const ERROR_MESSAGE: Field = text("error_message", true, |r| {
    Value::Text(r.outcome.error.as_ref().map(|e| e.message.as_str()))
});
/// The tracking parameters removed, as written, in query order.
pub const REMOVED_PARAMS: Field = list("removed_params", FieldType::TextList, |r| {
    Value::TextList(TextList::Strings(&r.outcome.removed_params))
});
/// Every change, in the order the rules ran.
pub const TRANSFORMATIONS: Field = list("transformations", FieldType::Transformations, |r| {
    Value::Transformations(&r.outcome.transformations)
});
/// The facts, sorted, by their kebab-case names.
pub const FACTS: Field = list("facts", FieldType::TextList, |r| {
    Value::TextList(TextList::Facts(&r.outcome.facts))
});
/// The key's host; null when invalid or hostless.
pub const HOST: Field = text("host", true, |r| Value::Text(r.outcome.host.as_deref()));
/// The grouping signature; null when invalid.
pub const SIGNATURE: Field = text("signature", true, |r| {
    Value::Text(r.outcome.signature.as_deref())
});
/// The registrable domain of the key's host under the set's list
/// ([`Outcome::registrable_domain`]).
pub const REGISTRABLE_DOMAIN: Field = text("registrable_domain", true, |r| {
    Value::Text(r.outcome.registrable_domain(r.psl))
});
/// The version of the set's list, on every row.
pub const PSL_VERSION: Field = text("psl_version", false, |r| Value::Text(Some(r.psl.version())));
/// The list's version when the policy used it ([`Outcome::psl`]); null otherwise.
pub const PSL: Field = Field {
    in_engines: false,
    ..text("psl", true, |r| Value::Text(r.outcome.psl.as_deref()))
};

/// Every field, in the order of the engines' outcome struct.
pub const FIELDS: &[Field] = &[
    POLICY,
    STATUS,
    KEY,
    CANONICAL,
    ERROR_CODE,
    ERROR_MESSAGE,
    REMOVED_PARAMS,
    TRANSFORMATIONS,
    FACTS,
    HOST,
    SIGNATURE,
    REGISTRABLE_DOMAIN,
    PSL_VERSION,
    PSL,
];

/// The fields the engines' outcome carries ([`Field::in_engines`]), in order.
pub fn engine_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().filter(|f| f.in_engines)
}

/// The field named `name`.
pub fn by_name(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// One field of a transformation (every one is text).
#[derive(Debug, Clone, Copy)]
pub struct TransformationField {
    /// Its name.
    pub name: &'static str,
    /// Whether it can be null: only `wrapper`, absent but for an `unwrap-redirect` step.
    pub nullable: bool,
    read: fn(&Transformation) -> Option<&str>,
}

impl TransformationField {
    /// The field's value on `t`.
    pub fn read<'a>(&self, t: &'a Transformation) -> Option<&'a str> {
        (self.read)(t)
    }
}

/// The fields of one transformation, in order.
pub const TRANSFORMATION_FIELDS: &[TransformationField] = &[
    TransformationField {
        name: "rule",
        nullable: false,
        read: |t| Some(t.rule),
    },
    TransformationField {
        name: "component",
        nullable: false,
        read: |t| Some(t.component.as_str()),
    },
    TransformationField {
        name: "before",
        nullable: false,
        read: |t| Some(&t.before),
    },
    TransformationField {
        name: "after",
        nullable: false,
        read: |t| Some(&t.after),
    },
    TransformationField {
        name: "wrapper",
        nullable: true,
        read: |t| t.wrapper,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySet;

    fn rows<'a>(set: &'a PolicySet, outcomes: &'a [(String, Outcome)]) -> Vec<Row<'a>> {
        outcomes
            .iter()
            .map(|(p, o)| Row {
                policy: p,
                outcome: o,
                psl: set.psl(),
            })
            .collect()
    }

    #[test]
    fn every_field_reads_its_declared_type_and_nullability() {
        let set = PolicySet::builtin();
        let mut outcomes = Vec::new();
        for id in crate::policy::BUILTIN_IDS.iter().copied() {
            let p = set.get(id).unwrap();
            for input in [
                "HTTPS://www.BBC.co.uk/news/?utm_source=x&b=2#top",
                "https://www.google.com/url?q=https://news.example.org/a%3Fb%3D1&sa=D",
                "mailto:someone@example.net",
                "http://192.168.0.1/x",
            ] {
                outcomes.push((p.id().to_string(), p.key(input)));
            }
        }
        let mut nulls = vec![false; FIELDS.len()];
        for row in rows(&set, &outcomes) {
            for (i, f) in FIELDS.iter().enumerate() {
                let v = f.read(&row);
                assert_eq!(v.field_type(), f.ty, "{}", f.name);
                if v == Value::Text(None) {
                    assert!(f.nullable, "{} is null on {:?}", f.name, row.outcome);
                    nulls[i] = true;
                }
            }
        }
        // Every nullable field is null somewhere here, so the flag is not a guess.
        for (f, null) in FIELDS.iter().zip(nulls) {
            assert_eq!(f.nullable, null, "{}", f.name);
        }
    }

    #[test]
    fn the_fields_read_the_outcome() {
        let set = PolicySet::builtin();
        let p = set.get("citation@1").unwrap();
        let o = p.key("HTTPS://www.BBC.co.uk/news/?utm_source=x&b=2#top");
        let row = Row {
            policy: p.id(),
            outcome: &o,
            psl: set.psl(),
        };
        let get = |name| by_name(name).unwrap().read(&row);
        assert_eq!(get("policy"), Value::Text(Some("citation@1")));
        assert_eq!(get("status"), Value::Text(Some("ok")));
        assert_eq!(get("key"), Value::Text(o.key.as_deref()));
        assert_eq!(get("error_code"), Value::Text(None));
        assert_eq!(get("host"), Value::Text(Some("www.bbc.co.uk")));
        assert_eq!(get("registrable_domain"), Value::Text(Some("bbc.co.uk")));
        assert_eq!(get("psl_version"), Value::Text(Some(set.psl().version())));
        let Value::TextList(params) = get("removed_params") else {
            panic!("a list")
        };
        assert_eq!(params.iter().collect::<Vec<_>>(), ["utm_source"]);
        let Value::TextList(facts) = get("facts") else {
            panic!("a list")
        };
        assert!(facts.iter().any(|f| f == "tracking-parameters-removed"));
        assert_eq!(facts.len(), o.facts.len());
        assert_eq!(
            get("transformations"),
            Value::Transformations(&o.transformations)
        );

        let bad = p.key("mailto:someone@example.net");
        let row = Row {
            outcome: &bad,
            ..row
        };
        let get = |name| by_name(name).unwrap().read(&row);
        assert_eq!(get("status"), Value::Text(Some("invalid")));
        assert_eq!(
            get("error_code"),
            Value::Text(Some("citation.unsupported-scheme"))
        );
        assert!(matches!(get("error_message"), Value::Text(Some(m)) if !m.is_empty()));
        assert_eq!(get("psl_version"), Value::Text(Some(set.psl().version())));
    }

    #[test]
    fn names_are_unique_and_only_psl_is_left_to_the_cli() {
        let mut names: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FIELDS.len());
        let cli_only: Vec<&str> = FIELDS
            .iter()
            .filter(|f| !f.in_engines)
            .map(|f| f.name)
            .collect();
        assert_eq!(cli_only, ["psl"]);
        assert_eq!(engine_fields().count(), FIELDS.len() - 1);
    }

    #[test]
    fn a_transformation_reads_its_fields_and_only_an_unwrap_has_a_wrapper() {
        let set = PolicySet::builtin();
        let p = set.get("clean@1").unwrap();
        let o = p.key("https://www.google.com/url?q=https://news.example.org/a%3Fb%3D1&sa=D");
        let names: Vec<&str> = TRANSFORMATION_FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names, ["rule", "component", "before", "after", "wrapper"]);
        assert!(!o.transformations.is_empty());
        for t in &o.transformations {
            let cells: Vec<Option<&str>> =
                TRANSFORMATION_FIELDS.iter().map(|f| f.read(t)).collect();
            assert_eq!(cells[0], Some(t.rule));
            assert_eq!(cells[1], Some(t.component.as_str()));
            assert_eq!(cells[2], Some(t.before.as_str()));
            assert_eq!(cells[3], Some(t.after.as_str()));
            assert_eq!(cells[4].is_some(), t.rule == "unwrap-redirect");
            for (f, c) in TRANSFORMATION_FIELDS.iter().zip(&cells) {
                assert!(f.nullable || c.is_some(), "{}", f.name);
            }
        }
    }
}

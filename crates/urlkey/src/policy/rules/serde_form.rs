//! The serde side of the catalogue shared by every rule: reading the list of rule names
//! from the enum's own serde form, and refusing parameters where a rule takes none.

use std::fmt;

/// An error that keeps the list of names an "unknown variant" error carries.
#[derive(Debug)]
struct Capture(Option<&'static [&'static str]>);

impl fmt::Display for Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not an unknown-variant error")
    }
}

impl std::error::Error for Capture {}

impl serde::de::Error for Capture {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Capture(None)
    }
    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
        Capture(Some(expected))
    }
}

/// The variant names of an internally tagged enum, as serde's derive lists them: a tag no
/// variant has is read, and the "unknown variant" error carries the list.
pub(super) fn variant_names<T: serde::de::DeserializeOwned>(
    tag: &'static str,
) -> &'static [&'static str] {
    let map = serde::de::value::MapDeserializer::<_, Capture>::new(
        [(tag, "\u{0}not a variant")].into_iter(),
    );
    match T::deserialize(map) {
        Err(Capture(Some(names))) => names,
        _ => unreachable!("{tag}: an internally tagged enum refuses an unknown tag"),
    }
}

/// A rule without parameters refuses any (a unit type alone would ignore them, or refuse
/// them with a message that does not name the parameter).
pub(super) fn no_parameters<'de, D: serde::Deserializer<'de>, T: Default>(
    d: D,
) -> Result<T, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Parameters {}
    <Parameters as serde::Deserialize>::deserialize(d).map(|_| T::default())
}

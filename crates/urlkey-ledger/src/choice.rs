//! The value sets a caller picks one value of by name (`--format csv`, `?by=market`): each
//! lists its names with one line of help, and parses a name back ([`std::str::FromStr`]).
//! The command line builds its value parsers and its help from these lists, so a name is
//! spelled in one place.

use std::fmt;

/// A closed set of values, each with a name and one line of help.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// Every value, its name and its help, in the order help lists them.
    const CHOICES: &'static [(Self, &'static str, &'static str)];

    /// The value's name (as accepted by [`parse`]).
    fn name(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|(v, _, _)| *v == self)
            .map_or("", |(_, name, _)| name)
    }
}

/// The value named `text` (exactly: case matters).
pub fn parse<T: Choice>(text: &str) -> Result<T, UnknownChoice> {
    T::CHOICES
        .iter()
        .find(|(_, name, _)| *name == text)
        .map(|(v, _, _)| *v)
        .ok_or_else(|| UnknownChoice {
            given: text.to_string(),
            names: T::CHOICES.iter().map(|(_, name, _)| *name).collect(),
        })
}

/// A name that is not one of the set's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownChoice {
    /// The name given.
    pub given: String,
    /// The names accepted.
    pub names: Vec<&'static str>,
}

impl fmt::Display for UnknownChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not one of {}",
            self.given,
            self.names.join(", ")
        )
    }
}

impl std::error::Error for UnknownChoice {}

/// Implements [`std::str::FromStr`] through [`parse`] for each [`Choice`] named.
macro_rules! from_str_by_name {
    ($($t:ty),*) => {$(
        impl std::str::FromStr for $t {
            type Err = $crate::choice::UnknownChoice;
            fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
                $crate::choice::parse(text)
            }
        }
    )*};
}
pub(crate) use from_str_by_name;

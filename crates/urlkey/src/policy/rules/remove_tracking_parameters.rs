//! `remove-tracking-parameters` (canonical): removes every `&`-separated piece of the query
//! whose name (as written, never percent-decoded) a [`TrackingSet`] removes; the names go
//! to `removed_params`, in query order. Documented: every entry of the registries cites
//! the platform page or published list that names it ([`crate::tracking`]).

use std::borrow::Cow;

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::query::raw_params;
use crate::scratch;
use crate::tracking::{Place, TrackingSet};

use super::edit::replace_query;
use super::need;
use super::step::{Example, RiskClass, Step};

/// The `remove-tracking-parameters` rule: the set it removes. A policy file names a list
/// (`list`, `registry@1` by default) and may add names and prefixes and keep names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoveTrackingParameters(pub TrackingSet);

impl Step for RemoveTrackingParameters {
    const NAME: &'static str = "remove-tracking-parameters";
    const RISK: RiskClass = RiskClass::Documented;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x?utm_source=1",
        after: "https://a.example/x",
    };
    const CANONICAL: bool = true;

    fn needs(&self) -> u16 {
        need::QUERY
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.query.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        remove_tracking(&self.0, p, log);
    }
}

/// `remove-tracking-parameters`' parameters: a named list, then names added and kept.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TrackingParameters {
    #[serde(default = "TrackingParameters::default_list")]
    list: String,
    #[serde(default)]
    add_names: Vec<String>,
    #[serde(default)]
    add_prefixes: Vec<String>,
    #[serde(default)]
    keep_names: Vec<String>,
}

impl TrackingParameters {
    fn default_list() -> String {
        "registry@1".into()
    }
}

fn read_tracking_parameters<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<TrackingSet, D::Error> {
    let spec = <TrackingParameters as serde::Deserialize>::deserialize(d)?;
    let mut set = TrackingSet::named(&spec.list).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "remove-tracking-parameters: unknown list {:?}; lists: {}",
            spec.list,
            TrackingSet::NAMES.join(", ")
        ))
    })?;
    spec.add_names.iter().for_each(|n| set.add_name(n));
    spec.add_prefixes.iter().for_each(|n| set.add_prefix(n));
    spec.keep_names.iter().for_each(|n| set.keep(n));
    Ok(set)
}

impl<'de> serde::Deserialize<'de> for RemoveTrackingParameters {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_tracking_parameters(d).map(RemoveTrackingParameters)
    }
}

impl serde::Serialize for RemoveTrackingParameters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_tracking_parameters(&self.0, s)
    }
}

/// Any set written out whole: `list = "none"` and its entries (`list = "registry@2"`
/// and the names added to it, for a set built on registry 2).
fn write_tracking_parameters<S: serde::Serializer>(
    set: &TrackingSet,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("TrackingParameters", 4)?;
    // Registry 2's scoped entries are not names: the set is written as its list.
    let list = set.scoped_list().unwrap_or("none");
    st.serialize_field("list", list)?;
    st.serialize_field("add_names", set.exact_names())?;
    st.serialize_field("add_prefixes", set.prefixes())?;
    st.serialize_field("keep_names", set.kept_names())?;
    st.end()
}

fn remove_tracking(set: &TrackingSet, p: &mut Parts<'_>, log: &mut Log) {
    let Some(q) = &p.query else { return };
    // Registry 2's scopes and exceptions read the host, the path and the query.
    let place = Place {
        host: p.host.as_deref().unwrap_or(""),
        path: &p.path,
        query: q,
    };
    if set.is_empty() || !raw_params(q).any(|r| set.matches_at(r.name, &place)) {
        return;
    }
    let mut kept = scratch::string(q.len());
    let (mut first, mut any_kept) = (true, false);
    for r in raw_params(q) {
        if set.matches_at(r.name, &place) {
            if !log.quiet || log.keep_removed {
                log.removed_params.push(r.name.to_string());
            }
        } else {
            if !first {
                kept.push('&');
            }
            first = false;
            kept.push_str(r.piece);
            any_kept |= !r.piece.is_empty();
        }
    }
    // A query that becomes empty disappears with its `?` (docs/policies.md, "The rule
    // catalogue", remove-tracking-parameters).
    let new = if any_kept {
        Some(Cow::Owned(kept))
    } else {
        scratch::give(kept);
        None
    };
    replace_query(p, new, RemoveTrackingParameters::NAME, log);
}

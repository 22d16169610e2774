//! [`TrackingSet`]: the names, prefixes and scoped entries one policy removes, built from
//! a pinned list of the registries (`registry@1`, `registry@2`, `citation@1`,
//! `citation@2`, `webkey@1`, `none`) and a policy file's additions.

use super::matching::{MatchKind, Place};
use super::registry1::{TrackingRule, REGISTRY};
use super::registry2::{self, ScopedRule};

/// What `citation@2` adds to `citation@1`'s list: the click and session ids of registry 2
/// (`registry@2`) that `citation@1` keeps, by name. Each entry's home is registry 2, where
/// its platform, sources and read dates are (`urlkey rules --registry 2`); a test holds each
/// to one global, exact entry of `registry@2` without exceptions. Frozen with `citation@2`.
pub(crate) const CITATION_2_ADDITIONS: [&str; 9] = [
    "srsltid",
    "gbraid",
    "wbraid",
    "_gl",
    "ttclid",
    "twclid",
    "li_fat_id",
    "yclid",
    "ef_id",
];

/// The policy-file names of registry 2's versions, from `registry2::FIRST_VERSION` on: a
/// version added to the table adds its name here and to [`TrackingSet::NAMES`].
const REGISTRY_2_NAMES: [&str; 1] = ["registry@2"];
const _: () = assert!(
    REGISTRY_2_NAMES.len() == (registry2::LATEST_VERSION - registry2::FIRST_VERSION + 1) as usize
);

/// A set of names and prefixes that a policy removes. Matching is ASCII
/// case-insensitive, on the name as written (never percent-decoded).
///
/// `registry@2` adds scoped entries (`urlkey::internals::tracking::registry2`): a name removed only on some sites,
/// or kept where an exception holds. The other lists have none, so their matching is
/// the name alone, as it always was.
///
/// ```
/// use urlkey::TrackingSet;
/// let mut set = TrackingSet::named("citation@1").unwrap();
/// assert!(set.matches("UTM_Source") && set.matches("gclid") && !set.matches("id"));
/// set.add_name("ref");
/// set.add_prefix("pk_");
/// set.keep("utm_id");
/// assert!(set.matches("ref") && set.matches("pk_campaign") && !set.matches("utm_id"));
/// assert_eq!(set.kept_names(), [Box::from("utm_id")]);
/// assert!(TrackingSet::none().is_empty());
/// assert!(TrackingSet::named("nope").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrackingSet {
    names: Vec<Box<str>>,
    prefixes: Vec<Box<str>>,
    keep: Vec<Box<str>>,
    scoped: &'static [ScopedRule],
    /// The list the scoped entries come from (`registry@2`), empty without them.
    scoped_list: &'static str,
}

impl TrackingSet {
    /// Every entry of [`REGISTRY`] (`registry@1`): both seeds' lists, used by `mapper@1`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::registry_v1();
    /// assert!(s.matches("utm_source") && s.matches("gbraid"));
    /// ```
    pub fn registry_v1() -> Self {
        Self::from_rules(REGISTRY.iter())
    }

    /// The comparison key's table and nothing else (`webkey@1`): its nineteen exact names,
    /// matched ignoring ASCII case on the name as written. The table is closed
    /// (docs/policies.md, "Tracking registry"), so the citation ledger's `dclid`, `utm_*`
    /// and `_hs*` are not in it.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::webkey_v1();
    /// assert!(s.matches("gclid") && !s.matches("dclid"));
    /// ```
    pub fn webkey_v1() -> Self {
        Self::from_rules(REGISTRY.iter().filter(|r| r.seed == "001"))
    }

    /// The citation ledger's analytics allowlist (`citation@1`; docs/policies.md, "Tracking
    /// registry"): `utm_*`, `gclid`, `dclid`, `fbclid`,
    /// `msclkid`, `mc_cid`, `mc_eid`, `_hs*`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::citation_v1();
    /// assert!(s.matches("utm_anything") && s.matches("_hsenc") && !s.matches("gbraid"));
    /// ```
    pub fn citation_v1() -> Self {
        Self::from_rules(REGISTRY.iter().filter(|r| r.citation))
    }

    /// `citation@1`'s list and the click and session ids of registry 2 it keeps
    /// (`CITATION_2_ADDITIONS`: `srsltid`, `gbraid`, `wbraid`, `_gl`, `ttclid`, `twclid`,
    /// `li_fat_id`, `yclid`, `ef_id`), as names matched everywhere (`citation@2`).
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::citation_v2();
    /// assert!(s.matches("srsltid") && s.matches("SRSLTID") && s.matches("utm_source"));
    /// assert!(!TrackingSet::citation_v1().matches("srsltid"));
    /// assert!(!s.matches("gad_source") && !s.matches("si"));
    /// ```
    pub fn citation_v2() -> Self {
        let mut set = Self::citation_v1();
        for name in CITATION_2_ADDITIONS {
            set.add_name(name);
        }
        set
    }

    /// Registry 2 (`registry@2`, used by `clean@1`): scoped entries with exceptions,
    /// each citing its sources ([`registry2::REGISTRY_2`]). Pinned: the entries of version 2 only,
    /// whatever is added to the table later ([`registry2::entries_of`]).
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::registry_v2();
    /// assert_eq!(s.scoped_list(), Some("registry@2"));
    /// assert!(!s.scoped().is_empty());
    /// ```
    pub fn registry_v2() -> Self {
        Self::registry_2_at(registry2::FIRST_VERSION).unwrap_or_default()
    }

    /// `registry@{version}`: registry 2's table as it was at that version, or `None` for a
    /// version the table does not have.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// assert_eq!(TrackingSet::registry_2_at(2), Some(TrackingSet::registry_v2()));
    /// assert_eq!(TrackingSet::registry_2_at(0), None);
    /// ```
    pub fn registry_2_at(version: u8) -> Option<Self> {
        let name =
            REGISTRY_2_NAMES.get(usize::from(version.checked_sub(registry2::FIRST_VERSION)?))?;
        Some(Self {
            scoped: registry2::entries_of(version)?,
            scoped_list: name,
            ..Self::default()
        })
    }

    /// An empty set.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// assert!(TrackingSet::none().is_empty());
    /// assert!(!TrackingSet::none().matches("utm_source"));
    /// ```
    pub fn none() -> Self {
        Self::default()
    }

    /// The list the scoped entries come from (`registry@2`), or `None` for a set without
    /// them: how a policy file names it.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// assert_eq!(TrackingSet::citation_v1().scoped_list(), None);
    /// assert_eq!(TrackingSet::registry_v2().scoped_list(), Some("registry@2"));
    /// ```
    pub fn scoped_list(&self) -> Option<&'static str> {
        (!self.scoped_list.is_empty()).then_some(self.scoped_list)
    }

    /// The names [`TrackingSet::named`] knows, in the order messages list them.
    pub const NAMES: [&'static str; 6] = [
        "registry@1",
        "registry@2",
        "citation@1",
        "citation@2",
        "webkey@1",
        "none",
    ];

    /// A named set: `registry@1`, `registry@2`, `citation@1`, `citation@2`, `webkey@1` or
    /// `none`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// for name in TrackingSet::NAMES {
    ///     assert!(TrackingSet::named(name).is_some(), "{name}");
    /// }
    /// assert_eq!(TrackingSet::named("webkey@1"), Some(TrackingSet::webkey_v1()));
    /// ```
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "registry@1" => Some(Self::registry_v1()),
            "registry@2" => Some(Self::registry_v2()),
            "citation@1" => Some(Self::citation_v1()),
            "citation@2" => Some(Self::citation_v2()),
            "webkey@1" => Some(Self::webkey_v1()),
            "none" => Some(Self::none()),
            _ => None,
        }
    }

    fn from_rules<'a>(rules: impl Iterator<Item = &'a TrackingRule>) -> Self {
        let mut set = Self::default();
        for r in rules {
            match r.kind {
                MatchKind::Exact => set.add_name(r.pattern),
                MatchKind::Prefix => set.add_prefix(r.pattern),
            }
        }
        set
    }

    /// The exact names, as added (lowercase): a policy file's `add_names`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::none();
    /// s.add_name("Ref");
    /// assert_eq!(s.exact_names(), [Box::from("ref")]);
    /// ```
    pub fn exact_names(&self) -> &[Box<str>] {
        &self.names
    }

    /// The prefixes, as added (lowercase): a policy file's `add_prefixes`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::none();
    /// s.add_prefix("pk_");
    /// assert_eq!(s.prefixes(), [Box::from("pk_")]);
    /// ```
    pub fn prefixes(&self) -> &[Box<str>] {
        &self.prefixes
    }

    /// The names never removed (lowercase): a policy file's `keep_names`.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::citation_v1();
    /// s.keep("utm_id");
    /// assert_eq!(s.kept_names(), [Box::from("utm_id")]);
    /// ```
    pub fn kept_names(&self) -> &[Box<str>] {
        &self.keep
    }

    /// Adds an exact name.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::none();
    /// s.add_name("ref");
    /// assert!(s.matches("REF") && !s.matches("referrer"));
    /// ```
    pub fn add_name(&mut self, name: &str) {
        let name = name.to_ascii_lowercase().into_boxed_str();
        if !self.names.contains(&name) {
            self.names.push(name);
        }
    }

    /// Adds a prefix.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::none();
    /// s.add_prefix("pk_");
    /// assert!(s.matches("pk_campaign") && !s.matches("pk"));
    /// ```
    pub fn add_prefix(&mut self, prefix: &str) {
        let p = prefix.to_ascii_lowercase().into_boxed_str();
        if !self.prefixes.contains(&p) {
            self.prefixes.push(p);
        }
    }

    /// Never removes `name`, even when a name or prefix of the set matches it.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let mut s = TrackingSet::citation_v1();
    /// s.keep("utm_id");
    /// assert!(!s.matches("utm_id") && s.matches("utm_source"));
    /// ```
    pub fn keep(&mut self, name: &str) {
        self.keep.push(name.to_ascii_lowercase().into_boxed_str());
    }

    /// True when `name` (as written) is a tracking parameter of this set.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::citation_v1();
    /// assert!(s.matches("FBCLID"));
    /// assert!(!s.matches("utm%5Fsource")); // never decoded
    /// ```
    #[inline]
    pub fn matches(&self, name: &str) -> bool {
        let b = name.as_bytes();
        if self
            .keep
            .iter()
            .any(|k| k.as_bytes().eq_ignore_ascii_case(b))
        {
            return false;
        }
        self.names
            .iter()
            .any(|n| n.len() == b.len() && n.as_bytes().eq_ignore_ascii_case(b))
            || self
                .prefixes
                .iter()
                .any(|p| b.len() >= p.len() && p.as_bytes().eq_ignore_ascii_case(&b[..p.len()]))
    }

    /// True when this set may remove `name` somewhere (a name or prefix of it, or a scoped
    /// entry naming it, whatever its scope and exceptions), unless it is kept.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::registry_v2();
    /// assert!(s.may_remove("si")); // on some sites only
    /// assert!(!s.may_remove("id"));
    /// ```
    pub fn may_remove(&self, name: &str) -> bool {
        !self.keeps(name) && (self.matches(name) || self.scoped.iter().any(|r| r.names(name)))
    }

    /// The scoped entries (registry 2's), empty for the other lists.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// assert!(TrackingSet::citation_v1().scoped().is_empty());
    /// assert!(!TrackingSet::registry_v2().scoped().is_empty());
    /// ```
    pub fn scoped(&self) -> &'static [ScopedRule] {
        self.scoped
    }

    /// True when `name` (as written) is removed at `place`: a name or prefix of the set,
    /// or a scoped entry whose scope holds `place` and none of whose exceptions does.
    /// `keep_names` win over both.
    ///
    /// ```
    /// use urlkey::tracking::Place;
    /// use urlkey::TrackingSet;
    /// let s = TrackingSet::registry_v2();
    /// let at = |host| Place { host, path: "/", query: "si=1" };
    /// assert!(s.matches_at("si", &at("youtu.be")) && !s.matches_at("si", &at("example.com")));
    /// ```
    #[inline]
    pub fn matches_at(&self, name: &str, place: &Place<'_>) -> bool {
        if self.scoped.is_empty() {
            return self.matches(name);
        }
        if self.keeps(name) {
            return false;
        }
        // A parameter that an exception of registry 2 needs (`mkt_unsubscribe` for
        // `mkt_tok`) keeps it only if this set does not remove that parameter too.
        let removed = |n: &str| {
            !self.keeps(n) && (self.matches(n) || registry2::removes(self.scoped, n, place))
        };
        self.matches(name) || registry2::removes_beside(self.scoped, name, place, &removed)
    }

    fn keeps(&self, name: &str) -> bool {
        let b = name.as_bytes();
        self.keep
            .iter()
            .any(|k| k.as_bytes().eq_ignore_ascii_case(b))
    }

    /// True when nothing is removed.
    ///
    /// ```
    /// use urlkey::TrackingSet;
    /// assert!(TrackingSet::none().is_empty() && !TrackingSet::webkey_v1().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.prefixes.is_empty() && self.scoped.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_matches_case_insensitively_on_raw_names() {
        let r = TrackingSet::registry_v1();
        assert!(r.matches("utm_source"));
        assert!(r.matches("UTM_Source"));
        assert!(r.matches("utm_anything"));
        assert!(r.matches("_hsenc"));
        assert!(r.matches("gbraid"));
        assert!(!r.matches("utm%5Fsource"), "names are not percent-decoded");
        assert!(!r.matches("id"));
        assert!(!r.matches("xutm_source"));
    }

    #[test]
    fn citation_set_is_seed_004s_allowlist() {
        let c = TrackingSet::citation_v1();
        for n in [
            "utm_x", "gclid", "dclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "_hsmi",
        ] {
            assert!(c.matches(n), "{n}");
        }
        for n in ["gbraid", "wbraid", "ttclid", "twclid", "li_fat_id", "ref"] {
            assert!(!c.matches(n), "{n}");
        }
    }

    #[test]
    fn citation_2_adds_registry_2s_click_and_session_ids_to_citation_1() {
        use super::super::registry2::Scope;
        let (v1, v2) = (TrackingSet::citation_v1(), TrackingSet::citation_v2());
        let registry = registry2::entries_of(registry2::FIRST_VERSION).unwrap_or_default();
        for name in CITATION_2_ADDITIONS {
            // One home: the entry of registry@2 that says who sets it and where that is read.
            let entries: Vec<_> = registry.iter().filter(|r| r.pattern == name).collect();
            assert_eq!(entries.len(), 1, "{name}: one entry of registry@2");
            let r = entries[0];
            assert!(
                r.kind == MatchKind::Exact && r.scope == Scope::Global && r.exceptions.is_empty(),
                "{name}: a global exact entry without exceptions, as a plain name is"
            );
            assert!(!r.sources.is_empty(), "{name}: sourced");
            assert!(v2.matches(name) && !v1.matches(name), "{name}");
        }
        // citation@1's list, whole, and nothing else beside the additions.
        assert_eq!(v2.prefixes(), v1.prefixes());
        assert_eq!(
            &v2.exact_names()[..v1.exact_names().len()],
            v1.exact_names()
        );
        assert_eq!(
            v2.exact_names().len(),
            v1.exact_names().len() + CITATION_2_ADDITIONS.len()
        );
        assert!(v2.scoped().is_empty() && v2.scoped_list().is_none());
        assert_eq!(TrackingSet::named("citation@2"), Some(v2.clone()));
        // Campaign tags, recipient ids and share ids are not click or session ids.
        for n in [
            "gad_source",
            "gclsrc",
            "s_kwcid",
            "_kx",
            "vero_id",
            "si",
            "igsh",
            "epik",
        ] {
            assert!(!v2.matches(n), "{n}");
        }
    }

    #[test]
    fn webkey_set_is_seed_001s_closed_table() {
        let w = TrackingSet::webkey_v1();
        assert_eq!(TrackingSet::named("webkey@1"), Some(w.clone()));
        let seed_001 = REGISTRY.iter().filter(|r| r.seed == "001").count();
        assert_eq!(seed_001, 19);
        for r in REGISTRY.iter().filter(|r| r.seed == "001") {
            assert_eq!(r.kind, MatchKind::Exact, "{}", r.pattern);
            assert!(w.matches(r.pattern) && w.matches(&r.pattern.to_ascii_uppercase()));
        }
        for n in [
            "dclid",
            "utm_",
            "utm_x",
            "utm_sourcex",
            "_hsenc",
            "_hsmi",
            "xgclid",
        ] {
            assert!(!w.matches(n), "{n}");
        }
        assert!(!w.matches("utm%5Fsource"), "names are not percent-decoded");
    }
}

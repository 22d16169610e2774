//! The rule catalogue. Each rule reads and rewrites [`Parts`] and records what it changed
//! under its own name; `docs/policies.md` documents every rule under that name.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::psl::PublicSuffixList;
use crate::query::{hex, raw_params, RawParam};
use crate::scratch;
use crate::tracking::Place;
use crate::tracking::TrackingSet;
use crate::unwrap::{target_of, Found, MAX_DEPTH};
use crate::web::{HostKind, WebUrl};

use super::front;
use super::parts::{Log, Parts};

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

/// How `remove-trailing-slash` treats the root path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrailingSlash {
    /// A non-root path loses its final `/`; the root `/` stays (`citation@1`).
    NonRoot,
    /// Every final `/` goes, so `/` alone becomes empty (`webkey@1`).
    All,
}

/// One rule of a policy.
///
/// A policy file names a rule as `{ rule = "<name>", <parameter> = ... }` (docs/policies.md,
/// "The rule catalogue"): this enum is that form, through serde. A rule with parameters that
/// are not its fields says how to read them (`deserialize_with`); unknown names and unknown
/// parameters are errors that name the line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Rule {
    /// Removes the tracking parameters of a set; their names go to `removed_params`.
    #[serde(
        deserialize_with = "tracking_parameters",
        serialize_with = "write_tracking_parameters"
    )]
    RemoveTrackingParameters(TrackingSet),
    /// Removes the fragment; with `keep_routes`, `#!` and `#/` fragments stay.
    RemoveFragment {
        /// Keep `#!...` and `#/...` (client-side routes).
        #[serde(default)]
        keep_routes: bool,
    },
    /// Drops username and password from the key.
    #[serde(deserialize_with = "no_parameters")]
    DropCredentials,
    /// Collapses runs of `/` in the path to one.
    #[serde(deserialize_with = "no_parameters")]
    CollapseSlashes,
    /// Sorts the query parameters.
    #[serde(deserialize_with = "sort_order", serialize_with = "write_sort_order")]
    SortQuery(SortOrder),
    /// Drops empty pieces (nothing between two `&`) from the query.
    #[serde(deserialize_with = "no_parameters")]
    DropEmptyParameters,
    /// A query left empty (`?` alone) disappears.
    #[serde(deserialize_with = "no_parameters")]
    DropEmptyQuery,
    /// Removes a trailing `/` from the path.
    #[serde(
        deserialize_with = "trailing_slash",
        serialize_with = "write_trailing_slash"
    )]
    RemoveTrailingSlash(TrailingSlash),
    /// Removes a leading `www.` label from a domain host.
    #[serde(deserialize_with = "no_parameters")]
    StripWww,
    /// Drops a root `.` at the end of a domain host.
    #[serde(deserialize_with = "no_parameters")]
    StripRootDot,
    /// Reduces a domain host to its registrable domain (Public Suffix List).
    #[serde(deserialize_with = "no_parameters")]
    RegistrableDomain,
    /// Decodes `%XX` escapes of unreserved characters and uppercases other escapes
    /// (hierarchical paths only; an opaque path is left alone).
    #[serde(deserialize_with = "no_parameters")]
    DecodeUnreserved,
    /// Lowercases ASCII letters of the path (escapes keep their hex digits); an opaque
    /// path is lowercased whole.
    #[serde(deserialize_with = "no_parameters")]
    LowercasePath,
    /// Drops a final default-document segment (`index.html`, `default.aspx`, ...).
    #[serde(deserialize_with = "no_parameters")]
    DropDefaultDocument,
    /// An opaque-path URL's key has no query (unless the opaque path is empty).
    #[serde(deserialize_with = "no_parameters")]
    DropOpaqueQuery,
    /// Lowercases the scheme (`document@1`; the WHATWG parser already does).
    #[serde(deserialize_with = "no_parameters")]
    LowercaseScheme,
    /// Lowercases an ASCII host (`document@1`; no IDNA).
    #[serde(deserialize_with = "no_parameters")]
    LowercaseHost,
    /// Writes the port as its decimal value and drops the scheme's default port
    /// (`document@1`; the WHATWG parser already does).
    #[serde(deserialize_with = "no_parameters")]
    NormalizePort,
    /// An empty path becomes `/`.
    #[serde(deserialize_with = "no_parameters")]
    EmptyPathToRoot,
    /// Replaces a redirect wrapper (`l.facebook.com/l.php?u=...`, Outlook Safe Links, the
    /// others of [`crate::unwrap::WRAPPERS`]) by the absolute http(s) URL in its query,
    /// up to [`crate::unwrap::MAX_DEPTH`] wrappers deep. Nothing is fetched.
    #[serde(deserialize_with = "no_parameters")]
    UnwrapRedirect,
}

/// The variant names of an internally tagged enum, as serde's derive lists them: a tag no
/// variant has is read, and the "unknown variant" error carries the list.
mod catalogue_names {
    use std::fmt;

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

    pub(super) fn of<T: serde::de::DeserializeOwned>(tag: &'static str) -> &'static [&'static str] {
        let map = serde::de::value::MapDeserializer::<_, Capture>::new(
            [(tag, "\u{0}not a variant")].into_iter(),
        );
        match T::deserialize(map) {
            Err(Capture(Some(names))) => names,
            _ => unreachable!("{tag}: an internally tagged enum refuses an unknown tag"),
        }
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

fn tracking_parameters<'de, D: serde::Deserializer<'de>>(d: D) -> Result<TrackingSet, D::Error> {
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

/// Any set written out whole: `list = "none"` and its entries (`list = "registry@2"`
/// and the names added to it, for a set built on registry 2).
fn write_tracking_parameters<S: serde::Serializer>(
    set: &TrackingSet,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("TrackingParameters", 4)?;
    // Registry 2's scoped entries are not names: the set is written as its list.
    let list = if set.scoped().is_empty() {
        "none"
    } else {
        "registry@2"
    };
    st.serialize_field("list", list)?;
    st.serialize_field("add_names", set.exact_names())?;
    st.serialize_field("add_prefixes", set.prefixes())?;
    st.serialize_field("keep_names", set.kept_names())?;
    st.end()
}

fn write_sort_order<S: serde::Serializer>(order: &SortOrder, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Parameters", 1)?;
    st.serialize_field("order", order)?;
    st.end()
}

fn write_trailing_slash<S: serde::Serializer>(
    mode: &TrailingSlash,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Parameters", 1)?;
    st.serialize_field("mode", mode)?;
    st.end()
}

/// A rule without parameters refuses any (a unit variant alone would ignore them).
fn no_parameters<'de, D: serde::Deserializer<'de>>(d: D) -> Result<(), D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Parameters {}
    <Parameters as serde::Deserialize>::deserialize(d).map(|_| ())
}

fn sort_order<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SortOrder, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Parameters {
        #[serde(default = "name_value")]
        order: SortOrder,
    }
    fn name_value() -> SortOrder {
        SortOrder::NameValue
    }
    Ok(<Parameters as serde::Deserialize>::deserialize(d)?.order)
}

fn trailing_slash<'de, D: serde::Deserializer<'de>>(d: D) -> Result<TrailingSlash, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Parameters {
        #[serde(default = "non_root")]
        mode: TrailingSlash,
    }
    fn non_root() -> TrailingSlash {
        TrailingSlash::NonRoot
    }
    Ok(<Parameters as serde::Deserialize>::deserialize(d)?.mode)
}

/// Final segments that `drop-default-document` removes (seed 001; docs/policies.md#webkey1--comparison-key-v1-seed-001, rule 9).
pub const DEFAULT_DOCUMENTS: [&str; 9] = [
    "index.html",
    "index.htm",
    "index.php",
    "index.asp",
    "index.aspx",
    "default.htm",
    "default.html",
    "default.asp",
    "default.aspx",
];

impl Rule {
    /// Every rule name of the catalogue, in declaration order: the names a policy file may
    /// write and a transformation may carry (besides the front ends' `whatwg-parse` and
    /// `assume-https`). Read from the enum's own serde form, so the list is kept nowhere.
    pub fn names() -> &'static [&'static str] {
        static NAMES: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| catalogue_names::of::<Rule>("rule"))
    }

    /// The rule's name in records and in `docs/policies.md`.
    pub const fn name(&self) -> &'static str {
        match self {
            Rule::RemoveTrackingParameters(_) => "remove-tracking-parameters",
            Rule::RemoveFragment { .. } => "remove-fragment",
            Rule::DropCredentials => "drop-credentials",
            Rule::CollapseSlashes => "collapse-slashes",
            Rule::SortQuery(_) => "sort-query",
            Rule::DropEmptyParameters => "drop-empty-parameters",
            Rule::DropEmptyQuery => "drop-empty-query",
            Rule::RemoveTrailingSlash(_) => "remove-trailing-slash",
            Rule::StripWww => "strip-www",
            Rule::StripRootDot => "strip-root-dot",
            Rule::RegistrableDomain => "registrable-domain",
            Rule::DecodeUnreserved => "decode-unreserved",
            Rule::LowercasePath => "lowercase-path",
            Rule::DropDefaultDocument => "drop-default-document",
            Rule::DropOpaqueQuery => "drop-opaque-query",
            Rule::LowercaseScheme => "lowercase-scheme",
            Rule::LowercaseHost => "lowercase-host",
            Rule::NormalizePort => "normalize-port",
            Rule::EmptyPathToRoot => "empty-path-to-root",
            Rule::UnwrapRedirect => "unwrap-redirect",
        }
    }

    /// True for rules that shape the canonical form (removals a reader of the URL would
    /// expect gone); the others shape only the key.
    pub const fn is_canonical(&self) -> bool {
        matches!(
            self,
            Rule::RemoveTrackingParameters(_) | Rule::RemoveFragment { .. } | Rule::UnwrapRedirect
        )
    }

    /// False when the rule certainly leaves `p` (and the log) alone: a test of a field or
    /// two, inlined into the rule loops, so that a rule with nothing to do costs no call.
    /// True means "maybe"; [`Rule::apply`] decides.
    #[inline(always)]
    pub fn may_apply(&self, p: &Parts<'_>) -> bool {
        match self {
            Rule::RemoveTrackingParameters(_)
            | Rule::SortQuery(_)
            | Rule::DropEmptyParameters
            | Rule::DropEmptyQuery => p.query.is_some(),
            Rule::RemoveFragment { .. } => p.fragment.is_some(),
            Rule::DropCredentials => !p.userinfo.is_empty(),
            Rule::RemoveTrailingSlash(_) => !p.opaque_path && p.path.ends_with('/'),
            Rule::StripWww | Rule::StripRootDot | Rule::RegistrableDomain => {
                p.host_kind == HostKind::Domain
            }
            Rule::CollapseSlashes | Rule::DecodeUnreserved | Rule::DropDefaultDocument => {
                !p.opaque_path
            }
            Rule::DropOpaqueQuery => p.opaque_path && p.query.is_some(),
            Rule::NormalizePort => !p.port.is_empty(),
            Rule::EmptyPathToRoot => p.path.is_empty(),
            Rule::UnwrapRedirect => p.host.is_some() && p.query.is_some(),
            Rule::LowercasePath | Rule::LowercaseScheme | Rule::LowercaseHost => true,
        }
    }

    /// Applies the rule. A component that only shrinks (a trailing `/`, `www.`, a
    /// default document) stays borrowed from the input: the lean key path allocates
    /// only for text that is really new.
    pub fn apply<'a>(&self, p: &mut Parts<'a>, log: &mut Log, psl: Option<&PublicSuffixList>) {
        let name = self.name();
        match self {
            Rule::RemoveTrackingParameters(set) => remove_tracking(set, p, log),
            Rule::RemoveFragment { keep_routes } => {
                if let Some(f) = &p.fragment {
                    if *keep_routes && (f.starts_with('!') || f.starts_with('/')) {
                        return;
                    }
                    log.fragment_removed = true;
                    if let Some(f) = p.fragment.take() {
                        if log.quiet {
                            log.changes += 1;
                        } else {
                            log.record(name, Component::Fragment, format!("#{f}"), String::new());
                        }
                    }
                }
            }
            Rule::DropCredentials => {
                if !p.userinfo.is_empty() {
                    let before = std::mem::take(&mut p.userinfo);
                    log.change(name, Component::Userinfo, &before, "");
                }
            }
            Rule::CollapseSlashes => {
                if !p.opaque_path && p.path.contains("//") {
                    let mut out = scratch::string(p.path.len());
                    let mut prev_slash = false;
                    for c in p.path.chars() {
                        if c == '/' && prev_slash {
                            continue;
                        }
                        prev_slash = c == '/';
                        out.push(c);
                    }
                    replace(&mut p.path, Cow::Owned(out), name, Component::Path, log);
                }
            }
            Rule::SortQuery(order) => {
                if let Some(q) = &p.query {
                    if let Some(sorted) = sort_query(q, *order) {
                        replace_query(p, Some(Cow::Owned(sorted)), name, log);
                    }
                }
            }
            Rule::DropEmptyParameters => {
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
                        replace_query(p, new, name, log);
                    }
                }
            }
            Rule::DropEmptyQuery => {
                if p.query.as_deref() == Some("") {
                    replace_query(p, None, name, log);
                }
            }
            Rule::RemoveTrailingSlash(mode) => {
                if p.opaque_path || !p.path.ends_with('/') {
                    return;
                }
                if *mode == TrailingSlash::NonRoot && p.path.len() == 1 {
                    return;
                }
                drop_final_slash(p, log);
            }
            Rule::StripWww => {
                if p.host_kind == HostKind::Domain {
                    if let Some(h) = &p.host {
                        if let Some(rest) = h.strip_prefix("www.") {
                            if rest.contains('.') {
                                let rest = cut(h, 4..h.len());
                                replace_host(p, rest, name, log);
                            }
                        }
                    }
                }
            }
            Rule::StripRootDot => {
                if p.host_kind == HostKind::Domain {
                    if let Some(h) = &p.host {
                        if h.len() > 1 && h.ends_with('.') {
                            let trimmed = cut(h, 0..h.len() - 1);
                            replace_host(p, trimmed, name, log);
                        }
                    }
                }
            }
            Rule::RegistrableDomain => registrable_domain(p, log, psl),
            Rule::DecodeUnreserved => {
                // An opaque path (`mailto:`) is only lowercased (docs/policies.md#webkey1--comparison-key-v1-seed-001).
                if p.opaque_path {
                    return;
                }
                // Most paths have no escape at all: one memchr decides.
                if !p.path.as_bytes().contains(&b'%') {
                    return;
                }
                if let Some(new) = decode_unreserved(&p.path) {
                    replace(&mut p.path, Cow::Owned(new), name, Component::Path, log);
                }
            }
            Rule::LowercasePath => {
                // An opaque path is lowercased whole, escapes included; a hierarchical
                // path keeps its escapes' hex digits, which `decode-unreserved` uppercases
                // (seed 001: docs/policies.md#webkey1--comparison-key-v1-seed-001, rules
                // 6 and 7).
                if p.opaque_path {
                    if p.path.bytes().any(|b| b.is_ascii_uppercase()) {
                        let new = scratch::lowercase(&p.path);
                        replace(&mut p.path, Cow::Owned(new), name, Component::Path, log);
                    }
                    return;
                }
                if !p.path.bytes().any(|b| b.is_ascii_uppercase()) {
                    return;
                }
                if !p.path.as_bytes().contains(&b'%') {
                    lowercase_whole_path(p, log);
                    return;
                }
                if let Some(new) = lowercase_outside_escapes(&p.path) {
                    replace(&mut p.path, Cow::Owned(new), name, Component::Path, log);
                }
            }
            Rule::DropDefaultDocument => {
                if p.opaque_path {
                    return;
                }
                let seg_start = p.path.rfind('/').map_or(0, |i| i + 1);
                if is_default_document(&p.path[seg_start..]) {
                    let new = cut(&p.path, 0..seg_start);
                    replace(&mut p.path, new, name, Component::Path, log);
                }
            }
            Rule::DropOpaqueQuery => {
                // `magnet:?xt=...` has an empty opaque path: dropping its query would give
                // every magnet link one key, so only a non-empty path stands for the URL.
                if p.opaque_path && !p.path.is_empty() && p.query.is_some() {
                    replace_query(p, None, name, log);
                }
            }
            Rule::LowercaseScheme => {
                if p.scheme.bytes().any(|b| b.is_ascii_uppercase()) {
                    let new = scratch::lowercase(&p.scheme);
                    replace(&mut p.scheme, Cow::Owned(new), name, Component::Scheme, log);
                }
            }
            Rule::LowercaseHost => {
                if let Some(h) = &p.host {
                    if h.bytes().any(|b| b.is_ascii_uppercase()) {
                        let new = scratch::lowercase(h);
                        replace_host(p, Cow::Owned(new), name, log);
                    }
                }
            }
            Rule::NormalizePort => {
                if p.port.is_empty() {
                    return;
                }
                let Ok(value) = p.port.parse::<u32>() else {
                    return;
                };
                let default = match p.scheme.to_ascii_lowercase().as_str() {
                    "http" | "ws" => Some(80),
                    "https" | "wss" => Some(443),
                    "ftp" => Some(21),
                    _ => None,
                };
                let new = if default == Some(value) {
                    String::new()
                } else {
                    value.to_string()
                };
                if new != p.port {
                    replace(&mut p.port, Cow::Owned(new), name, Component::Port, log);
                }
            }
            Rule::EmptyPathToRoot => {
                if !p.opaque_path && !p.path_only && p.path.is_empty() {
                    replace(&mut p.path, Cow::Borrowed("/"), name, Component::Path, log);
                }
            }
            Rule::UnwrapRedirect => unwrap_redirect(p, log),
        }
    }
}

/// Bits of what a URL has that a rule needs before it can change anything
/// ([`Rule::needs`], [`present`]): a policy ORs its rules' needs once, and the lean key
/// path skips a whole rule list when the URL has none of them. Most URLs have no query,
/// fragment, credentials, `//` or non-root final `/`, so the loop, its per-rule dispatch
/// and its calls go for a few tests of fields.
pub(crate) mod need {
    /// A query (`?`).
    pub const QUERY: u16 = 1;
    /// A fragment (`#`).
    pub const FRAGMENT: u16 = 1 << 1;
    /// Credentials.
    pub const USERINFO: u16 = 1 << 2;
    /// A hierarchical path that ends with `/`.
    pub const FINAL_SLASH: u16 = 1 << 3;
    /// A hierarchical path of more than `/` alone that ends with `/`.
    pub const NON_ROOT_FINAL_SLASH: u16 = 1 << 4;
    /// A hierarchical path with `//` in it.
    pub const DOUBLE_SLASH: u16 = 1 << 5;
    /// Every URL (a rule with no cheaper test of its own here).
    pub const ALWAYS: u16 = 1 << 15;
}

impl Rule {
    /// A necessary condition for [`Rule::apply`] to change the parts or the log, as
    /// [`need`] bits: when [`present`] has none of them, the rule does nothing (its
    /// [`Rule::may_apply`] is false, or its `apply` returns at its first test).
    pub(crate) const fn needs(&self) -> u16 {
        match self {
            Rule::RemoveTrackingParameters(_)
            | Rule::SortQuery(_)
            | Rule::DropEmptyParameters
            | Rule::DropEmptyQuery
            | Rule::UnwrapRedirect => need::QUERY,
            Rule::RemoveFragment { .. } => need::FRAGMENT,
            Rule::DropCredentials => need::USERINFO,
            // `apply` returns for `/` alone in this mode.
            Rule::RemoveTrailingSlash(TrailingSlash::NonRoot) => need::NON_ROOT_FINAL_SLASH,
            Rule::RemoveTrailingSlash(TrailingSlash::All) => need::FINAL_SLASH,
            // `apply` returns when the path has no `//`.
            Rule::CollapseSlashes => need::DOUBLE_SLASH,
            _ => need::ALWAYS,
        }
    }
}

/// True when the last of `rules` is `remove-trailing-slash` (non-root) and no rule before
/// it needs a non-root final `/`: for a URL whose only [`need`] of these rules is
/// [`need::NON_ROOT_FINAL_SLASH`], running the list is [`drop_final_slash`] alone.
pub(crate) fn lone_last_non_root_slash_rule(rules: &[Rule]) -> bool {
    match rules.split_last() {
        Some((Rule::RemoveTrailingSlash(TrailingSlash::NonRoot), before)) => before
            .iter()
            .all(|r| r.needs() & need::NON_ROOT_FINAL_SLASH == 0),
        _ => false,
    }
}

/// The [`need`] bits of `rules` together.
pub(crate) fn needs_of(rules: &[Rule]) -> u16 {
    rules.iter().fold(0, |n, r| n | r.needs())
}

/// The [`need`] bits `p` has, of those in `wanted` ([`need::DOUBLE_SLASH`] reads the
/// path, so it is looked for only when wanted). Tests of fields, no branch each.
#[inline]
pub(crate) fn present(p: &Parts<'_>, wanted: u16) -> u16 {
    let path = p.path.as_bytes();
    let hier = !p.opaque_path;
    let final_slash = hier && path.last() == Some(&b'/');
    let bit = |on: bool, need: u16| u16::from(on) * need;
    let mut has = need::ALWAYS
        | bit(p.query.is_some(), need::QUERY)
        | bit(p.fragment.is_some(), need::FRAGMENT)
        | bit(!p.userinfo.is_empty(), need::USERINFO)
        | bit(final_slash, need::FINAL_SLASH)
        | bit(final_slash && path.len() > 1, need::NON_ROOT_FINAL_SLASH);
    if wanted & need::DOUBLE_SLASH != 0 && hier && has_double_slash(path) {
        has |= need::DOUBLE_SLASH;
    }
    has
}

/// True when `b` has two `/` in a row (`windows(2).any(|w| w == b"//")`), eight bytes at a
/// time: windows 7 bytes apart, so that every pair of neighbours is inside one window.
fn has_double_slash(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // Exact per byte (no borrow between bytes): the high bit of each `/` byte.
    let slashes = |w: u64| {
        let x = w ^ (ONES * u64::from(b'/'));
        !(((x & LOW7) + LOW7) | x) & !LOW7
    };
    // The high bit of each `/` followed by a `/`.
    let pairs = |w: u64| {
        let s = slashes(w);
        s & (s >> 8)
    };
    if b.len() < 8 {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        return pairs(u64::from_le_bytes(w)) != 0;
    }
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(w)
    };
    // No early return: a `//` is rare, and the loop's exit is then its only branch.
    let (mut i, mut found) = (0, 0);
    while i + 8 < b.len() {
        found |= pairs(word(i));
        i += 7;
    }
    (found | pairs(word(b.len() - 8))) != 0
}

/// Runs `rules` in order; a rule that [`Rule::may_apply`] rules out costs no call.
#[inline]
pub(crate) fn apply_all<'a>(
    rules: &[Rule],
    p: &mut Parts<'a>,
    log: &mut Log,
    psl: Option<&PublicSuffixList>,
) {
    for rule in rules {
        if rule.may_apply(p) {
            rule.apply(p, log, psl);
        }
    }
}

/// `remove-trailing-slash` once it has decided that the path's final `/` goes: the path
/// stays borrowed. Also run by `webkey@1`'s fused rules ([`super::fused`]).
#[inline]
pub(super) fn drop_final_slash(p: &mut Parts<'_>, log: &mut Log) {
    let trimmed = cut(&p.path, 0..p.path.len() - 1);
    replace(
        &mut p.path,
        trimmed,
        "remove-trailing-slash",
        Component::Path,
        log,
    );
}

/// `lowercase-path` on a hierarchical path with an ASCII capital and no `%` (so no
/// escape whose hex digits must stay): every ASCII letter lowercased. Also run by
/// `webkey@1`'s fused rules ([`super::fused`]), which know both from their scan.
pub(super) fn lowercase_whole_path(p: &mut Parts<'_>, log: &mut Log) {
    let new = scratch::lowercase(&p.path);
    replace(
        &mut p.path,
        Cow::Owned(new),
        "lowercase-path",
        Component::Path,
        log,
    );
}

/// `registrable-domain`: a domain host reduced to its registrable domain, the host's
/// tail, so it stays borrowed. Out of [`Rule::apply`]'s match so that `webkey@1`'s fused
/// rules ([`super::fused::webkey_key_rules`]) run it without the dispatch.
#[inline]
pub(super) fn registrable_domain(p: &mut Parts<'_>, log: &mut Log, psl: Option<&PublicSuffixList>) {
    if p.host_kind != HostKind::Domain {
        return;
    }
    log.used_psl = true;
    let Some(psl) = psl else { return };
    if let Some(h) = &p.host {
        // The registrable domain is the host's tail (`PublicSuffixList::registrable_domain`
        // slices the host); a start of 0 is the whole host, nothing to change.
        if let Some(start) = psl.registrable_start(h) {
            if start != 0 && h.is_char_boundary(start) {
                let rd = cut(h, start..h.len());
                replace_host(p, rd, "registrable-domain", log);
            }
        }
    }
}

/// A default document segment, case-insensitively. Filters on the length and first
/// letter before comparing: nearly every segment fails the first test.
pub(super) fn is_default_document(seg: &str) -> bool {
    matches!(seg.len(), 9..=12)
        && matches!(seg.as_bytes()[0], b'i' | b'I' | b'd' | b'D')
        && DEFAULT_DOCUMENTS
            .iter()
            .any(|d| d.eq_ignore_ascii_case(seg))
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

/// A slice of a component, borrowed when the component is. The borrowed case (nearly
/// every call) is inlined; copying an owned one is not.
#[inline]
fn cut<'a>(s: &Cow<'a, str>, range: std::ops::Range<usize>) -> Cow<'a, str> {
    match s {
        Cow::Borrowed(b) => {
            let b: &'a str = b;
            Cow::Borrowed(&b[range])
        }
        Cow::Owned(o) => Cow::Owned(copy_of(&o[range])),
    }
}

#[inline(never)]
fn copy_of(s: &str) -> String {
    let mut out = scratch::string(s.len());
    out.push_str(s);
    out
}

fn replace<'a>(
    slot: &mut Cow<'a, str>,
    new: Cow<'a, str>,
    rule: &'static str,
    c: Component,
    log: &mut Log,
) {
    let before = std::mem::replace(slot, new);
    log.change(rule, c, &before, slot);
    scratch::give_cow(before);
}

#[inline]
fn replace_host<'a>(p: &mut Parts<'a>, new: Cow<'a, str>, rule: &'static str, log: &mut Log) {
    let before = p.host.replace(new);
    log.change(
        rule,
        Component::Host,
        before.as_deref().unwrap_or(""),
        p.host.as_deref().unwrap_or(""),
    );
    if let Some(b) = before {
        scratch::give_cow(b);
    }
}

fn replace_query<'a>(
    p: &mut Parts<'a>,
    new: Option<Cow<'a, str>>,
    rule: &'static str,
    log: &mut Log,
) {
    if log.quiet {
        if p.query.as_deref() != new.as_deref() {
            log.changes += 1;
        }
        if let Some(before) = std::mem::replace(&mut p.query, new) {
            scratch::give_cow(before);
        }
        return;
    }
    let before = p.component_text(Component::Query);
    p.query = new;
    let after = p.component_text(Component::Query);
    log.record(rule, Component::Query, before, after);
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
    // A query that becomes empty disappears with its `?` (docs/policies.md#the-rule-catalogue, remove-tracking-parameters).
    let new = if any_kept {
        Some(Cow::Owned(kept))
    } else {
        scratch::give(kept);
        None
    };
    replace_query(p, new, "remove-tracking-parameters", log);
}

/// `unwrap-redirect`: follows the wrappers in the query, never the network. A chain
/// deeper than [`MAX_DEPTH`] is kept whole, so that the rule is idempotent: cleaning its
/// own output changes nothing.
fn unwrap_redirect(p: &mut Parts<'_>, log: &mut Log) {
    let mut hops: Vec<(&'static str, Parts<'static>)> = Vec::new();
    let mut kept = false;
    loop {
        let here: &Parts<'_> = hops.last().map_or(&*p, |(_, parts)| parts);
        let (Some(host), Some(query)) = (here.host.as_deref(), here.query.as_deref()) else {
            break;
        };
        let Some((wrapper, found)) = target_of(host, &here.path, query) else {
            break;
        };
        let Found::Web(target) = found else {
            kept = true;
            break;
        };
        if hops.len() == MAX_DEPTH {
            log.wrapper_kept = true;
            return;
        }
        // `target_of` parsed it already: a second parse of the same text cannot fail.
        let Ok(url) = WebUrl::parse(&target, None) else {
            kept = true;
            break;
        };
        let Ok(parts) = front::parts_from_url(&url.pieces(), false, true) else {
            kept = true;
            break;
        };
        hops.push((wrapper.name, parts.into_owned()));
    }
    log.wrapper_kept |= kept;
    let mut before = if log.quiet || hops.is_empty() {
        String::new()
    } else {
        p.component_text(Component::Url)
    };
    for (wrapper, parts) in &hops {
        let after = if log.quiet {
            String::new()
        } else {
            parts.component_text(Component::Url)
        };
        log.record_unwrap(
            wrapper,
            std::mem::replace(&mut before, after.clone()),
            after,
        );
    }
    if let Some((_, last)) = hops.pop() {
        *p = last;
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

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// `decode-unreserved` (docs/policies.md#webkey1--comparison-key-v1-seed-001, rule 6): unreserved escapes decoded, other escapes' hex
/// uppercased.
fn decode_unreserved(path: &str) -> Option<String> {
    let b = path.as_bytes();
    let mut changed = false;
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                let v = h << 4 | l;
                if is_unreserved(v)
                    || b[i + 1].is_ascii_lowercase()
                    || b[i + 2].is_ascii_lowercase()
                {
                    changed = true;
                    break;
                }
            }
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    let mut out = scratch::string(path.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                let v = h << 4 | l;
                if is_unreserved(v) {
                    out.push(v as char);
                } else {
                    out.push('%');
                    out.push(b[i + 1].to_ascii_uppercase() as char);
                    out.push(b[i + 2].to_ascii_uppercase() as char);
                }
                i += 3;
                continue;
            }
        }
        // Copy one whole character (the path may hold non-ASCII text as written).
        let ch_len = utf8_len(b[i]);
        out.push_str(&path[i..i + ch_len]);
        i += ch_len;
    }
    Some(out)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// ASCII letters lowercased, except the hex digits of `%XX` escapes (which
/// `decode-unreserved` uppercases).
fn lowercase_outside_escapes(path: &str) -> Option<String> {
    let b = path.as_bytes();
    let mut needs = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() {
            i += 3;
            continue;
        }
        if b[i].is_ascii_uppercase() {
            needs = true;
            break;
        }
        i += 1;
    }
    if !needs {
        return None;
    }
    let mut out = scratch::string(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() {
            out.push_str(&path[i..i + 3]);
            i += 3;
            continue;
        }
        // Only ASCII letters change: a non-ASCII character is copied whole.
        let ch_len = utf8_len(b[i]);
        let ch = &path[i..i + ch_len];
        if ch_len == 1 {
            out.push(b[i].to_ascii_lowercase() as char);
        } else {
            out.push_str(ch);
        }
        i += ch_len;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_catalogue_name_reads_as_the_rule_of_that_name() {
        let names = super::Rule::names();
        assert!(names.len() >= 19, "{names:?}");
        for name in names {
            let table: toml::Table = toml::from_str(&format!("rule = {name:?}")).unwrap();
            let rule: super::Rule =
                serde::Deserialize::deserialize(toml::Value::Table(table)).unwrap();
            assert_eq!(rule.name(), *name);
        }
    }

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
    fn double_slash_word_test_equals_the_byte_test() {
        // `\xaf` differs from `/` in its high bit only: the per-byte test must be exact.
        let alphabet = [b'/', b'a', 0xaf];
        let mut checked = 0;
        for len in 0..=10u32 {
            for mut n in 0..3usize.pow(len) {
                let mut b = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    b.push(alphabet[n % 3]);
                    n /= 3;
                }
                let want = b.windows(2).any(|w| w == b"//");
                assert_eq!(has_double_slash(&b), want, "{b:?}");
                checked += 1;
            }
        }
        assert!(checked > 80_000);
        for len in 0..40 {
            for at in 0..len {
                let mut b = vec![b'a'; len];
                b[at] = b'/';
                assert!(!has_double_slash(&b));
                if at + 1 < len {
                    b[at + 1] = b'/';
                    assert!(has_double_slash(&b), "{len} {at}");
                }
            }
        }
    }

    /// [`Rule::needs`] is a necessary condition: a rule whose needs the parts lack
    /// changes neither the parts nor the log.
    #[test]
    fn a_rule_whose_needs_are_absent_changes_nothing() {
        let rules = [
            Rule::RemoveTrackingParameters(TrackingSet::citation_v1()),
            Rule::RemoveTrackingParameters(TrackingSet::registry_v1()),
            Rule::RemoveFragment { keep_routes: false },
            Rule::RemoveFragment { keep_routes: true },
            Rule::DropCredentials,
            Rule::CollapseSlashes,
            Rule::SortQuery(SortOrder::NameValue),
            Rule::SortQuery(SortOrder::Ordinal),
            Rule::DropEmptyParameters,
            Rule::DropEmptyQuery,
            Rule::RemoveTrailingSlash(TrailingSlash::NonRoot),
            Rule::RemoveTrailingSlash(TrailingSlash::All),
            Rule::UnwrapRedirect,
        ];
        let paths = [
            "", "/", "//", "/a", "/a/", "/a//b", "//a", "/a/b/", "a", "a//",
        ];
        let mut skipped = 0;
        for path in paths {
            for opaque_path in [false, true] {
                for (query, fragment) in [(None, None), (Some("a=1&&b="), Some("x"))] {
                    for userinfo in ["", "u:p"] {
                        let p = Parts {
                            scheme: Cow::Borrowed("https"),
                            userinfo: Cow::Borrowed(userinfo),
                            host: (!opaque_path).then_some(Cow::Borrowed("example.com")),
                            host_kind: HostKind::Domain,
                            port: Cow::Borrowed(""),
                            path: Cow::Borrowed(path),
                            query: query.map(Cow::Borrowed),
                            fragment: fragment.map(Cow::Borrowed),
                            opaque_path,
                            path_only: false,
                        };
                        for rule in &rules {
                            let needs = rule.needs();
                            if present(&p, needs) & needs != 0 {
                                continue;
                            }
                            skipped += 1;
                            let mut after = p.clone();
                            let mut log = Log {
                                quiet: true,
                                ..Log::default()
                            };
                            rule.apply(&mut after, &mut log, None);
                            assert_eq!(format!("{after:?}"), format!("{p:?}"), "{rule:?}");
                            assert_eq!(log.changes, 0, "{rule:?} {p:?}");
                            assert!(!log.fragment_removed && !log.unwrapped);
                        }
                    }
                }
            }
        }
        assert!(skipped > 200, "{skipped}");
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

    #[test]
    fn empty_pieces_are_found_as_split_finds_them() {
        for q in [
            "", "&", "&&", "a", "a&", "&a", "a&&b", "a&b", "a=&b=", "=&=", "a&b&", "ab&&",
        ] {
            let want = q.split('&').any(str::is_empty) && !q.is_empty();
            assert_eq!(has_empty_piece(q), want, "{q:?}");
        }
    }

    #[test]
    fn decoding_and_lowercasing_paths() {
        assert_eq!(decode_unreserved("/%41%2f%7e"), Some("/A%2F~".into()));
        assert_eq!(decode_unreserved("/a%2Fb"), None);
        assert_eq!(decode_unreserved("/é%41"), Some("/éA".into()));
        assert_eq!(lowercase_outside_escapes("/A%2Fb"), Some("/a%2Fb".into()));
        assert_eq!(lowercase_outside_escapes("/a%2F"), None);
    }
}

//! What a policy reports for one observation.

use std::sync::Arc;

use crate::error::KeyError;
use crate::psl::PublicSuffixList;

/// A part of a URL that a transformation changed.
///
/// ```
/// let o = urlkey::PolicySet::builtin().get("citation@1").unwrap().key("https://example.net/a#top");
/// let t = &o.transformations[0];
/// assert_eq!(t.component, urlkey::Component::Fragment);
/// assert_eq!(t.component.as_str(), "fragment");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Component {
    /// The scheme.
    Scheme,
    /// Username and password.
    Userinfo,
    /// The host.
    Host,
    /// The port.
    Port,
    /// The path.
    Path,
    /// The query, written with its `?`.
    Query,
    /// The fragment, written with its `#`.
    Fragment,
    /// The whole URL (`unwrap-redirect` replaces a wrapper by its target).
    Url,
}

impl Component {
    /// The component's name as it appears in records.
    ///
    /// ```
    /// assert_eq!(urlkey::Component::Query.as_str(), "query");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Component::Scheme => "scheme",
            Component::Userinfo => "userinfo",
            Component::Host => "host",
            Component::Port => "port",
            Component::Path => "path",
            Component::Query => "query",
            Component::Fragment => "fragment",
            Component::Url => "url",
        }
    }
}

/// One change a rule made, named as `docs/policies.md` names the rule. `before` and
/// `after` are the component's text (query and fragment with their delimiter), and are
/// never equal.
///
/// ```
/// let o = urlkey::PolicySet::builtin().get("citation@1").unwrap().key("https://example.net/a/?b=2&a=1");
/// let t: Vec<(&str, &str, &str)> = o
///     .transformations
///     .iter()
///     .map(|t| (t.rule, t.before.as_str(), t.after.as_str()))
///     .collect();
/// assert_eq!(t, [("sort-query", "?b=2&a=1", "?a=1&b=2"), ("remove-trailing-slash", "/a/", "/a")]);
/// assert_eq!(o.transformations[0].wrapper, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Transformation {
    /// The rule's name.
    pub rule: &'static str,
    /// The component it changed.
    pub component: Component,
    /// The component before.
    pub before: String,
    /// The component after.
    pub after: String,
    /// The redirect wrapper an `unwrap-redirect` step removed (`facebook-link-shim`,
    /// `urlkey::internals::unwrap::WRAPPERS`); absent for every other rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<&'static str>,
}

/// Something found about an address. Facts never change the value.
///
/// ```
/// use urlkey::Fact;
/// let o = urlkey::PolicySet::builtin().get("webkey@1").unwrap().key("example.net/a?utm_source=x");
/// assert_eq!(o.facts, [Fact::SchemeAssumed, Fact::TrackingParametersRemoved]);
/// assert_eq!(Fact::SchemeAssumed.as_str(), "scheme-assumed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fact {
    /// No scheme was written; `https` was assumed.
    SchemeAssumed,
    /// The host is an IPv4 or IPv6 address.
    IpHost,
    /// Some label of the host is an `xn--` label.
    InternationalizedDomain,
    /// The scheme is not http or https.
    NonWebScheme,
    /// The URL carries a username or password.
    HasCredentials,
    /// Tracking parameters were removed.
    TrackingParametersRemoved,
    /// The fragment was removed.
    FragmentRemoved,
    /// A redirect wrapper was kept: its target is not an absolute http(s) URL, or the
    /// wrappers are nested more deeply than `unwrap-redirect` unwraps.
    RedirectWrapperKept,
}

impl Fact {
    /// The kebab-case name.
    ///
    /// ```
    /// assert_eq!(urlkey::Fact::IpHost.as_str(), "ip-host");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Fact::SchemeAssumed => "scheme-assumed",
            Fact::IpHost => "ip-host",
            Fact::InternationalizedDomain => "internationalized-domain",
            Fact::NonWebScheme => "non-web-scheme",
            Fact::HasCredentials => "has-credentials",
            Fact::TrackingParametersRemoved => "tracking-parameters-removed",
            Fact::FragmentRemoved => "fragment-removed",
            Fact::RedirectWrapperKept => "redirect-wrapper-kept",
        }
    }
}

/// Whether the observation produced a key.
///
/// ```
/// use urlkey::Status;
/// let citation = urlkey::PolicySet::builtin().get("citation@1").unwrap();
/// assert_eq!(citation.key("https://example.net/").status(), Status::Ok);
/// assert_eq!(citation.key("mailto:a@example.net").status(), Status::Invalid);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// A key was produced.
    Ok,
    /// The input was refused; see the error.
    Invalid,
}

/// The result of running a policy on one observation.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let o = set.get("mapper@1").unwrap().key("https://Example.net/p?utm_source=x&id=7#top");
/// assert!(o.is_valid());
/// assert_eq!(o.key.as_deref(), Some("https://example.net/p?id=7"));
/// assert_eq!(o.canonical.as_deref(), Some("https://example.net/p?id=7"));
/// assert_eq!(o.removed_params, ["utm_source"]);
/// assert_eq!(o.host.as_deref(), Some("example.net"));
/// assert_eq!(o.rule_names(), ["whatwg-parse", "remove-tracking-parameters", "remove-fragment"]);
///
/// let bad = urlkey::Outcome::invalid(urlkey::KeyError::new(urlkey::ErrorCode::InputTooLong, "long"));
/// assert!(!bad.is_valid() && bad.key.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Outcome {
    /// The comparison key; `None` when invalid.
    pub key: Option<String>,
    /// The canonical form (the parse and the policy's removals); `None` when invalid.
    pub canonical: Option<String>,
    /// Why there is no key.
    pub error: Option<KeyError>,
    /// Every change, in the order the rules ran.
    pub transformations: Vec<Transformation>,
    /// Names of the tracking parameters removed, as written, in query order.
    pub removed_params: Vec<String>,
    /// What was found, sorted.
    pub facts: Vec<Fact>,
    /// The Public Suffix List version, when the policy used the list.
    pub psl: Option<Arc<str>>,
    /// The key's host name (for publisher counts); `None` when invalid or hostless.
    pub host: Option<String>,
    /// The grouping signature: host, path and the sorted distinct parameter names.
    pub signature: Option<String>,
}

impl Outcome {
    /// An invalid outcome.
    ///
    /// ```
    /// use urlkey::{ErrorCode, KeyError, Outcome, Status};
    /// let o = Outcome::invalid(KeyError::new(ErrorCode::InputInvalidUtf8, "byte 3"));
    /// assert_eq!(o.status(), Status::Invalid);
    /// assert_eq!((o.key, o.canonical), (None, None));
    /// ```
    pub fn invalid(error: KeyError) -> Self {
        Outcome {
            error: Some(error),
            ..Outcome::default()
        }
    }

    /// True when a key was produced.
    ///
    /// ```
    /// let p = urlkey::PolicySet::builtin().get("document@1").unwrap();
    /// assert!(p.key("https://example.net/").is_valid());
    /// assert!(!p.key("https://example.net/a b").is_valid());
    /// ```
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// `ok` or `invalid`.
    ///
    /// ```
    /// let p = urlkey::PolicySet::builtin().get("document@1").unwrap();
    /// assert_eq!(p.key("https://example.net/").status(), urlkey::Status::Ok);
    /// ```
    pub fn status(&self) -> Status {
        if self.is_valid() {
            Status::Ok
        } else {
            Status::Invalid
        }
    }

    /// The registrable domain of the key's host under `psl` (the publisher a key belongs
    /// to, after any unwrap): `None` when there is no key or no host, when the host is not
    /// a domain (an IP address, or the opaque host of a URL whose scheme is not special,
    /// <https://url.spec.whatwg.org/#special-scheme>: `foo://EXAMPLE.com/`), and when the
    /// host is a public suffix itself. A final `.` of the host is not part of it. The same
    /// answer as [`crate::inspect()`]'s `registrable_domain` of the key; the Polars plugin's
    /// and the DuckDB extension's `registrable_domain`.
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// let o = set.get("citation@1").unwrap().key("https://www.bbc.co.uk/news/?utm_source=x");
    /// assert_eq!(o.registrable_domain(set.psl()), Some("bbc.co.uk"));
    /// let ip = set.get("citation@1").unwrap().key("http://127.0.0.1/x");
    /// assert_eq!(ip.registrable_domain(set.psl()), None);
    /// ```
    pub fn registrable_domain<'a>(&'a self, psl: &PublicSuffixList) -> Option<&'a str> {
        let host = self.host.as_deref()?.trim_end_matches('.');
        // Only a special scheme's host is a domain; the canonical form starts with it.
        let scheme = crate::text::leading_scheme(self.canonical.as_deref()?)?;
        if !crate::text::is_special_scheme(scheme) {
            return None;
        }
        if host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok() {
            return None;
        }
        psl.registrable_domain(host)
    }

    /// The names of the rules that changed something, in order, without repeats.
    ///
    /// ```
    /// let p = urlkey::PolicySet::builtin().get("citation@1").unwrap();
    /// let o = p.key("https://example.net/a/?utm_source=x&utm_medium=y");
    /// assert_eq!(o.rule_names(), ["remove-tracking-parameters", "remove-trailing-slash"]);
    /// assert_eq!(o.transformations.len(), 2);
    /// ```
    pub fn rule_names(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for t in &self.transformations {
            if !out.contains(&t.rule) {
                out.push(t.rule);
            }
        }
        out
    }
}

#[cfg(test)]
mod registrable_tests {
    use crate::PolicySet;

    #[test]
    fn registrable_domain_of_the_key_host() {
        let set = PolicySet::builtin();
        let citation = set.get("citation@1").unwrap();
        let of = |url: &str| {
            let o = citation.key(url);
            o.registrable_domain(set.psl()).map(str::to_string)
        };
        assert_eq!(
            of("https://a.b.example.com./x").as_deref(),
            Some("example.com")
        );
        assert_eq!(of("https://[::1]/x"), None);
        assert_eq!(of("https://192.168.0.1/x"), None);
        assert_eq!(of("https://co.uk/x"), None);
        assert_eq!(of("javascript:alert(1)"), None);
        let whatwg = set.get("whatwg@1").unwrap();
        let opaque = whatwg.key("foo://www.example.com/x");
        assert_eq!(opaque.host.as_deref(), Some("www.example.com"));
        assert_eq!(opaque.registrable_domain(set.psl()), None);
        let file = whatwg.key("file://host.example.com/x");
        assert_eq!(file.registrable_domain(set.psl()), Some("example.com"));
        // After the unwrap: the destination's publisher, not the wrapper's.
        let clean = set.get("clean@1").unwrap();
        let o = clean.key("https://www.google.com/url?q=https://news.example.org/a&sa=D");
        assert_eq!(o.registrable_domain(set.psl()), Some("example.org"));
    }
}

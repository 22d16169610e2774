//! What a policy reports for one observation.

use std::sync::Arc;

use crate::error::KeyError;

/// A part of a URL that a transformation changed.
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
    /// `urlkey::unwrap::WRAPPERS`); absent for every other rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<&'static str>,
}

/// Something found about an address. Facts never change the value.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// A key was produced.
    Ok,
    /// The input was refused; see the error.
    Invalid,
}

/// The result of running a policy on one observation.
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
    pub fn invalid(error: KeyError) -> Self {
        Outcome {
            error: Some(error),
            ..Outcome::default()
        }
    }

    /// True when a key was produced.
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// `ok` or `invalid`.
    pub fn status(&self) -> Status {
        if self.is_valid() {
            Status::Ok
        } else {
            Status::Invalid
        }
    }

    /// The names of the rules that changed something, in order, without repeats.
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

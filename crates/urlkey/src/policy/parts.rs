//! The components a policy works on. They borrow from the parsed URL and are copied
//! only when a rule changes them, so a URL that no rule touches costs no allocation here.

use std::borrow::Cow;

use crate::outcome::{Component, Transformation};
use crate::web::HostKind;

/// A URL split into the components the rules read and rewrite.
#[derive(Debug, Clone)]
pub struct Parts<'a> {
    /// Scheme, lowercase, without `:`. Empty for path-only input.
    pub scheme: Cow<'a, str>,
    /// `username[:password]`, empty when there are none.
    pub userinfo: Cow<'a, str>,
    /// The host; `None` when there is no authority.
    pub host: Option<Cow<'a, str>>,
    /// What kind of host.
    pub host_kind: HostKind,
    /// The port, empty when absent or the scheme's default.
    pub port: Cow<'a, str>,
    /// The path (an opaque path for `mailto:` and the like).
    pub path: Cow<'a, str>,
    /// The query without `?`; `None` when there is no `?`.
    pub query: Option<Cow<'a, str>>,
    /// The fragment without `#`; `None` when there is no `#`.
    pub fragment: Option<Cow<'a, str>>,
    /// True for an opaque path (no host, path not starting with `/`).
    pub opaque_path: bool,
    /// True for `mapper@1`'s path-only input, reported without an origin.
    pub path_only: bool,
}

impl Parts<'_> {
    /// The component's text as transformations report it (query and fragment with
    /// their delimiter).
    pub fn component_text(&self, c: Component) -> String {
        match c {
            Component::Scheme => self.scheme.to_string(),
            Component::Userinfo => self.userinfo.to_string(),
            Component::Host => self.host.as_deref().unwrap_or("").to_string(),
            Component::Port => self.port.to_string(),
            Component::Path => self.path.to_string(),
            Component::Query => self
                .query
                .as_deref()
                .map_or(String::new(), |q| format!("?{q}")),
            Component::Fragment => self
                .fragment
                .as_deref()
                .map_or(String::new(), |f| format!("#{f}")),
            Component::Url => {
                let mut s = String::new();
                self.write_url(&mut s, true, true);
                s
            }
        }
    }

    /// Hands the buffers of the components a rule rewrote back to the thread's spares
    /// (`crate::scratch`): the lean key path's last step, once the key is written, and
    /// only when a rule changed something (else every component is the parse's).
    pub(crate) fn recycle(&mut self) {
        use crate::scratch::give;
        use std::mem::take;
        for c in [
            &mut self.scheme,
            &mut self.userinfo,
            &mut self.port,
            &mut self.path,
        ] {
            if let Cow::Owned(s) = c {
                give(take(s));
            }
        }
        for c in [&mut self.host, &mut self.query, &mut self.fragment] {
            if let Some(Cow::Owned(s)) = c {
                give(take(s));
            }
        }
    }

    /// The same parts, owning their text: a rule that replaces the whole URL
    /// (`unwrap-redirect`) builds them from a URL it parsed itself.
    pub fn into_owned<'b>(self) -> Parts<'b> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        Parts {
            scheme: own(self.scheme),
            userinfo: own(self.userinfo),
            host: self.host.map(own),
            host_kind: self.host_kind,
            port: own(self.port),
            path: own(self.path),
            query: self.query.map(own),
            fragment: self.fragment.map(own),
            opaque_path: self.opaque_path,
            path_only: self.path_only,
        }
    }

    /// Writes the URL form: `scheme:[//[userinfo@]host[:port]]path[?query][#fragment]`,
    /// or `path[?query][#fragment]` for path-only input; a hostless path that starts
    /// with `//` is written `/.//...`.
    pub fn write_url(&self, out: &mut String, with_userinfo: bool, with_fragment: bool) {
        if !self.path_only {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if let Some(host) = &self.host {
            out.push_str("//");
            if with_userinfo && !self.userinfo.is_empty() {
                out.push_str(&self.userinfo);
                out.push('@');
            }
            out.push_str(host);
            if !self.port.is_empty() {
                out.push(':');
                out.push_str(&self.port);
            }
        } else if !self.opaque_path && self.path.starts_with("//") {
            // https://url.spec.whatwg.org/#concept-url-serializer step 3: a hostless path
            // starting with "//" gets "/."
            // so that it does not reparse as an authority. Path-only text too: `//x`
            // would read as scheme-relative, `/.//x` parses back to the path `//x`.
            out.push_str("/.");
        }
        out.push_str(&self.path);
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        if with_fragment {
            if let Some(f) = &self.fragment {
                out.push('#');
                out.push_str(f);
            }
        }
    }
}

/// Collects what rules do. Transformations are recorded only for real changes.
///
/// A `quiet` log (the lean key path, [`Policy::key_into`](super::Policy::key_into))
/// describes nothing: it counts the changes, so the rules copy no `before`/`after` text.
#[derive(Debug, Default)]
pub struct Log {
    /// The changes, in order (empty when `quiet`).
    pub transformations: Vec<Transformation>,
    /// Tracking parameter names removed (empty when `quiet`).
    pub removed_params: Vec<String>,
    /// A fragment was removed.
    pub fragment_removed: bool,
    /// The scheme was assumed.
    pub scheme_assumed: bool,
    /// The policy used the Public Suffix List.
    pub used_psl: bool,
    /// Count changes instead of describing them.
    pub quiet: bool,
    /// `unwrap-redirect` replaced the URL: facts about the host are taken again.
    pub unwrapped: bool,
    /// `unwrap-redirect` kept a wrapper (fact `redirect-wrapper-kept`).
    pub wrapper_kept: bool,
    /// Changes made while `quiet`.
    pub changes: u32,
    /// Keep `removed_params` even when `quiet` ([`PolicyInternals::key_row_into`](crate::internals::PolicyInternals::key_row_into)).
    pub keep_removed: bool,
}

impl Log {
    /// Records a change of `c` by `rule` from `before` to `after`, if they differ.
    pub fn record(&mut self, rule: &'static str, c: Component, before: String, after: String) {
        if before == after {
            return;
        }
        if self.quiet {
            self.changes += 1;
        } else {
            self.transformations.push(Transformation {
                rule,
                component: c,
                before,
                after,
                wrapper: None,
            });
        }
    }

    /// Records that `unwrap-redirect` replaced the wrapper `wrapper` (the URL `before`)
    /// by its target `after`: one transformation per wrapper, named for it.
    pub fn record_unwrap(&mut self, wrapper: &'static str, before: String, after: String) {
        self.unwrapped = true;
        if self.quiet {
            self.changes += 1;
            return;
        }
        self.transformations.push(Transformation {
            rule: "unwrap-redirect",
            component: Component::Url,
            before,
            after,
            wrapper: Some(wrapper),
        });
    }

    /// Like [`Log::record`], copying the text only when the log describes changes. The
    /// quiet count is inlined into the rules; the copies are not.
    #[inline]
    pub fn change(&mut self, rule: &'static str, c: Component, before: &str, after: &str) {
        if self.quiet {
            self.changes += u32::from(before != after);
        } else {
            self.describe_change(rule, c, before, after);
        }
    }

    #[inline(never)]
    fn describe_change(&mut self, rule: &'static str, c: Component, before: &str, after: &str) {
        if before != after {
            self.record(rule, c, before.to_string(), after.to_string());
        }
    }

    /// True when a rule changed something (the canonical form must then be rewritten).
    pub fn changed_by_rules(&self) -> bool {
        self.changes > 0
            || self
                .transformations
                .iter()
                .any(|t| t.rule != "assume-https")
    }
}

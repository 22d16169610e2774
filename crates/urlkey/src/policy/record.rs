//! What a record says besides the key: the parser's own changes (`whatwg-parse`), the
//! facts found before any rule ran, and messages for an assumed scheme.

use std::borrow::Cow;

use super::parts::{Log, Parts};
use crate::error::{ErrorCode, KeyError};
use crate::outcome::{Component, Fact};
use crate::text;
use crate::web::HostKind;

/// A parse failure of text that had `https://` put in front: the message says so, since
/// the host or port it names may be text the writer meant otherwise.
pub(super) fn explain_assumed_scheme(mut e: KeyError) -> KeyError {
    const WHY: &str = "https was assumed because no scheme was written";
    e.message = match e.code {
        ErrorCode::WebHostMissing => format!("no host: {WHY}"),
        _ => format!("{} ({WHY})", e.message),
    };
    e
}

/// Records what the URL Standard's parser changed, component by component (`whatwg-parse`):
/// case, IDNA, default ports, dot segments, percent-encoding. Text that the serializer
/// reproduces exactly costs one comparison.
pub(super) fn record_parse_changes(
    text: &str,
    scheme_written: bool,
    href: &str,
    parts: &Parts<'_>,
    log: &mut Log,
) {
    if text == href {
        return;
    }
    let off = crate::offsets::offsets(text, scheme_written);
    // Most components come through unchanged: compare borrowed text, allocate only for a change.
    // Tabs and newlines inside a component are shown as written, so their removal by the
    // parser is recorded too.
    let piece = |span: Option<crate::offsets::ComponentSpan>| -> Option<Cow<'_, str>> {
        span.map(|c| Cow::Borrowed(&text[c.bytes.start..c.bytes.end]))
    };
    const RULE: &str = "whatwg-parse";
    let mut note = |c: Component, before: Option<Cow<'_, str>>, after: &str| {
        if let Some(b) = before {
            if b != after {
                log.record(RULE, c, b.into_owned(), after.to_string());
            }
        }
    };
    note(Component::Scheme, piece(off.scheme), &parts.scheme);
    note(Component::Userinfo, piece(off.userinfo), &parts.userinfo);
    if let Some(ph) = parts.host.as_deref() {
        note(Component::Host, piece(off.host), ph);
    }
    note(Component::Port, piece(off.port), &parts.port);
    note(Component::Path, piece(off.path), &parts.path);
    let query_in = piece(off.query);
    let query_out = parts.query.as_deref();
    if query_in.as_deref() != query_out {
        let before = query_in.map_or(String::new(), |q| format!("?{q}"));
        log.record(
            RULE,
            Component::Query,
            before,
            parts.component_text(Component::Query),
        );
    }
    let frag_in = piece(off.fragment);
    if frag_in.as_deref() != parts.fragment.as_deref() {
        let before = frag_in.map_or(String::new(), |f| format!("#{f}"));
        log.record(
            RULE,
            Component::Fragment,
            before,
            parts.component_text(Component::Fragment),
        );
    }
}

pub(super) fn initial_facts(p: &Parts<'_>) -> Vec<Fact> {
    let mut facts = Vec::new();
    if matches!(p.host_kind, HostKind::Ipv4 | HostKind::Ipv6) {
        facts.push(Fact::IpHost);
    }
    if p.host_kind == HostKind::Domain {
        if let Some(h) = &p.host {
            if h.split('.')
                .any(|l| l.len() >= 4 && l[..4].eq_ignore_ascii_case("xn--"))
            {
                facts.push(Fact::InternationalizedDomain);
            }
        }
    }
    if !p.path_only && !text::is_web_scheme(&p.scheme) {
        facts.push(Fact::NonWebScheme);
    }
    if !p.userinfo.is_empty() {
        facts.push(Fact::HasCredentials);
    }
    facts
}

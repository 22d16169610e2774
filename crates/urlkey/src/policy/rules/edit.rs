//! How a rule rewrites a component: the new text replaces the old, the change is recorded
//! under the rule's name, and the old buffer goes back to the thread's spares
//! ([`crate::scratch`]). Shared by every rule of the catalogue.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::scratch;

/// A slice of a component, borrowed when the component is. The borrowed case (nearly
/// every call) is inlined; copying an owned one is not.
#[inline]
pub(super) fn cut<'a>(s: &Cow<'a, str>, range: std::ops::Range<usize>) -> Cow<'a, str> {
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

pub(super) fn replace<'a>(
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
pub(super) fn replace_host<'a>(
    p: &mut Parts<'a>,
    new: Cow<'a, str>,
    rule: &'static str,
    log: &mut Log,
) {
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

pub(super) fn replace_query<'a>(
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

//! The content check of a key's variants: their verifications compared, by status and by
//! what [`super::content`] kept of each page.

use super::content::{distance, Content, SIMILAR_MAX_DISTANCE};
use super::fetch::{Status, Verification};

/// The content check of a key's variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentCheck {
    /// Every variant's visible text is equal (for non-HTML: equal bytes).
    Same,
    /// Visible texts differ, but every fingerprint is within [`SIMILAR_MAX_DISTANCE`] bits
    /// of the first variant's.
    Similar,
    /// Some variant differs more, is of another kind (HTML beside non-HTML), or got
    /// another HTTP status.
    Different,
    /// Some variant got a response but no finding (its verification is `unresolved`: a
    /// 403, 429 or 503, a challenge page, a redirect loop).
    Unresolved,
    /// The key has one distinct observed URL, and its page was read: nothing to compare.
    Single,
    /// A page was not read, so nothing was compared: a variant's fetch was refused (the
    /// network scope or the scheme, at the observed URL or at a redirect) or failed
    /// (timeout, DNS, connection, TLS); or no variant got a 2xx page (the one URL of a
    /// single-URL key got an HTTP error or a redirect loop, or every variant got the same
    /// HTTP error). The detail names the variant and its verification reason.
    NotFetched,
    /// Some risky rule that merged the key was not compared (the variant limit left its
    /// spellings out, or their fetch gave no finding: refused, timed out, unresolved), so
    /// the merge is not confirmed whatever the other spellings gave. Set by
    /// [`super::key_check`], never by [`compare`]; the detail names what was not compared.
    Partial,
}

impl ContentCheck {
    /// As stored and exported.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentCheck::Same => "same",
            ContentCheck::Similar => "similar",
            ContentCheck::Different => "different",
            ContentCheck::Unresolved => "unresolved",
            ContentCheck::Single => "single",
            ContentCheck::NotFetched => "not-fetched",
            ContentCheck::Partial => "partial",
        }
    }
}

/// Compares the variants' verifications (the first is the reference); returns the check
/// and a line saying why.
pub fn compare(vs: &[Verification]) -> (ContentCheck, String) {
    if vs.len() <= 1 {
        return match vs.first() {
            Some(v) if v.content.is_none() => (ContentCheck::NotFetched, not_fetched(0, v)),
            _ => (ContentCheck::Single, "one distinct observed URL".into()),
        };
    }
    // A variant whose fetch was refused or failed gave nothing to compare, whatever the
    // others gave.
    if let Some((i, v)) = vs.iter().enumerate().find(|(_, v)| fetch_failed(v)) {
        return (ContentCheck::NotFetched, not_fetched(i, v));
    }
    if let Some((i, v)) = vs
        .iter()
        .enumerate()
        .find(|(_, v)| v.status == Status::Unresolved)
    {
        return (
            ContentCheck::Unresolved,
            format!(
                "variant {i} ({}) is unresolved: {}",
                v.requested_url, v.reason
            ),
        );
    }
    let first = &vs[0];
    for (i, v) in vs.iter().enumerate().skip(1) {
        if v.final_http_status != first.final_http_status {
            return (
                ContentCheck::Different,
                format!(
                    "variant {i} got HTTP {}, variant 0 HTTP {}",
                    opt(v.final_http_status),
                    opt(first.final_http_status)
                ),
            );
        }
    }
    let Some(contents) = vs
        .iter()
        .map(|v| v.content.as_ref())
        .collect::<Option<Vec<&Content>>>()
    else {
        // Every variant got the same status, so either all have content or none has.
        return (
            ContentCheck::NotFetched,
            format!(
                "no page was read: HTTP {} for every variant ({})",
                opt(first.final_http_status),
                first.reason
            ),
        );
    };
    let c0 = contents[0];
    let mut check = ContentCheck::Same;
    let mut worst = 0;
    for (i, c) in contents.iter().enumerate().skip(1) {
        match (&c0.text_sha256, &c.text_sha256, c0.simhash, c.simhash) {
            (Some(a), Some(b), _, _) if a == b => {}
            (Some(_), Some(_), Some(x), Some(y)) => {
                let d = distance(x, y);
                worst = worst.max(d);
                if d > SIMILAR_MAX_DISTANCE {
                    return (
                        ContentCheck::Different,
                        format!(
                            "variant {i}'s visible text is {d} bits from variant 0's \
                             (similar is at most {SIMILAR_MAX_DISTANCE})"
                        ),
                    );
                }
                check = ContentCheck::Similar;
            }
            (None, None, _, _) if c0.sha256 == c.sha256 => {}
            (None, None, _, _) => {
                return (
                    ContentCheck::Different,
                    format!("variant {i}'s body differs from variant 0's (not HTML)"),
                )
            }
            _ => {
                return (
                    ContentCheck::Different,
                    format!("variant {i} and variant 0 are not both HTML"),
                )
            }
        }
    }
    let why = match check {
        ContentCheck::Similar => format!(
            "visible texts differ; fingerprints within {worst} bits (similar is at most \
             {SIMILAR_MAX_DISTANCE})"
        ),
        _ => format!("{} variants with equal content", vs.len()),
    };
    (check, why)
}

/// True when the fetch ended without a response to its last request: refused by the
/// guard (at the observed URL or at a redirect), or failed (timeout, DNS, connection,
/// TLS).
fn fetch_failed(v: &Verification) -> bool {
    v.hops.last().is_none_or(|h| h.outcome != "response")
}

/// The verification reason of the fetch that [`compare`] found `not-fetched` (the
/// first variant whose fetch was refused or failed, else the first variant), in one token.
pub fn not_fetched_reason(vs: &[Verification]) -> &str {
    vs.iter()
        .find(|v| fetch_failed(v))
        .or(vs.first())
        .map_or("", |v| v.reason.as_str())
}

/// Why variant `i`'s page was not read: its verification reason (`refused-private-address`,
/// `timeout`, `http-404`, ...) and detail.
fn not_fetched(i: usize, v: &Verification) -> String {
    let mut why = format!(
        "variant {i} ({}) was not fetched: {}",
        v.requested_url, v.reason
    );
    if let Some(d) = &v.detail {
        why.push_str(&format!(" ({d})"));
    }
    why
}

fn opt(s: Option<u16>) -> String {
    s.map(|s| s.to_string()).unwrap_or_else(|| "-".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::content::analyse;

    fn fetched(url: &str, status: Option<u16>, body: Option<&[u8]>, reason: &str) -> Verification {
        let outcome = if status.is_some() {
            "response"
        } else {
            "refused"
        };
        Verification {
            status: match status {
                Some(200..=299) => Status::Verified,
                Some(404) => Status::NotFound,
                Some(_) => Status::Error,
                None => Status::Unresolved,
            },
            reason: reason.to_string(),
            detail: status.is_none().then(|| format!("{reason} detail")),
            final_url: status.map(|_| url.to_string()),
            final_http_status: status,
            hops: vec![super::super::fetch::Hop {
                url: url.to_string(),
                outcome,
                http_status: status,
                ..Default::default()
            }],
            content: body.map(|b| analyse(b, Some("text/html"))),
            ..Verification::begun(url.to_string(), String::new())
        }
    }

    #[test]
    fn a_page_not_read_is_not_fetched_never_single() {
        let page: &[u8] = b"<title>t</title><p>one two three four</p>";
        let ok = fetched("http://a.test/", Some(200), Some(page), "ok");
        assert_eq!(compare(std::slice::from_ref(&ok)).0, ContentCheck::Single);
        for (status, reason) in [
            (None, "refused-private-address"),
            (None, "unsupported-scheme"),
            (None, "timeout"),
            (None, "connect"),
            (None, "tls"),
            (None, "dns"),
            (Some(404), "http-404"),
            (Some(500), "http-500"),
            (Some(403), "http-403"),
        ] {
            let v = fetched("http://a.test/", status, None, reason);
            let vs = std::slice::from_ref(&v);
            let (check, detail) = compare(vs);
            assert_eq!(check, ContentCheck::NotFetched, "{reason}");
            assert_eq!(check.as_str(), "not-fetched");
            assert!(detail.contains(reason), "{detail}");
            assert!(detail.contains("http://a.test/"), "{detail}");
            assert_eq!(not_fetched_reason(vs), reason);
            // With a second variant whose page was read, a failed fetch still compares
            // nothing; an HTTP error beside a 2xx is a difference the statuses show.
            let two = [ok.clone(), v.clone()];
            let (check, detail) = compare(&two);
            if status.is_none() {
                assert_eq!(check, ContentCheck::NotFetched, "{reason}: {detail}");
                assert!(detail.starts_with("variant 1 "), "{detail}");
                assert_eq!(not_fetched_reason(&two), reason);
            } else {
                assert_eq!(check, ContentCheck::Different, "{reason}: {detail}");
            }
        }
        // The same HTTP error for every variant: no page to compare.
        let gone = fetched("http://a.test/x", Some(404), None, "http-404");
        let (check, detail) = compare(&[gone.clone(), gone]);
        assert_eq!(check, ContentCheck::NotFetched);
        assert!(detail.contains("HTTP 404 for every variant"), "{detail}");
    }
}

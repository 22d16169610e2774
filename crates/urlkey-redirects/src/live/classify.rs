//! A row's result from its chain: how the live site answered the source, against what the
//! row asks (its target, in one hop, with its status).

use url::Url;
use urlkey_fetch::{Hop, Outcome, Stop};

use super::urls::same_url;

/// What happened to a row, in one stable word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LiveResult {
    /// The first response is the row's status with a Location that is its target.
    Pass,
    /// The first response redirects to the target, with another status.
    WrongStatus,
    /// The first response redirects elsewhere, and the chain never reaches the target.
    WrongTarget,
    /// The chain reaches the target in more than one hop.
    Chain,
    /// The source answers 2xx: no redirect.
    NoRedirect,
    /// The source answers 404 or 410.
    NotFound,
    /// Any other answer at the source (4xx, 5xx, a 3xx without a Location), or a row
    /// whose source or target is no URL.
    Error,
    /// The chain comes back to a URL it requested, without reaching the target.
    Loop,
    /// The source did not answer within the timeout.
    Timeout,
    /// The source's address is not allowed (the network scope).
    Refused,
    /// The source could not be reached: DNS, connection, TLS.
    Unreachable,
}

impl LiveResult {
    /// Every result, in the order of docs/redirects.md and of the summary.
    pub const ALL: [LiveResult; 11] = [
        LiveResult::Pass,
        LiveResult::WrongStatus,
        LiveResult::WrongTarget,
        LiveResult::Chain,
        LiveResult::NoRedirect,
        LiveResult::NotFound,
        LiveResult::Error,
        LiveResult::Loop,
        LiveResult::Timeout,
        LiveResult::Refused,
        LiveResult::Unreachable,
    ];

    /// The word in the `result` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            LiveResult::Pass => "pass",
            LiveResult::WrongStatus => "wrong-status",
            LiveResult::WrongTarget => "wrong-target",
            LiveResult::Chain => "chain",
            LiveResult::NoRedirect => "no-redirect",
            LiveResult::NotFound => "not-found",
            LiveResult::Error => "error",
            LiveResult::Loop => "loop",
            LiveResult::Timeout => "timeout",
            LiveResult::Refused => "refused",
            LiveResult::Unreachable => "unreachable",
        }
    }
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect hop points: its Location resolved against its URL, fragment kept.
fn points_to(hop: &Hop) -> Option<Url> {
    let loc = hop.location.as_deref()?;
    Url::parse(&hop.url).ok()?.join(loc.trim()).ok()
}

/// What the chain shows after the hop at `i` (the target's own answer, for a pass).
fn after(hops: &[Hop], stop: Option<&Stop>, i: usize) -> Option<String> {
    let next = hops.get(i + 1);
    match (next, stop) {
        (Some(h), _) if h.outcome != Outcome::Response => {
            Some(format!("the target did not answer: {}", h.outcome.as_str()))
        }
        (Some(h), _) => match h.http_status {
            Some(s) if is_redirect(s) && h.location.is_some() => Some(format!(
                "the target redirects again (HTTP {s} to {})",
                h.location.as_deref().unwrap_or_default()
            )),
            Some(s) if (200..300).contains(&s) => None,
            Some(s) => Some(format!("the target answers HTTP {s}")),
            None => None,
        },
        (None, Some(stop)) => Some(format!("the chain stopped after the target: {stop}")),
        (None, None) => None,
    }
}

/// The result of a row and why, from the hops of its request (the final response's
/// included) and the stop that ended the chain, if any. `expected` is the row's status;
/// `target` the URL its target names.
pub fn classify(
    hops: &[Hop],
    stop: Option<&Stop>,
    expected: u16,
    target: &Url,
) -> (LiveResult, Option<String>) {
    let Some(first) = hops.first() else {
        return (LiveResult::Error, Some("nothing was requested".into()));
    };
    match first.outcome {
        Outcome::Response => {}
        Outcome::Refused => {
            let why = stop.map_or_else(|| "refused".to_string(), |s| s.to_string());
            return (LiveResult::Refused, Some(why));
        }
        Outcome::Timeout => {
            let why = first.detail.clone().unwrap_or_else(|| "timed out".into());
            return (LiveResult::Timeout, Some(why));
        }
        Outcome::Dns | Outcome::Connect | Outcome::Tls | Outcome::Error => {
            let why = first.detail.clone().unwrap_or_else(|| "unreachable".into());
            return (LiveResult::Unreachable, Some(why));
        }
    }
    let status = first.http_status.unwrap_or_default();
    if !is_redirect(status) || first.location.is_none() {
        return match status {
            200..=299 => (
                LiveResult::NoRedirect,
                Some(format!(
                    "HTTP {status} at the source: it is served, not redirected"
                )),
            ),
            404 | 410 => (LiveResult::NotFound, Some(format!("HTTP {status}"))),
            s if is_redirect(s) => (
                LiveResult::Error,
                Some(format!("HTTP {s} without a Location")),
            ),
            s => (LiveResult::Error, Some(format!("HTTP {s}"))),
        };
    }
    let location = first.location.as_deref().unwrap_or_default();
    let Some(first_to) = points_to(first) else {
        let why = match stop {
            Some(s @ Stop::InvalidLocation { .. }) => s.to_string(),
            _ => format!("the Location {location:?} does not resolve"),
        };
        return (LiveResult::WrongTarget, Some(why));
    };
    if same_url(&first_to, target) {
        if status == expected {
            return (LiveResult::Pass, after(hops, stop, 0));
        }
        return (
            LiveResult::WrongStatus,
            Some(format!(
                "HTTP {status} to the target; the map asks for {expected}"
            )),
        );
    }
    // Elsewhere first: does the chain get there?
    let reached = hops
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, h)| Url::parse(&h.url).is_ok_and(|u| same_url(&u, target)));
    if let Some((i, _)) = reached {
        return (
            LiveResult::Chain,
            Some(format!(
                "reaches the target after {i} redirects, first to {first_to}"
            )),
        );
    }
    if let Some(Stop::Loop { next }) = stop {
        return (
            LiveResult::Loop,
            Some(format!(
                "redirects to {first_to}; the chain returns to {next}"
            )),
        );
    }
    let mut why = format!("redirects to {first_to}, not to {target}");
    if let Some(s @ Stop::TooManyRedirects { .. }) = stop {
        why.push_str(&format!("; {s}"));
    }
    (LiveResult::WrongTarget, Some(why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;
    use urlkey_fetch::failure::Failure;

    const BASE: &str = "http://127.0.0.1:8080";

    fn url(p: &str) -> Url {
        Url::parse(BASE).unwrap().join(p).unwrap()
    }

    fn hop(path: &str, status: u16, location: Option<&str>) -> Hop {
        let u = url(path);
        Hop {
            url: u.to_string(),
            started_at: SystemTime::now(),
            elapsed: None,
            outcome: Outcome::Response,
            remote_addr: None,
            http_status: Some(status),
            location: location.map(str::to_string),
            next_url: location.map(|l| u.join(l).unwrap().to_string()),
            retry_after: None,
            content_type: None,
            detail: None,
        }
    }

    fn failed(path: &str, outcome: Outcome, detail: &str) -> Hop {
        Hop {
            outcome,
            http_status: None,
            location: None,
            next_url: None,
            detail: Some(detail.into()),
            ..hop(path, 0, None)
        }
    }

    fn result(hops: &[Hop], stop: Option<&Stop>, expected: u16, target: &str) -> LiveResult {
        classify(hops, stop, expected, &url(target)).0
    }

    #[test]
    fn one_hop_to_the_target_with_the_status_passes() {
        let hops = [hop("/old", 301, Some("/new")), hop("/new", 200, None)];
        assert_eq!(
            classify(&hops, None, 301, &url("/new")),
            (LiveResult::Pass, None)
        );
        // An absolute Location, another spelling of the same URL.
        let hops = [
            hop("/old", 308, Some("HTTP://127.0.0.1:8080/new")),
            hop("/new", 200, None),
        ];
        assert_eq!(result(&hops, None, 308, "/new"), LiveResult::Pass);
        // The target's own answer is said, the row still passes: the map is served as written.
        let hops = [hop("/old", 301, Some("/new")), hop("/new", 404, None)];
        let (r, why) = classify(&hops, None, 301, &url("/new"));
        assert_eq!(r, LiveResult::Pass);
        assert_eq!(why.as_deref(), Some("the target answers HTTP 404"));
        let hops = [
            hop("/old", 301, Some("/new")),
            hop("/new", 302, Some("/newer")),
            hop("/newer", 200, None),
        ];
        let (r, why) = classify(&hops, None, 301, &url("/new"));
        assert_eq!(r, LiveResult::Pass);
        assert_eq!(
            why.as_deref(),
            Some("the target redirects again (HTTP 302 to /newer)")
        );
    }

    #[test]
    fn a_location_that_does_not_resolve_is_a_wrong_target() {
        let bad = Hop {
            location: Some("http://[::1".into()),
            next_url: None,
            ..hop("/old", 301, None)
        };
        let stop = Stop::InvalidLocation {
            location: "http://[::1".into(),
            error: "invalid IPv6 address".into(),
        };
        let (r, why) = classify(&[bad], Some(&stop), 301, &url("/new"));
        assert_eq!(r, LiveResult::WrongTarget);
        assert!(why.unwrap().contains("does not resolve"));
    }

    #[test]
    fn the_right_target_with_another_status_is_wrong_status() {
        let hops = [hop("/old", 302, Some("/new")), hop("/new", 200, None)];
        let (r, why) = classify(&hops, None, 301, &url("/new"));
        assert_eq!(r, LiveResult::WrongStatus);
        assert!(why.unwrap().contains("HTTP 302"));
    }

    #[test]
    fn elsewhere_then_the_target_is_a_chain_and_never_is_wrong_target() {
        let hops = [
            hop("/old", 301, Some("/mid")),
            hop("/mid", 301, Some("/new")),
            hop("/new", 200, None),
        ];
        assert_eq!(result(&hops, None, 301, "/new"), LiveResult::Chain);
        let hops = [hop("/old", 301, Some("/other")), hop("/other", 200, None)];
        assert_eq!(result(&hops, None, 301, "/new"), LiveResult::WrongTarget);
        // A trailing slash or a letter's case is another URL.
        let hops = [hop("/old", 301, Some("/new/")), hop("/new/", 200, None)];
        assert_eq!(result(&hops, None, 301, "/new"), LiveResult::WrongTarget);
        let next = url("/long/11");
        let stop = Stop::TooManyRedirects { max: 10, next };
        let hops = [hop("/old", 301, Some("/long/1"))];
        assert_eq!(
            result(&hops, Some(&stop), 301, "/new"),
            LiveResult::WrongTarget
        );
    }

    #[test]
    fn a_chain_that_comes_back_is_a_loop() {
        let hops = [hop("/old", 301, Some("/old"))];
        let stop = Stop::Loop { next: url("/old") };
        assert_eq!(result(&hops, Some(&stop), 301, "/new"), LiveResult::Loop);
        let hops = [hop("/a", 302, Some("/b")), hop("/b", 302, Some("/a"))];
        let stop = Stop::Loop { next: url("/a") };
        assert_eq!(result(&hops, Some(&stop), 301, "/new"), LiveResult::Loop);
    }

    #[test]
    fn answers_without_a_redirect() {
        assert_eq!(
            result(&[hop("/old", 200, None)], None, 301, "/new"),
            LiveResult::NoRedirect
        );
        assert_eq!(
            result(&[hop("/old", 204, None)], None, 301, "/new"),
            LiveResult::NoRedirect
        );
        assert_eq!(
            result(&[hop("/old", 404, None)], None, 301, "/new"),
            LiveResult::NotFound
        );
        assert_eq!(
            result(&[hop("/old", 410, None)], None, 301, "/new"),
            LiveResult::NotFound
        );
        for s in [400, 403, 500, 503, 304] {
            assert_eq!(
                result(&[hop("/old", s, None)], None, 301, "/new"),
                LiveResult::Error,
                "{s}"
            );
        }
        let (r, why) = classify(&[hop("/old", 301, None)], None, 301, &url("/new"));
        assert_eq!(r, LiveResult::Error);
        assert_eq!(why.as_deref(), Some("HTTP 301 without a Location"));
    }

    #[test]
    fn requests_without_an_answer() {
        let t = [failed("/old", Outcome::Timeout, "operation timed out")];
        assert_eq!(result(&t, None, 301, "/new"), LiveResult::Timeout);
        for o in [Outcome::Dns, Outcome::Connect, Outcome::Tls, Outcome::Error] {
            let h = [failed("/old", o, "no")];
            assert_eq!(
                result(&h, None, 301, "/new"),
                LiveResult::Unreachable,
                "{o:?}"
            );
        }
        let refused = urlkey_fetch::Refused {
            host: "10.0.0.1".into(),
            addrs: vec![(
                "10.0.0.1".parse().unwrap(),
                urlkey_fetch::AddressClass::Private,
            )],
        };
        let stop = Stop::Failed(Failure::Refused(refused));
        let h = [failed("/old", Outcome::Refused, "refused")];
        let (r, why) = classify(&h, Some(&stop), 301, &url("/new"));
        assert_eq!(r, LiveResult::Refused);
        assert!(why
            .unwrap()
            .contains("10.0.0.1 is a non-public address (private)"));
    }

    #[test]
    fn every_result_has_its_own_word() {
        let mut words: Vec<&str> = LiveResult::ALL.iter().map(|r| r.as_str()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), LiveResult::ALL.len());
    }
}

//! One verification: fetch an observed URL through the SSRF-safe client (`urlkey-fetch`:
//! redirects followed by hand, each hop checked and recorded), read the head for the
//! canonical and the body for the content check, classify. What is about fetching lives
//! in `urlkey-fetch`; what a citation's verification makes of it lives here.

use std::time::Duration;

use reqwest::header::{HeaderMap, LINK, RETRY_AFTER};
use reqwest::Url;
use time::OffsetDateTime;
use urlkey_fetch::failure::Failure;
use urlkey_fetch::{read_body, Allowance, Client, End, FetchError, Stop};

use super::canonical::{canonical_from_link_headers, HeadScanner};
use super::content::{analyse_keeping_text, Content};
use crate::error::{ErrorKind, LedgerError};
use crate::timefmt::{format_millis, now_millis};
use crate::words::{Hint, PlainWords, Words};

pub use urlkey_fetch::client::{BODY_CAP, MAX_REDIRECTS};
pub use urlkey_fetch::{error_chain, FetchConfig};

/// The user agent: names the tool and what it is doing.
pub fn user_agent() -> String {
    urlkey_fetch::user_agent("citation verification")
}

/// How verify fetches by default: [`FetchConfig::new`] with verify's user agent.
pub fn fetch_config() -> FetchConfig {
    FetchConfig::new(user_agent())
}

/// What a verification found. A timeout, a challenge page or an authentication wall is
/// no proof that a URL is invalid: it is `Unresolved` (the seed document's "Verification
/// after normalization").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 2xx at the observed URL itself.
    Verified,
    /// 2xx after one or more redirects.
    Redirected,
    /// 404 or 410.
    NotFound,
    /// Any other 4xx or 5xx (and a redirect status with no usable Location).
    Error,
    /// No finding: timeouts, DNS, TLS and connection failures, refused targets, challenge
    /// pages, authentication walls, 403/429/451/503, redirect loops, chains over the
    /// limit. Not proof that the URL is invalid.
    Unresolved,
}

impl Status {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Redirected => "redirected",
            Status::NotFound => "not-found",
            Status::Error => "error",
            Status::Unresolved => "unresolved",
        }
    }
}

/// One request of the chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hop {
    /// The URL requested.
    pub url: String,
    /// When.
    pub started_at: String,
    /// How long, to the last byte read.
    pub elapsed_ms: Option<u64>,
    /// `response`, `refused`, `timeout`, `dns`, `connect`, `tls` or `error`.
    pub outcome: &'static str,
    /// The address connected to.
    pub remote_addr: Option<String>,
    /// The HTTP status.
    pub http_status: Option<u16>,
    /// The Location header as sent.
    pub location: Option<String>,
    /// Location resolved against `url`.
    pub next_url: Option<String>,
    /// The Retry-After header.
    pub retry_after: Option<String>,
    /// The Content-Type header.
    pub content_type: Option<String>,
    /// Anything else worth knowing.
    pub detail: Option<String>,
}

/// The result of one verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The observed URL as fetched: no fragment (never sent), no userinfo (never sent).
    pub requested_url: String,
    /// True when the observed URL carried userinfo, which was removed and not sent.
    pub credentials_removed: bool,
    /// Start time.
    pub started_at: String,
    /// End time.
    pub finished_at: String,
    /// The class.
    pub status: Status,
    /// Why, in one token: `ok`, `http-404`, `timeout`, `redirect-loop`, ...
    pub reason: String,
    /// More words on it.
    pub detail: Option<String>,
    /// The URL of the last response received.
    pub final_url: Option<String>,
    /// Its status.
    pub final_http_status: Option<u16>,
    /// Redirects followed.
    pub redirect_count: usize,
    /// `<link rel=canonical>` in the head, resolved.
    pub canonical_html: Option<String>,
    /// `Link: <...>; rel="canonical"`, resolved.
    pub canonical_link_header: Option<String>,
    /// Body bytes read.
    pub body_bytes_read: u64,
    /// True when reading stopped at the cap with more to come.
    pub body_truncated: bool,
    /// Every request, in order.
    pub hops: Vec<Hop>,
    /// What was read of a 2xx response's body (for the content check), else None.
    pub content: Option<Content>,
}

impl Verification {
    /// A verification of `requested_url` begun at `started_at` that has found nothing yet:
    /// `unresolved`, no response, no hop. The client fills it as the fetch goes.
    pub fn begun(requested_url: String, started_at: String) -> Self {
        Verification {
            requested_url,
            credentials_removed: false,
            started_at,
            finished_at: String::new(),
            status: Status::Unresolved,
            reason: String::new(),
            detail: None,
            final_url: None,
            final_http_status: None,
            redirect_count: 0,
            canonical_html: None,
            canonical_link_header: None,
            body_bytes_read: 0,
            body_truncated: false,
            hops: Vec::new(),
            content: None,
        }
    }

    /// `canonical_html`, else `canonical_link_header`.
    pub fn publisher_canonical(&self) -> Option<&str> {
        self.canonical_html
            .as_deref()
            .or(self.canonical_link_header.as_deref())
    }
}

/// Fetches observed URLs. One client for a whole run ([`urlkey_fetch::Client`]: no cookie
/// store, no proxy, no automatic redirects, no credentials).
pub struct Fetcher {
    client: Client,
    /// What allows a refused target, in the caller's words ([`Fetcher::with_words`]).
    allow: Allow,
}

/// The hints of refused targets, worded once for the whole run (they are stored with each
/// verification they explain).
#[derive(Debug, Clone)]
struct Allow {
    loopback: String,
    private: String,
    either: String,
}

impl Allow {
    fn of(&self, allowance: Allowance) -> &str {
        match allowance {
            Allowance::Loopback => &self.loopback,
            Allowance::PrivateNetwork => &self.private,
            Allowance::LoopbackOrPrivate => &self.either,
            Allowance::Never => "such addresses are never fetched",
        }
    }
}

/// A client that cannot be built, as the ledger's error.
fn client_error(e: FetchError) -> LedgerError {
    let message = e.to_string();
    match e {
        FetchError::Certificates(source) => {
            LedgerError::new(ErrorKind::Certificates(message)).with_source(source)
        }
        FetchError::NoCertificates => LedgerError::new(ErrorKind::Certificates(message)),
        FetchError::Client(source) => LedgerError::other(message).with_source(source),
    }
}

impl Fetcher {
    /// A fetcher for this configuration, its hints in the ledger's own words.
    pub fn new(cfg: FetchConfig) -> Result<Fetcher, LedgerError> {
        Fetcher::with_words(cfg, &PlainWords)
    }

    /// A fetcher for this configuration whose refusals say what allows the target in
    /// `words` (the command line names its flags).
    pub fn with_words(cfg: FetchConfig, words: &dyn Words) -> Result<Fetcher, LedgerError> {
        let allow = Allow {
            loopback: words.hint(Hint::AllowLoopback),
            private: words.hint(Hint::AllowPrivateNetwork),
            either: words.hint(Hint::AllowLoopbackOrPrivate),
        };
        let client = Client::new(cfg).map_err(client_error)?;
        Ok(Fetcher { client, allow })
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        self.client.config()
    }

    /// Verifies one observed URL. The observed text is only read.
    pub async fn verify(&self, observed: &str) -> Verification {
        self.verify_keeping_text(observed, false).await
    }

    /// [`Fetcher::verify`], keeping an HTML page's text for the text fragment check when
    /// `keep_text` ([`Content::page_text`]).
    pub async fn verify_keeping_text(&self, observed: &str, keep_text: bool) -> Verification {
        let mut v = Verification::begun(observed.to_string(), now_millis());
        // The URL Standard strips leading and trailing C0 controls and spaces.
        let text = observed.trim_matches(|c: char| c <= ' ');
        let url = match Url::parse(text) {
            Ok(u) => u,
            Err(e) => {
                return finish(
                    v,
                    Status::Unresolved,
                    "unparseable",
                    Some(format!(
                        "the HTTP client cannot parse the observed URL: {e}"
                    )),
                )
            }
        };
        let chain = self.client.follow(url).await;
        v.credentials_removed = chain.credentials_removed;
        v.requested_url = chain.requested.to_string();
        v.hops = chain.hops.into_iter().map(Hop::from).collect();
        v.redirect_count = v.hops.iter().filter(|h| h.next_url.is_some()).count();
        if let Some(last) = v.hops.iter().rev().find(|h| h.http_status.is_some()) {
            v.final_url = Some(last.url.clone());
            v.final_http_status = last.http_status;
        }
        let mut fin = match chain.end {
            End::Final(fin) => *fin,
            End::Stopped(stop) => return self.stopped(v, stop),
        };
        let url = fin.url.clone();
        let status = fin.response.status().as_u16();
        v.final_url = Some(url.to_string());
        v.final_http_status = Some(status);
        let headers = fin.headers().clone();
        let links: Vec<&str> = headers
            .get_all(LINK)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .collect();
        v.canonical_link_header = canonical_from_link_headers(links, &url);
        let html = fin
            .hop
            .content_type
            .as_deref()
            .map(|c| {
                let c = c.to_ascii_lowercase();
                c.starts_with("text/html") || c.starts_with("application/xhtml+xml")
            })
            .unwrap_or(false);
        if (200..300).contains(&status) {
            // The whole body up to the cap: the canonical is in the head, the content
            // check of a key's variants needs the rest.
            let mut scanner = html.then(HeadScanner::new);
            let mut head_done = false;
            let cap = self.client.config().body_cap;
            let body = read_body(&mut fin.response, cap, |piece| {
                if let Some(sc) = scanner.as_mut() {
                    if !head_done {
                        head_done = sc.feed(piece);
                    }
                }
            })
            .await;
            v.body_truncated = body.truncated;
            if let Some((timed_out, chain)) = &body.error {
                let what = if *timed_out { "timed out" } else { "failed" };
                fin.hop.detail = Some(format!(
                    "reading the body {what} after {} bytes: {chain}",
                    body.bytes.len()
                ));
            }
            v.body_bytes_read = body.bytes.len() as u64;
            if let Some(sc) = scanner {
                let (canonical, note) = sc.finish(&url);
                v.canonical_html = canonical;
                if fin.hop.detail.is_none() {
                    fin.hop.detail = note;
                }
            }
            if v.body_truncated {
                fin.hop
                    .detail
                    .get_or_insert_with(|| format!("body read stopped at the {cap} byte cap"));
            }
            v.content = Some(analyse_keeping_text(
                &body.bytes,
                fin.hop.content_type.as_deref(),
                keep_text,
            ));
        }
        v.hops.push(Hop::from(fin.finish()));
        let (st, reason, detail) = classify(status, &headers, v.redirect_count > 0, &v.content);
        finish(v, st, &reason, detail)
    }

    /// A verification whose chain stopped without a final response.
    fn stopped(&self, mut v: Verification, stop: Stop) -> Verification {
        let detail = match stop.refusal() {
            // A refusal says what would allow the target, in the caller's words, in the
            // verification and in its last hop.
            Some(allowance) => {
                let d = format!("{stop}; {}", self.allow.of(allowance));
                if let Some(last) = v.hops.last_mut() {
                    last.detail = Some(d.clone());
                }
                d
            }
            _ => stop.to_string(),
        };
        let (status, reason) = match &stop {
            Stop::UnsupportedScheme(_) => (Status::Unresolved, "unsupported-scheme"),
            Stop::Refused(_) | Stop::RefusedRemote { .. } => {
                (Status::Unresolved, "refused-private-address")
            }
            Stop::Failed(f) => (
                Status::Unresolved,
                match f {
                    Failure::Refused(_) | Failure::RefusedHidden(_) => "refused-private-address",
                    Failure::Dns(_) => "dns",
                    Failure::Timeout(_) => "timeout",
                    Failure::Tls(_) => "tls",
                    Failure::Connect(_) => "connect",
                    Failure::Other(_) => "network-error",
                },
            ),
            Stop::InvalidLocation { .. } => (Status::Error, "invalid-redirect-location"),
            Stop::Loop { .. } => (Status::Unresolved, "redirect-loop"),
            Stop::TooManyRedirects { .. } => (Status::Unresolved, "too-many-redirects"),
        };
        finish(v, status, reason, Some(detail))
    }
}

/// The class of a final response: a timeout, a challenge page or an authentication wall
/// is no proof that a URL is invalid.
fn classify(
    status: u16,
    headers: &HeaderMap,
    redirected: bool,
    content: &Option<Content>,
) -> (Status, String, Option<String>) {
    let challenge = headers
        .get("cf-mitigated")
        .and_then(|h| h.to_str().ok())
        .is_some_and(|s| s.eq_ignore_ascii_case("challenge"));
    let retry = headers
        .get(RETRY_AFTER)
        .map(|h| format!("Retry-After: {}", String::from_utf8_lossy(h.as_bytes())));
    let suspected = content.as_ref().and_then(|c| c.challenge.clone());
    match status {
        _ if challenge => (
            Status::Unresolved,
            "challenge".into(),
            Some(format!(
                "HTTP {status} with a challenge page (cf-mitigated: challenge)"
            )),
        ),
        200..=299 if suspected.is_some() => (
            Status::Unresolved,
            "challenge-suspected".into(),
            suspected.map(|why| {
                format!("HTTP {status}, but the page looks like a challenge or block page: {why}")
            }),
        ),
        200..=299 if redirected => (Status::Redirected, "ok".into(), None),
        200..=299 => (Status::Verified, "ok".into(), None),
        404 | 410 => (Status::NotFound, format!("http-{status}"), None),
        401 | 407 => (
            Status::Unresolved,
            "auth-wall".into(),
            Some(format!("HTTP {status}: the page asks for authentication")),
        ),
        403 | 429 | 451 | 503 => (Status::Unresolved, format!("http-{status}"), retry),
        300..=399 => (
            Status::Error,
            "redirect-without-location".into(),
            Some(format!("HTTP {status} without a usable Location")),
        ),
        400..=599 => (Status::Error, format!("http-{status}"), retry),
        _ => (
            Status::Error,
            format!("http-{status}"),
            Some(format!("unexpected HTTP status {status}")),
        ),
    }
}

impl From<urlkey_fetch::Hop> for Hop {
    fn from(h: urlkey_fetch::Hop) -> Hop {
        Hop {
            url: h.url,
            started_at: format_millis(OffsetDateTime::from(h.started_at)),
            elapsed_ms: h.elapsed.map(millis),
            outcome: h.outcome.as_str(),
            remote_addr: h.remote_addr.map(|a| a.to_string()),
            http_status: h.http_status,
            location: h.location,
            next_url: h.next_url,
            retry_after: h.retry_after,
            content_type: h.content_type,
            detail: h.detail,
        }
    }
}

fn finish(
    mut v: Verification,
    status: Status,
    reason: &str,
    detail: Option<String>,
) -> Verification {
    v.status = status;
    v.reason = reason.to_string();
    v.detail = detail;
    v.finished_at = now_millis();
    v
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_names_the_tool() {
        assert!(user_agent().starts_with("urlkey/"));
        assert!(user_agent().ends_with("(+citation verification)"));
    }
}

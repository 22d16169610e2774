//! One verification: fetch an observed URL in an isolated client, follow redirects by
//! hand (each hop checked and recorded), read the head for the canonical, classify.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE, LINK, LOCATION, RETRY_AFTER};
use reqwest::{Client, Url};
use tokio::sync::Mutex;

use super::canonical::{canonical_from_link_headers, HeadScanner};
use super::content::{analyse, Content};
use super::guard::{check_ip, check_url_host, DnsFailure, GuardedResolver, NetworkScope, Refused};
use crate::error::{ErrorKind, LedgerError};
use crate::spelling::sanitize;
use crate::timefmt::now_millis;
use crate::words::{Hint, PlainWords, Words};

/// The user agent: names the tool and what it is doing.
pub fn user_agent() -> String {
    format!(
        "urlkey/{} (+citation verification)",
        env!("CARGO_PKG_VERSION")
    )
}

/// The most body bytes read from one response.
pub const BODY_CAP: usize = 2 * 1024 * 1024;

/// The most redirects followed; a chain that goes on is recorded as `too-many-redirects`.
pub const MAX_REDIRECTS: usize = 10;

/// How verify fetches.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Per request, connection to last body byte read.
    pub timeout: Duration,
    /// Least time between two requests to the same host.
    pub per_host_delay: Duration,
    /// Where connections may go.
    pub scope: NetworkScope,
    /// Redirects followed at most.
    pub max_redirects: usize,
    /// Body bytes read at most.
    pub body_cap: usize,
    /// PEM certificates trusted beside the built-in roots (`--ca-cert FILE`).
    pub extra_roots: Vec<Vec<u8>>,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            timeout: Duration::from_secs(10),
            per_host_delay: Duration::from_millis(1000),
            scope: NetworkScope::Public,
            max_redirects: MAX_REDIRECTS,
            body_cap: BODY_CAP,
            extra_roots: Vec::new(),
        }
    }
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

/// Fetches observed URLs. One client for a whole run: no cookie store (the feature is
/// not even compiled in), no proxy, no automatic redirects, no credentials.
pub struct Fetcher {
    client: Client,
    cfg: FetchConfig,
    /// What allows a refused target, in the caller's words ([`Fetcher::with_words`]).
    allow: Allow,
    next_slot: Mutex<HashMap<String, tokio::time::Instant>>,
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
    fn of<'a>(hint: Result<Hint, &'static str>, words: &'a Allow) -> &'a str {
        match hint {
            Ok(Hint::AllowLoopback) => &words.loopback,
            Ok(Hint::AllowPrivateNetwork) => &words.private,
            Ok(_) => &words.either,
            Err(never) => never,
        }
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
        let mut builder = Client::builder();
        for pem in &cfg.extra_roots {
            let certs = reqwest::Certificate::from_pem_bundle(pem).map_err(|e| {
                LedgerError::new(ErrorKind::Certificates(format!(
                    "cannot read the extra CA certificates: {e}"
                )))
                .with_source(e)
            })?;
            if certs.is_empty() {
                return Err(LedgerError::new(ErrorKind::Certificates(
                    "the extra CA certificate file holds no PEM certificate".to_string(),
                )));
            }
            for c in certs {
                builder = builder.add_root_certificate(c);
            }
        }
        let client = builder
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .referer(false)
            .user_agent(user_agent())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.timeout)
            .dns_resolver(Arc::new(GuardedResolver::new(cfg.scope)))
            .build()
            .map_err(|e| {
                LedgerError::other(format!("cannot build the HTTP client: {e}")).with_source(e)
            })?;
        Ok(Fetcher {
            client,
            cfg,
            allow,
            next_slot: Mutex::new(HashMap::new()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        &self.cfg
    }

    async fn wait_turn(&self, host: &str) {
        if self.cfg.per_host_delay.is_zero() {
            return;
        }
        let slot = {
            let mut map = self.next_slot.lock().await;
            let now = tokio::time::Instant::now();
            let slot = map.get(host).copied().filter(|t| *t > now).unwrap_or(now);
            map.insert(host.to_string(), slot + self.cfg.per_host_delay);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }

    /// Verifies one observed URL. The observed text is only read.
    pub async fn verify(&self, observed: &str) -> Verification {
        let mut v = Verification::begun(observed.to_string(), now_millis());
        // The URL Standard strips leading and trailing C0 controls and spaces.
        let text = observed.trim_matches(|c: char| c <= ' ');
        let mut url = match Url::parse(text) {
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
        v.credentials_removed = sanitize(&mut url);
        v.requested_url = url.to_string();
        let mut visited: HashSet<String> = HashSet::new();
        loop {
            visited.insert(url.as_str().to_string());
            let mut hop = Hop {
                url: url.to_string(),
                started_at: now_millis(),
                ..Hop::default()
            };
            if !matches!(url.scheme(), "http" | "https") {
                hop.outcome = "refused";
                hop.detail = Some(format!(
                    "only http and https are fetched, not {}:",
                    url.scheme()
                ));
                let d = hop.detail.clone();
                v.hops.push(hop);
                return finish(v, Status::Unresolved, "unsupported-scheme", d);
            }
            if let Err(refused) = check_url_host(&url, self.cfg.scope) {
                hop.outcome = "refused";
                hop.detail = Some(format!(
                    "{refused}; {}",
                    Allow::of(refused.hint(), &self.allow)
                ));
                let d = hop.detail.clone();
                v.hops.push(hop);
                return finish(v, Status::Unresolved, "refused-private-address", d);
            }
            self.wait_turn(url.host_str().unwrap_or_default()).await;
            let t0 = Instant::now();
            let sent = self
                .client
                .get(url.clone())
                .header(ACCEPT, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
                .send()
                .await;
            let mut resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    let (outcome, reason, detail) = classify_error(&e, &self.allow);
                    hop.elapsed_ms = Some(elapsed_ms(t0));
                    hop.outcome = outcome;
                    hop.detail = Some(detail.clone());
                    v.hops.push(hop);
                    return finish(v, Status::Unresolved, reason, Some(detail));
                }
            };
            let remote = resp.remote_addr();
            hop.remote_addr = remote.map(|a| a.to_string());
            if let Some(addr) = remote {
                if let Err(class) = check_ip(addr.ip(), self.cfg.scope) {
                    // Cannot happen through the guarded resolver; kept as a last check.
                    hop.outcome = "refused";
                    hop.elapsed_ms = Some(elapsed_ms(t0));
                    let d = format!(
                        "connected to {addr} ({}), which the network scope forbids; response discarded",
                        class.as_str()
                    );
                    hop.detail = Some(d.clone());
                    v.hops.push(hop);
                    return finish(v, Status::Unresolved, "refused-private-address", Some(d));
                }
            }
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            hop.outcome = "response";
            hop.http_status = Some(status);
            hop.retry_after = header_text(&headers, RETRY_AFTER.as_str());
            hop.content_type = header_text(&headers, CONTENT_TYPE.as_str());
            hop.location = header_text(&headers, LOCATION.as_str());
            v.final_url = Some(url.to_string());
            v.final_http_status = Some(status);

            let is_redirect = matches!(status, 301 | 302 | 303 | 307 | 308);
            if is_redirect {
                if let Some(loc) = hop.location.clone() {
                    hop.elapsed_ms = Some(elapsed_ms(t0));
                    let mut next = match url.join(loc.trim()) {
                        Ok(n) => n,
                        Err(e) => {
                            let d = format!("the Location {loc:?} does not resolve: {e}");
                            hop.detail = Some(d.clone());
                            v.hops.push(hop);
                            return finish(v, Status::Error, "invalid-redirect-location", Some(d));
                        }
                    };
                    if sanitize(&mut next) {
                        hop.detail = Some("userinfo in the Location removed, not sent".to_string());
                    }
                    hop.next_url = Some(next.to_string());
                    v.hops.push(hop);
                    v.redirect_count += 1;
                    if visited.contains(next.as_str()) {
                        let d = format!("the chain returns to {next}");
                        return finish(v, Status::Unresolved, "redirect-loop", Some(d));
                    }
                    if v.redirect_count > self.cfg.max_redirects {
                        let d = format!(
                            "more than {} redirects; the next would be {next}",
                            self.cfg.max_redirects
                        );
                        return finish(v, Status::Unresolved, "too-many-redirects", Some(d));
                    }
                    url = next;
                    continue;
                }
            }

            // The last response.
            let links: Vec<&str> = headers
                .get_all(LINK)
                .iter()
                .filter_map(|h| h.to_str().ok())
                .collect();
            v.canonical_link_header = canonical_from_link_headers(links, &url);
            let html = hop
                .content_type
                .as_deref()
                .map(|c| {
                    let c = c.to_ascii_lowercase();
                    c.starts_with("text/html") || c.starts_with("application/xhtml+xml")
                })
                .unwrap_or(false);
            let mut body: Vec<u8> = Vec::new();
            if (200..300).contains(&status) {
                // The whole body up to the cap: the canonical is in the head, the content
                // check of a key's variants needs the rest.
                let mut scanner = html.then(HeadScanner::new);
                let mut head_done = false;
                loop {
                    match resp.chunk().await {
                        Ok(Some(chunk)) => {
                            let room = self.cfg.body_cap - body.len();
                            let take = chunk.len().min(room);
                            if let Some(sc) = scanner.as_mut() {
                                if !head_done {
                                    head_done = sc.feed(&chunk[..take]);
                                }
                            }
                            body.extend_from_slice(&chunk[..take]);
                            if take < chunk.len() {
                                v.body_truncated = true;
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let what = if e.is_timeout() {
                                "timed out"
                            } else {
                                "failed"
                            };
                            hop.detail = Some(format!(
                                "reading the body {what} after {} bytes: {}",
                                body.len(),
                                error_chain(&e)
                            ));
                            break;
                        }
                    }
                }
                v.body_bytes_read = body.len() as u64;
                if let Some(sc) = scanner {
                    let (canonical, note) = sc.finish(&url);
                    v.canonical_html = canonical;
                    if hop.detail.is_none() {
                        hop.detail = note;
                    }
                }
                if v.body_truncated {
                    hop.detail.get_or_insert_with(|| {
                        format!("body read stopped at the {} byte cap", self.cfg.body_cap)
                    });
                }
                v.content = Some(analyse(&body, hop.content_type.as_deref()));
            }
            drop(resp);
            hop.elapsed_ms = Some(elapsed_ms(t0));
            v.hops.push(hop);
            let challenge = headers
                .get("cf-mitigated")
                .and_then(|h| h.to_str().ok())
                .is_some_and(|s| s.eq_ignore_ascii_case("challenge"));
            let redirected = v.redirect_count > 0;
            let retry =
                header_text(&headers, RETRY_AFTER.as_str()).map(|r| format!("Retry-After: {r}"));
            let suspected = v.content.as_ref().and_then(|c| c.challenge.clone());
            let (st, reason, detail): (Status, String, Option<String>) = match status {
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
            };
            return finish(v, st, &reason, detail);
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

fn elapsed_ms(t0: Instant) -> u64 {
    u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
}

/// The error and its causes, joined.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        cur = s.source();
    }
    parts.join(": ")
}

fn find_in_chain<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut cur: Option<&'a (dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(t) = err.downcast_ref::<T>() {
            return Some(t);
        }
        cur = err.source();
    }
    None
}

/// `(hop outcome, verification reason, detail)` for a request that got no response.
fn classify_error(e: &reqwest::Error, allow: &Allow) -> (&'static str, &'static str, String) {
    let chain = error_chain(e);
    if let Some(r) = find_in_chain::<Refused>(e) {
        return (
            "refused",
            "refused-private-address",
            format!("{r}; {}", Allow::of(r.hint(), allow)),
        );
    }
    if chain.contains("refused before connecting") {
        // The resolver's refusal, when a layer hides its type.
        return (
            "refused",
            "refused-private-address",
            format!("{chain}; {}", allow.either),
        );
    }
    if let Some(d) = find_in_chain::<DnsFailure>(e) {
        return ("dns", "dns", d.to_string());
    }
    if e.is_timeout() {
        return ("timeout", "timeout", chain);
    }
    let lower = chain.to_ascii_lowercase();
    if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("ssl")
    {
        return ("tls", "tls", chain);
    }
    if e.is_connect() {
        return ("connect", "connect", chain);
    }
    ("error", "network-error", chain)
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

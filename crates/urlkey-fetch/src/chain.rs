//! A request and its redirects, followed by hand: each hop's URL is checked against the
//! scope before it is requested (an IP literal here, a host name by the resolver), the
//! address a response came from once more, and every hop is recorded. The chain ends on
//! a response that is not a redirect to follow ([`Final`], its body unread), or on a
//! typed [`Stop`].

use std::collections::HashSet;
use std::fmt;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use reqwest::Url;

use crate::client::{sanitize, Client};
use crate::failure::Failure;
use crate::guard::{check_ip, check_url_host, AddressClass, Allowance, Refused};

/// What became of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A response came.
    Response,
    /// Not sent, or its response discarded: the scope forbids the address or the scheme
    /// is not http(s).
    Refused,
    /// No answer within the timeout.
    Timeout,
    /// The name did not resolve.
    Dns,
    /// The connection could not be made.
    Connect,
    /// The TLS handshake or the certificate failed.
    Tls,
    /// Anything else.
    Error,
}

impl Outcome {
    /// The outcome of a request that got no response.
    pub fn of(failure: &Failure) -> Outcome {
        match failure {
            Failure::Refused(_) | Failure::RefusedHidden(_) => Outcome::Refused,
            Failure::Dns(_) => Outcome::Dns,
            Failure::Timeout(_) => Outcome::Timeout,
            Failure::Tls(_) => Outcome::Tls,
            Failure::Connect(_) => Outcome::Connect,
            Failure::Other(_) => Outcome::Error,
        }
    }

    /// `response`, `refused`, `timeout`, `dns`, `connect`, `tls` or `error` (the ledger
    /// stores these words).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Response => "response",
            Outcome::Refused => "refused",
            Outcome::Timeout => "timeout",
            Outcome::Dns => "dns",
            Outcome::Connect => "connect",
            Outcome::Tls => "tls",
            Outcome::Error => "error",
        }
    }
}

/// One request of a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The URL requested (no fragment, no userinfo: never sent).
    pub url: String,
    /// When.
    pub started_at: SystemTime,
    /// How long: to the headers of a redirect, to the failure, or (for the last response)
    /// to the last body byte read ([`Final::finish`]).
    pub elapsed: Option<Duration>,
    /// What became of it.
    pub outcome: Outcome,
    /// The address connected to.
    pub remote_addr: Option<SocketAddr>,
    /// The HTTP status.
    pub http_status: Option<u16>,
    /// The Location header as sent.
    pub location: Option<String>,
    /// Location resolved against `url`, without fragment and userinfo: the next request.
    pub next_url: Option<String>,
    /// The Retry-After header.
    pub retry_after: Option<String>,
    /// The Content-Type header.
    pub content_type: Option<String>,
    /// Anything else worth knowing, in words that name no caller's setting.
    pub detail: Option<String>,
}

impl Hop {
    fn new(url: &Url) -> Hop {
        Hop {
            url: url.to_string(),
            started_at: SystemTime::now(),
            elapsed: None,
            outcome: Outcome::Response,
            remote_addr: None,
            http_status: None,
            location: None,
            next_url: None,
            retry_after: None,
            content_type: None,
            detail: None,
        }
    }
}

/// Why a chain ended without a final response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Only http and https are fetched: the scheme.
    UnsupportedScheme(String),
    /// The host is an IP literal that the scope forbids.
    Refused(Refused),
    /// The request got no response (a refusal by the resolver among them).
    Failed(Failure),
    /// The response came from an address the scope forbids (cannot happen through the
    /// guarded resolver; kept as a last check), and was discarded.
    RefusedRemote {
        /// The address.
        addr: SocketAddr,
        /// Its class.
        class: AddressClass,
    },
    /// A redirect whose Location does not resolve to a URL.
    InvalidLocation {
        /// The Location as sent.
        location: String,
        /// Why it does not resolve.
        error: String,
    },
    /// A redirect to a URL already requested in this chain.
    Loop {
        /// That URL.
        next: Url,
    },
    /// More redirects than the limit.
    TooManyRedirects {
        /// The limit.
        max: usize,
        /// The URL the next request would have gone to.
        next: Url,
    },
}

impl Stop {
    /// When the stop is a refusal of the address: what would allow it.
    pub fn refusal(&self) -> Option<Allowance> {
        match self {
            Stop::Refused(r) | Stop::Failed(Failure::Refused(r)) => Some(r.allowance()),
            Stop::Failed(Failure::RefusedHidden(_)) => Some(Allowance::LoopbackOrPrivate),
            _ => None,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::UnsupportedScheme(s) => write!(f, "only http and https are fetched, not {s}:"),
            Stop::Refused(r) => write!(f, "{r}"),
            Stop::Failed(e) => write!(f, "{e}"),
            Stop::RefusedRemote { addr, class } => write!(
                f,
                "connected to {addr} ({}), which the network scope forbids; response discarded",
                class.as_str()
            ),
            Stop::InvalidLocation { location, error } => {
                write!(f, "the Location {location:?} does not resolve: {error}")
            }
            Stop::Loop { next } => write!(f, "the chain returns to {next}"),
            Stop::TooManyRedirects { max, next } => {
                write!(f, "more than {max} redirects; the next would be {next}")
            }
        }
    }
}

/// The last response of a chain: not a redirect, or a redirect without a Location. Its
/// body is unread ([`crate::read_body`]).
#[derive(Debug)]
pub struct Final {
    /// The URL it answers.
    pub url: Url,
    /// The response.
    pub response: reqwest::Response,
    /// Its hop, but for `elapsed` ([`Final::finish`]).
    pub hop: Hop,
    started: Instant,
}

impl Final {
    /// The response's headers.
    pub fn headers(&self) -> &HeaderMap {
        self.response.headers()
    }

    /// Drops the response (what is left of its body unread) and returns its hop, its
    /// time measured up to now.
    pub fn finish(self) -> Hop {
        let Final {
            response,
            mut hop,
            started,
            ..
        } = self;
        drop(response);
        hop.elapsed = Some(started.elapsed());
        hop
    }
}

/// How a chain ended.
#[derive(Debug)]
pub enum End {
    /// On a response (boxed: a response is large beside a stop).
    Final(Box<Final>),
    /// Without one; the last hop says where.
    Stopped(Stop),
}

/// A request and the redirects followed from it.
#[derive(Debug)]
pub struct Chain {
    /// The URL first requested (no fragment, no userinfo).
    pub requested: Url,
    /// True when the URL given carried userinfo, which was removed and not sent.
    pub credentials_removed: bool,
    /// Every hop in order, but the final response's (in [`End::Final`]).
    pub hops: Vec<Hop>,
    /// How it ended.
    pub end: End,
}

impl Chain {
    /// Redirects followed (or about to be, when the chain stopped on a loop or the limit).
    pub fn redirects(&self) -> usize {
        self.hops.iter().filter(|h| h.next_url.is_some()).count()
    }
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
}

impl Client {
    /// Requests `start` (GET, its fragment and userinfo removed) and follows its
    /// redirects (301, 302, 303, 307, 308 with a Location) up to the configured limit,
    /// waiting the per-host delay before each request.
    pub async fn follow(&self, start: Url) -> Chain {
        let mut url = start;
        let credentials_removed = sanitize(&mut url);
        let requested = url.clone();
        let mut hops: Vec<Hop> = Vec::new();
        let mut visited: HashSet<String> = HashSet::new();
        let stopped = |hops: Vec<Hop>, stop: Stop| Chain {
            requested: requested.clone(),
            credentials_removed,
            hops,
            end: End::Stopped(stop),
        };
        loop {
            visited.insert(url.as_str().to_string());
            let mut hop = Hop::new(&url);
            if !matches!(url.scheme(), "http" | "https") {
                let stop = Stop::UnsupportedScheme(url.scheme().to_string());
                hop.outcome = Outcome::Refused;
                hop.detail = Some(stop.to_string());
                hops.push(hop);
                return stopped(hops, stop);
            }
            if let Err(refused) = check_url_host(&url, self.cfg.scope) {
                let stop = Stop::Refused(refused);
                hop.outcome = Outcome::Refused;
                hop.detail = Some(stop.to_string());
                hops.push(hop);
                return stopped(hops, stop);
            }
            self.wait_turn(url.host_str().unwrap_or_default()).await;
            let t0 = Instant::now();
            let sent = self
                .http
                .get(url.clone())
                .header(ACCEPT, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
                .send()
                .await;
            let resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    let failure = Failure::of(&e);
                    hop.elapsed = Some(t0.elapsed());
                    hop.outcome = Outcome::of(&failure);
                    hop.detail = Some(failure.to_string());
                    hops.push(hop);
                    return stopped(hops, Stop::Failed(failure));
                }
            };
            let remote = resp.remote_addr();
            hop.remote_addr = remote;
            if let Some(addr) = remote {
                if let Err(class) = check_ip(addr.ip(), self.cfg.scope) {
                    let stop = Stop::RefusedRemote { addr, class };
                    hop.outcome = Outcome::Refused;
                    hop.elapsed = Some(t0.elapsed());
                    hop.detail = Some(stop.to_string());
                    hops.push(hop);
                    return stopped(hops, stop);
                }
            }
            let status = resp.status().as_u16();
            let headers = resp.headers();
            hop.outcome = Outcome::Response;
            hop.http_status = Some(status);
            hop.retry_after = header_text(headers, RETRY_AFTER.as_str());
            hop.content_type = header_text(headers, CONTENT_TYPE.as_str());
            hop.location = header_text(headers, LOCATION.as_str());
            let location = hop.location.clone();
            match location {
                Some(loc) if matches!(status, 301 | 302 | 303 | 307 | 308) => {
                    hop.elapsed = Some(t0.elapsed());
                    let mut next = match url.join(loc.trim()) {
                        Ok(n) => n,
                        Err(e) => {
                            let stop = Stop::InvalidLocation {
                                location: loc,
                                error: e.to_string(),
                            };
                            hop.detail = Some(stop.to_string());
                            hops.push(hop);
                            return stopped(hops, stop);
                        }
                    };
                    if sanitize(&mut next) {
                        hop.detail = Some("userinfo in the Location removed, not sent".to_string());
                    }
                    hop.next_url = Some(next.to_string());
                    hops.push(hop);
                    if visited.contains(next.as_str()) {
                        return stopped(hops, Stop::Loop { next });
                    }
                    let followed = hops.iter().filter(|h| h.next_url.is_some()).count();
                    if followed > self.cfg.max_redirects {
                        let max = self.cfg.max_redirects;
                        return stopped(hops, Stop::TooManyRedirects { max, next });
                    }
                    url = next;
                }
                _ => {
                    return Chain {
                        requested,
                        credentials_removed,
                        hops,
                        end: End::Final(Box::new(Final {
                            url,
                            response: resp,
                            hop,
                            started: t0,
                        })),
                    }
                }
            }
        }
    }
}

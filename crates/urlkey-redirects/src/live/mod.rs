//! `urlkey redirects test`: each entry of a MAP requested on the live site through the
//! SSRF-safe client (`urlkey-fetch`), its chain followed by hand and recorded, and a result
//! that says whether the site serves the row as written: its target, in one hop, with its
//! status (docs/redirects.md, "Test").
//!
//! The modules: [`urls`] (the base, the request of a source, the URL of a target),
//! [`classify`](mod@classify) (a row's result from its chain), [`report`] (the row, its CSV, the counts).
//! This module runs the requests, one at a time.

pub mod classify;
pub mod report;
pub mod urls;

use std::time::Duration;

use url::Url;
use urlkey_fetch::{Client, End, FetchConfig, FetchError};

pub use classify::{classify, LiveResult};
pub use report::{RowReport, RowWriter, Summary, COLUMNS};
/// The client's types a caller of [`Tester`] words or sets.
pub use urlkey_fetch::{Allowance, NetworkScope};
pub use urls::{base_url, request_url, target_url, BaseError};

use crate::redirect_map::MapEntry;

/// The least time between two requests to one host, by default, for a site on the
/// network: a migration's map has thousands of rows, and a live site is someone's
/// production.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(250);

/// The default timeout of one request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How a live test runs.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The origin the sources are requested at ([`base_url`]).
    pub base: Url,
    /// Where connections may go: public addresses, and loopback when asked.
    pub scope: NetworkScope,
    /// Per request.
    pub timeout: Duration,
    /// Least time between two requests to one host.
    pub per_host_delay: Duration,
    /// Redirects followed at most in one chain.
    pub max_redirects: usize,
}

impl LiveOptions {
    /// The defaults for `base`: public addresses only, a 10 s timeout, 10 redirects, and
    /// [`default_delay`].
    pub fn new(base: Url) -> LiveOptions {
        LiveOptions {
            per_host_delay: default_delay(&base),
            base,
            scope: NetworkScope::Public,
            timeout: DEFAULT_TIMEOUT,
            max_redirects: urlkey_fetch::client::MAX_REDIRECTS,
        }
    }
}

/// [`DEFAULT_DELAY`], or none for a server on this machine (a loopback address or
/// `localhost`), which no one else uses.
///
/// ```
/// use urlkey_redirects::live::{base_url, default_delay, DEFAULT_DELAY};
/// assert!(default_delay(&base_url("http://127.0.0.1:8080").unwrap()).is_zero());
/// assert_eq!(default_delay(&base_url("https://www.example.com").unwrap()), DEFAULT_DELAY);
/// ```
pub fn default_delay(base: &Url) -> Duration {
    let local = match base.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    if local {
        Duration::ZERO
    } else {
        DEFAULT_DELAY
    }
}

/// The user agent of a live test.
pub fn user_agent() -> String {
    urlkey_fetch::user_agent("redirect test")
}

/// Tests map entries one at a time (a blocking call per entry).
pub struct Tester {
    client: Client,
    base: Url,
    rt: tokio::runtime::Runtime,
}

/// A tester that cannot start.
#[derive(Debug)]
pub enum LiveError {
    /// The HTTP client cannot be built.
    Client(FetchError),
    /// The async runtime cannot start.
    Runtime(std::io::Error),
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveError::Client(e) => write!(f, "{e}"),
            LiveError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
        }
    }
}

impl std::error::Error for LiveError {}

impl Tester {
    /// A tester with these options.
    pub fn new(opts: &LiveOptions) -> Result<Tester, LiveError> {
        let cfg = FetchConfig {
            timeout: opts.timeout,
            per_host_delay: opts.per_host_delay,
            scope: opts.scope,
            max_redirects: opts.max_redirects,
            ..FetchConfig::new(user_agent())
        };
        let client = Client::new(cfg).map_err(LiveError::Client)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(LiveError::Runtime)?;
        Ok(Tester {
            client,
            base: opts.base.clone(),
            rt,
        })
    }

    /// Requests the entry's source at the base, follows the chain and classifies it.
    pub fn test(&self, entry: &MapEntry) -> RowReport {
        let report = |result, hops, detail: String, refusal| RowReport {
            entry: entry.clone(),
            result,
            hops,
            detail: Some(detail),
            refusal,
        };
        let request = match request_url(&self.base, &entry.source) {
            Ok(u) => u,
            Err(e) => {
                let why = format!("the source is not a URL or a path ({e}): nothing requested");
                return report(LiveResult::Error, Vec::new(), why, None);
            }
        };
        let target = match target_url(&self.base, &entry.target) {
            Ok(u) => u,
            Err(e) => {
                let why = format!("the target is not a URL or a path ({e}): nothing requested");
                return report(LiveResult::Error, Vec::new(), why, None);
            }
        };
        let chain = self.rt.block_on(self.client.follow(request));
        let mut hops = chain.hops;
        let stop = match chain.end {
            End::Final(fin) => {
                hops.push((*fin).finish());
                None
            }
            End::Stopped(stop) => Some(stop),
        };
        let (result, detail) = classify(&hops, stop.as_ref(), entry.status, &target);
        let refusal = match (result, &stop) {
            (LiveResult::Refused, Some(s)) => s.refusal(),
            _ => None,
        };
        let detail = match (result, detail) {
            (LiveResult::Refused, Some(d)) => Some(format!(
                "{d} (network scope: {})",
                self.client.config().scope.as_str()
            )),
            (_, d) => d,
        };
        RowReport {
            entry: entry.clone(),
            result,
            hops,
            detail,
            refusal,
        }
    }
}

//! One HTTP client for a whole run, isolated: no cookie store (the feature is not even
//! compiled in), no proxy, no referer, no automatic redirects, and no credentials (userinfo
//! is removed before a request: [`sanitize`]). Its resolver is the scope's
//! ([`GuardedResolver`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use tokio::sync::Mutex;

use crate::guard::{GuardedResolver, NetworkScope};

/// The user agent: names the tool and what it is doing (`citation verification`,
/// `redirect test`).
///
/// ```
/// let ua = urlkey_fetch::user_agent("redirect test");
/// assert!(ua.starts_with("urlkey/") && ua.ends_with(" (+redirect test)"));
/// ```
pub fn user_agent(purpose: &str) -> String {
    format!("urlkey/{} (+{purpose})", env!("CARGO_PKG_VERSION"))
}

/// The most body bytes read from one response, by default.
pub const BODY_CAP: usize = 2 * 1024 * 1024;

/// The most redirects followed, by default.
pub const MAX_REDIRECTS: usize = 10;

/// How a client fetches.
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
    /// PEM certificates trusted beside the built-in roots.
    pub extra_roots: Vec<Vec<u8>>,
    /// The User-Agent header ([`user_agent`]).
    pub user_agent: String,
}

impl FetchConfig {
    /// The defaults (10 s timeout, 1 s between two requests to one host, public addresses
    /// only, 10 redirects, a 2 MiB body cap, the built-in roots), with this user agent.
    pub fn new(user_agent: String) -> FetchConfig {
        FetchConfig {
            timeout: Duration::from_secs(10),
            per_host_delay: Duration::from_millis(1000),
            scope: NetworkScope::Public,
            max_redirects: MAX_REDIRECTS,
            body_cap: BODY_CAP,
            extra_roots: Vec::new(),
            user_agent,
        }
    }
}

/// A client that cannot be built.
#[derive(Debug)]
pub enum FetchError {
    /// The extra certificates cannot be read.
    Certificates(reqwest::Error),
    /// The extra certificates hold no PEM certificate.
    NoCertificates,
    /// The HTTP client cannot be built.
    Client(reqwest::Error),
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Certificates(e) => {
                write!(f, "cannot read the extra CA certificates: {e}")
            }
            FetchError::NoCertificates => {
                f.write_str("the extra CA certificate file holds no PEM certificate")
            }
            FetchError::Client(e) => write!(f, "cannot build the HTTP client: {e}"),
        }
    }
}

impl std::error::Error for FetchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FetchError::Certificates(e) | FetchError::Client(e) => Some(e),
            FetchError::NoCertificates => None,
        }
    }
}

/// Removes what is never sent: the fragment, and userinfo. Returns true when userinfo
/// was there.
pub fn sanitize(url: &mut Url) -> bool {
    url.set_fragment(None);
    let had = !url.username().is_empty() || url.password().is_some();
    if had {
        // Both fail only for URLs that cannot have credentials, which have none.
        let _ = url.set_username("");
        let _ = url.set_password(None);
    }
    had
}

/// Fetches URLs ([`Client::follow`], in `chain`). One for a whole run.
pub struct Client {
    pub(crate) http: reqwest::Client,
    pub(crate) cfg: FetchConfig,
    next_slot: Mutex<HashMap<String, tokio::time::Instant>>,
}

impl Client {
    /// A client for this configuration.
    pub fn new(cfg: FetchConfig) -> Result<Client, FetchError> {
        let mut builder = reqwest::Client::builder();
        for pem in &cfg.extra_roots {
            let certs =
                reqwest::Certificate::from_pem_bundle(pem).map_err(FetchError::Certificates)?;
            if certs.is_empty() {
                return Err(FetchError::NoCertificates);
            }
            for c in certs {
                builder = builder.add_root_certificate(c);
            }
        }
        let http = builder
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .referer(false)
            .user_agent(cfg.user_agent.clone())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.timeout)
            .dns_resolver(Arc::new(GuardedResolver::new(cfg.scope)))
            .build()
            .map_err(FetchError::Client)?;
        Ok(Client {
            http,
            cfg,
            next_slot: Mutex::new(HashMap::new()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        &self.cfg
    }

    /// Waits until a request to `host` keeps the per-host delay, and takes that slot.
    pub(crate) async fn wait_turn(&self, host: &str) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_removes_fragment_and_userinfo_only() {
        let mut u =
            Url::parse("https://user:pw@docs.example.org/A?utm_source=x#frag").expect("url");
        assert!(sanitize(&mut u));
        assert_eq!(u.as_str(), "https://docs.example.org/A?utm_source=x");
        let mut u = Url::parse("https://docs.example.org/#x").expect("url");
        assert!(!sanitize(&mut u));
        assert_eq!(u.as_str(), "https://docs.example.org/");
    }

    #[test]
    fn a_certificate_file_without_certificates_is_refused() {
        let mut cfg = FetchConfig::new(user_agent("test"));
        cfg.extra_roots = vec![b"not a certificate\n".to_vec()];
        let e = Client::new(cfg).err().expect("refused");
        assert!(matches!(e, FetchError::NoCertificates), "{e}");
        assert!(!e.to_string().contains("--"), "{e}");
    }

    #[test]
    fn user_agent_names_the_tool_and_the_purpose() {
        let ua = user_agent("citation verification");
        assert!(ua.starts_with("urlkey/"), "{ua}");
        assert!(ua.ends_with("(+citation verification)"), "{ua}");
    }
}

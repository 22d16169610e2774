//! Why a request got no response: the error of the HTTP client, typed by what a caller
//! reports (a refusal, DNS, a timeout, TLS, the connection, anything else).

use crate::guard::{DnsFailure, Refused};

/// The error and its causes, joined with `: ` (a cause already in the text is not
/// repeated).
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

/// A request that got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The resolver refused every address of the host ([`Refused`]).
    Refused(Refused),
    /// The resolver's refusal, when a layer of the client hid its type: the error chain.
    RefusedHidden(String),
    /// The name did not resolve.
    Dns(DnsFailure),
    /// No answer within the timeout: the error chain.
    Timeout(String),
    /// The TLS handshake or the certificate failed: the error chain.
    Tls(String),
    /// The connection could not be made: the error chain.
    Connect(String),
    /// Anything else: the error chain.
    Other(String),
}

impl Failure {
    /// Types an error of the HTTP client.
    pub fn of(e: &reqwest::Error) -> Failure {
        let chain = error_chain(e);
        if let Some(r) = find_in_chain::<Refused>(e) {
            return Failure::Refused(r.clone());
        }
        if chain.contains("refused before connecting") {
            return Failure::RefusedHidden(chain);
        }
        if let Some(d) = find_in_chain::<DnsFailure>(e) {
            return Failure::Dns(d.clone());
        }
        if e.is_timeout() {
            return Failure::Timeout(chain);
        }
        let lower = chain.to_ascii_lowercase();
        if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            || lower.contains("ssl")
        {
            return Failure::Tls(chain);
        }
        if e.is_connect() {
            return Failure::Connect(chain);
        }
        Failure::Other(chain)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused(r) => write!(f, "{r}"),
            Failure::Dns(d) => write!(f, "{d}"),
            Failure::RefusedHidden(c)
            | Failure::Timeout(c)
            | Failure::Tls(c)
            | Failure::Connect(c)
            | Failure::Other(c) => f.write_str(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(Box<dyn std::error::Error + 'static>);
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("request failed")
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(self.0.as_ref())
        }
    }

    #[test]
    fn the_chain_names_each_cause_once_and_finds_a_typed_one() {
        let dns = DnsFailure {
            host: "nowhere.invalid".into(),
            message: "no such host".into(),
        };
        let e = Outer(Box::new(dns.clone()));
        assert_eq!(
            error_chain(&e),
            "request failed: DNS lookup of nowhere.invalid failed: no such host"
        );
        assert_eq!(find_in_chain::<DnsFailure>(&e), Some(&dns));
        assert!(find_in_chain::<Refused>(&e).is_none());
    }
}

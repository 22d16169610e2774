//! What the report counts as a publisher: the key's hostname (the seed document's
//! `publisher_hostname`, the default) or its registrable domain (`--publisher
//! registrable`: `docs.example.org` and `wiki.example.org` both count as `example.org`),
//! from the Public Suffix List snapshot embedded in the `urlkey` library.

use std::net::IpAddr;

use serde::Serialize;

/// The unit publishers are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PublisherUnit {
    /// The key's hostname, as stored (`docs.example.org`).
    #[default]
    Host,
    /// The hostname's registrable domain from the Public Suffix List (`example.org`).
    Registrable,
}

impl crate::choice::Choice for PublisherUnit {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            PublisherUnit::Host,
            "host",
            "The key's hostname, as stored (`docs.example.org`)",
        ),
        (
            PublisherUnit::Registrable,
            "registrable",
            "The hostname's registrable domain from the Public Suffix List (`example.org`)",
        ),
    ];
}

crate::choice::from_str_by_name!(PublisherUnit);

impl PublisherUnit {
    /// `host` or `registrable`.
    pub fn as_str(self) -> &'static str {
        match self {
            PublisherUnit::Host => "host",
            PublisherUnit::Registrable => "registrable",
        }
    }

    /// What a publisher is, in words (for the printed reports).
    pub fn noun(self) -> &'static str {
        match self {
            PublisherUnit::Host => "publisher hostnames",
            PublisherUnit::Registrable => "publisher registrable domains",
        }
    }

    /// The column header naming one publisher.
    pub fn header(self) -> &'static str {
        match self {
            PublisherUnit::Host => "hostname",
            PublisherUnit::Registrable => "registrable domain",
        }
    }
}

/// The registrable domain of a key's hostname, or the hostname itself when it has none:
/// an IP address (never looked up: the list would make `0.1` of `192.168.0.1`), a bracketed
/// IPv6 literal, a name that is itself a public suffix, or one with an empty label. The
/// lookup is on the lowercase name (the list's lookups are case-sensitive). A name under a
/// top-level label without a rule follows the default `*` rule (`x.unknowntld` stays
/// `x.unknowntld`).
pub fn registrable(host: &str) -> String {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        return host.to_string();
    }
    let lower = host.trim_end_matches('.').to_ascii_lowercase();
    match urlkey::PublicSuffixList::embedded_static().registrable_domain(&lower) {
        Some(d) => d.to_string(),
        None => lower,
    }
}

#[cfg(test)]
mod tests {
    use super::registrable;

    #[test]
    fn roll_up_by_hand() {
        assert_eq!(registrable("docs.example.org"), "example.org");
        assert_eq!(registrable("wiki.example.org"), "example.org");
        assert_eq!(registrable("news.example.com.au"), "example.com.au");
        assert_eq!(registrable("a.b.example.co.uk"), "example.co.uk");
        // Lowercase lookups: an uppercase name is found too.
        assert_eq!(registrable("Docs.Example.ORG"), "example.org");
        // IP hosts are never looked up.
        assert_eq!(registrable("192.168.0.1"), "192.168.0.1");
        assert_eq!(registrable("[::1]"), "[::1]");
        assert_eq!(registrable("2001:db8::1"), "2001:db8::1");
        // The default `*` rule, a bare suffix, a single label.
        assert_eq!(
            registrable("xn--bcher-kva.example"),
            "xn--bcher-kva.example"
        );
        assert_eq!(registrable("co.uk"), "co.uk");
        assert_eq!(registrable("localhost"), "localhost");
        // A private-section suffix: each github.io site is its own publisher.
        assert_eq!(registrable("alice.github.io"), "alice.github.io");
    }
}

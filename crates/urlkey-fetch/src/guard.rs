//! Where a request may connect. By default only to public unicast addresses: loopback,
//! private, shared, link-local, documentation, reserved, IPv4-mapped and other embedded
//! forms are refused, and multicast, broadcast and unspecified addresses always are.
//!
//! The check sits where the address is chosen, so there is no gap between checking and
//! connecting (no DNS rebinding): host names are resolved by [`GuardedResolver`], which
//! hands the HTTP client only the addresses that pass, so the client can connect to no
//! other; IP-literal hosts never reach a resolver and are checked by [`check_url_host`]
//! before any request. The address a response came from is checked once more.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// Which non-public addresses a client may connect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkScope {
    /// Public unicast addresses only (the default).
    Public,
    /// Public addresses and loopback (127.0.0.0/8, ::1): a server on this machine.
    PublicAndLoopback,
    /// Also private, shared, link-local and reserved ranges. Multicast, broadcast and
    /// unspecified addresses stay refused.
    AnyPrivate,
}

impl NetworkScope {
    /// Its name in records and messages (the ledger stores it in
    /// `verifications.network_scope`).
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkScope::Public => "public",
            NetworkScope::PublicAndLoopback => "public+loopback",
            NetworkScope::AnyPrivate => "any-private",
        }
    }
}

/// What kind of non-public address an IP is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1
    Loopback,
    /// 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10
    Private,
    /// 100.64.0.0/10 (carrier-grade NAT)
    SharedAddressSpace,
    /// 169.254/16, fe80::/10
    LinkLocal,
    /// 224/4, ff00::/8
    Multicast,
    /// 255.255.255.255
    Broadcast,
    /// 0.0.0.0/8, ::
    Unspecified,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
    Documentation,
    /// ::ffff:0:0/96
    Ipv4Mapped,
    /// IPv4 embedded in IPv6 by translation or tunnelling: 64:ff9b::/96, 64:ff9b:1::/48,
    /// 2002::/16, the deprecated ::/96
    Ipv4Embedded,
    /// Everything else not globally routable: 192.0.0/24, 198.18/15, 240/4, 192.88.99/24,
    /// 100::/64, 2001::/23
    Reserved,
}

impl AddressClass {
    /// A word for messages and records.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::SharedAddressSpace => "shared-address-space",
            AddressClass::LinkLocal => "link-local",
            AddressClass::Multicast => "multicast",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Documentation => "documentation",
            AddressClass::Ipv4Mapped => "ipv4-mapped",
            AddressClass::Ipv4Embedded => "ipv4-embedded",
            AddressClass::Reserved => "reserved",
        }
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    let [a, b, c, _] = ip.octets();
    use AddressClass::*;
    Some(match (a, b, c) {
        (0, _, _) => Unspecified,
        (10, _, _) => Private,
        (100, 64..=127, _) => SharedAddressSpace,
        (127, _, _) => Loopback,
        (169, 254, _) => LinkLocal,
        (172, 16..=31, _) => Private,
        (192, 0, 0) => Reserved,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => Documentation,
        (192, 88, 99) => Reserved,
        (192, 168, _) => Private,
        (198, 18..=19, _) => Reserved,
        (224..=239, _, _) => Multicast,
        (255, 255, 255) if ip == Ipv4Addr::BROADCAST => Broadcast,
        (240..=255, _, _) => Reserved,
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some(Unspecified);
    }
    if ip.is_loopback() {
        return Some(Loopback);
    }
    if s[0..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff {
        return Some(Ipv4Mapped);
    }
    Some(match s[0] {
        0 if s[1..6] == [0, 0, 0, 0, 0] => Ipv4Embedded,
        0 => Reserved,
        0x64 if s[1] == 0xff9b && (s[2..6] == [0, 0, 0, 0] || s[2] == 1) => Ipv4Embedded,
        0x100 if s[1..4] == [0, 0, 0] => Reserved,
        0x2001 if s[1] == 0x0db8 => Documentation,
        0x2001 if s[1] < 0x200 => Reserved,
        0x2002 => Ipv4Embedded,
        0x3fff if s[1] < 0x1000 => Documentation,
        x if x & 0xfe00 == 0xfc00 => Private,
        x if x & 0xffc0 == 0xfe80 => LinkLocal,
        x if x & 0xffc0 == 0xfec0 => Private,
        x if x & 0xff00 == 0xff00 => Multicast,
        _ => return None,
    })
}

/// The class of a non-public address; `None` for a public unicast one.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// `Ok` when a client may connect to `ip` under `scope`, else the class that forbids it.
pub fn check_ip(ip: IpAddr, scope: NetworkScope) -> Result<(), AddressClass> {
    let Some(class) = classify(ip) else {
        return Ok(());
    };
    use AddressClass::*;
    let allowed = match class {
        Multicast | Broadcast | Unspecified => false,
        Loopback => scope != NetworkScope::Public,
        Ipv4Mapped | Ipv4Embedded => {
            // Allowed only under the widest scope, and then only if the embedded IPv4
            // address would be.
            scope == NetworkScope::AnyPrivate
                && match ip {
                    IpAddr::V6(v6) => {
                        let o = v6.octets();
                        let v4 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
                        check_ip(IpAddr::V4(v4), scope).is_ok()
                    }
                    IpAddr::V4(_) => false,
                }
        }
        _ => scope == NetworkScope::AnyPrivate,
    };
    if allowed {
        Ok(())
    } else {
        Err(class)
    }
}

/// A refusal: the host, and each address with the class that forbade it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The host name or IP literal.
    pub host: String,
    /// The refused addresses.
    pub addrs: Vec<(IpAddr, AddressClass)>,
}

/// The least a caller must allow for a refused target to be fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowance {
    /// Loopback would do ([`NetworkScope::PublicAndLoopback`]).
    Loopback,
    /// Only private networks would ([`NetworkScope::AnyPrivate`]).
    PrivateNetwork,
    /// Loopback or private networks: which one is not known (a layer of the HTTP client
    /// hid the refusal's type).
    LoopbackOrPrivate,
    /// Nothing: multicast, broadcast and unspecified addresses are never fetched.
    Never,
}

impl Refused {
    /// What would allow the target: the caller words it with its own settings (the ledger
    /// as its `Hint`, the command line with its flags).
    pub fn allowance(&self) -> Allowance {
        use AddressClass::*;
        let classes: Vec<AddressClass> = self.addrs.iter().map(|(_, c)| *c).collect();
        if classes
            .iter()
            .all(|c| matches!(c, Multicast | Broadcast | Unspecified))
        {
            Allowance::Never
        } else if classes.contains(&Loopback) {
            Allowance::Loopback
        } else {
            Allowance::PrivateNetwork
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self
            .addrs
            .iter()
            .map(|(ip, c)| format!("{ip} ({})", c.as_str()))
            .collect();
        let literal = self.addrs.len() == 1
            && self
                .host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok();
        if literal {
            write!(
                f,
                "refused before connecting: {} is a non-public address ({})",
                self.host,
                self.addrs[0].1.as_str()
            )
        } else {
            write!(
                f,
                "refused before connecting: {} resolves only to non-public addresses: {}",
                self.host,
                list.join(", ")
            )
        }
    }
}

impl std::error::Error for Refused {}

/// A name that did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsFailure {
    /// The host name.
    pub host: String,
    /// Why.
    pub message: String,
}

impl fmt::Display for DnsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DNS lookup of {} failed: {}", self.host, self.message)
    }
}

impl std::error::Error for DnsFailure {}

/// Checks a URL whose host is an IP literal (which no resolver sees). Host names pass
/// here and are checked by [`GuardedResolver`].
pub fn check_url_host(url: &Url, scope: NetworkScope) -> Result<(), Refused> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    check_ip(ip, scope).map_err(|class| Refused {
        host: url.host_str().unwrap_or_default().to_string(),
        addrs: vec![(ip, class)],
    })
}

/// A DNS resolver for the HTTP client that drops every address the scope forbids, and
/// fails the lookup (with [`Refused`]) when none is left.
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    scope: NetworkScope,
}

impl GuardedResolver {
    /// A resolver for this scope.
    pub fn new(scope: NetworkScope) -> GuardedResolver {
        GuardedResolver { scope }
    }

    /// Resolves `host` (through the system resolver) and filters the answers.
    pub async fn lookup(
        &self,
        host: &str,
    ) -> Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
        let answers: Vec<SocketAddr> = match tokio::net::lookup_host((host, 0)).await {
            Ok(a) => a.collect(),
            Err(e) => {
                return Err(Box::new(DnsFailure {
                    host: host.to_string(),
                    message: e.to_string(),
                }))
            }
        };
        let mut allowed = Vec::new();
        let mut refused = Vec::new();
        for a in answers {
            match check_ip(a.ip(), self.scope) {
                Ok(()) => allowed.push(a),
                Err(class) => refused.push((a.ip(), class)),
            }
        }
        if allowed.is_empty() {
            if refused.is_empty() {
                return Err(Box::new(DnsFailure {
                    host: host.to_string(),
                    message: "no addresses".to_string(),
                }));
            }
            return Err(Box::new(Refused {
                host: host.to_string(),
                addrs: refused,
            }));
        }
        Ok(allowed)
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            let addrs = this.lookup(name.as_str()).await?;
            let it: Addrs = Box::new(addrs.into_iter());
            Ok(it)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn public_addresses_pass() {
        for a in [
            "93.184.215.14",
            "1.1.1.1",
            "2606:4700::1111",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
        ] {
            assert_eq!(check_ip(ip(a), NetworkScope::Public), Ok(()), "{a}");
        }
    }

    #[test]
    fn non_public_addresses_are_refused_by_default() {
        use AddressClass::*;
        let cases = [
            ("127.0.0.1", Loopback),
            ("127.8.9.10", Loopback),
            ("::1", Loopback),
            ("10.0.0.1", Private),
            ("172.16.5.4", Private),
            ("192.168.1.1", Private),
            ("100.64.0.1", SharedAddressSpace),
            ("169.254.169.254", LinkLocal),
            ("fe80::1", LinkLocal),
            ("fd00::1", Private),
            ("224.0.0.1", Multicast),
            ("ff02::1", Multicast),
            ("0.0.0.0", Unspecified),
            ("::", Unspecified),
            ("255.255.255.255", Broadcast),
            ("::ffff:127.0.0.1", Ipv4Mapped),
            ("::ffff:8.8.8.8", Ipv4Mapped),
            ("64:ff9b::a00:1", Ipv4Embedded),
            ("2002:a00:1::", Ipv4Embedded),
            ("192.0.2.1", Documentation),
            ("2001:db8::1", Documentation),
            ("240.0.0.1", Reserved),
            ("198.18.0.1", Reserved),
        ];
        for (a, class) in cases {
            assert_eq!(check_ip(ip(a), NetworkScope::Public), Err(class), "{a}");
        }
    }

    #[test]
    fn scopes_widen_as_documented() {
        let lo = NetworkScope::PublicAndLoopback;
        let any = NetworkScope::AnyPrivate;
        assert_eq!(check_ip(ip("127.0.0.1"), lo), Ok(()));
        assert_eq!(check_ip(ip("::1"), lo), Ok(()));
        assert!(check_ip(ip("10.0.0.1"), lo).is_err());
        assert!(check_ip(ip("169.254.169.254"), lo).is_err());
        assert!(check_ip(ip("::ffff:127.0.0.1"), lo).is_err());
        assert_eq!(check_ip(ip("10.0.0.1"), any), Ok(()));
        assert_eq!(check_ip(ip("169.254.169.254"), any), Ok(()));
        assert_eq!(check_ip(ip("::ffff:10.0.0.1"), any), Ok(()));
        // Never a web server, whatever the scope.
        for a in [
            "0.0.0.0",
            "::",
            "224.0.0.1",
            "255.255.255.255",
            "ff02::1",
            "::ffff:0.0.0.0",
        ] {
            assert!(check_ip(ip(a), any).is_err(), "{a}");
        }
    }

    #[test]
    fn ip_literal_hosts_are_checked_in_every_spelling() {
        for u in [
            "http://10.0.0.1/",
            "http://0x0a.0.0.1/",
            "http://167772161/",
            "http://[::ffff:a00:1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[fe80::1]/",
            "http://0/",
        ] {
            let url = Url::parse(u).expect("url");
            assert!(
                check_url_host(&url, NetworkScope::PublicAndLoopback).is_err(),
                "{u}"
            );
        }
        let url = Url::parse("http://docs.example.org/").expect("url");
        assert!(check_url_host(&url, NetworkScope::Public).is_ok());
    }

    #[test]
    fn resolver_filters_names_that_resolve_to_loopback() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        rt.block_on(async {
            let r = GuardedResolver::new(NetworkScope::Public);
            let err = r.lookup("localhost").await.expect_err("refused");
            assert!(err.downcast_ref::<Refused>().is_some(), "{err}");
            let r = GuardedResolver::new(NetworkScope::PublicAndLoopback);
            let ok = r.lookup("localhost").await.expect("allowed");
            assert!(ok.iter().all(|a| a.ip().is_loopback()));
        });
    }
}

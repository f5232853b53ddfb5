//! Where `webfetch` may connect: the addresses a name resolves to are filtered before
//! any connection (a DNS resolver of reqwest's that drops the refused ones), a URL
//! with a literal address is checked before it is sent, and every redirect hop is
//! checked again (same origin by default, never from https to http).

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::redirect::{Attempt, Policy};

/// The most redirects one fetch follows.
const MAX_REDIRECTS: usize = 10;

/// What `webfetch` may reach, from [`Builtins`](super::Builtins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Network {
    /// Every address allowed (loopback, private, link-local…).
    pub(super) private: bool,
    /// These addresses allowed, whatever their kind.
    pub(super) allowed: BTreeSet<IpAddr>,
    /// Redirects to another origin followed (never from https to http).
    pub(super) cross_origin: bool,
}

/// A refusal of the network rules, worded for the model.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Refused(pub(super) String);

/// The kind of an IPv4 address that is not on the public internet, if it is one.
fn special_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (carrier-grade NAT)")
    } else if ip.is_broadcast() || ip.is_multicast() || a >= 240 {
        Some("broadcast, multicast or reserved")
    } else {
        None
    }
}

/// The kind of an address that is not on the public internet, if it is one: loopback,
/// private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10),
/// unique-local (fc00::/7), unspecified, shared, multicast and reserved ranges, and an
/// IPv4 address of these kinds inside an IPv6 one (mapped `::ffff:a.b.c.d`, compatible
/// `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
pub(super) fn special(ip: IpAddr) -> Option<&'static str> {
    let v6 = match ip {
        IpAddr::V4(v4) => return special_v4(v4),
        IpAddr::V6(v6) => v6,
    };
    let s = v6.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = v6.to_ipv4_mapped() {
        return special_v4(v4);
    }
    if v6.is_loopback() {
        Some("loopback")
    } else if v6.is_unspecified() {
        Some("unspecified")
    } else if v6.is_unicast_link_local() || s[0] & 0xffc0 == 0xfec0 {
        Some("link-local")
    } else if v6.is_unique_local() {
        Some("unique-local")
    } else if v6.is_multicast() {
        Some("broadcast, multicast or reserved")
    } else if s[..6] == [0; 6] || (s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4]) {
        special_v4(embedded(s[6], s[7]))
    } else if s[0] == 0x2002 {
        special_v4(embedded(s[1], s[2]))
    } else {
        None
    }
}

impl Network {
    /// Why `ip` is refused, if it is.
    fn refuses(&self, ip: IpAddr) -> Option<&'static str> {
        if self.private || self.allowed.contains(&ip) {
            return None;
        }
        special(ip)
    }

    /// Whether proxies from the environment may carry the requests: only when every
    /// address is allowed, since a proxy resolves names itself.
    pub(super) fn proxies(&self) -> bool {
        self.private
    }

    /// A URL whose host is a literal address, checked (a name is checked when it is
    /// resolved).
    pub(super) fn check_url(&self, url: &reqwest::Url) -> Result<(), Refused> {
        // The URL parser writes an address host in its canonical form (`[...]` around
        // IPv6; `0x7f.1` and `2130706433` become `127.0.0.1`).
        let host = url.host_str().unwrap_or_default();
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let Ok(ip) = host.parse::<IpAddr>() else {
            return Ok(());
        };
        match self.refuses(ip) {
            Some(kind) => Err(refusal(url.as_str(), ip, kind)),
            None => Ok(()),
        }
    }

    /// Whether one redirect hop is followed: from `from` (the fetch began at `first`)
    /// to `to`, after `hops` redirects.
    fn hop(
        &self,
        first: &reqwest::Url,
        from: &reqwest::Url,
        to: &reqwest::Url,
        hops: usize,
    ) -> Result<(), Refused> {
        if hops > MAX_REDIRECTS {
            return Err(Refused(format!(
                "{first} redirects more than {MAX_REDIRECTS} times"
            )));
        }
        if from.scheme() == "https" && to.scheme() != "https" {
            return Err(Refused(format!(
                "{from} redirects to {to}, from https to plain http: not followed"
            )));
        }
        if !self.cross_origin && to.origin() != first.origin() {
            return Err(Refused(format!(
                "{from} redirects to {to}, another origin than {}: not followed \
                 (webfetch follows redirects within the origin it was asked for)",
                first.origin().ascii_serialization()
            )));
        }
        self.check_url(to)
            .map_err(|refused| Refused(format!("{from} redirects to {refused}")))
    }

    /// The redirect policy: [`Network::hop`] for every hop.
    pub(super) fn redirects(self: &Arc<Self>) -> Policy {
        let network = Arc::clone(self);
        Policy::custom(move |attempt: Attempt<'_>| {
            let previous = attempt.previous();
            let (Some(first), Some(from)) = (previous.first(), previous.last()) else {
                return attempt.follow();
            };
            match network.hop(first, from, attempt.url(), previous.len()) {
                Ok(()) => attempt.follow(),
                Err(refused) => attempt.error(refused),
            }
        })
    }
}

fn refusal(what: &str, ip: IpAddr, kind: &str) -> Refused {
    Refused(format!(
        "{what} is refused: {ip} is a {kind} address, and webfetch reaches only public \
         addresses"
    ))
}

/// The resolver: the system's (`getaddrinfo`, on tokio's blocking pool), with the
/// refused addresses dropped before reqwest connects to any.
pub(super) struct Resolver(pub(super) Arc<Network>);

impl Resolve for Resolver {
    fn resolve(&self, name: Name) -> Resolving {
        let network = Arc::clone(&self.0);
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (kept, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
                .into_iter()
                .partition(|addr| network.refuses(addr.ip()).is_none());
            if let Some(first) = refused.first()
                && kept.is_empty()
            {
                let ip = first.ip();
                let kind = network.refuses(ip).unwrap_or("refused");
                let all: Vec<String> = refused.iter().map(|a| a.ip().to_string()).collect();
                return Err(Box::new(Refused(format!(
                    "{host} resolves to {}; it is refused: {ip} is a {kind} address, and \
                     webfetch reaches only public addresses",
                    all.join(", ")
                )))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranges_that_are_not_public() {
        let kind = |text: &str| special(text.parse().unwrap());
        for (ip, expected) in [
            ("127.0.0.1", Some("loopback")),
            ("127.8.9.10", Some("loopback")),
            ("10.1.2.3", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("0.0.0.0", Some("unspecified")),
            ("100.64.0.1", Some("shared (carrier-grade NAT)")),
            ("::1", Some("loopback")),
            ("::", Some("unspecified")),
            ("fe80::1", Some("link-local")),
            ("fd00::1", Some("unique-local")),
            ("fc00::1", Some("unique-local")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:169.254.169.254", Some("link-local")),
            ("::ffff:10.0.0.1", Some("private")),
            ("::127.0.0.1", Some("loopback")),
            ("64:ff9b::a9fe:a9fe", Some("link-local")),
            ("2002:7f00:1::", Some("loopback")),
            ("8.8.8.8", None),
            ("172.32.0.1", None),
            ("2606:4700::1111", None),
            ("::ffff:8.8.8.8", None),
        ] {
            assert_eq!(kind(ip), expected, "{ip}");
        }
    }

    #[test]
    fn urls_with_a_literal_address_and_redirect_hops() {
        let url = |text: &str| reqwest::Url::parse(text).unwrap();
        let network = Network::default();
        for refused in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fe80::1]/",
            "http://10.0.0.1/",
            "http://127.0.0.1:8080/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]/",
            "http://0.0.0.0/",
        ] {
            let error = network.check_url(&url(refused)).unwrap_err().to_string();
            assert!(
                error.contains("webfetch reaches only public addresses"),
                "{refused}: {error}"
            );
        }
        assert!(network.check_url(&url("http://example.com/")).is_ok());
        assert!(network.check_url(&url("http://93.184.215.14/")).is_ok());

        let first = url("https://example.com/a");
        let same = url("https://example.com/b");
        assert!(network.hop(&first, &first, &same, 1).is_ok());
        let down = network.hop(&first, &first, &url("http://example.com/b"), 1);
        assert!(down.unwrap_err().0.contains("from https to plain http"));
        let other = network.hop(&first, &first, &url("https://example.org/"), 1);
        assert!(other.unwrap_err().0.contains("another origin"));
        assert!(network.hop(&first, &same, &same, 11).is_err());
        let open = Network {
            cross_origin: true,
            ..Network::default()
        };
        assert!(
            open.hop(&first, &first, &url("https://example.org/"), 1)
                .is_ok()
        );
        // Still never down to http, nor to a refused address.
        assert!(
            open.hop(&first, &first, &url("http://example.org/"), 1)
                .is_err()
        );
        let metadata = open.hop(&first, &first, &url("https://169.254.169.254/"), 1);
        assert!(metadata.unwrap_err().0.contains("link-local"));
    }

    #[test]
    fn the_app_may_allow_them() {
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(Network::default().refuses(ip).is_some());
        let one = Network {
            allowed: [ip].into(),
            ..Network::default()
        };
        assert!(one.refuses(ip).is_none());
        assert!(one.refuses("127.0.0.2".parse().unwrap()).is_some());
        let all = Network {
            private: true,
            ..Network::default()
        };
        assert!(all.refuses("169.254.169.254".parse().unwrap()).is_none());
    }
}

//! Who is calling, by network address: the client address that per-address limits count
//! (unsigned API calls, upload bytes, sign-ins), and the first holder of a request's engine
//! calls.
//!
//! The address is the connection's peer, unless the peer is one of the operator's trusted
//! proxies: then it is the nearest address in `X-Forwarded-For` that is not a trusted proxy
//! (the right-most untrusted one; anything left of it could have been written by the client).
//! An IPv6 client is counted by its /64 network, which one subscriber usually holds whole.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::HeaderMap;
use axum::http::request::Parts;

use crate::infra::settings;
use crate::infra::store::Kind;

/// Record kind: fixed-window counts: calls per key or address, upload bytes, sign-in attempts.
pub const RATE_LIMITS: Kind = Kind::new("ratelimit");

/// An address range `address/prefix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    address: IpAddr,
    prefix: u8,
}

impl Network {
    /// Parses `203.0.113.0/24`, `2001:db8::/32` or a single address.
    pub fn parse(text: &str) -> Option<Network> {
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix.parse::<u8>().ok()?)),
            None => (text.trim(), None),
        };
        let address: IpAddr = address.parse().ok()?;
        let bits = if address.is_ipv4() { 32 } else { 128 };
        let prefix = prefix.unwrap_or(bits);
        (prefix <= bits).then_some(Network { address, prefix })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let (network, ip, bits) = match (self.address, canonical(ip)) {
            (IpAddr::V4(n), IpAddr::V4(ip)) => {
                (u128::from(n.to_bits()), u128::from(ip.to_bits()), 32)
            }
            (IpAddr::V6(n), IpAddr::V6(ip)) => (n.to_bits(), ip.to_bits(), 128),
            _ => return false,
        };
        let shift = bits - u32::from(self.prefix);
        shift >= bits || (network >> shift) == (ip >> shift)
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The trusted proxies of a deployment.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(pub Vec<Network>);

impl<'de> serde::Deserialize<'de> for TrustedProxies {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        settings::list(
            deserializer,
            Network::parse,
            "comma-separated addresses or networks such as 10.0.0.0/8",
        )
        .map(TrustedProxies)
    }
}

impl TrustedProxies {
    /// The client's address for a request from `peer` with these headers.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in forwarded.iter().rev() {
            match hop.parse::<IpAddr>().map(canonical) {
                Ok(ip) if self.trusts(ip) => continue,
                Ok(ip) => return ip,
                // A malformed entry: nothing left of it can be believed.
                Err(_) => return peer,
            }
        }
        peer
    }

    /// The client's address of a request as axum sees it (the peer from `ConnectInfo`).
    pub fn client_of(&self, parts: &Parts) -> Option<IpAddr> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>()?.0.ip();
        Some(self.client(peer, &parts.headers))
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|network| network.contains(ip))
    }
}

/// The name a client address is counted under: the address, or an IPv6 address's /64.
pub fn limit_key(ip: IpAddr) -> String {
    match canonical(ip) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let network = Ipv6Addr::from_bits(v6.to_bits() & !((1u128 << 64) - 1));
            format!("{network}/64")
        }
    }
}

/// Limits on what callers without an API key may do, per client address.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(default)]
pub struct UnsignedLimits {
    /// Calls per minute; 0: no limit.
    #[serde(
        rename = "unsigned_rate_limit_per_minute",
        deserialize_with = "settings::count::<_, _, 0, 1_000_000>"
    )]
    pub calls_per_minute: u64,
    /// Bytes of uploaded image files per hour; 0: no limit.
    #[serde(
        rename = "unsigned_upload_bytes_per_hour",
        deserialize_with = "settings::count::<_, _, 0, 1_000_000_000_000>"
    )]
    pub upload_bytes_per_hour: u64,
}

impl Default for UnsignedLimits {
    fn default() -> Self {
        UnsignedLimits {
            calls_per_minute: 1200,
            upload_bytes_per_hour: 250_000_000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn networks_contain_their_addresses() {
        let net = Network::parse("10.0.0.0/8").unwrap();
        assert!(net.contains(ip("10.1.2.3")));
        assert!(net.contains(ip("::ffff:10.1.2.3")));
        assert!(!net.contains(ip("11.0.0.1")));
        assert!(Network::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        assert!(
            Network::parse("2001:db8::/32")
                .unwrap()
                .contains(ip("2001:db8::1"))
        );
        assert!(
            Network::parse("127.0.0.1")
                .unwrap()
                .contains(ip("127.0.0.1"))
        );
        assert!(
            !Network::parse("127.0.0.1")
                .unwrap()
                .contains(ip("127.0.0.2"))
        );
        assert_eq!(Network::parse("10.0.0.0/33"), None);
        assert_eq!(Network::parse("nonsense"), None);
    }

    #[test]
    fn the_client_is_the_nearest_untrusted_forwarded_address() {
        let proxies = TrustedProxies(vec![Network::parse("10.0.0.0/8").unwrap()]);
        let mut headers = HeaderMap::new();
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_static("1.1.1.1, 203.0.113.9, 10.0.0.2"),
        );
        assert_eq!(proxies.client(ip("10.0.0.1"), &headers), ip("203.0.113.9"));
        // From an untrusted peer the header is the client's own word.
        assert_eq!(
            proxies.client(ip("198.51.100.1"), &headers),
            ip("198.51.100.1")
        );
        let none = TrustedProxies::default();
        assert_eq!(none.client(ip("10.0.0.1"), &headers), ip("10.0.0.1"));
        headers.insert("x-forwarded-for", HeaderValue::from_static("junk"));
        assert_eq!(proxies.client(ip("10.0.0.1"), &headers), ip("10.0.0.1"));
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        assert_eq!(limit_key(ip("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2::/64");
        assert_eq!(limit_key(ip("::ffff:192.0.2.1")), "192.0.2.1");
        assert_eq!(limit_key(ip("192.0.2.1")), "192.0.2.1");
    }
}

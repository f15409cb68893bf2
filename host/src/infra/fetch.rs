//! Fetching an image for `svc.image.importImage` from a URL, reaching public addresses only.
//!
//! A URL given by an API client must not make the server reach what only the server can reach
//! (server-side request forgery): loopback, the private network, the cloud metadata service.
//! So every address a fetch connects to is checked first, and the check and the connection
//! use the same addresses:
//!
//! - host names are resolved by [`CheckedResolver`], which refuses the whole name if any of
//!   its addresses is not public and hands the HTTP client only the addresses it checked, so
//!   a name cannot resolve to a public address for the check and a private one for the
//!   connection (DNS rebinding);
//! - IP-literal hosts never reach a resolver (the HTTP client connects to them directly), so
//!   [`Fetcher`] checks them itself before each request;
//! - redirects are followed by hand, each new URL checked exactly like the first one;
//! - proxies from the environment are ignored: a proxy would resolve and connect for us.
//!
//! Hosts on the operator's allow-list skip the address check (an internal image server).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{StatusCode, header};
use url::{Host, Url};

/// The most redirects one fetch follows.
pub const MAX_REDIRECTS: usize = 3;

/// The longest URL an error message repeats: URLs may carry tokens in their query, and the
/// start of a URL is enough to recognise it.
const SHOWN_URL_CHARS: usize = 200;

/// Host names of cloud metadata services, refused even before resolving them.
const METADATA_HOSTS: [&str; 2] = ["metadata.google.internal", "metadata"];

/// Addresses of cloud metadata services (AWS, GCP, Azure, OpenStack; AWS over IPv6). They lie
/// in refused ranges already; naming them keeps them refused whatever becomes of the ranges.
const METADATA_ADDRESSES: [IpAddr; 2] = [
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
];

/// IPv4 ranges that are not globally routable (IANA's special-purpose address registry).
const NON_PUBLIC_V4: [(Ipv4Addr, u32); 15] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network"
    (Ipv4Addr::new(10, 0, 0, 0), 8),      // private
    (Ipv4Addr::new(100, 64, 0, 0), 10),   // carrier-grade NAT
    (Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local, cloud metadata
    (Ipv4Addr::new(172, 16, 0, 0), 12),   // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),    // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),    // documentation (TEST-NET-1)
    (Ipv4Addr::new(192, 88, 99, 0), 24),  // 6to4 relay anycast (deprecated)
    (Ipv4Addr::new(192, 168, 0, 0), 16),  // private
    (Ipv4Addr::new(198, 18, 0, 0), 15),   // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation (TEST-NET-2)
    (Ipv4Addr::new(203, 0, 113, 0), 24),  // documentation (TEST-NET-3)
    (Ipv4Addr::new(224, 0, 0, 0), 4),     // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),     // reserved, and the broadcast address
];

/// Global unicast IPv6 (2000::/3): everything outside it is special (unspecified, loopback,
/// IPv4-compatible, discard, unique-local, link-local, site-local, multicast...) or not
/// allocated, and refused; the IPv4 translations are judged by their IPv4 address first.
const GLOBAL_V6: (Ipv6Addr, u32) = (Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

/// The ranges inside 2000::/3 that are not globally routable.
const NON_PUBLIC_GLOBAL_V6: [(Ipv6Addr, u32); 3] = [
    // IETF protocol assignments: Teredo (embeds a hidden IPv4 address), benchmarking, ORCHID.
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23),
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20),     // documentation
];

/// NAT64 (64:ff9b::/96): the last 32 bits are the IPv4 address it reaches.
const NAT64: (Ipv6Addr, u32) = (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96);

/// 6to4 (2002::/16): bits 16 to 48 are the IPv4 address it reaches.
const SIX_TO_FOUR: (Ipv6Addr, u32) = (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16);

/// What an import may fetch, and how much of it.
#[derive(Debug, Clone)]
pub struct FetchPolicy {
    /// Host names (lower-case, no port) exempt from the public-address check (operator
    /// allow-list).
    pub allow_hosts: Vec<String>,
    /// Static host entries like curl --resolve: a name maps to these addresses instead of DNS.
    /// NOT exempt from the public-address check (unless also in allow_hosts).
    pub resolve: Vec<(String, IpAddr)>,
    /// Whole-fetch time limit (connect + redirects + body).
    pub timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_bytes: usize,
}

/// Why a fetch failed. Messages are for API clients: they name the `imageUrl` parameter, the
/// URL (shortened, without user or password) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("imageUrl: {url} is not a valid URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("imageUrl: {url} uses the {scheme}: scheme; only http and https URLs are fetched")]
    SchemeNotAllowed { url: String, scheme: String },
    /// `address` is the refused IP address or metadata host name: logged, never told to the
    /// caller (what a name resolves to inside the network is not theirs to learn).
    #[error(
        "imageUrl: {url} reaches an address that is not public; only public addresses are fetched"
    )]
    AddressNotPublic { url: String, address: String },
    #[error("imageUrl: the host {host} of {url} could not be resolved: {reason}")]
    ResolveFailed {
        url: String,
        host: String,
        reason: String,
    },
    #[error("imageUrl: {url} redirects more than {MAX_REDIRECTS} times")]
    TooManyRedirects { url: String },
    #[error("imageUrl: {url} is larger than the {max_bytes} bytes accepted")]
    TooLarge { url: String, max_bytes: usize },
    #[error("imageUrl: {url} was not fetched within {limit:?}")]
    Timeout { url: String, limit: Duration },
    #[error("imageUrl: {url} answered HTTP {status}")]
    Status { url: String, status: StatusCode },
    #[error("imageUrl: fetching {url} failed: {reason}")]
    Transport { url: String, reason: String },
}

impl FetchError {
    /// The URL the message names.
    fn url_mut(&mut self) -> &mut String {
        match self {
            FetchError::InvalidUrl { url, .. }
            | FetchError::SchemeNotAllowed { url, .. }
            | FetchError::AddressNotPublic { url, .. }
            | FetchError::ResolveFailed { url, .. }
            | FetchError::TooManyRedirects { url }
            | FetchError::TooLarge { url, .. }
            | FetchError::Timeout { url, .. }
            | FetchError::Status { url, .. }
            | FetchError::Transport { url, .. } => url,
        }
    }

    /// Whether the URL is refused by policy (never fetched, whatever its server does), as
    /// opposed to a fetch that failed and may work later.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            FetchError::InvalidUrl { .. }
                | FetchError::SchemeNotAllowed { .. }
                | FetchError::AddressNotPublic { .. }
        )
    }

    /// What the logs may say beyond the message: the refused address.
    pub fn refused_address(&self) -> Option<&str> {
        match self {
            FetchError::AddressNotPublic { address, .. } => Some(address),
            _ => None,
        }
    }

    /// A stable code for the variant, for clients and logs.
    pub fn code(&self) -> &'static str {
        match self {
            FetchError::InvalidUrl { .. } => "invalid_url",
            FetchError::SchemeNotAllowed { .. } => "scheme_not_allowed",
            FetchError::AddressNotPublic { .. } => "address_not_public",
            FetchError::ResolveFailed { .. } => "resolve_failed",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::TooLarge { .. } => "too_large",
            FetchError::Timeout { .. } => "timeout",
            FetchError::Status { .. } => "http_status",
            FetchError::Transport { .. } => "fetch_failed",
        }
    }
}

/// Whether an address is globally routable, and so one an import may connect to.
pub fn is_public(ip: IpAddr) -> bool {
    if METADATA_ADDRESSES.contains(&ip) {
        return false;
    }
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let bits = ip.to_bits();
    !NON_PUBLIC_V4
        .iter()
        .any(|&(net, len)| prefix_v4(bits, len) == prefix_v4(net.to_bits(), len))
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // The forms that reach an IPv4 address are as public as that address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let bits = ip.to_bits();
    if in_v6(bits, NAT64) {
        return is_public_v4(Ipv4Addr::from_bits(bits as u32));
    }
    if in_v6(bits, SIX_TO_FOUR) {
        return is_public_v4(Ipv4Addr::from_bits((bits >> 80) as u32));
    }
    in_v6(bits, GLOBAL_V6) && !NON_PUBLIC_GLOBAL_V6.iter().any(|&net| in_v6(bits, net))
}

/// The first `len` bits of an IPv4 address (`len` from 1 to 32).
fn prefix_v4(bits: u32, len: u32) -> u32 {
    bits >> (32 - len)
}

/// Whether an IPv6 address (as bits) lies in a network (`len` from 1 to 128).
fn in_v6(bits: u128, (net, len): (Ipv6Addr, u32)) -> bool {
    bits >> (128 - len) == net.to_bits() >> (128 - len)
}

/// The operator's host rules, shared by the fetcher and its resolver.
struct HostRules {
    allow: HashSet<String>,
    resolve: HashMap<String, Vec<IpAddr>>,
}

impl HostRules {
    fn new(policy: &FetchPolicy) -> HostRules {
        let mut resolve: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (name, ip) in &policy.resolve {
            resolve.entry(host_key(name)).or_default().push(*ip);
        }
        HostRules {
            allow: policy.allow_hosts.iter().map(|h| host_key(h)).collect(),
            resolve,
        }
    }

    fn allowed(&self, host: &str) -> bool {
        self.allow.contains(&host_key(host))
    }
}

/// A host name as the rules compare it: lower-case, without a final dot or IPv6 brackets.
fn host_key(host: &str) -> String {
    host.trim_end_matches('.')
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Why [`CheckedResolver`] refused a name; [`Fetcher`] finds it in the HTTP client's error.
#[derive(Debug)]
enum Unresolved {
    NotPublic(IpAddr),
    Failed(String),
}

impl fmt::Display for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unresolved::NotPublic(ip) => write!(f, "resolves to {ip}, not a public address"),
            Unresolved::Failed(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for Unresolved {}

/// The HTTP client's resolver: the policy's static entries or the system's resolver, every
/// address checked, and only checked addresses returned (the client connects to nothing else).
struct CheckedResolver {
    rules: Arc<HostRules>,
}

impl CheckedResolver {
    async fn addresses(rules: &HostRules, host: &str) -> Result<Vec<IpAddr>, Unresolved> {
        let ips = match rules.resolve.get(&host_key(host)) {
            Some(ips) => ips.clone(),
            None => tokio::net::lookup_host((host, 0))
                .await
                .map_err(|e| Unresolved::Failed(e.to_string()))?
                .map(|addr| addr.ip())
                .collect(),
        };
        if ips.is_empty() {
            return Err(Unresolved::Failed("no addresses".into()));
        }
        if !rules.allowed(host)
            && let Some(&ip) = ips.iter().find(|&&ip| !is_public(ip))
        {
            return Err(Unresolved::NotPublic(ip));
        }
        Ok(ips)
    }
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let rules = Arc::clone(&self.rules);
        Box::pin(async move {
            let ips = CheckedResolver::addresses(&rules, name.as_str()).await?;
            // Port 0: the client puts in the URL's port.
            let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// What one request of a fetch led to.
enum Hop {
    Body(Vec<u8>),
    Redirect(Url),
}

/// The builder every `reqwest::Client` of the process starts from: it makes ring the
/// process's TLS crypto first. reqwest is built without one (its default, aws-lc, compiles a
/// C library that was a minute of every clean build) and panics building a client without.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    install_tls_provider();
    reqwest::Client::builder()
}

/// Installs rustls's `ring` provider for every TLS client of the process (reqwest is built
/// without one of its own).
pub fn install_tls_provider() {
    // An error means a provider is installed already, which is all this needs.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Fetches images under one policy, with one HTTP client (and its connection pool) for all
/// fetches.
pub struct Fetcher {
    client: reqwest::Client,
    rules: Arc<HostRules>,
    timeout: Duration,
    max_bytes: usize,
}

impl Fetcher {
    /// Fails only if the HTTP client cannot be set up: in practice when the system has no CA
    /// certificates (https is verified against the system's roots).
    pub fn new(policy: FetchPolicy) -> Result<Fetcher, FetchError> {
        let rules = Arc::new(HostRules::new(&policy));
        let client = http_client_builder()
            .dns_resolver(CheckedResolver {
                rules: Arc::clone(&rules),
            })
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(policy.timeout)
            .user_agent(concat!("presspack/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::Transport {
                url: "any URL".into(),
                reason: format!("the HTTP client could not be set up: {}", error_chain(&e)),
            })?;
        Ok(Fetcher {
            client,
            rules,
            timeout: policy.timeout,
            max_bytes: policy.max_bytes,
        })
    }

    /// The body of the resource at `url` (following redirects), if every rule allows it.
    pub async fn fetch(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        let url = Url::parse(url).map_err(|e| FetchError::InvalidUrl {
            url: shorten(url),
            reason: e.to_string(),
        })?;
        let url = checked_url(url)?;
        let shown = show(&url);
        tokio::time::timeout(self.timeout, self.follow(url))
            .await
            .unwrap_or(Err(FetchError::Timeout {
                url: shown,
                limit: self.timeout,
            }))
    }

    /// POSTs `body` to `url` once, under the same address rules, following no redirect; the
    /// response's status (its body is not read). Used for webhooks.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&'static str, &str)],
        body: Vec<u8>,
    ) -> Result<StatusCode, FetchError> {
        let url = Url::parse(url).map_err(|e| FetchError::InvalidUrl {
            url: shorten(url),
            reason: e.to_string(),
        })?;
        let url = checked_url(url)?;
        self.check_host(&url)?;
        let mut header_map = header::HeaderMap::new();
        for &(name, value) in headers {
            let value =
                header::HeaderValue::from_str(value).map_err(|e| FetchError::Transport {
                    url: show(&url),
                    reason: format!("header {name}: {e}"),
                })?;
            header_map.insert(header::HeaderName::from_static(name), value);
        }
        let request = self
            .client
            .post(url.clone())
            .headers(header_map)
            .body(body)
            .send();
        match tokio::time::timeout(self.timeout, request).await {
            Ok(Ok(response)) => Ok(response.status()),
            Ok(Err(error)) => Err(self.client_error(&url, error)),
            Err(_) => Err(FetchError::Timeout {
                url: show(&url),
                limit: self.timeout,
            }),
        }
    }

    async fn follow(&self, first: Url) -> Result<Vec<u8>, FetchError> {
        let mut url = first.clone();
        for _ in 0..=MAX_REDIRECTS {
            match self.hop(&url).await {
                Ok(Hop::Body(body)) => return Ok(body),
                Ok(Hop::Redirect(next)) => url = next,
                Err(mut error) => {
                    // A client knows the URL it sent, not where it was sent on to.
                    let (first, shown) = (show(&first), error.url_mut());
                    if *shown != first {
                        *shown = format!("{first} (redirected to {shown})");
                    }
                    return Err(error);
                }
            }
        }
        Err(FetchError::TooManyRedirects { url: show(&first) })
    }

    /// One request: the body, or where it redirects to.
    async fn hop(&self, url: &Url) -> Result<Hop, FetchError> {
        self.check_host(url)?;
        let response = self
            .client
            .get(url.clone())
            .send()
            .await
            .map_err(|e| self.client_error(url, e))?;
        let status = response.status();
        match response.headers().get(header::LOCATION) {
            Some(location) if is_redirect(status) => {
                Ok(Hop::Redirect(redirect_target(url, location)?))
            }
            _ if status.is_success() => Ok(Hop::Body(self.read_body(url, response).await?)),
            _ => Err(FetchError::Status {
                url: show(url),
                status,
            }),
        }
    }

    /// The checks the resolver cannot make: metadata host names, and IP-literal hosts (which
    /// the client connects to without resolving).
    fn check_host(&self, url: &Url) -> Result<(), FetchError> {
        let not_public = |address: String| FetchError::AddressNotPublic {
            url: show(url),
            address,
        };
        let Some(host) = url.host() else {
            return Err(FetchError::InvalidUrl {
                url: show(url),
                reason: "it has no host".into(),
            });
        };
        let name = match host {
            Host::Domain(name) => name.to_owned(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        if METADATA_HOSTS.contains(&host_key(&name).as_str()) {
            return Err(not_public(format!("{name} (a cloud metadata service)")));
        }
        if self.rules.allowed(&name) {
            return Ok(());
        }
        let literal = match host {
            Host::Domain(_) => None,
            Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        };
        match literal {
            Some(ip) if !is_public(ip) => Err(not_public(ip.to_string())),
            _ => Ok(()),
        }
    }

    /// The body, refused as soon as it is known to be larger than the limit: from its
    /// Content-Length, or else while it streams in (holding at most the limit plus one chunk).
    async fn read_body(
        &self,
        url: &Url,
        mut response: reqwest::Response,
    ) -> Result<Vec<u8>, FetchError> {
        let too_large = || FetchError::TooLarge {
            url: show(url),
            max_bytes: self.max_bytes,
        };
        let announced = response.content_length().unwrap_or(0);
        if announced > self.max_bytes as u64 {
            return Err(too_large());
        }
        let mut body = Vec::with_capacity(announced as usize);
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.client_error(url, e))?
        {
            if chunk.len() > self.max_bytes - body.len() {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The HTTP client's error as a fetch error: the resolver's refusal if that was the cause.
    fn client_error(&self, url: &Url, error: reqwest::Error) -> FetchError {
        // Its message would repeat the whole URL, credentials and tokens included.
        let error = error.without_url();
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        while let Some(cause) = source {
            match cause.downcast_ref::<Unresolved>() {
                Some(Unresolved::NotPublic(ip)) => {
                    return FetchError::AddressNotPublic {
                        url: show(url),
                        address: ip.to_string(),
                    };
                }
                Some(Unresolved::Failed(reason)) => {
                    return FetchError::ResolveFailed {
                        url: show(url),
                        host: url.host_str().unwrap_or_default().to_owned(),
                        reason: reason.clone(),
                    };
                }
                None => source = cause.source(),
            }
        }
        if error.is_timeout() {
            FetchError::Timeout {
                url: show(url),
                limit: self.timeout,
            }
        } else {
            FetchError::Transport {
                url: show(url),
                reason: error_chain(&error),
            }
        }
    }
}

/// A URL a fetch may start from or be redirected to: http or https, with a host, without
/// user or password (credentials have no place in an image URL or in error messages).
fn checked_url(mut url: Url) -> Result<Url, FetchError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::SchemeNotAllowed {
            url: show(&url),
            scheme: url.scheme().to_owned(),
        });
    }
    let reason = if url.host().is_none() {
        "it has no host"
    } else if !url.username().is_empty() || url.password().is_some() {
        "it carries a user name or password"
    } else {
        url.set_fragment(None);
        return Ok(url);
    };
    Err(FetchError::InvalidUrl {
        url: show(&url),
        reason: reason.into(),
    })
}

/// The statuses whose Location is followed (all as GET: a fetch only ever GETs).
fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// The URL a Location header leads to (relative ones against the current URL), checked like
/// the first URL.
fn redirect_target(current: &Url, location: &header::HeaderValue) -> Result<Url, FetchError> {
    let invalid = |reason: String| FetchError::InvalidUrl {
        url: show(current),
        reason,
    };
    let location = location
        .to_str()
        .map_err(|_| invalid("it redirects to a Location that is not ASCII".into()))?;
    let target = current
        .join(location)
        .map_err(|e| invalid(format!("it redirects to an invalid URL ({e})")))?;
    checked_url(target)
}

/// A URL for a message: without user or password, shortened.
fn show(url: &Url) -> String {
    let mut url = url.clone();
    // These fail only for URLs without a host, which cannot carry credentials anyway.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    shorten(url.as_str())
}

/// Text cut to [`SHOWN_URL_CHARS`] characters.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN_URL_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

/// An error and its causes, "a: b: c" (the HTTP client's own message is vague alone).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::body::Body;
    use axum::extract::Path;
    use axum::http::StatusCode as Http;
    use axum::response::{IntoResponse, Redirect, Response};
    use axum::routing::get;

    const IMAGE: &[u8] = b"\x89PNG\r\n\x1a\nnot really a PNG";
    const MAX_BYTES: usize = 1000;

    /// A loopback HTTP server with the routes the tests fetch; returns its port.
    async fn serve() -> u16 {
        let app = Router::new()
            .route("/image", get(|| async { IMAGE }))
            .route(
                "/redirect-to-image",
                get(|| async { Redirect::to("/image") }),
            )
            .route(
                "/redirect-to-private",
                get(|| async { Redirect::to("http://10.0.0.1/x") }),
            )
            .route(
                "/redirect-to-file",
                get(|| async { Redirect::to("file:///etc/passwd") }),
            )
            .route(
                "/redirect-loop",
                get(|| async { Redirect::to("/redirect-loop") }),
            )
            // /chain/N (N >= 1) takes N redirects to reach /image.
            .route(
                "/chain/{n}",
                get(|Path(n): Path<u32>| async move {
                    match n {
                        0 | 1 => Redirect::to("/image"),
                        n => Redirect::to(&format!("{}", n - 1)),
                    }
                }),
            )
            .route("/big", get(|| async { vec![7u8; MAX_BYTES + 1] }))
            // Chunked, without Content-Length: refused while streaming.
            .route(
                "/big-stream",
                get(|| async {
                    let chunks = (0..20).map(|_| Ok::<_, std::io::Error>(vec![7u8; 100]));
                    Body::from_stream(futures_util::stream::iter(chunks))
                }),
            )
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                    IMAGE
                }),
            )
            .route(
                "/missing",
                get(|| async { Http::NOT_FOUND.into_response() }),
            )
            .route(
                "/moved-nowhere",
                get(|| async { Response::builder().status(302).body(Body::empty()).unwrap() }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        port
    }

    /// The test server is reached as images.example (allow-listed); evil.example is a name
    /// resolving to a private address, not allow-listed.
    fn fetcher(timeout: Duration) -> Fetcher {
        Fetcher::new(FetchPolicy {
            allow_hosts: vec!["images.example".into()],
            resolve: vec![
                ("images.example".into(), IpAddr::from([127, 0, 0, 1])),
                ("evil.example".into(), IpAddr::from([10, 0, 0, 1])),
            ],
            timeout,
            max_bytes: MAX_BYTES,
        })
        .unwrap()
    }

    #[tokio::test]
    async fn fetches_from_allowed_hosts_following_redirects() {
        let port = serve().await;
        let fetcher = fetcher(Duration::from_secs(5));
        for path in ["image", "redirect-to-image", "chain/3"] {
            let url = format!("http://images.example:{port}/{path}");
            assert_eq!(fetcher.fetch(&url).await.unwrap(), IMAGE, "{url}");
        }
    }

    #[tokio::test]
    async fn refuses_what_the_rules_forbid() {
        let port = serve().await;
        let fetcher = fetcher(Duration::from_secs(5));
        let server = format!("http://images.example:{port}");
        let cases = [
            (
                format!("http://127.0.0.1:{port}/image"),
                "address_not_public",
            ),
            (format!("http://[::1]:{port}/"), "address_not_public"),
            ("http://0.0.0.0/".into(), "address_not_public"),
            ("http://10.1.2.3/".into(), "address_not_public"),
            ("http://172.16.0.1/".into(), "address_not_public"),
            ("http://192.168.1.1/".into(), "address_not_public"),
            (
                "http://169.254.169.254/latest/meta-data/".into(),
                "address_not_public",
            ),
            (
                "http://metadata.google.internal/".into(),
                "address_not_public",
            ),
            ("http://[fe80::1]/".into(), "address_not_public"),
            ("http://[fd00::1]/".into(), "address_not_public"),
            ("http://224.0.0.1/".into(), "address_not_public"),
            ("http://[::ffff:127.0.0.1]/".into(), "address_not_public"),
            ("http://[::ffff:10.0.0.1]/".into(), "address_not_public"),
            ("http://2130706433/".into(), "address_not_public"),
            ("http://0x7f.1/".into(), "address_not_public"),
            (
                format!("http://localhost:{port}/image"),
                "address_not_public",
            ),
            ("http://evil.example/".into(), "address_not_public"),
            (
                format!("{server}/redirect-to-private"),
                "address_not_public",
            ),
            ("ftp://images.example/".into(), "scheme_not_allowed"),
            ("file:///etc/passwd".into(), "scheme_not_allowed"),
            ("data:image/png;base64,AAAA".into(), "scheme_not_allowed"),
            (format!("{server}/redirect-to-file"), "scheme_not_allowed"),
            ("images.example/image".into(), "invalid_url"),
            ("http://".into(), "invalid_url"),
            (
                format!("http://user:secret@images.example:{port}/image"),
                "invalid_url",
            ),
            (format!("{server}/redirect-loop"), "too_many_redirects"),
            (format!("{server}/chain/4"), "too_many_redirects"),
            (format!("{server}/big"), "too_large"),
            (format!("{server}/big-stream"), "too_large"),
            (format!("{server}/missing"), "http_status"),
            (format!("{server}/moved-nowhere"), "http_status"),
            ("http://images.example:1/image".into(), "fetch_failed"),
            // TLS is on: a handshake with the plain-HTTP server fails.
            (
                format!("https://images.example:{port}/image"),
                "fetch_failed",
            ),
        ];
        for (url, code) in cases {
            let error = fetcher.fetch(&url).await.unwrap_err();
            assert_eq!(error.code(), code, "{url}: {error}");
            let message = error.to_string();
            assert!(message.starts_with("imageUrl: "), "{message}");
            assert!(!message.contains("secret"), "{message}");
        }
    }

    #[tokio::test]
    async fn messages_name_the_problem() {
        let port = serve().await;
        let fetcher = &fetcher(Duration::from_secs(5));
        let message = |url: String| async move { fetcher.fetch(&url).await.unwrap_err() };
        let private = message("http://evil.example/x.png".into()).await;
        assert_eq!(
            private.to_string(),
            "imageUrl: http://evil.example/x.png reaches an address that is not public; only \
             public addresses are fetched"
        );
        assert_eq!(private.refused_address(), Some("10.0.0.1"));
        let redirected = message(format!("http://images.example:{port}/redirect-to-private")).await;
        assert_eq!(
            redirected.to_string(),
            format!(
                "imageUrl: http://images.example:{port}/redirect-to-private (redirected to \
                 http://10.0.0.1/x) reaches an address that is not public; only public \
                 addresses are fetched"
            )
        );
        let missing = message(format!("http://images.example:{port}/missing")).await;
        assert!(matches!(missing, FetchError::Status { status, .. } if status == 404));
        assert!(
            missing.to_string().ends_with("answered HTTP 404 Not Found"),
            "{missing}"
        );
        let long = message(format!("http://10.0.0.1/{}", "a".repeat(5000))).await;
        assert!(long.to_string().len() < 400, "{long}");
    }

    #[tokio::test]
    async fn stops_at_the_time_limit() {
        let port = serve().await;
        let fetcher = fetcher(Duration::from_millis(500));
        let started = std::time::Instant::now();
        let error = fetcher
            .fetch(&format!("http://images.example:{port}/slow"))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "timeout", "{error}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn public_addresses() {
        let public = [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ];
        let not_public = [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "100.64.0.1",
            "100.100.100.200",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "169.254.1.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.192",
            "192.0.2.1",
            "192.168.0.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.1",
            "203.0.113.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::8.8.8.8",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::808:808",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "3fff::1",
            "fc00::1",
            "fd00::1",
            "fd00:ec2::254",
            "fe80::1",
            "fec0::1",
            "ff02::1",
        ];
        for text in public {
            assert!(is_public(text.parse().unwrap()), "{text} should be public");
        }
        for text in not_public {
            assert!(
                !is_public(text.parse().unwrap()),
                "{text} should not be public"
            );
        }
    }
}

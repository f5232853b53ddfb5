//! Who may call: the `Host` and `Origin` allow lists, matched as the MCP SDK's
//! streamable-HTTP server matches them (a host with or without its port, an origin exact
//! or with any port), so that every HTTP surface of the crate accepts the same names.

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Uri};

/// The `Origin`s accepted unless configured: browser pages served from the loopback
/// interface, on any port.
pub const LOOPBACK_ORIGINS: &[&str] = &[
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The `Host`s accepted unless configured (DNS-rebinding protection).
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// An allow list of hosts or origins: the loopback defaults and what the app added, or
/// anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// The loopback defaults plus these.
    LoopbackAnd(Vec<String>),
    /// Any value: the check is off.
    Any,
}

impl Allowed {
    /// The loopback defaults only.
    pub(crate) fn loopback() -> Self {
        Allowed::LoopbackAnd(Vec::new())
    }

    /// Adds entries; after [`Allowed::Any`], the list becomes the loopback defaults plus
    /// these.
    pub(crate) fn extend(&mut self, extra: impl IntoIterator<Item = String>) {
        match self {
            Allowed::LoopbackAnd(list) => list.extend(extra),
            Allowed::Any => *self = Allowed::LoopbackAnd(extra.into_iter().collect()),
        }
    }

    /// Every entry, the loopback defaults (`loopback`) first; `None` for any.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // What the MCP SDK is given.
    pub(crate) fn entries(&self, loopback: &[&str]) -> Option<Vec<String>> {
        match self {
            Allowed::Any => None,
            Allowed::LoopbackAnd(extra) => Some(
                loopback
                    .iter()
                    .map(|entry| (*entry).to_owned())
                    .chain(extra.iter().cloned())
                    .collect(),
            ),
        }
    }

    /// Whether a request's `Host` (its header, or the URI's authority for HTTP/2) is on
    /// the list: `Err` with what is wrong otherwise.
    pub(crate) fn check_host(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), HostRefusal> {
        let Allowed::LoopbackAnd(extra) = self else {
            return Ok(());
        };
        let host = match headers.get(axum::http::header::HOST) {
            Some(value) => {
                let text = value.to_str().map_err(|_| HostRefusal::Malformed)?;
                let authority = Authority::try_from(text).map_err(|_| HostRefusal::Malformed)?;
                Name::of(authority.host(), authority.port_u16())
            }
            None => {
                let authority = uri.authority().ok_or(HostRefusal::Missing)?;
                Name::of(authority.host(), authority.port_u16())
            }
        };
        let allowed = LOOPBACK_HOSTS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
            .filter_map(allowed_host)
            .any(|entry| {
                entry.host == host.host && entry.port.is_none_or(|port| host.port == Some(port))
            });
        if allowed {
            Ok(())
        } else {
            Err(HostRefusal::NotAllowed)
        }
    }

    /// Whether a request's `Origin`, when it has one, is on the list: `Err` with what is
    /// wrong otherwise. `Origin: null` (sandboxed frames, `file:` pages, some redirects)
    /// is refused unless `"null"` was allowed.
    pub(crate) fn check_origin(&self, headers: &HeaderMap) -> Result<(), OriginRefusal> {
        let Allowed::LoopbackAnd(extra) = self else {
            return Ok(());
        };
        let Some(value) = headers.get(axum::http::header::ORIGIN) else {
            return Ok(());
        };
        let text = value.to_str().map_err(|_| OriginRefusal::Malformed)?;
        let origin = parse_origin(text).ok_or(OriginRefusal::Malformed)?;
        let allowed = LOOPBACK_ORIGINS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
            .filter_map(allowed_origin)
            .any(|entry| entry.matches(&origin));
        if allowed {
            Ok(())
        } else {
            Err(OriginRefusal::NotAllowed)
        }
    }
}

/// Why a `Host` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostRefusal {
    /// No `Host` header and no authority in the URI (`400`).
    Missing,
    /// Not UTF-8, or not a host name with an optional port (`400`).
    Malformed,
    /// Not on the allow list (`403`).
    NotAllowed,
}

/// Why an `Origin` was refused (`403` either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginRefusal {
    /// Not UTF-8, or not `scheme://host[:port]` or `null`.
    Malformed,
    /// Not on the allow list.
    NotAllowed,
}

/// A host name, lowercase and without IPv6 brackets, with its port if given.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Name {
    host: String,
    port: Option<u16>,
}

impl Name {
    fn of(host: &str, port: Option<u16>) -> Self {
        Name {
            host: host
                .trim_matches('[')
                .trim_matches(']')
                .to_ascii_lowercase(),
            port,
        }
    }
}

/// An allowed-host entry: `"example.com"` (any port) or `"example.com:8080"`.
fn allowed_host(entry: &str) -> Option<Name> {
    let entry = entry.trim();
    if entry.is_empty() {
        return None;
    }
    Some(match Authority::try_from(entry) {
        Ok(authority) => Name::of(authority.host(), authority.port_u16()),
        Err(_) => Name::of(entry, None),
    })
}

/// A request's origin (RFC 6454): `null`, or a scheme, host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple { scheme: String, name: Name },
}

fn parse_origin(value: &str) -> Option<Origin> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if value.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri = Uri::try_from(value).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    Some(Origin::Tuple {
        scheme,
        name: Name::of(authority.host(), authority.port_u16()),
    })
}

/// The port an origin without one has (RFC 6454 §4).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Port {
    /// `:*`
    Any,
    /// No port in the entry: any port, as the MCP SDK still accepts.
    Unspecified,
    Exact(u16),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Port,
    },
}

impl AllowedOrigin {
    fn matches(&self, origin: &Origin) -> bool {
        match (self, origin) {
            (AllowedOrigin::Null, Origin::Null) => true,
            (AllowedOrigin::Tuple { scheme, host, port }, Origin::Tuple { scheme: s, name }) => {
                scheme == s
                    && *host == name.host
                    && match port {
                        Port::Any | Port::Unspecified => true,
                        Port::Exact(port) => name.port.or_else(|| default_port(s)) == Some(*port),
                    }
            }
            _ => false,
        }
    }
}

/// An allowed-origin entry: `"https://app.example.com"`, `"http://localhost:3000"`,
/// `"https://host:*"` (any port) or `"null"`.
fn allowed_origin(entry: &str) -> Option<AllowedOrigin> {
    let entry = entry.trim();
    if let Some(base) = entry.strip_suffix(":*") {
        let Origin::Tuple {
            scheme,
            name: Name { host, port: None },
        } = parse_origin(base)?
        else {
            return None;
        };
        return Some(AllowedOrigin::Tuple {
            scheme,
            host,
            port: Port::Any,
        });
    }
    Some(match parse_origin(entry)? {
        Origin::Null => AllowedOrigin::Null,
        Origin::Tuple { scheme, name } => AllowedOrigin::Tuple {
            scheme,
            host: name.host,
            port: name.port.map_or(Port::Unspecified, Port::Exact),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::{Allowed, HostRefusal, OriginRefusal};
    use axum::http::{HeaderMap, HeaderValue, Uri, header};

    fn host(allowed: &Allowed, value: &str) -> Result<(), HostRefusal> {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(value).unwrap());
        allowed.check_host(&Uri::from_static("/agui"), &headers)
    }

    fn origin(allowed: &Allowed, value: &str) -> Result<(), OriginRefusal> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ORIGIN, HeaderValue::from_str(value).unwrap());
        allowed.check_origin(&headers)
    }

    #[test]
    fn loopback_hosts_pass_with_or_without_a_port_others_do_not() {
        let loopback = Allowed::loopback();
        for ok in [
            "localhost",
            "localhost:8080",
            "LOCALHOST:1",
            "127.0.0.1:3000",
            "[::1]:9",
            "[::1]",
        ] {
            assert_eq!(host(&loopback, ok), Ok(()), "{ok}");
        }
        for refused in [
            "evil.example:8080",
            "evil.example",
            "localhost.evil.example",
            "127.0.0.2",
            "0.0.0.0:80",
        ] {
            assert_eq!(
                host(&loopback, refused),
                Err(HostRefusal::NotAllowed),
                "{refused}"
            );
        }
        assert_eq!(host(&loopback, "bad host"), Err(HostRefusal::Malformed));
        assert_eq!(host(&Allowed::Any, "evil.example"), Ok(()));
    }

    #[test]
    fn a_missing_host_falls_back_to_the_uri_authority() {
        let loopback = Allowed::loopback();
        let none = HeaderMap::new();
        assert_eq!(
            loopback.check_host(&Uri::from_static("/agui"), &none),
            Err(HostRefusal::Missing)
        );
        assert_eq!(
            loopback.check_host(&Uri::from_static("http://127.0.0.1:9/agui"), &none),
            Ok(())
        );
        assert_eq!(
            loopback.check_host(&Uri::from_static("http://evil.example/agui"), &none),
            Err(HostRefusal::NotAllowed)
        );
    }

    #[test]
    fn an_added_host_with_a_port_matches_that_port_only() {
        let mut allowed = Allowed::loopback();
        allowed.extend([
            "tools.example.com".to_owned(),
            "app.example:8080".to_owned(),
        ]);
        assert_eq!(host(&allowed, "tools.example.com:443"), Ok(()));
        assert_eq!(host(&allowed, "Tools.Example.com"), Ok(()));
        assert_eq!(host(&allowed, "app.example:8080"), Ok(()));
        assert_eq!(
            host(&allowed, "app.example:8081"),
            Err(HostRefusal::NotAllowed)
        );
        assert_eq!(host(&allowed, "app.example"), Err(HostRefusal::NotAllowed));
        assert_eq!(host(&allowed, "localhost:1"), Ok(()), "loopback stays");
    }

    #[test]
    fn loopback_origins_pass_on_any_port_foreign_and_null_do_not() {
        let loopback = Allowed::loopback();
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1:41234",
            "https://localhost",
            "http://[::1]:8080",
            "HTTP://LOCALHOST:1",
        ] {
            assert_eq!(origin(&loopback, ok), Ok(()), "{ok}");
        }
        for refused in [
            "https://evil.example",
            "http://evil.example:8080",
            "http://localhost.evil.example",
            "null",
            "ftp://localhost:21",
        ] {
            assert_eq!(
                origin(&loopback, refused),
                Err(OriginRefusal::NotAllowed),
                "{refused}"
            );
        }
        assert_eq!(
            origin(&loopback, "localhost"),
            Err(OriginRefusal::Malformed)
        );
        assert_eq!(origin(&loopback, ""), Err(OriginRefusal::Malformed));
        assert_eq!(Allowed::loopback().check_origin(&HeaderMap::new()), Ok(()));
        assert_eq!(origin(&Allowed::Any, "null"), Ok(()));
    }

    #[test]
    fn added_origins_match_exactly_by_default_port_or_any_port() {
        let mut allowed = Allowed::Any;
        allowed.extend([
            "https://app.example.com:443".to_owned(),
            "http://dev.example:*".to_owned(),
            "http://pinned.example:8080".to_owned(),
        ]);
        assert_eq!(origin(&allowed, "https://app.example.com"), Ok(()));
        assert_eq!(origin(&allowed, "https://app.example.com:443"), Ok(()));
        assert_eq!(
            origin(&allowed, "https://app.example.com:8443"),
            Err(OriginRefusal::NotAllowed)
        );
        assert_eq!(
            origin(&allowed, "http://app.example.com"),
            Err(OriginRefusal::NotAllowed),
            "the scheme is part of the origin"
        );
        assert_eq!(origin(&allowed, "http://dev.example:1234"), Ok(()));
        assert_eq!(origin(&allowed, "http://pinned.example:8080"), Ok(()));
        assert_eq!(
            origin(&allowed, "http://pinned.example:8081"),
            Err(OriginRefusal::NotAllowed)
        );
        assert_eq!(
            origin(&allowed, "http://localhost:5"),
            Ok(()),
            "loopback stays"
        );
    }

    #[test]
    fn the_full_list_names_the_loopback_defaults_first() {
        let mut allowed = Allowed::loopback();
        allowed.extend(["a.example".to_owned()]);
        let entries = allowed.entries(super::LOOPBACK_HOSTS).unwrap();
        assert_eq!(entries, ["localhost", "127.0.0.1", "::1", "a.example"]);
        assert_eq!(Allowed::Any.entries(super::LOOPBACK_HOSTS), None);
    }
}

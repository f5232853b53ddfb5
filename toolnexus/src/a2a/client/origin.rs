//! Where an agent's configured headers may go: the origin (scheme, host, port) of its
//! card, and the origins the app adds; over https, or plain http to a loopback host only;
//! and never along a redirect to another origin.

use reqwest::Url;

/// The most redirects one request follows.
const MAX_REDIRECTS: usize = 10;

/// `scheme://host:port` of `url` (the port the scheme implies when none is written).
pub(crate) fn origin(url: &Url) -> String {
    let host = url.host_str().unwrap_or("");
    let port = url.port_or_known_default().unwrap_or(0);
    format!("{}://{host}:{port}", url.scheme())
}

/// Whether `url` names this machine: `localhost` (or a name under it), `127.0.0.0/8`,
/// `::1`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        return ip.is_loopback();
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// Parses `text` as the URL of `what`, an http or https one.
pub(crate) fn parse(text: &str, what: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("{what} `{text}` is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "{what} `{text}` must be an http:// or https:// URL"
        ));
    }
    Ok(url)
}

/// Refuses to send configured headers to `url` (`what`, in the error) unless its origin
/// is one of `allowed`, and it is https or loopback.
pub(crate) fn check(url: &Url, allowed: &[String], what: &str) -> Result<(), String> {
    if !allowed.contains(&origin(url)) {
        return Err(format!(
            "{what} {url} is on another origin than the card's, and the configured headers \
             (credentials) go only to the card's origin: allow that origin with \
             A2aAgentBuilder::allow_header_origin if it is the same agent"
        ));
    }
    if url.scheme() == "http" && !is_loopback(url) {
        return Err(format!(
            "{what} {url} is plain http to another machine, and the configured headers \
             (credentials) would cross the network unencrypted: use https"
        ));
    }
    Ok(())
}

/// The redirect policy of an agent's HTTP client: never from https to http, at most
/// [`MAX_REDIRECTS`], and, when headers are configured, never to another origin (the
/// response to such a redirect is the answer, an error for the caller). reqwest would
/// drop `Authorization` on its own there, but not the other headers an app configures.
pub(crate) fn redirects(with_headers: bool) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let Some(previous) = attempt.previous().last() else {
            return attempt.follow();
        };
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        let downgrade = previous.scheme() == "https" && attempt.url().scheme() == "http";
        let elsewhere = origin(previous) != origin(attempt.url());
        if downgrade || (with_headers && elsewhere) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_loopback() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert_eq!(origin(&url("https://a.example/x")), "https://a.example:443");
        assert_eq!(
            origin(&url("http://127.0.0.1:8080/")),
            "http://127.0.0.1:8080"
        );
        assert!(is_loopback(&url("http://localhost:1/")));
        assert!(is_loopback(&url("http://127.3.2.1/")));
        assert!(is_loopback(&url("http://[::1]:9/")));
        assert!(!is_loopback(&url("http://10.0.0.1/")));
        assert!(!is_loopback(&url("http://localhost.example/")));
        let allowed = [origin(&url("http://10.0.0.1:80/"))];
        let plain = check(&url("http://10.0.0.1/a2a"), &allowed, "the endpoint");
        assert!(plain.unwrap_err().contains("unencrypted"));
        let other = check(&url("https://b.example/"), &allowed, "the endpoint");
        assert!(other.unwrap_err().contains("allow_header_origin"));
    }
}

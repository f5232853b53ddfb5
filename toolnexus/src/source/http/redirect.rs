//! Which redirects an [`HttpTool`](super::HttpTool) follows: within the endpoint's own
//! origin, never from `https` to `http`, at most a set number of times. A tool's headers
//! hold secrets, and reqwest's default policy would replay every header but
//! `Authorization` and `Cookie` to wherever the server points.

use reqwest::Url;
use reqwest::redirect::{Attempt, Policy};

/// How many redirects a tool follows unless told otherwise.
pub(super) const DEFAULT_MAX_REDIRECTS: usize = 5;

/// A redirect the policy did not follow, and why (found again in the error's causes).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Refused(String);

/// The policy of a tool that follows at most `limit` redirects.
pub(super) fn policy(limit: usize) -> Policy {
    Policy::custom(move |attempt: Attempt<'_>| {
        // `previous` holds every URL requested so far, the declared one first.
        let followed = attempt.previous().len();
        let verdict = match attempt.previous().first() {
            Some(first) => check(first, attempt.url(), followed, limit),
            None => Ok(()),
        };
        match verdict {
            Ok(()) => attempt.follow(),
            Err(refused) => attempt.error(refused),
        }
    })
}

/// Whether the redirect from the endpoint at `first` to `next`, the `hop`-th, is followed.
fn check(first: &Url, next: &Url, hop: usize, limit: usize) -> Result<(), Refused> {
    let origin = next.origin().ascii_serialization();
    if first.scheme() == "https" && next.scheme() != "https" {
        return Err(Refused(format!(
            "the endpoint redirected from https to {} ({origin}); not followed, so that the \
             tool's headers are not sent unencrypted",
            next.scheme()
        )));
    }
    if first.origin() != next.origin() {
        return Err(Refused(format!(
            "the endpoint redirected to another origin ({origin}); not followed, so that the \
             tool's headers are not sent there"
        )));
    }
    if hop > limit {
        return Err(Refused(format!(
            "the endpoint asked for more than {limit} redirects; not followed further"
        )));
    }
    Ok(())
}

/// The refusal among `error`'s causes, if a redirect was refused.
pub(super) fn refusal<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
    let mut cause = error.source();
    while let Some(current) = cause {
        if let Some(refused) = current.downcast_ref::<Refused>() {
            return Some(refused);
        }
        cause = current.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_the_same_origin_is_followed_and_never_down_to_http() {
        let https = url("https://api.example.com/v1/x");
        assert!(check(&https, &url("https://api.example.com/v2/y"), 1, 5).is_ok());
        assert!(check(&https, &url("https://api.example.com:443/v2"), 1, 5).is_ok());
        for (to, says) in [
            ("http://api.example.com/v1/x", "from https to http"),
            ("http://169.254.169.254/latest", "from https to http"),
            ("https://evil.example.com/", "another origin"),
            ("https://api.example.com:8443/", "another origin"),
        ] {
            let refused = check(&https, &url(to), 1, 5).unwrap_err();
            assert!(refused.0.contains(says), "{to}: {refused}");
        }
        let http = url("http://127.0.0.1:8080/a");
        assert!(check(&http, &url("http://127.0.0.1:8080/b"), 1, 5).is_ok());
        assert!(check(&http, &url("https://127.0.0.1:8080/b"), 1, 5).is_err());
        assert!(check(&http, &url("http://127.0.0.1:8081/b"), 1, 5).is_err());
    }

    #[test]
    fn the_limit_counts_hops() {
        let at = url("http://h/a");
        assert!(check(&at, &url("http://h/b"), 5, 5).is_ok());
        let refused = check(&at, &url("http://h/b"), 6, 5).unwrap_err();
        assert!(refused.0.contains("more than 5 redirects"), "{refused}");
        assert!(check(&at, &url("http://h/b"), 1, 0).is_err());
    }
}

//! [`Retry`]: when and how long a provider waits before trying a request again.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// How a provider retries a request that failed in a way that may pass: a rate limit
/// (`429`), a server error (`5xx`), Anthropic's "overloaded" (`529`), or a connection that
/// could not be opened. Authentication and validation errors (`400`, `401`, `403`, `404`,
/// …) are never retried: the same request would fail the same way.
///
/// Between attempts the provider waits what the server asked for (`Retry-After` in
/// seconds, or OpenAI's `retry-after-ms`), else an exponential backoff with jitter:
/// `initial_backoff × 2ⁿ`, capped at `max_backoff`, of which a random half is taken off.
/// A server asking for a wait longer than `max_retry_after` ends the retries at once,
/// with an error that says how long it asked for.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::providers::Retry;
///
/// let patient = Retry::default().with_max_retries(5).with_max_backoff(Duration::from_secs(60));
/// assert_eq!(patient.max_retries, 5);
/// assert_eq!(Retry::none().max_retries, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retry {
    /// How many times a request is tried again after its first attempt (default 2, the
    /// contract's).
    pub max_retries: u32,
    /// The wait before the first retry, doubled for each further one (default 500 ms).
    pub initial_backoff: Duration,
    /// The longest backoff between two attempts (default 30 s).
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; a server asking for more is not retried
    /// (default 60 s).
    pub max_retry_after: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl Retry {
    /// No retries: every failure is returned at once.
    pub fn none() -> Self {
        Retry {
            max_retries: 0,
            ..Retry::default()
        }
    }

    /// Sets how many times a request is tried again.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Sets the wait before the first retry.
    #[must_use]
    pub fn with_initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// Sets the longest backoff between two attempts.
    #[must_use]
    pub fn with_max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// Sets the longest `Retry-After` honoured.
    #[must_use]
    pub fn with_max_retry_after(mut self, wait: Duration) -> Self {
        self.max_retry_after = wait;
        self
    }

    /// The jittered backoff before retry number `attempt` (0 for the first retry).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.min(31));
        let full = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        // Full backoff minus a random part of its half: never zero, never synchronized
        // across clients that failed together.
        let half = full / 2;
        full - half.mul_f64(fastrand::f64())
    }
}

/// Whether a response with this status may succeed if sent again.
pub(crate) fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || status.is_server_error()
        || status.as_u16() == 529
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), else `Retry-After` in
/// seconds (integer or decimal). The HTTP-date form is not read; the backoff applies.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    if let Some(ms) = read("retry-after-ms").filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    read("retry-after")
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let retry = Retry::default();
        for attempt in 0..10 {
            let full = Duration::from_millis(500)
                .saturating_mul(1 << attempt)
                .min(Duration::from_secs(30));
            let wait = retry.backoff(attempt);
            assert!(wait <= full && wait >= full / 2, "{attempt}: {wait:?}");
        }
        assert!(retry.backoff(u32::MAX) <= Duration::from_secs(30));
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        headers.clear();
        headers.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn what_is_retried() {
        for code in [429, 500, 502, 503, 504, 529, 408] {
            assert!(retryable(StatusCode::from_u16(code).unwrap()), "{code}");
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(!retryable(StatusCode::from_u16(code).unwrap()), "{code}");
        }
    }
}

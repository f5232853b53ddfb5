//! [`Retry`]: when and how long a provider waits before trying a request again.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// How a provider retries a request that failed in a way that may pass: a rate limit
/// (`429`), a server error worth another try (`500`, `502`, `503`, `504`), Anthropic's
/// "overloaded" (`529`), or a request that got no response (it could not connect, timed
/// out, or was cut off): the contract's set, as the Python port has it. Other `5xx`
/// (`501 Not Implemented`, `505`, …) fail at once, unless a host adds them with
/// [`Retry::retryable_statuses`] (as the Python port's `retryable_statuses`, it can
/// only add: `429` stays retried). Authentication and validation errors (`400`, `401`,
/// `403`, `404`, …) are never retried by default: the same request would fail the same
/// way.
///
/// Between attempts the provider waits what the server asked for (`Retry-After` in
/// whole seconds, the contract's rule, however long: as the Python port, a wait is
/// bounded by the caller, who can drop the run's future), else an exponential backoff
/// with jitter: `initial_backoff × 2ⁿ`, capped at `max_backoff`, of which a random half
/// is taken off. A host that will not wait that long sets
/// [`max_retry_after`](Retry::max_retry_after): a server asking for more ends the
/// retries at once, with an error that says how long it asked for.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::providers::Retry;
///
/// let patient = Retry::default().max_retries(5).max_backoff(Duration::from_secs(60));
/// assert_eq!(patient.max_retries, 5);
/// assert_eq!(Retry::none().max_retries, 0);
/// // A CDN's `520`–`524` retried too, beside the default set.
/// let behind_a_cdn = Retry::default().retryable_statuses(520..=524);
/// assert!(behind_a_cdn.is_retryable(522) && behind_a_cdn.is_retryable(429));
/// assert!(!behind_a_cdn.is_retryable(501));
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
    /// (default: whatever the server asks, up to the contract's 2147483647 s, as the
    /// Python port waits).
    pub max_retry_after: Duration,
    /// Statuses retried beside the default set (`retryable_statuses`): one bit per
    /// status from 100 to 611.
    extra: [u64; 8],
}

/// The first status `Retry::extra` has a bit for.
const EXTRA_FROM: u16 = 100;

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(RETRY_AFTER_MAX),
            extra: [0; 8],
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
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Sets the wait before the first retry.
    #[must_use]
    pub fn initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// Sets the longest backoff between two attempts.
    #[must_use]
    pub fn max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// Sets the longest `Retry-After` honoured.
    #[must_use]
    pub fn max_retry_after(mut self, wait: Duration) -> Self {
        self.max_retry_after = wait;
        self
    }

    /// Retries these statuses too, beside the default set (429, 500, 502, 503, 504,
    /// 529), which they add to and never shrink (the Python port's
    /// `retryable_statuses`). Statuses outside 100–599 are ignored.
    #[must_use]
    pub fn retryable_statuses(mut self, statuses: impl IntoIterator<Item = u16>) -> Self {
        for status in statuses {
            if (EXTRA_FROM..600).contains(&status) {
                let bit = usize::from(status - EXTRA_FROM);
                self.extra[bit / 64] |= 1 << (bit % 64);
            }
        }
        self
    }

    /// Whether a response with this status is tried again: the default set, and the
    /// statuses added with [`Retry::retryable_statuses`].
    pub fn is_retryable(&self, status: u16) -> bool {
        if retryable_by_default(status) {
            return true;
        }
        let Some(bit) = status.checked_sub(EXTRA_FROM).map(usize::from) else {
            return false;
        };
        bit < 512 && self.extra[bit / 64] & (1 << (bit % 64)) != 0
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

/// Whether a response with this status may succeed if sent again: the contract's
/// enumeration (429, 500, 502, 503, 504, 529), not every `5xx`.
fn retryable_by_default(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

/// The largest `Retry-After` read as a delay, in seconds (the contract's bound: what
/// every port holds exactly).
const RETRY_AFTER_MAX: u64 = 2_147_483_647;

/// The wait a response asks for, as the contract and the Python port read it:
/// `Retry-After` in its delay-seconds form only (ASCII digits, `0` to 2147483647, `0`
/// meaning "retry now"). Any other value (a fraction, a sign, the HTTP-date form, out of
/// range, empty) is no answer, and the backoff applies. The header name is
/// case-insensitive.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get("retry-after")?.to_str().ok()?.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: u64 = value.parse().ok().filter(|s| *s <= RETRY_AFTER_MAX)?;
    Some(Duration::from_secs(seconds))
}

/// What [`on_error`](crate::providers::OpenAi::on_error) is told about one failed
/// attempt of a model request (the contract's `ErrorInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorInfo {
    /// The HTTP status, for a response that is not a success.
    pub status: Option<u16>,
    /// What went wrong, for a request that got no response (a connection, a timeout).
    pub error: Option<String>,
    /// Which attempt failed, from 0.
    pub attempt: u32,
    /// Whether the default policy would retry it (see [`Retry`]).
    pub retryable: bool,
}

/// What [`on_error`](crate::providers::OpenAi::on_error) decides for a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorTier {
    /// Try again (still within [`Retry::max_retries`]).
    Retry,
    /// Give up now, with this attempt's error.
    Fail,
}

/// A host's classifier of failed attempts.
pub(crate) type OnError = dyn Fn(&ErrorInfo) -> ErrorTier + Send + Sync;

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
    fn retry_after_is_read_in_its_delay_seconds_form_only() {
        let read = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert("Retry-After", value.parse().unwrap());
            retry_after(&headers)
        };
        assert_eq!(retry_after(&HeaderMap::new()), None);
        assert_eq!(read("2"), Some(Duration::from_secs(2)));
        assert_eq!(read(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(read("0"), Some(Duration::ZERO), "retry now");
        assert_eq!(read("2147483647"), Some(Duration::from_secs(2_147_483_647)));
        for value in [
            "1.5",
            "-1",
            "+3",
            "2147483648",
            "99999999999999999999999",
            "",
            "soon",
            "Wed, 21 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(read(value), None, "{value:?}");
        }
        // OpenAI's `retry-after-ms` is not the contract's: the backoff applies.
        let mut headers = HeaderMap::new();
        headers.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn what_is_retried() {
        let retry = Retry::default();
        for code in [429, 500, 502, 503, 504, 529] {
            assert!(retry.is_retryable(code), "{code}");
        }
        for code in [
            400, 401, 403, 404, 408, 413, 422, 501, 505, 520, 0, 99, 600, 999,
        ] {
            assert!(!retry.is_retryable(code), "{code}");
        }
        // Added statuses join the set, at both ends of the range; nothing leaves it.
        let wider = retry.retryable_statuses([100, 408, 520, 599, 600, 65535]);
        for code in [100, 408, 520, 599, 429, 503] {
            assert!(wider.is_retryable(code), "{code}");
        }
        for code in [101, 409, 521, 600, 65535] {
            assert!(!wider.is_retryable(code), "{code}");
        }
        assert_eq!(
            Retry::default().max_retry_after,
            Duration::from_secs(2_147_483_647),
            "a server's Retry-After is honoured however long, as the Python port"
        );
    }
}

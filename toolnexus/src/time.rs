//! Timestamps: RFC 3339 (ISO 8601) text to and from milliseconds since the Unix epoch,
//! for the run store (a [`Request`](crate::Request)'s `expires_at`), MCP tasks and A2A
//! tasks. It sits below every other module, so any of them can use it.

// The store reads timestamps (`unix_ms`), MCP and A2A tasks write them (`rfc3339`,
// `now_ms`): with only one side compiled in, the other side's functions go unused.
#![cfg_attr(
    not(all(feature = "__store", any(feature = "mcp", feature = "a2a"))),
    allow(dead_code)
)]

use std::num::NonZero;

use time::OffsetDateTime;
use time::format_description::well_known::iso8601::{Config, EncodedConfig, TimePrecision};
use time::format_description::well_known::{Iso8601, Rfc3339};

/// How timestamps are written: RFC 3339's profile of ISO 8601, in UTC (`Z`), with exactly
/// three fractional digits (milliseconds, truncated), so that every stamp has one length.
const WRITTEN: EncodedConfig = Config::DEFAULT
    .set_time_precision(TimePrecision::Second {
        decimal_digits: NonZero::new(3),
    })
    .encode();

/// The RFC 3339 timestamp `text` (`2026-12-01T10:00:00Z`, fractions and offsets allowed)
/// as milliseconds since the Unix epoch; `None` when it is not one.
pub(crate) fn unix_ms(text: &str) -> Option<i64> {
    let when = OffsetDateTime::parse(text.trim(), &Rfc3339).ok()?;
    i64::try_from(when.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

/// The first and the last millisecond RFC 3339 can write (four-digit years):
/// `0000-01-01T00:00:00.000Z` and `9999-12-31T23:59:59.999Z`.
const FIRST_MS: i64 = -62_167_219_200_000;
const LAST_MS: i64 = 253_402_300_799_999;

/// `ms` (since the Unix epoch, UTC) as `2026-12-01T10:00:00.123Z`. An instant outside the
/// years 0000–9999, which RFC 3339 cannot write, is written as the nearest one it can.
pub(crate) fn rfc3339(ms: i64) -> String {
    let nanos = i128::from(ms.clamp(FIRST_MS, LAST_MS)) * 1_000_000;
    OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|when| when.format(&Iso8601::<WRITTEN>).ok())
        // Neither step fails for an instant in those years, in UTC.
        .unwrap_or_default()
}

/// The system clock, in milliseconds since the Unix epoch (the in-memory store's clock).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::{rfc3339, unix_ms};

    #[test]
    fn reads_rfc3339() {
        assert_eq!(unix_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_ms("2000-03-01T00:00:00.5Z"), Some(951_868_800_500));
        assert_eq!(unix_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(
            unix_ms("2026-12-01T10:00:00-00:30"),
            unix_ms("2026-12-01T10:30:00Z")
        );
        assert_eq!(unix_ms("2026-13-01T10:00:00Z"), None);
        assert_eq!(unix_ms("yesterday"), None);
        assert_eq!(unix_ms("2026-12-01T10:00:00"), None);
    }

    #[test]
    fn formats_utc_milliseconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_868_800_500), "2000-03-01T00:00:00.500Z");
        assert_eq!(rfc3339(1_796_119_200_007), "2026-12-01T10:00:00.007Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339(i64::MIN), "0000-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(i64::MAX), "9999-12-31T23:59:59.999Z");
    }
}

//! Timestamps: RFC 3339 (ISO 8601) text to and from milliseconds since the Unix epoch,
//! for the run store (a [`Request`](crate::Request)'s `expires_at`), MCP tasks and A2A
//! tasks. It sits below every other module, so any of them can use it.

// The store reads timestamps (`unix_ms`), MCP and A2A tasks write them (`rfc3339`,
// `now_ms`): with only one side compiled in, the other side's functions go unused.
#![cfg_attr(
    not(all(feature = "__store", any(feature = "mcp", feature = "a2a"))),
    allow(dead_code)
)]

/// The RFC 3339 timestamp `text` (`2026-12-01T10:00:00Z`, fractions and offsets allowed)
/// as milliseconds since the Unix epoch; `None` when it is not one.
pub(crate) fn unix_ms(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = std::str::from_utf8(b.get(r)?).ok()?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't' | b' '))
    {
        return None;
    }
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut millis = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = std::str::from_utf8(&b[start..i]).ok()?;
        let ms = format!("{digits:0<3}");
        millis = ms.get(..3)?.parse::<i64>().ok()?;
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let minutes = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset * 60;
    Some(seconds * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `ms` (since the Unix epoch, UTC) as `2026-12-01T10:00:00.123Z`.
pub(crate) fn rfc3339(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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
    }
}

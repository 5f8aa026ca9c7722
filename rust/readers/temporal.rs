//! ISO-8601 text to dates and timestamps, for columns a provided schema types.

use arrow_schema::TimeUnit;

use crate::loader::days_from_civil;

fn digits(s: &[u8]) -> Option<i64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// `YYYY-MM-DD` -> days since the epoch.
pub fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(&b[..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±HH[:]MM]` -> the instant in `unit` since the
/// epoch (UTC; a time without offset is taken as UTC).
pub fn parse_timestamp(s: &str, unit: TimeUnit) -> Option<i64> {
    let s = s.trim();
    let days = parse_date(s.get(..10)?)? as i64;
    let mut nanos: i128 = days as i128 * 86_400_000_000_000;
    let rest = &s[10..];
    if !rest.is_empty() {
        let b = rest.as_bytes();
        if b[0] != b'T' && b[0] != b't' && b[0] != b' ' {
            return None;
        }
        let rest = &rest[1..];
        // split off the offset
        let (clock, offset_secs) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
            (c, 0i64)
        } else if let Some(i) = rest.rfind(['+', '-']) {
            let (c, off) = rest.split_at(i);
            let sign = if off.starts_with('-') { -1 } else { 1 };
            let off = off[1..].replace(':', "");
            if off.len() != 4 {
                return None;
            }
            let (h, m) = (digits(&off.as_bytes()[..2])?, digits(&off.as_bytes()[2..])?);
            (c, sign * (h * 3600 + m * 60))
        } else {
            (rest, 0)
        };
        let mut parts = clock.splitn(3, ':');
        let h = digits(parts.next()?.as_bytes())?;
        let m = digits(parts.next()?.as_bytes())?;
        let (sec, frac) = match parts.next() {
            None => (0, 0i128),
            Some(sec) => match sec.split_once('.') {
                None => (digits(sec.as_bytes())?, 0),
                Some((whole, f)) => {
                    if f.is_empty() || f.len() > 9 {
                        return None;
                    }
                    let scaled = digits(f.as_bytes())? as i128 * 10i128.pow(9 - f.len() as u32);
                    (digits(whole.as_bytes())?, scaled)
                }
            },
        };
        if h > 23 || m > 59 || sec > 60 {
            return None;
        }
        nanos += ((h * 3600 + m * 60 + sec - offset_secs) as i128) * 1_000_000_000 + frac;
    }
    let v = match unit {
        TimeUnit::Second => nanos.div_euclid(1_000_000_000),
        TimeUnit::Millisecond => nanos.div_euclid(1_000_000),
        TimeUnit::Microsecond => nanos.div_euclid(1_000),
        TimeUnit::Nanosecond => nanos,
    };
    i64::try_from(v).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("1970-1-02"), None);
        let us = TimeUnit::Microsecond;
        assert_eq!(parse_timestamp("1970-01-01T00:00:01Z", us), Some(1_000_000));
        assert_eq!(parse_timestamp("1970-01-01 00:00:00.5", us), Some(500_000));
        assert_eq!(parse_timestamp("1970-01-01T01:00:00+01:00", us), Some(0));
        assert_eq!(
            parse_timestamp("1970-01-01T00:00:00-0130", TimeUnit::Second),
            Some(5400)
        );
        assert_eq!(
            parse_timestamp("1970-01-01", TimeUnit::Millisecond),
            Some(0)
        );
        assert_eq!(
            parse_timestamp("1969-12-31T23:59:59.999999999", TimeUnit::Nanosecond),
            Some(-1)
        );
        assert_eq!(parse_timestamp("2024-01-01T25:00:00", us), None);
        assert_eq!(parse_timestamp("yesterday", us), None);
    }
}

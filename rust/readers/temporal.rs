//! ISO-8601 text to dates and timestamps, for columns a provided schema types.

use std::str::FromStr;

use arrow_array::timezone::Tz;
use arrow_schema::{DataType, TimeUnit};
use chrono::{DateTime, Datelike, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone};

use crate::loader::days_from_civil;

/// How a timestamp column reads a text without a UTC offset: as UTC (a column without a
/// time zone, or in UTC), or as a local time of the column's zone, as Spark reads one in
/// its session time zone; a zone this library does not know reads no such text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TextZone {
    Utc,
    Local(Tz),
    Unknown,
    /// A column without a time zone that holds wall clocks: a text without an offset is
    /// read as it is, one with an offset refused, as pyarrow.csv and Spark (its
    /// `timestamp_ntz`) refuse it (see [`TextZone::of_wall_clocks`]).
    Wall,
}

/// UTC's usual spellings: read without a time zone lookup.
const UTC_NAMES: [&str; 9] = [
    "UTC", "Etc/UTC", "Z", "+00:00", "+0000", "+00", "GMT", "Etc/GMT", "UCT",
];

impl TextZone {
    /// The zone a column of type `dt` reads offset-less texts in (`Utc` for any type but
    /// a timestamp with a time zone).
    pub(crate) fn of(dt: &DataType) -> TextZone {
        match dt {
            DataType::Timestamp(_, Some(tz)) if !UTC_NAMES.contains(&tz.as_ref()) => {
                TextZone::named(tz)
            }
            _ => TextZone::Utc,
        }
    }

    /// `of`, but a column without a time zone refuses texts with a UTC offset (`Wall`)
    /// rather than reading them as UTC instants, as pyarrow.json does.
    pub(crate) fn of_wall_clocks(dt: &DataType) -> TextZone {
        match dt {
            DataType::Timestamp(_, None) => TextZone::Wall,
            dt => TextZone::of(dt),
        }
    }

    /// The zone named `name` (not a UTC spelling). The last name looked up on this thread
    /// is remembered with its zone: a column's values ask for the same one, and the lookup
    /// (a hash of the name) cost more than the rest of reading a timestamp.
    fn named(name: &str) -> TextZone {
        thread_local! {
            static LAST: std::cell::RefCell<(String, TextZone)> =
                const { std::cell::RefCell::new((String::new(), TextZone::Utc)) };
        }
        LAST.with_borrow_mut(|(last, zone)| {
            if last != name {
                *zone = Tz::from_str(name).map_or(TextZone::Unknown, TextZone::Local);
                name.clone_into(last);
            }
            *zone
        })
    }

    /// The UTC seconds of `local` seconds (a wall clock's, counted as if it were UTC): as
    /// Java's `ZonedDateTime.of` (Spark's reading) does, a time the clocks repeat takes the
    /// earlier offset, and a time they skip moves later by the gap (the offset before it).
    pub(crate) fn to_utc(self, local: i64) -> Option<i64> {
        let tz = match self {
            TextZone::Utc | TextZone::Wall => return Some(local),
            TextZone::Local(tz) => tz,
            TextZone::Unknown => return None,
        };
        let wall = within_tables(DateTime::from_timestamp(local, 0)?.naive_utc());
        let offset = match tz.offset_from_local_datetime(&wall) {
            LocalResult::Single(o) => o.fix().local_minus_utc(),
            LocalResult::Ambiguous(a, b) => {
                (a.fix().local_minus_utc()).max(b.fix().local_minus_utc())
            }
            // a skipped time: the offset a day before (clocks change months apart)
            LocalResult::None => tz
                .offset_from_utc_datetime(&(wall - chrono::TimeDelta::days(1)))
                .fix()
                .local_minus_utc(),
        };
        local.checked_sub(i64::from(offset))
    }
}

/// The last year chrono-tz's tables hold a zone's transitions for: past it a zone keeps
/// its last offset (New York's summer time would stop in 2100), where Java, and so Spark,
/// goes on by the zone's rules.
const LAST_TABLED_YEAR: i32 = 2099;

/// Wall clock `wall`, if past the tables' last year, moved to the latest year they hold
/// with the same calendar (a leap year or not, January 1st on the same weekday): each of
/// a zone's rules ("the last Sunday of March") falls on the same date there, so the offset
/// is the one the zone's rules give `wall`.
fn within_tables(wall: NaiveDateTime) -> NaiveDateTime {
    let year = wall.year();
    if year <= LAST_TABLED_YEAR {
        return wall;
    }
    let calendar = |y: i32| {
        let january = NaiveDate::from_ymd_opt(y, 1, 1);
        (is_leap(i64::from(y)), january.map(|d| d.weekday()))
    };
    // 28 years without a century's lost leap day hold every calendar
    (LAST_TABLED_YEAR - 27..=LAST_TABLED_YEAR)
        .rev()
        .find(|&y| calendar(y) == calendar(year))
        .and_then(|y| wall.with_year(y))
        .unwrap_or(wall)
}

/// The number a run of ASCII digits spells (`None`: empty, or another byte). Every caller
/// reads at most 9 digits: no overflow.
#[inline(always)]
pub(crate) fn digits(s: &[u8]) -> Option<i64> {
    debug_assert!(s.len() <= 9);
    if s.is_empty() {
        return None;
    }
    s.iter().try_fold(0i64, |n, &c| {
        let d = c.wrapping_sub(b'0');
        (d <= 9).then_some(n * 10 + i64::from(d))
    })
}

/// `YYYY-MM-DD` -> days since the epoch.
pub fn parse_date(s: &str) -> Option<i32> {
    i32::try_from(date_days(s.as_bytes())?).ok()
}

/// `YYYY-MM-DD` (bytes) -> days since the epoch: the day checked against its month.
#[inline(always)]
fn date_days(b: &[u8]) -> Option<i64> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(&b[..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    if !(1..=12).contains(&m) || !(1..=days_in_month(y, m)).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Whether year `y` of the proleptic Gregorian calendar has a February 29th.
fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days of month `m` (1-12) of year `y` in the proleptic Gregorian calendar.
pub(crate) fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Two ASCII digits up to `max` (clock fields and offsets are always two digits).
#[inline(always)]
fn two_digits(s: &[u8], max: i64) -> Option<i64> {
    if s.len() != 2 {
        return None;
    }
    digits(s).filter(|&n| n <= max)
}

/// `HH:MM`, `HHMM` or `HH` of a UTC offset (after its sign, under 24 hours) -> seconds.
fn offset_seconds(s: &[u8]) -> Option<i64> {
    let (hh, mm) = match s {
        [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => ([*h1, *h2], [*m1, *m2]),
        [h1, h2] => ([*h1, *h2], *b"00"),
        _ => return None,
    };
    Some(two_digits(&hh, 23)? * 3600 + two_digits(&mm, 59)? * 60)
}

/// Why text `s` is no value of timestamp type `dt` read in `zone`, when it is a timestamp
/// the zone refuses: one without a UTC offset in a column whose time zone this library
/// does not know, one with an offset in a column of wall clocks (for messages; `None`: it
/// is not ISO-8601, as the caller says).
pub(crate) fn zone_refusal(s: &str, dt: &DataType, zone: TextZone) -> Option<String> {
    let DataType::Timestamp(unit, tz) = dt else {
        return None;
    };
    parse_any_timestamp(s, *unit)?;
    match (zone, tz) {
        (TextZone::Unknown, Some(tz)) => Some(format!(
            "{s:?} has no UTC offset, and the column's time zone {tz:?} is not one this \
             library knows (an IANA name such as \"Europe/Paris\", or +HH:MM)"
        )),
        (TextZone::Wall, None) => Some(format!(
            "{s:?} has a UTC offset, and the column has no time zone: it holds wall clocks \
             (give it a time zone, timestamp[us, tz=\"UTC\"], to read instants)"
        )),
        _ => None,
    }
}

/// `YYYY-MM-DD[(T| )HH[:MM[:SS[.fraction]]]][Z|±HH[[:]MM]]` -> the instant in `unit` since
/// the epoch (UTC; a time without offset is taken as UTC): the usual layout by position
/// ([`parse_plain_timestamp`]), any other by [`parse_any_timestamp`].
#[cfg(test)]
pub fn parse_timestamp(s: &str, unit: TimeUnit) -> Option<i64> {
    parse_timestamp_in(s, unit, TextZone::Utc)
}

/// `parse_timestamp`, a text without an offset read as a local time of `zone`.
pub(crate) fn parse_timestamp_in(s: &str, unit: TimeUnit, zone: TextZone) -> Option<i64> {
    parse_plain_timestamp_in(s.as_bytes(), unit, zone)
        .or_else(|| parse_any_timestamp_in(s, unit, zone))
}

/// `parse_timestamp` by the general rules, for a text the positional read was already
/// given (or need not be): spaces around it allowed.
pub(crate) fn parse_any_timestamp(s: &str, unit: TimeUnit) -> Option<i64> {
    parse_any_timestamp_in(s, unit, TextZone::Utc)
}

/// `parse_any_timestamp`, a text without an offset read as a local time of `zone`. Whole
/// seconds and the fraction's nanoseconds are kept apart, so it is all i64 arithmetic.
pub(crate) fn parse_any_timestamp_in(s: &str, unit: TimeUnit, zone: TextZone) -> Option<i64> {
    let s = s.trim();
    let mut secs = date_days(s.as_bytes().get(..10)?)? * 86_400;
    let mut nanos = 0i64; // the fraction of a second, 0..1e9
    let mut offset = None;
    let rest = &s.as_bytes()[10..];
    if let Some((&sep, rest)) = rest.split_first() {
        if !matches!(sep, b'T' | b't' | b' ') {
            return None;
        }
        // split off the offset
        let clock = match rest.split_last() {
            Some((b'Z' | b'z', clock)) => {
                offset = Some(0);
                clock
            }
            _ => match rest.iter().rposition(|&c| c == b'+' || c == b'-') {
                Some(i) => {
                    let sign = if rest[i] == b'-' { -1 } else { 1 };
                    offset = Some(sign * offset_seconds(&rest[i + 1..])?);
                    &rest[..i]
                }
                None => rest,
            },
        };
        let mut parts = clock.splitn(3, |&c| c == b':');
        let h = two_digits(parts.next()?, 23)?;
        let m = match parts.next() {
            None => 0,
            Some(m) => two_digits(m, 59)?,
        };
        let sec = match parts.next() {
            None => 0,
            Some(sec) => match sec.iter().position(|&c| c == b'.') {
                None => two_digits(sec, 59)?,
                Some(dot) => {
                    let f = &sec[dot + 1..];
                    if f.is_empty() || f.len() > 9 {
                        return None;
                    }
                    nanos = digits(f)? * 10i64.pow(9 - f.len() as u32);
                    two_digits(&sec[..dot], 59)?
                }
            },
        };
        secs += h * 3600 + m * 60 + sec;
    }
    let secs = match offset {
        Some(_) if matches!(zone, TextZone::Wall) => return None,
        Some(offset) => secs - offset,
        None => zone.to_utc(secs)?,
    };
    in_unit(secs, nanos, unit)
}

/// `parse_timestamp` for the layout `plain_timestamp` reads, from bytes (which it checks:
/// no UTF-8 check needed); `None` for anything else, or an instant the unit cannot hold.
#[inline(always)]
pub(crate) fn parse_plain_timestamp(b: &[u8], unit: TimeUnit) -> Option<i64> {
    let (secs, nanos) = plain_timestamp(b)?;
    in_unit(secs, nanos, unit)
}

/// `parse_plain_timestamp` (its layout has no offset) as a local time of `zone`.
#[inline(always)]
pub(crate) fn parse_plain_timestamp_in(b: &[u8], unit: TimeUnit, zone: TextZone) -> Option<i64> {
    let (secs, nanos) = plain_timestamp(b)?;
    in_unit(zone.to_utc(secs)?, nanos, unit)
}

/// `YYYY-MM-DD(T| )HH:MM:SS[.fraction]` with no offset and no space around it, the layout
/// most files write, read by position: seconds since the epoch and the fraction's
/// nanoseconds. `None` for any other text (`parse_timestamp`'s general path decides).
#[inline(always)]
fn plain_timestamp(b: &[u8]) -> Option<(i64, i64)> {
    if b.len() < 19 || b.len() == 20 || b.len() > 29 {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let days = date_days(&b[..10])?;
    let h = two_digits(&b[11..13], 23)?;
    let min = two_digits(&b[14..16], 59)?;
    let sec = two_digits(&b[17..19], 59)?;
    let nanos = match &b[19..] {
        [] => 0,
        [b'.', f @ ..] => digits(f)? * 10i64.pow(9 - f.len() as u32),
        _ => return None,
    };
    Some((days * 86_400 + h * 3600 + min * 60 + sec, nanos))
}

/// `secs` seconds since the epoch in `unit`, if it fits an i64.
pub(crate) fn seconds_in_unit(secs: i64, unit: TimeUnit) -> Option<i64> {
    in_unit(secs, 0, unit)
}

/// `secs` seconds and `nanos` nanoseconds since the epoch in `unit` (rounded down), if it
/// fits an i64.
pub(crate) fn in_unit(secs: i64, nanos: i64, unit: TimeUnit) -> Option<i64> {
    // secs * 10^k + floor(nanos / 10^(9-k)) is the floor of the instant in the unit; each
    // division by its own constant (a multiplication, not a `div`)
    let (per_second, below) = match unit {
        TimeUnit::Second => (1, nanos / 1_000_000_000),
        TimeUnit::Millisecond => (1_000, nanos / 1_000_000),
        TimeUnit::Microsecond => (1_000_000, nanos / 1_000),
        TimeUnit::Nanosecond => (1_000_000_000, nanos),
    };
    secs.checked_mul(per_second)?.checked_add(below)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("1970-1-02"), None);
        // day of month checked against the month (and leap years), not against 31
        assert_eq!(parse_date("2024-02-29"), Some(19782));
        for bad in [
            "2023-02-29",
            "2100-02-29",
            "2024-02-30",
            "2024-04-31",
            "2024-11-31",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert_eq!(parse_date("2000-02-29"), Some(11016));
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
        // the hour alone, an offset of whole hours (ISO 8601 has both; pyarrow reads both)
        assert_eq!(parse_timestamp("1970-01-01T05:00+05", us), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T01Z", us), Some(3_600_000_000));
        assert_eq!(parse_timestamp("1970-01-01T01-01", us), Some(7_200_000_000));
        assert_eq!(parse_timestamp("2024-01-01T25:00:00", us), None);
        assert_eq!(parse_timestamp("yesterday", us), None);
        assert_eq!(
            parse_timestamp("9999-12-31T23:59:59", TimeUnit::Nanosecond),
            None
        );
    }

    fn zoned(tz: &str) -> TextZone {
        TextZone::of(&DataType::Timestamp(TimeUnit::Second, Some(tz.into())))
    }

    /// The zone a name looked up last is remembered (see `TextZone::named`): names taken
    /// in turn, an unknown one among them, each read as its own.
    #[test]
    fn zones_named_in_turn_are_each_their_own() {
        let at = |tz: &str| parse_timestamp_in("2024-01-01T00:00:00", TimeUnit::Second, zoned(tz));
        let midnight = 1_704_067_200;
        for _ in 0..2 {
            assert_eq!(at("Europe/Paris"), Some(midnight - 3600));
            assert_eq!(at("Europe/Paris"), Some(midnight - 3600));
            assert_eq!(at("Mars/Olympus"), None);
            assert_eq!(at("America/New_York"), Some(midnight + 5 * 3600));
            assert_eq!(at("+02:00"), Some(midnight - 2 * 3600));
        }
    }

    #[test]
    fn offset_less_texts_are_local_times_of_the_columns_zone() {
        let s = TimeUnit::Second;
        let at = |text: &str, tz: &str| parse_timestamp_in(text, s, zoned(tz));
        // 2024-01-01T00:00:00Z is 1704067200
        let midnight = 1_704_067_200;
        for utc in ["UTC", "Etc/UTC", "+00:00", "Z", "GMT"] {
            assert!(matches!(zoned(utc), TextZone::Utc), "{utc}");
            assert_eq!(at("2024-01-01T00:00:00", utc), Some(midnight));
        }
        assert_eq!(
            at("2024-01-01T00:00:00", "America/New_York"),
            Some(midnight + 5 * 3600)
        );
        assert_eq!(
            at("2024-01-01 00:00", "Asia/Tokyo"),
            Some(midnight - 9 * 3600)
        );
        assert_eq!(at("2024-01-01T00:00:00", "+05:30"), Some(midnight - 19_800));
        assert_eq!(at("2024-01-01", "Europe/Paris"), Some(midnight - 3600));
        // a text with an offset is that instant, whatever the zone
        assert_eq!(
            at("2024-01-01T00:00:00Z", "America/New_York"),
            Some(midnight)
        );
        assert_eq!(
            at("2024-01-01T02:00:00+02:00", "Asia/Tokyo"),
            Some(midnight)
        );
        // summer time: New York is UTC-4 in July
        assert_eq!(
            at("2024-07-01T00:00:00", "America/New_York"),
            parse_timestamp("2024-07-01T04:00:00Z", s)
        );
        // as Java's ZonedDateTime.of: a repeated time takes the earlier offset (01:30 EDT)
        assert_eq!(
            at("2024-11-03T01:30:00", "America/New_York"),
            parse_timestamp("2024-11-03T05:30:00Z", s)
        );
        // ...and a skipped time moves later by the gap (02:30 does not exist: 03:30 EDT)
        assert_eq!(
            at("2024-03-10T02:30:00", "America/New_York"),
            parse_timestamp("2024-03-10T07:30:00Z", s)
        );
        assert_eq!(
            at("2024-03-31T02:30:00", "Europe/Paris"),
            parse_timestamp("2024-03-31T01:30:00Z", s)
        );
        // an unknown zone reads texts with an offset, and no other
        assert!(matches!(zoned("Mars/Olympus"), TextZone::Unknown));
        assert_eq!(at("2024-01-01T00:00:00Z", "Mars/Olympus"), Some(midnight));
        assert_eq!(at("2024-01-01T00:00:00", "Mars/Olympus"), None);
        let dt = DataType::Timestamp(s, Some("Mars/Olympus".into()));
        let refusal = |text: &str| zone_refusal(text, &dt, TextZone::of(&dt));
        assert!(refusal("2024-01-01T00:00:00")
            .unwrap()
            .contains("Mars/Olympus"));
        assert_eq!(refusal("yesterday"), None);
        // wall clocks: a text with an offset is refused, one without read as it is
        let wall = DataType::Timestamp(s, None);
        let zone = TextZone::of_wall_clocks(&wall);
        assert!(matches!(zone, TextZone::Wall));
        assert!(matches!(TextZone::of_wall_clocks(&dt), TextZone::Unknown));
        assert_eq!(
            parse_timestamp_in("2024-01-01 00:00", s, zone),
            Some(midnight)
        );
        for text in ["2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00"] {
            assert_eq!(parse_timestamp_in(text, s, zone), None);
            assert!(zone_refusal(text, &wall, zone)
                .unwrap()
                .contains("wall clocks"));
            assert_eq!(zone_refusal(text, &wall, TextZone::Utc), None);
        }
        // units: the fraction stays
        assert_eq!(
            parse_timestamp_in(
                "2024-01-01T00:00:00.25",
                TimeUnit::Millisecond,
                zoned("+01:00")
            ),
            Some((midnight - 3600) * 1000 + 250)
        );
    }

    /// `YYYY-MM-DD` -> days since the epoch, the slow way: byte by byte, a table of
    /// month lengths, and a count of the years' days from 1970 (the reference for
    /// `date_days`, which the timestamp reference must not share).
    fn reference_days(s: &str) -> Option<i64> {
        let b = s.as_bytes();
        let digit_at = |i: usize| b[i].is_ascii_digit();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        if !(0..10).filter(|&i| i != 4 && i != 7).all(digit_at) {
            return None;
        }
        let (y, m, d): (i64, usize, i64) = (
            s[..4].parse().ok()?,
            s[5..7].parse().ok()?,
            s[8..10].parse().ok()?,
        );
        let leap = |y: i64| y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let year_days = |y: i64| if leap(y) { 366 } else { 365 };
        let months = [
            31,
            if leap(y) { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if !(1..=12).contains(&m) || d < 1 || d > months[m - 1] {
            return None;
        }
        let before_year: i64 = if y >= 1970 {
            (1970..y).map(year_days).sum()
        } else {
            -(y..1970).map(year_days).sum::<i64>()
        };
        Some(before_year + months[..m - 1].iter().sum::<i64>() + d - 1)
    }

    /// The instant computed the slow, obvious way: everything in i128 nanoseconds.
    fn reference(s: &str, unit: TimeUnit) -> Option<i64> {
        let s = s.trim();
        let days = reference_days(s.get(..10)?)? as i128;
        let mut nanos = days * 86_400_000_000_000;
        let rest = &s[10..];
        if !rest.is_empty() {
            let rest = rest.strip_prefix(['T', 't', ' '])?;
            let (clock, off) = match rest.strip_suffix(['Z', 'z']) {
                Some(c) => (c, 0i128),
                None => match rest.rfind(['+', '-']) {
                    None => (rest, 0),
                    Some(i) => {
                        let raw = &rest[i + 1..];
                        let off: String = match raw.len() {
                            5 if &raw[2..3] == ":" => format!("{}{}", &raw[..2], &raw[3..]),
                            4 => raw.to_string(),
                            2 => format!("{raw}00"),
                            _ => return None,
                        };
                        if !off.bytes().all(|c| c.is_ascii_digit())
                            || off[..2].parse::<u8>().ok()? > 23
                            || off[2..].parse::<u8>().ok()? > 59
                        {
                            return None;
                        }
                        let v: i128 = off[..2].parse::<i128>().ok()? * 3600
                            + off[2..].parse::<i128>().ok()? * 60;
                        (&rest[..i], if rest[i..].starts_with('-') { -v } else { v })
                    }
                },
            };
            let num = |t: &str| -> Option<i128> {
                (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()))
                    .then(|| t.parse().ok())
                    .flatten()
            };
            let two = |t: &str| if t.len() == 2 { num(t) } else { None };
            let parts: Vec<&str> = clock.splitn(3, ':').collect();
            let h = two(parts.first()?)?;
            let m = match parts.get(1) {
                None => 0,
                Some(t) => two(t)?,
            };
            let (sec, frac) = match parts.get(2) {
                None => (0, 0),
                Some(t) => match t.split_once('.') {
                    None => (two(t)?, 0),
                    Some((w, f)) if !f.is_empty() && f.len() <= 9 => {
                        (two(w)?, num(f)? * 10i128.pow(9 - f.len() as u32))
                    }
                    Some(_) => return None,
                },
            };
            if h > 23 || m > 59 || sec > 59 {
                return None;
            }
            nanos += (h * 3600 + m * 60 + sec - off) * 1_000_000_000 + frac;
        }
        let per = match unit {
            TimeUnit::Second => 1_000_000_000,
            TimeUnit::Millisecond => 1_000_000,
            TimeUnit::Microsecond => 1_000,
            TimeUnit::Nanosecond => 1,
        };
        i64::try_from(nanos.div_euclid(per)).ok()
    }

    #[test]
    fn timestamps_equal_the_i128_reference() {
        let dates = [
            "1969-12-31",
            "1970-01-01",
            "0001-01-01",
            "2024-02-29",
            "9999-12-31",
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "20x4-01-01",
        ];
        let clocks = [
            "",
            "T00:00",
            "t23:59:59",
            " 12:30:15.5",
            "T00:00:00.000000001",
            "T23:59:59.999999999",
            "T23:59:60",
            "T23:60",
            "T001:02:03",
            "T24:00",
            "T1:2:3",
            "T12:34:56.",
            "T12:34:56.1234567890",
            "T12:34:56.12",
            " 07:08:09.123456",
            "T1a:00:00",
            "T12:00:0x",
            "T12-00-00",
            "T12:00:00 ",
            "x12:00:00",
            "T12:x4",
            "T12",
            "T7",
            "T12:",
            "T12::00",
        ];
        let offsets = [
            "", "Z", "z", "+01:00", "-0130", "+14:00", "-23:59", "+1:00", "+01:0:0", "+0100x", "-",
            "+123", "+24:00", "-00:60", "+0:100", "+05", "-11", "+5", "-05:", "+24",
        ];
        let units = [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ];
        let mut some = 0;
        for d in dates {
            for c in clocks {
                for o in offsets {
                    // bare, as most files write it (read by position), and spaced
                    for text in [format!("{d}{c}{o}"), format!(" {d}{c}{o} ")] {
                        for unit in units {
                            let want = reference(&text, unit);
                            assert_eq!(parse_timestamp(&text, unit), want, "{text:?} in {unit:?}");
                            some += usize::from(want.is_some());
                        }
                    }
                }
            }
        }
        assert!(
            some > 500,
            "the grid must exercise valid timestamps too ({some})"
        );
    }

    /// Every byte of the layouts read by position replaced by bytes next to the digits
    /// (`/`, `:`), digits, separators and letters: the result is the reference's, so each
    /// digit, separator and field range is checked where it stands.
    #[test]
    fn each_byte_of_a_plain_timestamp_is_checked() {
        let bases = [
            "2024-02-29T23:59:59.123456789",
            "1999-12-31 00:00:00",
            "2000-01-01t12:34:56.5",
            "1970-01-01T00:00:00.000000",
            "2024-02-29",
        ];
        let mut compared = 0;
        for base in bases {
            for at in 0..base.len() {
                for sub in b"/:0123456789-. Tta" {
                    let mut bytes = base.as_bytes().to_vec();
                    bytes[at] = *sub;
                    let text = String::from_utf8(bytes).unwrap();
                    let want = reference(&text, TimeUnit::Nanosecond);
                    assert_eq!(parse_timestamp(&text, TimeUnit::Nanosecond), want, "{text}");
                    if text.len() == 10 {
                        let seconds = reference(&text, TimeUnit::Second);
                        let days = seconds.map(|s| (s / 86_400) as i32);
                        assert_eq!(parse_date(&text), days, "{text}");
                    }
                    compared += usize::from(want.is_some());
                }
            }
        }
        assert!(compared > 100, "too few valid texts: {compared}");
    }
}

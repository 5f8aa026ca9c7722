//! The date and timestamp texts Spark's readers take beyond ISO-8601's usual layout (its
//! `DateTimeUtils.stringToDate` and `stringToTimestamp`, which its JSON and CSV readers use
//! when no format is given): one-digit months, days and clock fields (`2024-1-2 3:4:5`), a
//! year or a month alone (`2024`, `2024-01`), a year of 4 to 6 digits (7 for a date) with a
//! sign, a clock without seconds, any number of fraction digits (truncated), a time zone
//! after the clock (`Z`, `+1`, `+01:00:30`, `UTC+1`, `GMT-0530`, `PST`, `Europe/Paris`,
//! with spaces before it or not), control characters and spaces around the text; and for a
//! date, anything after a space or `T` that follows the day (`2024-01-02T03:04:05Z` is
//! 2024-01-02). What Spark refuses is refused here too, with one exception: a time of day
//! alone (`12:00`), which Spark reads as that time today, is refused (a value that would
//! depend on the day the file is read).

use std::str::FromStr;

use arrow_array::timezone::Tz;
use arrow_schema::TimeUnit;

use super::java_zone_names::zone_of_name;
use super::temporal::{days_in_month, digits, in_unit, TextZone};
use crate::loader::days_from_civil;

/// Days since the epoch of date text `s` as Spark's `stringToDate` reads it; with
/// `whole_days` (Spark's JSON reader), a text that is an integer and no date (`"12"`,
/// `"-5"`) counts days since the epoch, as Spark 1.5 wrote dates.
pub(crate) fn spark_date(s: &str, whole_days: bool) -> Option<i32> {
    lenient_date(s).or_else(|| whole_days.then(|| day_count(s)).flatten())
}

/// `stringToDate`: `[+-]yyyy[y..]`, `-[m]m`, `-[d]d`, then a space or `T` and anything.
fn lenient_date(s: &str) -> Option<i32> {
    let (negative, b) = signed(trim_controls(s.as_bytes()));
    // the date ends at the first space or `T` (what follows is not read)
    let end = b.iter().position(|&c| c == b' ' || c == b'T');
    let (date, after) = b.split_at(end.unwrap_or(b.len()));
    let mut fields = date.split(|&c| c == b'-');
    let year = run_of(fields.next()?, 4, 7)?;
    let month = fields.next().map_or(Some(1), |f| run_of(f, 1, 2))?;
    let day = match fields.next() {
        None if !after.is_empty() => return None, // `yyyy` and `yyyy-mm` end the text
        None => 1,
        Some(f) => run_of(f, 1, 2)?,
    };
    if fields.next().is_some() {
        return None;
    }
    let year = if negative { -year } else { year };
    i32::try_from(civil_days(year, month, day)?).ok()
}

/// A whole number of days as Java's `Integer.parseInt` reads one (a sign, ASCII digits,
/// nothing around them), from the Gregorian calendar's start on (Spark shifts earlier
/// ones from the Julian calendar: refused rather than shifted otherwise).
fn day_count(s: &str) -> Option<i32> {
    const GREGORIAN_START: i32 = -141_427; // 1582-10-15
    s.parse::<i32>().ok().filter(|&d| d >= GREGORIAN_START)
}

/// Timestamp text `s` as Spark's `stringToTimestamp` reads it, in `unit` since the epoch: a
/// text without a time zone is a local time of `zone`; a column of wall clocks
/// (`TextZone::Wall`, Spark's `timestamp_ntz`) refuses a text with one.
pub(crate) fn spark_timestamp(s: &str, unit: TimeUnit, zone: TextZone) -> Option<i64> {
    let (negative, b) = signed(trim_controls(s.as_bytes()));
    let mut cursor = Cursor { b, i: 0 };
    let year = cursor.run(4, 6)?;
    let year = if negative { -year } else { year };
    let (mut month, mut day) = (1, 1);
    let (mut clock, mut nanos) = (0, 0);
    let mut text_zone = None;
    if cursor.eat(b'-') {
        month = cursor.run(1, 2)?;
        if cursor.eat(b'-') {
            day = cursor.run(1, 2)?;
            if cursor.eat(b' ') || cursor.eat(b'T') {
                (clock, nanos, text_zone) = time_of_day(&mut cursor)?;
            }
        }
    }
    if !cursor.done() {
        return None;
    }
    let local = civil_days(year, month, day)? * 86_400 + clock;
    in_unit(utc_of_local(local, text_zone, zone)?, nanos, unit)
}

/// The UTC seconds of `local` seconds (a wall clock's, counted as if it were UTC): a local
/// time of the zone a text named (`named`), else of the column's `zone`; a column of wall
/// clocks (`TextZone::Wall`) refuses a named one.
pub(crate) fn utc_of_local(local: i64, named: Option<SparkZone>, zone: TextZone) -> Option<i64> {
    match (named, zone) {
        (None, zone) => zone.to_utc(local),
        (Some(_), TextZone::Wall) => None,
        (Some(SparkZone::Offset(offset)), _) => Some(local - offset),
        (Some(SparkZone::Region(tz)), _) => TextZone::Local(tz).to_utc(local),
    }
}

/// Why Spark's forms leave timestamp text `s` unread in `zone` where Spark's reader would
/// give it a value or a null for a reason worth saying: a time of day alone (Spark: that
/// time today), or a zone named in a column of wall clocks (Spark: a null). `None` for
/// any other text (not a timestamp in Spark's forms either).
pub(crate) fn spark_refusal(s: &str, zone: TextZone) -> Option<String> {
    let b = trim_controls(s.as_bytes());
    let clock = b.strip_prefix(b"T").unwrap_or(b);
    let mut cursor = Cursor { b: clock, i: 0 };
    let alone = clock.len() < b.len() || clock.get(1..3).is_some_and(|c| c.contains(&b':'));
    if alone && time_of_day(&mut cursor).is_some() && cursor.done() {
        return Some(format!(
            "{s:?} is a time of day alone: Spark reads it as that time today, a value that \
             depends on the day of the read; this library refuses it (give the date)"
        ));
    }
    if matches!(zone, TextZone::Wall)
        && spark_timestamp(s, TimeUnit::Second, TextZone::Utc).is_some()
    {
        return Some(format!(
            "{s:?} names a time zone, and the column has no time zone: it holds wall clocks \
             (Spark reads a null; give the column a time zone to read instants)"
        ));
    }
    None
}

/// `[h]h[:[m]m[:[s]s[.fraction][zone]]]` after a date: the clock's seconds, the fraction's
/// nanoseconds (digits past 9 dropped) and the zone the text names, if any.
fn time_of_day(cursor: &mut Cursor<'_>) -> Option<(i64, i64, Option<SparkZone>)> {
    let hour = cursor.run(1, 2).filter(|&h| h <= 23)?;
    let (mut minute, mut second, mut nanos) = (0, 0, 0);
    let mut zone = None;
    if cursor.eat(b':') {
        minute = cursor.run(1, 2).filter(|&m| m <= 59)?;
        if cursor.eat(b':') {
            second = cursor.run(1, 2).filter(|&s| s <= 59)?;
            if cursor.eat(b'.') {
                let fraction = cursor.digits();
                let kept = &fraction[..fraction.len().min(9)];
                nanos = run_of(kept, 0, 9).unwrap_or(0) * 10i64.pow(9 - kept.len() as u32);
            }
            if !cursor.done() {
                zone = Some(spark_zone(cursor.take_rest())?);
            }
        }
    }
    Some((hour * 3600 + minute * 60 + second, nanos, zone))
}

/// A time zone a timestamp text names, as Java's `ZoneId.of` reads it with its short ids.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SparkZone {
    /// A fixed offset from UTC, in seconds.
    Offset(i64),
    /// A zone of the time zone database (its offset depends on the date).
    Region(Tz),
}

/// Java's `ZoneId.SHORT_IDS`: three-letter names `ZoneId.of` takes (with it, as Spark
/// passes it), each for an offset or a region.
pub(crate) const JAVA_SHORT_IDS: [(&str, &str); 28] = [
    ("ACT", "Australia/Darwin"),
    ("AET", "Australia/Sydney"),
    ("AGT", "America/Argentina/Buenos_Aires"),
    ("ART", "Africa/Cairo"),
    ("AST", "America/Anchorage"),
    ("BET", "America/Sao_Paulo"),
    ("BST", "Asia/Dhaka"),
    ("CAT", "Africa/Harare"),
    ("CNT", "America/St_Johns"),
    ("CST", "America/Chicago"),
    ("CTT", "Asia/Shanghai"),
    ("EAT", "Africa/Addis_Ababa"),
    ("ECT", "Europe/Paris"),
    ("EST", "-05:00"),
    ("HST", "-10:00"),
    ("IET", "America/Indiana/Indianapolis"),
    ("IST", "Asia/Kolkata"),
    ("JST", "Asia/Tokyo"),
    ("MIT", "Pacific/Apia"),
    ("MST", "-07:00"),
    ("NET", "Asia/Yerevan"),
    ("NST", "Pacific/Auckland"),
    ("PLT", "Asia/Karachi"),
    ("PNT", "America/Phoenix"),
    ("PRT", "America/Puerto_Rico"),
    ("PST", "America/Los_Angeles"),
    ("SST", "Pacific/Guadalcanal"),
    ("VST", "Asia/Ho_Chi_Minh"),
];

/// The zone `text` (what follows a clock's seconds, spaces before it allowed) names: `Z`,
/// an offset (`+h`, `+hh`, `+h:mm`, `+hh:mm`, `+hhmm`, `+hh:mm:ss`, `+hhmmss`, up to 18
/// hours), `UTC`, `GMT` or `UT` alone or before an offset, a short id, or a region of the
/// time zone database (by its exact name).
pub(crate) fn spark_zone(text: &[u8]) -> Option<SparkZone> {
    let start = text.iter().position(|&c| c > b' ')?;
    let text = std::str::from_utf8(&text[start..]).ok()?;
    if let Some(zone) = offset_zone(text, false) {
        return zone;
    }
    let name = JAVA_SHORT_IDS
        .iter()
        .find(|(short, _)| *short == text)
        .map_or(text, |&(_, long)| long);
    if name.starts_with('-') {
        return offset_of(name).map(SparkZone::Offset);
    }
    Tz::from_str(name).ok().map(SparkZone::Region)
}

/// The zone a `timestampFormat` pattern's `z` (`names`: a short name, `EST`, or else an id)
/// or `VV` (an id) reads in `text`, as Java's `DateTimeFormatter` reads them under Spark
/// (any case): `Z`, an offset, `UTC`, `GMT` or `UT` alone or before an offset, a name of
/// [`zone_of_name`] (for `z`; not `ZoneId`'s short ids), a region of the time zone
/// database (its name in any case; not `EST`, `MST` or `HST`, which Java's lacks).
pub(crate) fn pattern_zone(text: &str, names: bool) -> Option<SparkZone> {
    if let Some(zone) = offset_zone(text, true) {
        return zone;
    }
    if let Some(region) = names.then(|| zone_of_name(text)).flatten() {
        return Tz::from_str(region).ok().map(SparkZone::Region);
    }
    region_in_any_case(text).map(SparkZone::Region)
}

/// `Some` if `text` is a zone written as an offset (`Z`, `+01:00`, `UTC`, `GMT+1`...; its
/// letters in `any_case`, as a pattern reads them, else as `ZoneId.of` does): that offset,
/// or `None` if it is out of range or malformed. `None`: it is not one.
fn offset_zone(text: &str, any_case: bool) -> Option<Option<SparkZone>> {
    let same = |a: &str, b: &str| a == b || (any_case && a.eq_ignore_ascii_case(b));
    if same(text, "Z") {
        return Some(Some(SparkZone::Offset(0)));
    }
    if text.starts_with(['+', '-']) {
        return Some(offset_of(text).map(SparkZone::Offset));
    }
    for prefix in ["UTC", "GMT", "UT"] {
        let rest = text
            .get(..prefix.len())
            .filter(|p| same(p, prefix))
            .map(|_| &text[prefix.len()..]);
        match rest {
            Some("") => return Some(Some(SparkZone::Offset(0))),
            Some(rest) if rest.starts_with(['+', '-']) => {
                return Some(offset_of(rest).map(SparkZone::Offset))
            }
            _ => {} // a region (`GMT0`), or no zone
        }
    }
    None
}

/// The region of the time zone database named `name` in any case (`europe/paris`), as
/// Java's pattern parser finds it; `EST`, `MST` and `HST` are no regions to Java.
fn region_in_any_case(name: &str) -> Option<Tz> {
    static UPPER: std::sync::OnceLock<std::collections::HashMap<String, &'static str>> =
        std::sync::OnceLock::new();
    let regions = UPPER.get_or_init(|| {
        chrono_tz::TZ_VARIANTS
            .iter()
            .map(|tz| (tz.name().to_ascii_uppercase(), tz.name()))
            .filter(|(upper, _)| !matches!(upper.as_str(), "EST" | "MST" | "HST"))
            .collect()
    });
    let region = regions.get(&name.to_ascii_uppercase())?;
    Tz::from_str(region).ok()
}

/// A signed offset as `ZoneOffset.of` reads it after Spark's padding of a one-digit hour:
/// seconds east of UTC, at most 18 hours either way.
fn offset_of(text: &str) -> Option<i64> {
    let (sign, body) = match text.as_bytes() {
        [b'+', body @ ..] => (1, body),
        [b'-', body @ ..] => (-1, body),
        _ => return None,
    };
    // Spark pads a one-digit hour (`+1`, `+1:00`) before Java reads the offset
    let padded;
    let body = if body.first().is_some_and(u8::is_ascii_digit)
        && !body.get(1).is_some_and(u8::is_ascii_digit)
    {
        padded = [b"0", body].concat();
        &padded[..]
    } else {
        body
    };
    let two = |a: u8, b: u8| run_of(&[a, b], 2, 2);
    let (h, m, s) = match *body {
        [h1, h2] => (two(h1, h2)?, 0, 0),
        [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => (two(h1, h2)?, two(m1, m2)?, 0),
        [h1, h2, b':', m1, m2, b':', s1, s2] | [h1, h2, m1, m2, s1, s2] => {
            (two(h1, h2)?, two(m1, m2)?, two(s1, s2)?)
        }
        _ => return None,
    };
    if m > 59 || s > 59 || h > 18 || (h == 18 && (m, s) != (0, 0)) {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + s))
}

/// A position in a text's bytes.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    /// Past byte `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        let next = self.b.get(self.i) == Some(&c);
        self.i += usize::from(next);
        next
    }

    /// The run of ASCII digits next (maybe empty), consumed.
    fn digits(&mut self) -> &'a [u8] {
        let b: &'a [u8] = self.b;
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        &b[start..self.i]
    }

    /// The number the run of digits next spells, if it has `min` to `max` of them.
    fn run(&mut self, min: usize, max: usize) -> Option<i64> {
        run_of(self.digits(), min, max)
    }

    /// What is left, consumed.
    fn take_rest(&mut self) -> &'a [u8] {
        let b: &'a [u8] = self.b;
        let rest = &b[self.i..];
        self.i = b.len();
        rest
    }

    /// Whether the text is all read.
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
}

/// The number `digits` spells if it is `min` to `max` ASCII digits (at most 7: no overflow).
fn run_of(text: &[u8], min: usize, max: usize) -> Option<i64> {
    if !(min..=max).contains(&text.len()) {
        return None;
    }
    digits(text)
}

/// `b` without the spaces and control characters around it (what Spark trims: bytes up to
/// a space, and DEL).
fn trim_controls(b: &[u8]) -> &[u8] {
    let kept = |c: &u8| *c > b' ' && *c != 0x7f;
    let start = b.iter().position(kept).unwrap_or(b.len());
    let end = b.iter().rposition(kept).map_or(start, |i| i + 1);
    &b[start..end]
}

/// A leading sign taken off: whether it was `-`, and the rest.
fn signed(b: &[u8]) -> (bool, &[u8]) {
    match b {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, b),
    }
}

/// Days since the epoch of a valid proleptic Gregorian date.
fn civil_days(year: i64, month: i64, day: i64) -> Option<i64> {
    ((1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day))
        .then(|| days_from_civil(year, month, day))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text and the date Spark 4's JSON reader gives it (`None`: null), as probed
    /// against `spark.read.schema("x date").json` (texts Python cannot show, years past
    /// 9999, checked as days).
    #[test]
    fn dates_as_spark_reads_them() {
        let day = |y, m, d| Some(days_from_civil(y, m, d) as i32);
        let cases = [
            ("2024-01-02", day(2024, 1, 2)),
            ("2024-1-2", day(2024, 1, 2)),
            ("2024-01-2", day(2024, 1, 2)),
            ("2024", day(2024, 1, 1)),
            ("2024-1", day(2024, 1, 1)),
            ("+2024", day(2024, 1, 1)),
            ("02024-01-02", day(2024, 1, 2)),
            ("+002024-01-02", day(2024, 1, 2)),
            ("-0044-03-15", day(-44, 3, 15)),
            ("12024-01-02", day(12024, 1, 2)),
            ("1000000-01-02", day(1_000_000, 1, 2)),
            ("2024-01-02T03:04:05", day(2024, 1, 2)),
            ("2024-01-02 03:04", day(2024, 1, 2)),
            ("2024-01-02T", day(2024, 1, 2)),
            ("2024-01-02 garbage", day(2024, 1, 2)),
            ("2024-01-02Tgarbage", day(2024, 1, 2)),
            ("2024-01-02T03:04:05 UTC junk", day(2024, 1, 2)),
            (" 2024-01-02\t", day(2024, 1, 2)),
            ("2024-01-02T03:04:05\u{0}", day(2024, 1, 2)),
            ("2024-01-02T03:04:05\u{a0}", day(2024, 1, 2)),
            ("24-01-02", None),
            ("999-01-02", None),
            ("12345678-01-02", None),
            ("2024-02-30", None),
            ("2024-13-01", None),
            ("2024-00-10", None),
            ("2024-01-00", None),
            ("2024-001-02", None),
            ("2024-01-002", None),
            ("2024/01/02", None),
            ("2024-01-02-03", None),
            ("2024-01 x", None),
            ("2024-01T", None),
            ("03:04:05", None),
            ("T03:04:05", None),
            ("\u{2003}2024-01-02", None),
            ("2024-W01-1", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(spark_date(text, false), want, "{text:?}");
        }
    }

    #[test]
    fn whole_numbers_count_days_for_json_only() {
        for (text, days) in [("12", 12), ("0", 0), ("-5", -5), ("+12", 12), ("007", 7)] {
            assert_eq!(spark_date(text, true), Some(days), "{text:?}");
            assert_eq!(spark_date(text, false), None, "{text:?}");
        }
        // a year first (4 to 7 digits); then Java's parseInt: no spaces, no exponent, an
        // int; and none before the Gregorian calendar (Spark shifts those)
        assert_eq!(
            spark_date("19000", true),
            Some(days_from_civil(19000, 1, 1) as i32)
        );
        for text in ["  12  ", "1e3", "2147483648", "20240102x", "-99999999"] {
            assert_eq!(spark_date(text, true), None, "{text:?}");
        }
        assert_eq!(spark_date("20240102", true), Some(20_240_102));
        assert_eq!(spark_date("-999", true), Some(-999));
        // a sign and 4 to 7 digits is a year (as Spark reads it), not a count of days
        assert_eq!(
            spark_date("-141428", true),
            Some(days_from_civil(-141_428, 1, 1) as i32)
        );
    }

    fn utc_micros(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
        (days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s) * 1_000_000
    }

    /// Each text and the instant Spark 4 gives it in a UTC session (`None`: null), as
    /// probed against `spark.read.schema("x timestamp").json` and `.csv`.
    #[test]
    fn timestamps_as_spark_reads_them() {
        let at = |y, mo, d, h, mi, s| Some(utc_micros(y, mo, d, h, mi, s));
        let micros = |t: Option<i64>, us: i64| t.map(|t| t + us);
        let cases = [
            ("2024-1-2", at(2024, 1, 2, 0, 0, 0)),
            ("2024", at(2024, 1, 1, 0, 0, 0)),
            ("2024-1", at(2024, 1, 1, 0, 0, 0)),
            ("+002024-01-02", at(2024, 1, 2, 0, 0, 0)),
            ("123456-01-02", at(123_456, 1, 2, 0, 0, 0)),
            ("2024-01-02T3:4:5", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02 3:04", at(2024, 1, 2, 3, 4, 0)),
            ("2024-01-02T03", at(2024, 1, 2, 3, 0, 0)),
            ("2024-01-02T3", at(2024, 1, 2, 3, 0, 0)),
            ("2024-01-02 ", at(2024, 1, 2, 0, 0, 0)),
            ("2024-01-02T03:04:05.", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:5", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05\u{0}", at(2024, 1, 2, 3, 4, 5)),
            (
                "2024-01-02T03:04:05.1234567891",
                micros(at(2024, 1, 2, 3, 4, 5), 123_456),
            ),
            (
                "2024-01-02T03:04:05.123456789Z",
                micros(at(2024, 1, 2, 3, 4, 5), 123_456),
            ),
            (
                "2024-1-2 3:4:5.6 +1:00",
                micros(at(2024, 1, 2, 2, 4, 5), 600_000),
            ),
            ("2024-01-02T03:04:05 UTC", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05UTC", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05GMT", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05  Z", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05.Z", at(2024, 1, 2, 3, 4, 5)),
            ("2024-01-02T03:04:05+0200", at(2024, 1, 2, 1, 4, 5)),
            ("2024-01-02T03:04:05+02", at(2024, 1, 2, 1, 4, 5)),
            ("2024-01-02T03:04:05+5", at(2024, 1, 1, 22, 4, 5)),
            ("2024-01-02T03:04:05-1", at(2024, 1, 2, 4, 4, 5)),
            ("2024-01-02T03:04:05+1:00", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05+01:00:30", at(2024, 1, 2, 2, 3, 35)),
            ("2024-01-02T03:04:05+010030", at(2024, 1, 2, 2, 3, 35)),
            ("2024-01-02T03:04:05+18:00", at(2024, 1, 1, 9, 4, 5)),
            ("2024-01-02T03:04:05UT+1", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05UTC+01:00", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05UTC+1:00", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05GMT-0530", at(2024, 1, 2, 8, 34, 5)),
            ("2024-01-02T03:04:05PST", at(2024, 1, 2, 11, 4, 5)),
            ("2024-01-02T03:04:05 CST", at(2024, 1, 2, 9, 4, 5)),
            ("2024-01-02T03:04:05EST", at(2024, 1, 2, 8, 4, 5)),
            ("2024-01-02T03:04:05 IST", at(2024, 1, 1, 21, 34, 5)),
            ("2024-01-02T03:04:05CET", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05 Europe/Paris", at(2024, 1, 2, 2, 4, 5)),
            ("2024-01-02T03:04:05 Etc/GMT+2", at(2024, 1, 2, 5, 4, 5)),
            ("2024-01-02T03:04:05 europe/paris", None),
            ("2024-01-02T03:04:05+24:00", None),
            ("2024-01-02T03:04:05+19:00", None),
            ("2024-01-02T03:04:05+18:30", None),
            ("2024-01-02T03:04:05-", None),
            ("2024-01-02T03:04:05+", None),
            ("2024-01-02T03:04:05Zjunk", None),
            ("2024-01-02T03:04:05 UTC junk", None),
            ("2024-01-02T03:04:05\u{a0}", None),
            ("2024-01-02t03:04:05", None),
            ("2024-01-02T03:04Z", None),
            ("2024-01-02T03:04+01:00", None),
            ("2024-01-02T03Z", None),
            ("2024-01-02T", None),
            ("2024-01-02 garbage", None),
            ("2024-01-02T24:00:00", None),
            ("2024-01-02T003:04:05", None),
            ("2024-01-02 03:04:05:06", None),
            ("2024-01-02T03:04:05.123.4", None),
            ("2024-02-30", None),
            ("1000000-01-02", None),
            ("999-01-02", None),
            ("20240102", None),
            ("12", None),
            ("-5", None),
            ("12:00", None), // Spark: today at noon
            ("T03:04:05", None),
            ("", None),
        ];
        for (text, want) in cases {
            let got = spark_timestamp(text, TimeUnit::Microsecond, TextZone::Utc);
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn texts_without_a_zone_are_local_times_of_the_columns() {
        let paris = TextZone::Local(Tz::from_str("Europe/Paris").unwrap());
        let got = spark_timestamp("2024-7-1 12:00", TimeUnit::Second, paris);
        assert_eq!(got, Some(utc_micros(2024, 7, 1, 10, 0, 0) / 1_000_000));
        // a text's own zone wins over the column's
        let got = spark_timestamp("2024-7-1 12:00:00Z", TimeUnit::Second, paris);
        assert_eq!(got, Some(utc_micros(2024, 7, 1, 12, 0, 0) / 1_000_000));
        // wall clocks (timestamp_ntz) refuse any zone in the text, as Spark nulls them
        let wall = |s| spark_timestamp(s, TimeUnit::Microsecond, TextZone::Wall);
        assert_eq!(wall("2024-1-2 3:04"), Some(utc_micros(2024, 1, 2, 3, 4, 0)));
        for zoned in [
            "2024-1-2 3:04:05Z",
            "2024-1-2 3:04:05 PST",
            "2024-1-2 3:04:05+1",
        ] {
            assert_eq!(wall(zoned), None, "{zoned}");
        }
        assert_eq!(
            spark_timestamp("2024-1-2", TimeUnit::Second, TextZone::Unknown),
            None
        );
    }

    #[test]
    fn what_spark_reads_and_this_library_refuses_is_said() {
        for alone in ["12:00", "T03:04:05", "3:4:5.6 PST", " 03:04:05Z "] {
            let why = spark_refusal(alone, TextZone::Utc).unwrap();
            assert!(why.contains("a time of day alone"), "{alone}: {why}");
        }
        let why = spark_refusal("2024-1-2 3:04:05 PST", TextZone::Wall).unwrap();
        assert!(why.contains("names a time zone"), "{why}");
        for other in [
            "12",
            "T",
            "2024-1-2 3:04:05 PST",
            "12:00 junk",
            "25:00",
            "garbage",
        ] {
            assert_eq!(spark_refusal(other, TextZone::Utc), None, "{other}");
        }
    }

    #[test]
    fn nanosecond_columns_keep_nine_fraction_digits() {
        let base = utc_micros(2024, 1, 2, 3, 4, 5) * 1_000;
        let got = spark_timestamp(
            "2024-1-2 3:4:5.1234567891",
            TimeUnit::Nanosecond,
            TextZone::Utc,
        );
        assert_eq!(got, Some(base + 123_456_789));
        let got = spark_timestamp("2024-1-2 3:4:5.5", TimeUnit::Millisecond, TextZone::Utc);
        assert_eq!(got, Some(base / 1_000_000 + 500));
    }
}

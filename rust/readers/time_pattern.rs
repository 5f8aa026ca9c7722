//! Spark's `dateFormat`, `timestampFormat` and `timestampNTZFormat` options: a Java
//! `DateTimeFormatter` pattern (`dd/MM/yyyy HH:mm`), read once, then texts matched against
//! it as Spark 3 and 4 parse them: a field's letter doubled (`MM`) takes that many digits,
//! one letter (`M`) one or more, `yyyy` four (`yyyyy` five...; a `-` before a year, a `+`
//! before more digits), `yy` two (2000-2099);
//! `S`s take one to as many fraction digits; `MMM`/`MMMM` English month names, in any case
//! (as literals are); `a` AM or PM; `X`, `x`, `Z` offsets (`Z` in any case for zero), `z`
//! a zone's short name as Java's zone text parser maps it (`EST` is New York's time) or
//! id, `VV` a zone id (ids in any case);
//! `'text'` and any other character literals; `[...]` an optional section. The whole text
//! must match, spaces included (a field out of range or a day the month lacks does not,
//! in a date's time too). A pattern with a letter outside these is refused when the reader
//! is made, naming it, as Spark refuses `E` (a day of the week) for parsing.

use arrow_schema::{DataType, TimeUnit};

use super::spark_times::{pattern_zone, utc_of_local, SparkZone};
use super::temporal::{days_in_month, digits, in_unit, TextZone};
use crate::loader::{days_from_civil, Value};

/// The patterns a reader reads date and timestamp texts by, where given (else the
/// conventions' reading: ISO-8601, or Spark's texts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeFormats {
    /// `date32` columns (Spark's `dateFormat`).
    pub date: Option<TimePattern>,
    /// Timestamp columns with a time zone (Spark's `timestampFormat`, for its `timestamp`).
    pub timestamp: Option<TimePattern>,
    /// Timestamp columns without one, wall clocks (`timestampNTZFormat`).
    pub timestamp_ntz: Option<TimePattern>,
}

impl TimeFormats {
    /// The pattern a column of type `dt` reads texts by, if one is given for it.
    pub(crate) fn of(&self, dt: &DataType) -> Option<&TimePattern> {
        match dt {
            DataType::Date32 => self.date.as_ref(),
            DataType::Timestamp(_, Some(_)) => self.timestamp.as_ref(),
            DataType::Timestamp(_, None) => self.timestamp_ntz.as_ref(),
            _ => None,
        }
    }

    /// `text` read by the pattern of a column of type `dt`: `None` if none is given for
    /// it; else its value (a local time in the column's zone; an offset refused in a column
    /// of wall clocks), or why it is none.
    pub(crate) fn value_of(
        &self,
        dt: &DataType,
        text: &str,
    ) -> Option<Result<Value<'static>, String>> {
        let pattern = self.of(dt)?;
        let value = match dt {
            DataType::Timestamp(unit, _) => pattern
                .timestamp(text, *unit, TextZone::of_wall_clocks(dt))
                .map(Value::Timestamp),
            _ => pattern.date(text).map(Value::Date),
        };
        Some(value.ok_or_else(|| format!("{text:?} does not match the pattern {:?}", pattern.text)))
    }
}

/// A pattern, ready to match texts.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePattern {
    parts: Vec<Part>,
    /// The pattern as given, for messages.
    text: String,
}

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    /// Characters to find as they are (any case).
    Literal(Vec<u8>),
    /// A number of `min` to `max` digits.
    Number {
        field: Field,
        min: usize,
        max: usize,
    },
    /// `yy`: two digits, a year of 2000-2099.
    TwoDigitYear,
    /// `MMM` (`Jan`) or `MMMM` (`January`).
    MonthName { full: bool },
    /// `S`s: a second's fraction of 1 to `max` digits.
    Fraction { max: usize },
    /// `a`: AM or PM.
    AmPm,
    /// An offset from UTC (`X`, `x`, `Z` patterns).
    Offset(OffsetForm),
    /// `z` (`names`: a short name too, `PST`) or `VV` (an id only): a zone (`UTC`,
    /// `Europe/Paris`, `+01:00`), read as `spark_times::pattern_zone` reads it.
    ZoneName { names: bool },
    /// `[...]`: matched if it can be, else passed over.
    Optional(Vec<Part>),
}

/// The fields numbers give.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Year,
    Month,
    Day,
    Hour,
    /// `h`: 1-12, with `a`.
    ClockHour,
    Minute,
    Second,
}

/// How an offset pattern spells an offset.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OffsetForm {
    /// `Z` stands for a zero offset (`X`s, `ZZZZZ`).
    z_for_zero: bool,
    /// Minutes after the hour: optional (`X`, `x`), required (the rest).
    minutes: bool,
    /// `:` between hours and minutes (`XXX`, `xxx`, `ZZZZZ`).
    colon: bool,
}

/// What a text gave.
#[derive(Debug, Clone, Default)]
struct Fields {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    hour: Option<i64>,
    clock_hour: Option<i64>,
    pm: Option<bool>,
    minute: Option<i64>,
    second: Option<i64>,
    nanos: i64,
    /// The offset or zone the text named.
    zone: Option<SparkZone>,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// The most digits one letter (`d`, `y`) reads (Java's 19, less one: an i64 holds them).
const MAX_DIGITS: usize = 18;

impl TimePattern {
    /// Read Java pattern `pattern`; an error says what in it is not taken.
    pub fn java(pattern: &str) -> Result<TimePattern, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let parts = parts_of(&chars, &mut at, pattern)?;
        if at < chars.len() {
            return Err(format!(
                "the pattern {pattern:?} closes a ']' it did not open"
            ));
        }
        if parts.is_empty() {
            return Err("an empty pattern matches no date or time".to_string());
        }
        Ok(TimePattern {
            parts,
            text: pattern.to_string(),
        })
    }

    /// The pattern as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Days since the epoch of date text `text` (a time in it is checked, not kept).
    pub(crate) fn date(&self, text: &str) -> Option<i32> {
        let f = self.fields(text)?;
        let local = local_seconds(&f)?;
        i32::try_from(local.div_euclid(86_400)).ok()
    }

    /// `text` as a timestamp in `unit` since the epoch: its offset or zone if it has one
    /// (refused in a column of wall clocks, `TextZone::Wall`), else a local time of `zone`.
    pub(crate) fn timestamp(&self, text: &str, unit: TimeUnit, zone: TextZone) -> Option<i64> {
        let f = self.fields(text)?;
        let local = local_seconds(&f)?;
        in_unit(utc_of_local(local, f.zone, zone)?, f.nanos, unit)
    }

    /// The fields of `text`, if the whole of it matches.
    fn fields(&self, text: &str) -> Option<Fields> {
        let mut f = Fields::default();
        let end = match_parts(&self.parts, text.as_bytes(), 0, &mut f)?;
        (end == text.len()).then_some(f)
    }
}

/// The local time the fields give, in seconds since the epoch (1970, January, the 1st and
/// midnight where missing), if it is one: a day the month has, a clock in range.
fn local_seconds(f: &Fields) -> Option<i64> {
    let (y, m, d) = (
        f.year.unwrap_or(1970),
        f.month.unwrap_or(1),
        f.day.unwrap_or(1),
    );
    // Java's years end at 999,999,999 (and the day counts below cannot overflow then)
    if y > 999_999_999 || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let hour = match (f.hour, f.clock_hour) {
        (Some(h), _) if h <= 23 => h,
        (None, Some(h)) if (1..=12).contains(&h) => {
            h % 12 + if f.pm == Some(true) { 12 } else { 0 }
        }
        (None, None) => 0,
        _ => return None,
    };
    let (minute, second) = (f.minute.unwrap_or(0), f.second.unwrap_or(0));
    if minute > 59 || second > 59 {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// The parts of `chars` from `at` up to a `]` (left for the caller) or the end.
fn parts_of(chars: &[char], at: &mut usize, pattern: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    while let Some(&c) = chars.get(*at) {
        match c {
            ']' => break,
            '[' => {
                *at += 1;
                let inner = parts_of(chars, at, pattern)?;
                if chars.get(*at) != Some(&']') {
                    return Err(format!("the pattern {pattern:?} leaves a '[' open"));
                }
                *at += 1;
                parts.push(Part::Optional(inner));
            }
            '\'' => {
                // quoted text; '' is a quote, in quotes or not
                let mut text = String::new();
                *at += 1;
                if chars.get(*at) == Some(&'\'') {
                    *at += 1;
                    text.push('\'');
                } else {
                    loop {
                        match chars.get(*at) {
                            None => {
                                return Err(format!("the pattern {pattern:?} leaves a quote open"))
                            }
                            Some('\'') if chars.get(*at + 1) == Some(&'\'') => {
                                text.push('\'');
                                *at += 2;
                            }
                            Some('\'') => {
                                *at += 1;
                                break;
                            }
                            Some(&c) => {
                                text.push(c);
                                *at += 1;
                            }
                        }
                    }
                }
                literal(&mut parts, &text);
            }
            c if c.is_ascii_alphabetic() => {
                let count = chars[*at..].iter().take_while(|&&d| d == c).count();
                *at += count;
                parts.push(letter(c, count, pattern)?);
            }
            c => {
                *at += 1;
                literal(&mut parts, c.encode_utf8(&mut [0; 4]));
            }
        }
    }
    Ok(parts)
}

/// Add literal `text` to `parts` (joined to a literal before it).
fn literal(parts: &mut Vec<Part>, text: &str) {
    match parts.last_mut() {
        Some(Part::Literal(before)) => before.extend_from_slice(text.as_bytes()),
        _ => parts.push(Part::Literal(text.as_bytes().to_vec())),
    }
}

/// The part `count` letters `c` stand for.
fn letter(c: char, count: usize, pattern: &str) -> Result<Part, String> {
    let number = |field, min, max| Ok(Part::Number { field, min, max });
    let two_or_one = |field| match count {
        1 => number(field, 1, MAX_DIGITS),
        2 => number(field, 2, 2),
        _ => Err(format!(
            "the pattern {pattern:?} has {count} '{c}': one or two"
        )),
    };
    let offset = |z_for_zero, minutes, colon| {
        Ok(Part::Offset(OffsetForm {
            z_for_zero,
            minutes,
            colon,
        }))
    };
    match (c, count) {
        ('y' | 'u', 2) => Ok(Part::TwoDigitYear),
        // four or more: that many digits (Java's EXCEEDS_PAD wants a sign for more)
        ('y' | 'u', n) if n >= 4 => number(Field::Year, n, n),
        ('y' | 'u', n) => number(Field::Year, n, MAX_DIGITS),
        ('M' | 'L', 1 | 2) => two_or_one(Field::Month),
        ('M' | 'L', 3) => Ok(Part::MonthName { full: false }),
        ('M' | 'L', 4) => Ok(Part::MonthName { full: true }),
        ('d', _) => two_or_one(Field::Day),
        ('H', _) => two_or_one(Field::Hour),
        ('h', _) => two_or_one(Field::ClockHour),
        ('m', _) => two_or_one(Field::Minute),
        ('s', _) => two_or_one(Field::Second),
        ('S', n) if n <= 9 => Ok(Part::Fraction { max: n }),
        ('a', 1) => Ok(Part::AmPm),
        ('X', 1) => offset(true, false, false),
        ('X', 2) => offset(true, true, false),
        ('X', 3) => offset(true, true, true),
        ('x', 1) => offset(false, false, false),
        ('x', 2) => offset(false, true, false),
        ('x', 3) => offset(false, true, true),
        ('Z', 1..=3) => offset(false, true, false),
        ('Z', 5) => offset(true, true, true),
        ('z', 1..=3) => Ok(Part::ZoneName { names: true }),
        ('V', 2) => Ok(Part::ZoneName { names: false }),
        _ => Err(format!(
            "the pattern {pattern:?} has {}'{c}', which this reader does not take (it takes \
             y, u, M, L, d, H, h, m, s, S, a, X, x, Z, z, VV, quoted text and [optional] \
             sections; Spark parses no day of the week, E)",
            if count > 1 {
                format!("{count} ")
            } else {
                String::new()
            }
        )),
    }
}

/// Match `parts` against `b` from `i`; where the match ends.
fn match_parts(parts: &[Part], b: &[u8], mut i: usize, f: &mut Fields) -> Option<usize> {
    for (k, part) in parts.iter().enumerate() {
        i = match part {
            Part::Literal(text) => {
                let next = b.get(i..i + text.len())?;
                next.eq_ignore_ascii_case(text).then_some(i + text.len())?
            }
            Part::Number { field, min, max } => {
                // a year may be signed, as Spark's `u` reads it: `-` before any (not
                // `-0000`), `+` before more digits than `yyyy`'s fixed width
                let sign = match b.get(i) {
                    Some(&c @ (b'-' | b'+')) if *field == Field::Year => Some(c),
                    _ => None,
                };
                let start = i + usize::from(sign.is_some());
                let fixed_width = min == max;
                let max = if sign.is_some() { MAX_DIGITS } else { *max };
                let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
                // Java's adjacent value parsing: a number of varying width leaves the
                // digits of the fixed-width numbers right after it to them (`yyyyMMdd`)
                let reserved = if *min < max {
                    fixed_width_after(&parts[k + 1..])
                } else {
                    0
                };
                let run = digits.saturating_sub(reserved).min(max);
                let widened = fixed_width && run > *min;
                if run < *min || (sign == Some(b'+') && !widened) {
                    return None;
                }
                let v = std::str::from_utf8(&b[start..start + run])
                    .ok()?
                    .parse::<i64>()
                    .ok()?;
                let v = match sign {
                    Some(b'-') if v == 0 => return None,
                    Some(b'-') => -v,
                    _ => v,
                };
                let slot = match field {
                    Field::Year => &mut f.year,
                    Field::Month => &mut f.month,
                    Field::Day => &mut f.day,
                    Field::Hour => &mut f.hour,
                    Field::ClockHour => &mut f.clock_hour,
                    Field::Minute => &mut f.minute,
                    Field::Second => &mut f.second,
                };
                *slot = Some(v);
                start + run
            }
            Part::TwoDigitYear => {
                f.year = Some(2000 + digits(b.get(i..i + 2)?)?);
                i + 2
            }
            Part::MonthName { full } => {
                let (k, len) = name_at(b, i, &MONTHS, *full)?;
                f.month = Some(k as i64 + 1);
                i + len
            }
            Part::Fraction { max } => {
                let run = b[i..]
                    .iter()
                    .take(*max)
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if run == 0 {
                    return None;
                }
                f.nanos = digits(&b[i..i + run])? * 10i64.pow(9 - run as u32);
                i + run
            }
            Part::AmPm => {
                let two = b.get(i..i + 2)?;
                f.pm = Some(match two {
                    t if t.eq_ignore_ascii_case(b"am") => false,
                    t if t.eq_ignore_ascii_case(b"pm") => true,
                    _ => return None,
                });
                i + 2
            }
            Part::Offset(form) => {
                let (offset, len) = offset_at(b, i, *form)?;
                f.zone = Some(SparkZone::Offset(offset));
                i + len
            }
            Part::ZoneName { names } => {
                // a name runs over letters, digits, `/`, `_`, `+`, `-`
                let len = b[i..]
                    .iter()
                    .take_while(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'+' | b'-')
                    })
                    .count();
                let name = std::str::from_utf8(&b[i..i + len]).ok()?;
                f.zone = Some(pattern_zone(name, *names)?);
                i + len
            }
            Part::Optional(inner) => {
                let mut tried = f.clone();
                match match_parts(inner, b, i, &mut tried) {
                    Some(end) => {
                        *f = tried;
                        end
                    }
                    None => i,
                }
            }
        };
    }
    Some(i)
}

/// The digits the fixed-width numbers at the start of `parts` take (`MMdd`: 4).
fn fixed_width_after(parts: &[Part]) -> usize {
    parts
        .iter()
        .map_while(|part| match part {
            Part::Number { min, max, .. } if min == max => Some(*max),
            Part::TwoDigitYear => Some(2),
            _ => None,
        })
        .sum()
}

/// The name of `names` (lower case) at `i` of `b`, in any case, whole or its first three
/// letters: its index and length.
fn name_at(b: &[u8], i: usize, names: &[&str], full: bool) -> Option<(usize, usize)> {
    names.iter().enumerate().find_map(|(k, name)| {
        let len = if full { name.len() } else { 3 };
        let next = b.get(i..i + len)?;
        next.eq_ignore_ascii_case(&name.as_bytes()[..len])
            .then_some((k, len))
    })
}

/// The offset (seconds east of UTC) spelt at `i` of `b` as `form` spells one, and its
/// length: `Z` (in any case, as Spark parses), or a sign, two hour digits and (maybe) two
/// minute digits.
fn offset_at(b: &[u8], i: usize, form: OffsetForm) -> Option<(i64, usize)> {
    if form.z_for_zero && b.get(i).is_some_and(|c| c.eq_ignore_ascii_case(&b'Z')) {
        return Some((0, 1));
    }
    let sign = match b.get(i)? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let two = |at: usize| digits(b.get(at..at + 2)?);
    let hours = two(i + 1)?;
    let mut len = 3;
    let colon = usize::from(form.colon);
    let minutes = if form.colon && b.get(i + 3) != Some(&b':') {
        None
    } else {
        two(i + 3 + colon)
    };
    let minutes = match minutes {
        Some(m) => {
            len += 2 + colon;
            m
        }
        None if form.minutes => return None,
        None => 0,
    };
    if hours > 18 || minutes > 59 {
        return None;
    }
    Some((sign * (hours * 3600 + minutes * 60), len))
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use arrow_array::timezone::Tz;

    use super::*;

    fn days(y: i64, m: i64, d: i64) -> i64 {
        days_from_civil(y, m, d)
    }

    /// Patterns and texts, with the dates and times Spark 4.3 read from them (its CSV
    /// reader with `dateFormat` / `timestampFormat`, UTC session), or a null.
    #[test]
    fn texts_read_as_spark_reads_them_by_pattern() {
        let ts = |pattern: &str, text: &str| {
            TimePattern::java(pattern)
                .unwrap()
                .timestamp(text, TimeUnit::Second, TextZone::Utc)
        };
        let at = |y, m, d, h: i64, min: i64, s: i64| {
            Some(days(y, m, d) * 86_400 + h * 3600 + min * 60 + s)
        };
        let cases = [
            // Java's adjacent value parsing: `y` leaves `MMdd` its four digits
            ("yMMdd", "20240102", at(2024, 1, 2, 0, 0, 0)),
            ("yMMdd", "240102", at(24, 1, 2, 0, 0, 0)),
            ("yMMdd", "2024010", None),
            (
                "dd/MM/yyyy HH:mm",
                "02/01/2024 03:04",
                at(2024, 1, 2, 3, 4, 0),
            ),
            ("dd/MM/yyyy HH:mm", "2/1/2024 03:04", None),
            ("d/M/yyyy H:m", "2/1/2024 3:4", at(2024, 1, 2, 3, 4, 0)),
            ("d/M/yyyy H:m", "02/01/2024 03:04", at(2024, 1, 2, 3, 4, 0)),
            ("yyyyMMddHHmmss", "20240102030405", at(2024, 1, 2, 3, 4, 5)),
            (
                "MM/dd/yy hh:mm a",
                "01/02/24 03:04 PM",
                at(2024, 1, 2, 15, 4, 0),
            ),
            (
                "MM/dd/yy hh:mm a",
                "01/02/24 12:04 am",
                at(2024, 1, 2, 0, 4, 0),
            ),
            ("dd-MMM-yyyy", "02-jan-2024", at(2024, 1, 2, 0, 0, 0)),
            ("d MMMM yyyy", "2 January 2024", at(2024, 1, 2, 0, 0, 0)),
            ("d/M/yyyy H:m", "002/01/2024 03:04", at(2024, 1, 2, 3, 4, 0)),
            ("yyyy", "02024", None),
            ("y-M-d", "999999999999999999-1-1", None),
            ("y-M-d", "99999-1-1", at(99999, 1, 1, 0, 0, 0)),
            // signed years, as Spark reads them (its `u`)
            ("yyyy-MM-dd", "-1975-11-14", at(-1975, 11, 14, 0, 0, 0)),
            ("yyyy-MM-dd", "-12345-11-14", at(-12345, 11, 14, 0, 0, 0)),
            ("yyyy-MM-dd", "+12345-11-14", at(12345, 11, 14, 0, 0, 0)),
            ("yyyy-MM-dd", "+1975-11-14", None),
            ("yyyy-MM-dd", "12345-11-14", None),
            ("yyyy-MM-dd", "-0000-01-01", None),
            ("yyyy-MM-dd", "-001-01-01", None),
            ("y-M-d", "-5-1-1", at(-5, 1, 1, 0, 0, 0)),
            ("y-M-d", "+5-1-1", None),
            ("yyyyMMdd", "-19751114", at(-1975, 11, 14, 0, 0, 0)),
            ("yy-MM-dd", "-75-01-01", None),
            ("yyyyy-MM-dd", "-01975-01-01", at(-1975, 1, 1, 0, 0, 0)),
            (
                "yyyy-MM-dd'T'HH:mm:ssXXX",
                "2024-01-02T03:04:05+01:00",
                at(2024, 1, 2, 2, 4, 5),
            ),
            (
                "yyyy-MM-dd'T'HH:mm:ssX",
                "2024-01-02T03:04:05Z",
                at(2024, 1, 2, 3, 4, 5),
            ),
            (
                "dd MMMM yyyy HH:mm:ss XXX",
                "02 january 2024 03:04:05 z",
                at(2024, 1, 2, 3, 4, 5),
            ),
            ("HH:mm x", "03:04 z", None),
            (
                "yyyy-MM-dd HH:mm:ss Z",
                "2024-01-02 03:04:05 -0130",
                at(2024, 1, 2, 4, 34, 5),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-02 03:04 PST",
                at(2024, 1, 2, 11, 4, 0),
            ),
            // `z`: Java's zone names (daylight saving where the region has it), any case;
            // `VV`: zone ids only, any case
            (
                "yyyy-MM-dd HH:mm z",
                "2024-07-15 12:00 EST",
                at(2024, 7, 15, 16, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 est",
                at(2024, 1, 15, 17, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-07-15 12:00 MST",
                at(2024, 7, 15, 18, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-07-15 12:00 IST",
                at(2024, 7, 15, 12, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 BST",
                at(2024, 1, 15, 1, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 ACT",
                at(2024, 1, 15, 17, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-07-15 12:00 CEST",
                at(2024, 7, 15, 10, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 AEST",
                at(2024, 1, 15, 1, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 europe/berlin",
                at(2024, 1, 15, 11, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2024-01-15 12:00 utc",
                at(2024, 1, 15, 12, 0, 0),
            ),
            ("yyyy-MM-dd HH:mm VV", "2024-01-15 12:00 EST", None),
            ("yyyy-MM-dd HH:mm VV", "2024-01-15 12:00 PST", None),
            (
                "yyyy-MM-dd HH:mm VV",
                "2024-07-15 12:00 CET",
                at(2024, 7, 15, 10, 0, 0),
            ),
            (
                "yyyy-MM-dd HH:mm VV",
                "2024-01-15 12:00 AMERICA/LOS_ANGELES",
                at(2024, 1, 15, 20, 0, 0),
            ),
            ("yyyy-MM-dd[ HH:mm]", "2024-01-02", at(2024, 1, 2, 0, 0, 0)),
            (
                "yyyy-MM-dd[ HH:mm]",
                "2024-01-02 03:04",
                at(2024, 1, 2, 3, 4, 0),
            ),
            ("yyyy-MM-dd", "2024-02-30", None),
            ("yyyy-MM-dd", "2024-01-02 ", None),
            ("HH:mm", "25:00", None),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(ts(pattern, text), want, "{pattern} {text}");
        }
        let nanos = TimePattern::java("HH:mm:ss.SSS").unwrap();
        assert_eq!(
            nanos.timestamp("00:00:01.5", TimeUnit::Millisecond, TextZone::Utc),
            Some(1500)
        );
        assert_eq!(
            nanos.timestamp("00:00:01.1234", TimeUnit::Millisecond, TextZone::Utc),
            None
        );
        // a wall-clock column refuses an offset; a zone reads a local time in it
        let zoned = TimePattern::java("yyyy-MM-dd HH:mm[XXX]").unwrap();
        assert_eq!(
            zoned.timestamp("2024-01-02 03:04+01:00", TimeUnit::Second, TextZone::Wall),
            None
        );
        assert_eq!(
            zoned.timestamp("2024-01-02 03:04", TimeUnit::Second, TextZone::Wall),
            at(2024, 1, 2, 3, 4, 0)
        );
        let paris = TextZone::Local(Tz::from_str("Europe/Paris").unwrap());
        assert_eq!(
            zoned.timestamp("2024-07-02 03:04", TimeUnit::Second, paris),
            at(2024, 7, 2, 1, 4, 0)
        );
        let date = TimePattern::java("dd.MM.yyyy").unwrap();
        assert_eq!(
            date.date("02.01.2024").map(i64::from),
            Some(days(2024, 1, 2))
        );
        assert_eq!(date.date("2024-01-02"), None);
    }

    #[test]
    fn patterns_outside_those_taken_are_refused_naming_what() {
        for (pattern, why) in [
            ("yyyy-ww", "'w'"),
            ("EEE, d MMM yyyy", "day of the week"),
            ("yyyy-MM-dd'T", "quote open"),
            ("yyyy[-MM", "'[' open"),
            ("yyyy]", "']'"),
            ("", "empty"),
            ("MMMMM", "5 'M'"),
        ] {
            let e = TimePattern::java(pattern).unwrap_err();
            assert!(e.contains(why), "{pattern}: {e}");
        }
        assert_eq!(
            TimePattern::java("'o''clock' h a").unwrap().parts[0],
            Part::Literal(b"o'clock ".to_vec())
        );
    }
}

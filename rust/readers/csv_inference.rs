//! Spark's CSV schema inference (`inferSchema`): the type of a column from the texts of
//! its fields, by the rules of Spark's `CSVInferSchema` (Spark 3.5 and 4): each field is
//! tried as an int, a long, a whole-number decimal, a double, a date (`preferDate`, on by
//! default), a timestamp, a boolean, from the type the column has so far on, and the
//! column takes the type both fit; any two types without one make a string. What the
//! readers then read each field by (`csv_conventions="spark"`) takes every text the rules
//! typed.

use arrow_schema::{DataType, TimeUnit};

use super::conventions::{Conventions, FloatTexts};
use super::temporal::TextZone;
use super::time_pattern::{TimeFormats, TimePattern};

/// What Spark's CSV inference reads a column's texts by besides its fixed rules: its
/// options `dateFormat` and `timestampFormat` (patterns), `nanValue`, `positiveInf` and
/// `negativeInf`, and `preferDate`.
#[derive(Debug, Clone)]
pub struct InferenceOptions {
    /// The date and timestamp patterns given (`dateFormat`, `timestampFormat`).
    pub formats: TimeFormats,
    /// The texts of the non-numeric doubles.
    pub floats: FloatTexts,
    /// Texts of dates (by `dateFormat`, else `yyyy-MM-dd`) make a date column
    /// (`preferDate`); else they are tried as timestamps only.
    pub prefer_date: bool,
    /// The pattern dates are tried by: `formats.date`, else Spark's default.
    date: TimePattern,
}

impl InferenceOptions {
    /// Spark's options: the patterns and float texts given, dates preferred or not.
    pub fn new(formats: TimeFormats, floats: FloatTexts, prefer_date: bool) -> Self {
        let date = formats.date.clone().unwrap_or_else(|| {
            TimePattern::java("yyyy-MM-dd").expect("Spark's default date pattern is taken")
        });
        InferenceOptions {
            formats,
            floats,
            prefer_date,
            date,
        }
    }
}

/// A column's type so far, as Spark's inference has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inferred {
    /// No field yet, or only empty ones (a column of them is a string).
    Null,
    /// Whole numbers within 32 bits (Spark's `int`).
    Int,
    /// Whole numbers within 64 bits (`bigint`).
    Long,
    /// A number of scale 0 past a long, or written with a fraction or exponent (`1.`,
    /// `1.5e1`), of this many digits (Spark's `decimal(p, 0)`).
    Decimal(u8),
    /// Numbers Java's `Double.parseDouble` reads (`double`).
    Double,
    /// Texts of dates by the date pattern (`date`).
    Date,
    /// Texts Spark's timestamp parser reads (`timestamp`).
    Timestamp,
    /// `true` and `false`, any case (`boolean`).
    Boolean,
    /// Anything else, or types no one type holds (`string`).
    String,
}

impl Inferred {
    /// The type as Spark's DDL spells it (a column of no value is a string).
    pub fn ddl(self) -> String {
        match self {
            Inferred::Int => "int".into(),
            Inferred::Long => "bigint".into(),
            Inferred::Decimal(p) => format!("decimal({p},0)"),
            Inferred::Double => "double".into(),
            Inferred::Date => "date".into(),
            Inferred::Timestamp => "timestamp".into(),
            Inferred::Boolean => "boolean".into(),
            Inferred::Null | Inferred::String => "string".into(),
        }
    }

    /// The type of a column of these types so far and the type one more field has
    /// (Spark's `compatibleType`): the wider number; dates and timestamps a timestamp,
    /// unless a timestamp pattern was given (`patterned`), as Spark 4.3 merges them; else a
    /// string.
    fn merged(self, other: Inferred, patterned: bool) -> Inferred {
        use Inferred::*;
        let whole_digits = |t: Inferred| match t {
            Int => Some(10),
            Long => Some(20),
            Decimal(p) => Some(p),
            _ => None,
        };
        match (self, other) {
            (a, b) if a == b => a,
            (Null, t) | (t, Null) => t,
            (Int, Long) | (Long, Int) => Long,
            (Double, Int | Long | Decimal(_)) | (Int | Long | Decimal(_), Double) => Double,
            (Date, Timestamp) | (Timestamp, Date) if !patterned => Timestamp,
            (a, b) => match (whole_digits(a), whole_digits(b)) {
                (Some(p), Some(q)) => Decimal(p.max(q)),
                _ => String,
            },
        }
    }
}

/// Spark's inference over the texts of one column's fields (`None` or empty: no value),
/// in order, by `options`.
pub fn infer_column<'t>(
    texts: impl IntoIterator<Item = Option<&'t str>>,
    options: &InferenceOptions,
) -> Inferred {
    let patterned = options.formats.timestamp.is_some();
    let mut so_far = Inferred::Null;
    for text in texts.into_iter().flatten() {
        if text.is_empty() {
            continue;
        }
        so_far = so_far.merged(infer_field(so_far, text, options), patterned);
        if so_far == Inferred::String {
            break;
        }
    }
    so_far
}

/// One type a field's text is tried as (by the inference's options).
type TypeTry = fn(&str, &InferenceOptions) -> Option<Inferred>;

/// The type of field `text` tried from the column's type so far on (Spark's `inferField`:
/// a column of timestamps tries a field as a timestamp first, so `1` after one is none).
fn infer_field(so_far: Inferred, text: &str, options: &InferenceOptions) -> Inferred {
    use Inferred::*;
    let tries: &[TypeTry] = &[
        |t, _| t.parse::<i32>().ok().map(|_| Int),
        |t, _| t.parse::<i64>().ok().map(|_| Long),
        |t, _| whole_decimal(t),
        |t, o| is_java_double(t, &o.floats).then_some(Double),
        |t, o| (o.prefer_date && o.date.date(t).is_some()).then_some(Date),
        |t, o| is_timestamp(t, &o.formats).then_some(Timestamp),
        |t, _| {
            (t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false")).then_some(Boolean)
        },
    ];
    let first = match so_far {
        Null | Int => 0,
        Long => 1,
        Decimal(_) => 2,
        Double => 3,
        Date => 4,
        Timestamp => 5,
        Boolean => 6,
        String => return String,
    };
    tries[first..]
        .iter()
        .find_map(|try_type| try_type(text, options))
        .unwrap_or(String)
}

/// A number of scale 0 to Java's `BigDecimal` (Spark's `tryParseDecimal`, whose decimal
/// types take no negative scale), past a long if it is whole: a sign, digits with a `.` or
/// not, an exponent or not, as many fraction digits as the exponent says (`1.`, `1.5e1`,
/// `12345678901234567890`): a decimal of its significant digits, if 38 or fewer.
fn whole_decimal(text: &str) -> Option<Inferred> {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || whole.bytes().chain(fraction.bytes());
    if mantissa == "." || mantissa.is_empty() || !digits().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if i64::try_from(fraction.len()).ok()? != exponent {
        return None; // a scale other than 0
    }
    let significant = digits().skip_while(|&b| b == b'0').count().max(1);
    u8::try_from(significant)
        .ok()
        .filter(|&p| p <= 38)
        .map(Inferred::Decimal)
}

/// Whether Spark's inference takes `text` for a double: Java's `Double.parseDouble` reads
/// it, or it is one of the CSV spellings of the non-numeric doubles (`floats`; Spark's
/// `NaN`, `Inf`, `-Inf` unless told): as Spark's CSV reader reads a double field
/// (`Conventions::float_of_field`).
fn is_java_double(text: &str, floats: &FloatTexts) -> bool {
    Conventions::Spark
        .float_of_field::<f64>(text, floats)
        .is_some()
}

/// Whether `text` is a timestamp to Spark's inference: by the pattern given, else by the
/// texts its readers take (`Conventions::Spark`).
fn is_timestamp(text: &str, formats: &TimeFormats) -> bool {
    let dt = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    match formats.value_of(&dt, text) {
        Some(read) => read.is_ok(),
        None => Conventions::Spark
            .timestamp_of_text(text, TimeUnit::Microsecond, TextZone::Utc)
            .is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(texts: &[&str]) -> String {
        infer_with(texts, &TimeFormats::default())
    }

    fn infer_with(texts: &[&str], formats: &TimeFormats) -> String {
        let options = sparks(formats.clone(), true);
        infer_column(texts.iter().map(|t| Some(*t)), &options).ddl()
    }

    /// Spark's options with these patterns, its float texts, dates preferred or not.
    fn sparks(formats: TimeFormats, prefer_date: bool) -> InferenceOptions {
        let floats = FloatTexts::of(Conventions::Spark, None, None, None);
        InferenceOptions::new(formats, floats, prefer_date)
    }

    /// The columns probed against Spark 4.3's `inferSchema` (the types it gave), and the
    /// order rule: a column of timestamps tries a field as a timestamp first.
    #[test]
    fn columns_take_the_types_spark_infers() {
        let cases: &[(&[&str], &str)] = &[
            (&["1", "2", ""], "int"),
            (&["3000000000", "4", "5"], "bigint"),
            (&["1.5", "2", ""], "double"),
            (&["1e3", "2.5"], "double"),
            (&["true", "False", "TRUE"], "boolean"),
            (
                &["2024-01-02 03:04:05", "2024-01-02T03:04:05.123"],
                "timestamp",
            ),
            (&["2024-01-02", "2024-1-2"], "timestamp"),
            (&["2024-01-02T03:04:05Z", "2024-01-02 03:04"], "timestamp"),
            (&["x", "y"], "string"),
            (&["", ""], "string"),
            (&["1", "a", "2"], "string"),
            (&["1.10", "2.25"], "double"),
            (&["-5", "+7"], "int"),
            (&["NaN", "Infinity", "-Inf"], "double"),
            (&["12345678901234567890", "1"], "decimal(20,0)"),
            (&["1", "12345678901234567890123"], "decimal(23,0)"),
            (&["12345678901234567890", "1.5"], "double"),
            // Java's BigDecimal of scale 0 (negative scales are refused)
            (&["1.", "+.5e1", "1.50e2", "0.0e1"], "decimal(3,0)"),
            (&["1.5e1", "1e1"], "double"),
            (&["1.5e+1", "-00.1e1"], "decimal(2,0)"),
            (&[".", "1.e"], "string"),
            (&["1", "true"], "string"),
            (&["1", "2024-01-02"], "string"),
            (&["2024-01-02", "1"], "string"),
            (&["2024-01-02", "2024", "202401"], "timestamp"),
            (&["2024", "2024-01-02"], "string"),
            (&["inf", "+Inf", "nan", "1.5 d"], "string"),
            // dates by Spark's default pattern, `yyyy-MM-dd` (Spark 4.3's types)
            (&["2024-01-02"], "date"),
            (&["2024-01-02", "", "0024-01-02", "2024-02-29"], "date"),
            (&["2023-02-29"], "string"),
            (&["2024-13-01"], "string"),
            (&["12024-01-02"], "timestamp"),
            (&["2024-01-2"], "timestamp"),
            (&[" 2024-01-02"], "timestamp"),
            (&["2024-01-02", "2024-1-3"], "timestamp"),
            (&["2024-01-02", "2024-01-02T03:04"], "timestamp"),
            (&["2024-01-02", "true"], "string"),
            (&["1.5d", "0x1p3", "-2F", " NaN"], "double"),
            (&[" 1.5 ", "2"], "double"),
            (&[" 7 ", "8"], "double"),
        ];
        for (texts, want) in cases {
            assert_eq!(infer(texts), *want, "{texts:?}");
        }
    }

    /// Spark's `nanValue`, `positiveInf` and `negativeInf` given: those texts are doubles,
    /// and the defaults they replace are not (Java's own spellings still are).
    #[test]
    fn the_float_texts_given_are_doubles_in_place_of_sparks() {
        let floats = FloatTexts::of(Conventions::Spark, Some("nan"), Some("+Inf"), Some("-1"));
        let infer = |texts: &[&str]| {
            let texts = texts.iter().map(|t| Some(*t));
            let options = InferenceOptions::new(TimeFormats::default(), floats.clone(), true);
            infer_column(texts, &options).ddl()
        };
        assert_eq!(infer(&["nan", "+Inf", "1.5"]), "double");
        assert_eq!(infer(&["NaN", "Infinity", "-Infinity"]), "double");
        assert_eq!(infer(&["Inf", "1.5"]), "string");
        assert_eq!(infer(&["-Inf"]), "string");
        assert_eq!(infer(&["-1", "2"]), "int"); // an int before a double, as Spark tries
    }

    /// A date pattern given types the dates it matches (`preferDate`, on by default); with a
    /// timestamp pattern given, dates and timestamps make a string (Spark 4.3's types).
    #[test]
    fn a_date_pattern_types_what_it_matches_when_dates_are_preferred() {
        let formats = |date: &str, timestamp: Option<&str>| TimeFormats {
            date: Some(TimePattern::java(date).unwrap()),
            timestamp: timestamp.map(|t| TimePattern::java(t).unwrap()),
            ..TimeFormats::default()
        };
        let infer = |formats: TimeFormats, prefer_date: bool, texts: &[&str]| {
            let options = sparks(formats, prefer_date);
            infer_column(texts.iter().map(|t| Some(*t)), &options).ddl()
        };
        let dmy = || formats("dd/MM/yyyy", None);
        assert_eq!(infer(dmy(), true, &["02/01/2024", "31/12/2023"]), "date");
        assert_eq!(infer(dmy(), true, &["2024-01-02"]), "timestamp");
        assert_eq!(infer(dmy(), true, &["2/1/2024"]), "string");
        assert_eq!(infer(dmy(), false, &["02/01/2024"]), "string");
        assert_eq!(
            infer(TimeFormats::default(), false, &["2024-01-02"]),
            "timestamp"
        );
        let both = || formats("yyyy-MM-dd", Some("yyyy-MM-dd HH:mm:ss"));
        assert_eq!(infer(both(), true, &["2024-01-02"]), "date");
        assert_eq!(
            infer(both(), true, &["2024-01-02", "2024-01-02 03:04:05"]),
            "string"
        );
    }

    /// A timestamp pattern given types the texts it matches, and only those.
    #[test]
    fn a_timestamp_pattern_types_what_it_matches() {
        use super::super::time_pattern::TimePattern;
        let formats = TimeFormats {
            timestamp: Some(TimePattern::java("dd/MM/yyyy HH:mm").unwrap()),
            ..TimeFormats::default()
        };
        let infer = |texts: &[&str]| infer_with(texts, &formats);
        assert_eq!(
            infer(&["02/01/2024 03:04", "31/12/2023 23:59"]),
            "timestamp"
        );
        assert_eq!(infer(&["02/01/2024 03:04", "2024-01-02 03:04"]), "string");
    }
}

//! Spark's CSV schema inference (`inferSchema`): the type of a column from the texts of
//! its fields, by the rules of Spark's `CSVInferSchema` (Spark 3.5 and 4): each field is
//! tried as an int, a long, a whole-number decimal, a double, a timestamp, a boolean, from
//! the type the column has so far on, and the column takes the type both fit; any two
//! types without one make a string. What the readers then read each field by
//! (`csv_conventions="spark"`) takes every text the rules typed.

use arrow_schema::{DataType, TimeUnit};

use super::conventions::{Conventions, FloatTexts};
use super::temporal::TextZone;
use super::time_pattern::TimeFormats;

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
            Inferred::Timestamp => "timestamp".into(),
            Inferred::Boolean => "boolean".into(),
            Inferred::Null | Inferred::String => "string".into(),
        }
    }

    /// The type of a column of these types so far and the type one more field has
    /// (Spark's `compatibleType`): the wider number, or a string.
    fn merged(self, other: Inferred) -> Inferred {
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
            (a, b) => match (whole_digits(a), whole_digits(b)) {
                (Some(p), Some(q)) => Decimal(p.max(q)),
                _ => String,
            },
        }
    }
}

/// Spark's inference over the texts of one column's fields (`None` or empty: no value),
/// in order: `formats.timestamp`, where given, is the pattern timestamps are tried by;
/// `floats` are the texts of the non-numeric doubles (Spark's `nanValue`...).
pub fn infer_column<'t>(
    texts: impl IntoIterator<Item = Option<&'t str>>,
    formats: &TimeFormats,
    floats: &FloatTexts,
) -> Inferred {
    let mut so_far = Inferred::Null;
    for text in texts.into_iter().flatten() {
        if text.is_empty() {
            continue;
        }
        so_far = so_far.merged(infer_field(so_far, text, formats, floats));
        if so_far == Inferred::String {
            break;
        }
    }
    so_far
}

/// One type a field's text is tried as (its patterns and float texts given).
type TypeTry = fn(&str, &TimeFormats, &FloatTexts) -> Option<Inferred>;

/// The type of field `text` tried from the column's type so far on (Spark's `inferField`:
/// a column of timestamps tries a field as a timestamp first, so `1` after one is none).
fn infer_field(
    so_far: Inferred,
    text: &str,
    formats: &TimeFormats,
    floats: &FloatTexts,
) -> Inferred {
    use Inferred::*;
    let tries: &[TypeTry] = &[
        |t, _, _| t.parse::<i32>().ok().map(|_| Int),
        |t, _, _| t.parse::<i64>().ok().map(|_| Long),
        |t, _, _| whole_decimal(t),
        |t, _, floats| is_java_double(t, floats).then_some(Double),
        |t, f, _| is_timestamp(t, f).then_some(Timestamp),
        |t, _, _| {
            (t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false")).then_some(Boolean)
        },
    ];
    let first = match so_far {
        Null | Int => 0,
        Long => 1,
        Decimal(_) => 2,
        Double => 3,
        Timestamp => 4,
        Boolean => 5,
        String => return String,
    };
    tries[first..]
        .iter()
        .find_map(|try_type| try_type(text, formats, floats))
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
        let floats = FloatTexts::of(Conventions::Spark, None, None, None);
        infer_column(texts.iter().map(|t| Some(*t)), formats, &floats).ddl()
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
            infer_column(texts, &TimeFormats::default(), &floats).ddl()
        };
        assert_eq!(infer(&["nan", "+Inf", "1.5"]), "double");
        assert_eq!(infer(&["NaN", "Infinity", "-Infinity"]), "double");
        assert_eq!(infer(&["Inf", "1.5"]), "string");
        assert_eq!(infer(&["-Inf"]), "string");
        assert_eq!(infer(&["-1", "2"]), "int"); // an int before a double, as Spark tries
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

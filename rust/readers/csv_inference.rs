//! Spark's CSV schema inference (`inferSchema`): the type of a column from the texts of
//! its fields, by the rules of Spark's `CSVInferSchema` (Spark 3.5 and 4): each field is
//! tried as an int, a long, a whole-number decimal, a double, a timestamp, a boolean, from
//! the type the column has so far on, and the column takes the type both fit; any two
//! types without one make a string. What the readers then read each field by
//! (`csv_conventions="spark"`) takes every text the rules typed.

use arrow_schema::{DataType, TimeUnit};

use super::conventions::Conventions;
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
    /// A whole number past a long, of this many digits (Spark's `decimal(p, 0)`).
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
/// in order: `formats.timestamp`, where given, is the pattern timestamps are tried by.
pub fn infer_column<'t>(
    texts: impl IntoIterator<Item = Option<&'t str>>,
    formats: &TimeFormats,
) -> Inferred {
    let mut so_far = Inferred::Null;
    for text in texts.into_iter().flatten() {
        if text.is_empty() {
            continue;
        }
        so_far = so_far.merged(infer_field(so_far, text, formats));
        if so_far == Inferred::String {
            break;
        }
    }
    so_far
}

/// The type of field `text` tried from the column's type so far on (Spark's `inferField`:
/// a column of timestamps tries a field as a timestamp first, so `1` after one is none).
fn infer_field(so_far: Inferred, text: &str, formats: &TimeFormats) -> Inferred {
    use Inferred::*;
    let tries: &[fn(&str, &TimeFormats) -> Option<Inferred>] = &[
        |t, _| t.parse::<i32>().ok().map(|_| Int),
        |t, _| t.parse::<i64>().ok().map(|_| Long),
        |t, _| whole_decimal(t),
        |t, _| is_java_double(t).then_some(Double),
        |t, f| is_timestamp(t, f).then_some(Timestamp),
        |t, _| {
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
        .find_map(|try_type| try_type(text, formats))
        .unwrap_or(String)
}

/// A whole number (optional sign, digits) past a long: a decimal of its digits, if 38 or
/// fewer (Spark's `decimal(p, 0)`; a number with a fraction or an exponent is none).
fn whole_decimal(text: &str) -> Option<Inferred> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0').len().max(1);
    u8::try_from(significant)
        .ok()
        .filter(|&p| p <= 38)
        .map(Inferred::Decimal)
}

/// Whether Java's `Double.parseDouble` reads `text` as Spark's inference tries it, or it is
/// one of Spark's CSV spellings of the non-numeric doubles (`NaN`, `Inf`, `-Inf`): a sign,
/// then `NaN`, `Infinity` (that case only), or a decimal number Rust's parser reads too,
/// white space around. (Java's `d`/`f` suffixes and hexadecimal doubles, which the reader
/// does not read, are left to be strings, as are Rust's `inf` and `nan`.)
fn is_java_double(text: &str) -> bool {
    if matches!(text, "NaN" | "Inf" | "-Inf") {
        return true;
    }
    let t = text.trim_matches(|c: char| c <= ' ');
    match t.strip_prefix(['+', '-']).unwrap_or(t) {
        "NaN" | "Infinity" => true,
        body if body
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E')) =>
        {
            false
        }
        _ => t.parse::<f64>().is_ok(),
    }
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
        infer_column(texts.iter().map(|t| Some(*t)), &TimeFormats::default()).ddl()
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
            (&["1", "true"], "string"),
            (&["1", "2024-01-02"], "string"),
            (&["2024-01-02", "1"], "string"),
            (&["2024-01-02", "2024", "202401"], "timestamp"),
            (&["2024", "2024-01-02"], "string"),
            (&["inf", "1.5d", "0x1p3"], "string"),
            (&[" 1.5 ", "2"], "double"),
            (&[" 7 ", "8"], "double"),
        ];
        for (texts, want) in cases {
            assert_eq!(infer(texts), *want, "{texts:?}");
        }
    }

    /// A timestamp pattern given types the texts it matches, and only those.
    #[test]
    fn a_timestamp_pattern_types_what_it_matches() {
        use super::super::time_pattern::TimePattern;
        let formats = TimeFormats {
            timestamp: Some(TimePattern::java("dd/MM/yyyy HH:mm").unwrap()),
            ..TimeFormats::default()
        };
        let infer = |texts: &[&str]| infer_column(texts.iter().map(|t| Some(*t)), &formats).ddl();
        assert_eq!(
            infer(&["02/01/2024 03:04", "31/12/2023 23:59"]),
            "timestamp"
        );
        assert_eq!(infer(&["02/01/2024 03:04", "2024-01-02 03:04"]), "string");
    }
}

//! How a value converts to a declared type where Arrow's rules and Spark's readers
//! disagree. JSON: a whole number into a timestamp or a date, a string into binary or a
//! float, a text with a UTC offset into a timestamp without a time zone; JSON and CSV: the
//! date and timestamp texts Spark takes beyond ISO-8601's layout (`spark_times`). Both JSON
//! paths (`json` and `json_fast`) and the CSV reader ask here, so a line gives the same row
//! either way.

use arrow_schema::{DataType, TimeUnit};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::json::NON_NUMERIC;
use super::numbers::{java_float, FloatText};
use super::spark_times::{spark_date, spark_refusal, spark_timestamp};
use super::temporal::{parse_date, parse_timestamp_in, seconds_in_unit, zone_refusal, TextZone};
use crate::loader::{parse_decimal, parse_decimal_rounded};

/// The rules a reader converts declared types by, where Arrow's and Spark's differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Conventions {
    /// Arrow's casts (the loader's own rules): a whole number into a timestamp counts the
    /// column's unit since the epoch, into a date days; a string into binary is its UTF-8
    /// bytes; a text with a UTC offset into a timestamp without a time zone is the
    /// instant's UTC clock (pyarrow.json's reading); dates and timestamps are ISO-8601.
    #[default]
    Arrow,
    /// Spark's readers' (`spark.read.json` and `.csv` with a schema). JSON: a whole number
    /// into a timestamp with a time zone counts seconds since the epoch; a number into a
    /// date or a timestamp without a time zone is refused (Spark reads those from strings
    /// only), as is a text with a UTC offset into the latter; a string into binary is
    /// base64 (what Spark's JSON writer writes), decoded; `"NaN"` and the infinities Spark
    /// spells are floats as strings too; a text of a whole number into a date counts days.
    /// JSON and CSV: a date or timestamp text in a form Spark takes besides ISO-8601's
    /// (`2024-1-2 3:04`, `2024-01-02T03:04:05 PST`; a date from a timestamp's text); a
    /// decimal with more fractional digits than its column's scale rounded half up. CSV: a
    /// boolean, integer or decimal field with white space around it refused.
    Spark,
}

impl Conventions {
    /// By name: `"arrow"` or `"spark"`.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "arrow" => Some(Self::Arrow),
            "spark" => Some(Self::Spark),
            _ => None,
        }
    }

    /// Whether a whole number into a column of type `dt` is converted here
    /// ([`whole_number_time`](Self::whole_number_time)) rather than written as it is.
    #[inline(always)]
    pub fn converts_whole_number(self, dt: &DataType) -> bool {
        self == Self::Spark && matches!(dt, DataType::Timestamp(..) | DataType::Date32)
    }

    /// Whether a string into a column of type `dt` is decoded here
    /// ([`binary`](Self::binary)) rather than written as its bytes.
    #[inline(always)]
    pub fn decodes_string(self, dt: &DataType) -> bool {
        self == Self::Spark && matches!(dt, DataType::Binary | DataType::LargeBinary)
    }

    /// How a timestamp column of type `dt` reads texts: under Spark's, a column without a
    /// time zone (`timestamp_ntz`) refuses a text with a UTC offset, as Spark does; under
    /// Arrow's it reads the instant, as pyarrow.json does.
    pub(crate) fn text_zone(self, dt: &DataType) -> TextZone {
        match self {
            Self::Arrow => TextZone::of(dt),
            Self::Spark => TextZone::of_wall_clocks(dt),
        }
    }

    /// Days since the epoch of date text `text`: ISO-8601's `YYYY-MM-DD`, and under Spark's
    /// the forms its readers take besides (`json`: the JSON reader's, which reads a whole
    /// number's text as days too).
    pub(crate) fn date_of_text(self, text: &str, json: bool) -> Option<i32> {
        parse_date(text).or_else(|| match self {
            Self::Arrow => None,
            Self::Spark => spark_date(text, json),
        })
    }

    /// Timestamp text `text` in `unit` since the epoch, read in `zone` (see `text_zone`):
    /// ISO-8601, and under Spark's the forms its readers take besides.
    pub(crate) fn timestamp_of_text(
        self,
        text: &str,
        unit: TimeUnit,
        zone: TextZone,
    ) -> Option<i64> {
        parse_timestamp_in(text, unit, zone).or_else(|| match self {
            Self::Arrow => None,
            Self::Spark => spark_timestamp(text, unit, zone),
        })
    }

    /// Why timestamp text `text` is no value of column type `dt` read in `zone`, where
    /// the text is a timestamp of another column: a zone the column refuses or cannot
    /// place (`zone_refusal`), and under Spark's a time of day alone (`spark_refusal`);
    /// `None`: the text is no timestamp (the caller says so).
    pub(crate) fn timestamp_refusal(
        self,
        text: &str,
        dt: &DataType,
        zone: TextZone,
    ) -> Option<String> {
        zone_refusal(text, dt, zone).or_else(|| match self {
            Self::Arrow => None,
            Self::Spark => spark_refusal(text, zone),
        })
    }

    /// Whole number `v` into a timestamp or date column of type `dt` by Spark's rule
    /// (see [`converts_whole_number`](Self::converts_whole_number)): the timestamp in the
    /// column's unit, or why the column cannot take it (to follow "cannot take").
    pub fn whole_number_time(self, dt: &DataType, v: i128) -> Result<i64, String> {
        match dt {
            DataType::Timestamp(unit, Some(_)) => i64::try_from(v)
                .ok()
                .and_then(|v| seconds_in_unit(v, *unit))
                .ok_or_else(|| format!("{v} seconds: out of range in {}", unit_name(*unit))),
            DataType::Timestamp(_, None) => Err(format!(
                "the number {v}: Spark's JSON reader reads a timestamp without a time zone \
                 from a string only"
            )),
            _ => Err(format!(
                "the number {v}: Spark's JSON reader reads a date from a string only"
            )),
        }
    }

    /// The unscaled value of decimal text `text` (a JSON number's or a string's) at
    /// `scale` in a column the user `declared` or not: under Arrow's, exact or `None`
    /// (digits past the scale refused, as pyarrow's casts refuse them); under Spark's, in a
    /// declared column rounded half up (`1.235` at scale 2 is 1.24), as Spark's readers set
    /// a decimal to its column's scale. A decimal type the data gave (Spark's inference
    /// rules make whole numbers past int64 one) takes whole numbers only: a fraction there
    /// is a conflict, as it is to Spark's inference, not a value rounded. A value too large
    /// for the column's precision is the loader's to refuse, under both.
    pub(crate) fn decimal_of_text(self, text: &str, scale: i8, declared: bool) -> Option<i128> {
        match self {
            Self::Spark if declared => parse_decimal_rounded(text, scale),
            _ => parse_decimal(text, scale),
        }
    }

    /// A text (a CSV field, a JSON string) to read as a decimal: under Arrow's trimmed of
    /// white space; under Spark's as its readers' decimal parser (en-US) takes it, every
    /// `,` left out (`"1,000.5"` is 1000.5) and nothing trimmed (` 1` is refused).
    pub(crate) fn decimal_text(self, text: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Self::Arrow => text.trim().into(),
            Self::Spark if text.contains(',') => text.replace(',', "").into(),
            Self::Spark => text.into(),
        }
    }

    /// A CSV field's text to read as an exact type (a boolean, an integer, a decimal):
    /// trimmed of white space under Arrow's conventions; as it is under Spark's, whose CSV
    /// reader refuses ` 7 ` as an int (it trims the texts of floats, dates and timestamps).
    pub(crate) fn exact_type_text(self, text: &str) -> &str {
        match self {
            Self::Arrow => text.trim(),
            Self::Spark => text,
        }
    }

    /// The float a string into a float column of type `dt` stands for: under Spark's, one
    /// of the six non-numeric numbers Spark reads unquoted too (`"NaN"`, `"Infinity"`,
    /// `"-INF"`...); `None` for any other (refused, as under Arrow's).
    pub(crate) fn float_of_text(self, dt: &DataType, text: &str) -> Option<f64> {
        if self != Self::Spark || !matches!(dt, DataType::Float64 | DataType::Float32) {
            return None;
        }
        NON_NUMERIC
            .iter()
            .find(|(token, _, _)| *token == text)
            .map(|&(_, _, x)| x)
    }

    /// The float a CSV field's `text` stands for in a float column: one of `texts` (under
    /// Spark's, its `nanValue`, `positiveInf` and `negativeInf`: `NaN`, `Inf` and `-Inf`
    /// unless given), else under Spark's as Java's parser reads it ([`java_float`]), under
    /// Arrow's as Rust reads the text trimmed (`inf` and `nan` in any case too, as
    /// pyarrow.csv reads them).
    pub(crate) fn float_of_field<F: FloatText>(self, text: &str, texts: &FloatTexts) -> Option<F> {
        if let Some(x) = texts.value_of(text) {
            return Some(F::from_f64(x));
        }
        match self {
            Self::Spark => java_float(text),
            Self::Arrow => text.trim().parse().ok(),
        }
    }

    /// The bytes base64 string `text` spells (see [`decodes_string`](Self::decodes_string)),
    /// padded as Spark's JSON writer pads it; or why a binary column cannot take it.
    pub fn binary(self, text: &str) -> Result<Vec<u8>, String> {
        STANDARD
            .decode(text)
            .map_err(|e| format!("{text:?}: not base64 ({e}), as Spark reads binary from JSON"))
    }
}

/// The texts a CSV float field spells the non-numeric floats with (Spark's `nanValue`,
/// `positiveInf` and `negativeInf`), each matched whole; `None`: not spelled but as the
/// conventions' parser reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FloatTexts {
    /// Not a number.
    pub nan: Option<Box<str>>,
    /// Positive infinity.
    pub positive_inf: Option<Box<str>>,
    /// Negative infinity.
    pub negative_inf: Option<Box<str>>,
}

impl FloatTexts {
    /// The texts a reader under `conventions` takes: those given, and for the others Spark's
    /// defaults (`NaN`, `Inf`, `-Inf`) under Spark's, none under Arrow's.
    pub fn of(
        conventions: Conventions,
        nan: Option<&str>,
        positive_inf: Option<&str>,
        negative_inf: Option<&str>,
    ) -> Self {
        let spark = |given: Option<&str>, default: &str| {
            given
                .or((conventions == Conventions::Spark).then_some(default))
                .map(Box::from)
        };
        FloatTexts {
            nan: spark(nan, "NaN"),
            positive_inf: spark(positive_inf, "Inf"),
            negative_inf: spark(negative_inf, "-Inf"),
        }
    }

    /// The float `text` spells, if it is one of these texts.
    pub fn value_of(&self, text: &str) -> Option<f64> {
        [
            (&self.nan, f64::NAN),
            (&self.positive_inf, f64::INFINITY),
            (&self.negative_inf, f64::NEG_INFINITY),
        ]
        .into_iter()
        .find(|(spelled, _)| spelled.as_deref() == Some(text))
        .map(|(_, x)| x)
    }

    /// Whether a plain number (digits, a sign, a point) may be one of these texts, which the
    /// CSV reader's reading of plain numbers would then pass by.
    pub fn spell_plain_numbers(&self) -> bool {
        [&self.nan, &self.positive_inf, &self.negative_inf]
            .into_iter()
            .flatten()
            .any(|t| super::numbers::plain_float(t.as_bytes()).is_some())
    }
}

/// A time unit as a word, for messages.
fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "seconds",
        TimeUnit::Millisecond => "milliseconds",
        TimeUnit::Microsecond => "microseconds",
        TimeUnit::Nanosecond => "nanoseconds",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zoned(unit: TimeUnit) -> DataType {
        DataType::Timestamp(unit, Some("UTC".into()))
    }

    #[test]
    fn spark_counts_seconds_in_the_columns_unit() {
        let spark = Conventions::Spark;
        assert_eq!(
            spark.whole_number_time(&zoned(TimeUnit::Second), -5),
            Ok(-5)
        );
        assert_eq!(
            spark.whole_number_time(&zoned(TimeUnit::Millisecond), 1_700_000_000),
            Ok(1_700_000_000_000)
        );
        assert_eq!(
            spark.whole_number_time(&zoned(TimeUnit::Nanosecond), 1_700_000_000),
            Ok(1_700_000_000_000_000_000)
        );
        // past i64 nanoseconds (year 2262): refused, not wrapped
        let e = spark
            .whole_number_time(&zoned(TimeUnit::Nanosecond), 10_000_000_000)
            .unwrap_err();
        assert!(e.contains("out of range in nanoseconds"), "{e}");
        // past int64 (a uint64): out of range even in seconds; a date says why it refuses
        let past = i128::from(u64::MAX);
        let e = spark
            .whole_number_time(&zoned(TimeUnit::Second), past)
            .unwrap_err();
        assert!(
            e.starts_with("18446744073709551615 seconds: out of range"),
            "{e}"
        );
        let e = spark
            .whole_number_time(&DataType::Date32, past)
            .unwrap_err();
        assert!(
            e.contains("18446744073709551615: Spark's JSON reader reads a date"),
            "{e}"
        );
    }

    #[test]
    fn spark_refuses_numbers_into_dates_and_zone_less_timestamps() {
        let spark = Conventions::Spark;
        for dt in [
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
        ] {
            assert!(spark.converts_whole_number(&dt));
            let e = spark.whole_number_time(&dt, 3).unwrap_err();
            assert!(e.contains("from a string only"), "{e}");
        }
        assert!(!Conventions::Arrow.converts_whole_number(&DataType::Date32));
        assert!(!spark.converts_whole_number(&DataType::Int64));
    }

    #[test]
    fn spark_reads_non_numeric_numbers_from_strings() {
        let spark = Conventions::Spark;
        let f = DataType::Float64;
        assert!(spark.float_of_text(&f, "NaN").unwrap().is_nan());
        assert_eq!(
            spark.float_of_text(&DataType::Float32, "+INF"),
            Some(f64::INFINITY)
        );
        assert_eq!(
            spark.float_of_text(&f, "-Infinity"),
            Some(f64::NEG_INFINITY)
        );
        // the spellings Spark refuses as strings (as it does unquoted), and Arrow's rules
        for text in ["nan", "+NaN", "INF", "inf", " NaN", "1.5"] {
            assert_eq!(spark.float_of_text(&f, text), None, "{text}");
        }
        assert_eq!(Conventions::Arrow.float_of_text(&f, "NaN"), None);
        assert_eq!(spark.float_of_text(&DataType::Utf8, "NaN"), None);
    }

    #[test]
    fn spark_decodes_padded_base64() {
        let spark = Conventions::Spark;
        assert!(spark.decodes_string(&DataType::Binary));
        assert!(!spark.decodes_string(&DataType::Utf8));
        assert!(!Conventions::Arrow.decodes_string(&DataType::Binary));
        assert_eq!(spark.binary("aGk="), Ok(b"hi".to_vec()));
        assert_eq!(spark.binary(""), Ok(Vec::new()));
        for bad in ["aGk", "abc", "a b=", "*"] {
            assert!(spark.binary(bad).is_err(), "{bad}");
        }
    }
}

//! The CSV reader: with a header (columns by name, text converted to the column's type) or
//! without one (Drill's `columns` `list<utf8>`, so `columns[3]` works downstream). Ragged rows
//! are allowed: missing fields are null (under Spark's conventions an error of that record,
//! as Spark's reader has it), extra fields are an error of that record.

use std::collections::HashSet;
use std::io::BufRead;
use std::sync::Arc;

use arrow_schema::{DataType, Field, TimeUnit};

use super::conventions::{Conventions, FloatTexts};
use super::csv_spark_fields::Dialect;
pub use super::csv_spark_fields::SparkFields;
use super::csv_window::{CsvWindow, Fields};
use super::driver::{excerpt, loader_error, IgnoredNames, RecordReader, RecordSource};
pub use super::driver::{InputError, OnError, ReadError};
use super::input;
use super::lines::{line_breaks, trim_line_breaks};
use super::numbers::{plain_float, plain_int};
use super::temporal::{parse_plain_timestamp, TextZone};
use super::time_pattern::TimeFormats;
use crate::loader::{ColumnId, ElementFate, LoaderError, Projection, ResultSetLoader, Value, ROOT};

/// The one column of a header-less CSV file.
pub const COLUMNS: &str = "columns";

/// How a header field's text becomes its column's value, by the column's type: the usual
/// ones read straight from the bytes, the rest (`Other`) converted by the column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conversion {
    Utf8,
    Float64,
    Bool,
    Int,
    Timestamp(TimeUnit),
    Other,
}

impl Conversion {
    /// `plain_floats`: a plain number in a float column is the number it reads as (no
    /// float text of the reader's spells one).
    fn of(dt: &DataType, plain_floats: bool) -> Conversion {
        match dt {
            DataType::Utf8 => Conversion::Utf8,
            DataType::Float64 if plain_floats => Conversion::Float64,
            DataType::Boolean => Conversion::Bool,
            dt if dt.is_integer() => Conversion::Int,
            // a zone's local times are read by `converted_value`
            DataType::Timestamp(unit, _) if matches!(TextZone::of(dt), TextZone::Utc) => {
                Conversion::Timestamp(*unit)
            }
            _ => Conversion::Other,
        }
    }
}

/// A header field the projection keeps: its position, its column, how its text converts
/// (the column's type, looked up once: a CSV column's type does not change while a loader
/// reads the file).
#[derive(Debug, Clone, Copy)]
struct Target {
    field: usize,
    id: ColumnId,
    conversion: Conversion,
}

/// Dialect of a CSV file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// The first record names the columns.
    pub header: bool,
    /// The byte between fields.
    pub delimiter: u8,
    /// The byte that quotes a field (which may then hold delimiters and line breaks).
    pub quote: u8,
    /// An escape character inside quotes (with `\\`, `\"` is a quote), besides the doubled
    /// quote, which is one in every dialect.
    pub escape: Option<u8>,
    /// Lines that start with this byte are comments, skipped wherever a record (or the
    /// header) could start: Spark's `comment` option (none by default).
    pub comment: Option<u8>,
    /// How the header names columns and how date and timestamp texts read: Arrow's (Drill's
    /// names, ISO-8601) or Spark's (its names, its texts besides ISO-8601, its reading of
    /// quoted fields: `SparkFields`).
    pub conventions: Conventions,
    /// Spark's options that shape fields (whitespace trimmed, `emptyValue`): under Spark's
    /// conventions only.
    pub spark_fields: SparkFields,
    /// Records end at exactly these bytes (Spark's `lineSep`), not at line breaks, which
    /// are text then; each record is split by Spark's rules whatever its quotes (a quote
    /// does not protect the separator, as in Spark). Under Spark's conventions only.
    pub line_sep: Option<Box<[u8]>>,
}

impl CsvOptions {
    /// These options if a file can be read by them: no line break for a delimiter, quote
    /// or escape, and no byte both the delimiter and the quote or escape. A quote that is
    /// its own escape is the doubled quote (`escape: None`), as Spark's `escape='"'` reads.
    pub fn checked(mut self) -> Result<Self, String> {
        let roles = [
            ("delimiter", Some(self.delimiter)),
            ("quote", Some(self.quote)),
            ("escape", self.escape),
            ("comment", self.comment),
        ];
        for (role, byte) in roles {
            if let Some(b @ (b'\n' | b'\r')) = byte {
                return Err(format!(
                    "the {role} cannot be a line break ({:?}): line breaks end records",
                    b as char
                ));
            }
        }
        for (role, byte) in [("quote", Some(self.quote)), ("escape", self.escape)] {
            if byte == Some(self.delimiter) {
                return Err(format!(
                    "the delimiter and the {role} are both {:?}: a field could not tell one from \
                     the other",
                    self.delimiter as char
                ));
            }
        }
        if let Some(c) = self
            .comment
            .filter(|&c| c == self.delimiter || c == self.quote)
        {
            return Err(format!(
                "the comment byte {:?} is also the delimiter or the quote: a line starting \
                 with it could not be told from a record",
                c as char
            ));
        }
        if self.escape == Some(self.quote) {
            self.escape = None;
        }
        if self.conventions != Conventions::Spark && self.spark_fields != SparkFields::default() {
            return Err(
                "ignore_leading_whitespace, ignore_trailing_whitespace and empty_value are \
                 Spark's CSV options: they need csv_conventions=\"spark\""
                    .to_string(),
            );
        }
        if let Some(sep) = &self.line_sep {
            if self.conventions != Conventions::Spark {
                return Err(
                    "line_sep ends CSV records as Spark's lineSep does: it needs \
                            csv_conventions=\"spark\""
                        .to_string(),
                );
            }
            let roles = [
                ("delimiter", Some(self.delimiter)),
                ("quote", Some(self.quote)),
            ];
            let roles = roles
                .into_iter()
                .chain([("escape", self.escape), ("comment", self.comment)]);
            for (role, byte) in roles {
                if byte.is_some_and(|b| sep.contains(&b)) {
                    return Err(format!(
                        "line_sep {:?} holds the {role}: a record could not tell them apart",
                        String::from_utf8_lossy(sep)
                    ));
                }
            }
            if sep.is_empty() {
                return Err("line_sep cannot be empty".to_string());
            }
        }
        Ok(self)
    }

    /// What ends the records' lines: the separator given, else `\n`, `\r` or `\r\n`.
    fn line_ends(&self) -> input::LineEnds {
        match &self.line_sep {
            Some(sep) => input::LineEnds::Exact(sep.clone()),
            None => input::LineEnds::AnyBreak,
        }
    }

    /// A window reading the records of `input` in this dialect.
    fn window(&self, input: Box<dyn BufRead + Send>) -> CsvWindow {
        let spark = self.conventions == Conventions::Spark;
        if let Some(sep) = &self.line_sep {
            return CsvWindow::separated(input, sep, self.dialect(), self.spark_fields.clone())
                .with_comment(self.comment);
        }
        CsvWindow::new(input, self.delimiter, self.quote, self.escape)
            .with_comment(self.comment)
            .reading_as_spark(spark.then(|| self.spark_fields.clone()))
    }

    /// The bytes that split a record.
    fn dialect(&self) -> Dialect {
        Dialect {
            delimiter: self.delimiter,
            quote: self.quote,
            escape: self.escape,
        }
    }
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            header: false,
            delimiter: b',',
            quote: b'"',
            escape: None,
            comment: None,
            conventions: Conventions::Arrow,
            spark_fields: SparkFields::default(),
            line_sep: None,
        }
    }
}

/// How the names a schema gives a CSV file's fields by position ([`CsvReader::with_names`])
/// meet its header: Spark's `enforceSchema`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HeaderNames {
    /// The header's names find the columns; the schema's are not used (Drill's rule).
    #[default]
    Kept,
    /// The schema's names replace the header's, which is read past (Spark's `enforceSchema`,
    /// its default).
    Replaced,
    /// As `Replaced`, once the header is found to give the schema's names at the positions
    /// listed (`None`: at every position, and as many fields), in any case; else the file is
    /// refused (Spark's `enforceSchema=false`; with a projection, Spark checks only the fields
    /// it keeps).
    Checked(Option<Vec<usize>>),
}

/// The records of a CSV input (the record source of [`CsvReader`]).
pub struct CsvRecords {
    window: CsvWindow,
    path: String,
    options: CsvOptions,
    names: Option<Vec<String>>,
    /// A schema's names for the fields of a file with a header, by position, and how they
    /// meet the header's (`with_names`).
    schema_names: Option<(Vec<String>, HeaderNames)>,
    /// Where the header record starts in the input (after any blank lines), once read.
    header_offset: u64,
    /// A byte range's header names come from the file's first record: where that record
    /// starts in the file, while the range may still meet it (it is then no row).
    header_at: Option<u64>,
    /// Column of each header field in the loader (None: not projected); resolved at first use.
    ids: Option<Vec<Option<ColumnId>>>,
    /// The header fields the projection keeps, in order (from `ids`).
    targets: Vec<Target>,
    /// Under Spark's conventions, the projection lists some of the named fields only: Spark's
    /// CSV reader then parses only those (its column pruning), and a record's count of fields
    /// does not make it malformed, whether the corrupt record column is asked for or not
    /// (from `ids`).
    prunes_fields: bool,
    records: u64,
    /// Lines of the file before this input (a byte range that does not start the file).
    base: input::LineBase,
    /// Read from a byte range of the file: a record must be one line (a range that starts
    /// inside a quoted line break could not tell).
    one_line_records: bool,
    /// Header fields (or `columns`) skipped because the projection leaves them out.
    ignored: IgnoredNames,
    /// Field texts that stand for a null (`null_values`; none by default).
    null_texts: Vec<Box<[u8]>>,
    /// Patterns date and timestamp texts are read by, where given.
    formats: TimeFormats,
    /// The texts of the non-numeric floats in float columns (Spark's `nanValue`...).
    float_texts: FloatTexts,
}

impl CsvRecords {
    /// Whether a field of text `raw` (unquoted) is a null: one of the `null_values`.
    #[inline(always)]
    fn is_null_text(&self, raw: &[u8]) -> bool {
        self.null_texts.iter().any(|t| **t == *raw)
    }

    /// Whether field `i` of the current record (its text `raw`, out of its quotes) is a
    /// null: one of the `null_values`; under Spark's conventions also an empty field
    /// without quotes, whatever they are, and `""` only if `""` is one of them (its
    /// default), as Spark's CSV reader reads them (its `nullValue` and `emptyValue`).
    #[inline(always)]
    fn is_null_field(&self, raw: &[u8], i: usize) -> bool {
        if raw.is_empty() && self.options.conventions == Conventions::Spark {
            return !self.record().is_quoted_empty(i) || self.is_null_text(raw);
        }
        self.is_null_text(raw)
    }

    /// The current record's fields.
    fn record(&self) -> &Fields {
        &self.window.record
    }

    /// The line the current record starts on (a line ends at a `\n`, a `\r\n` or a lone
    /// `\r`).
    fn line(&self) -> u64 {
        self.base.get() + self.window.line()
    }

    /// The record as the file has it (quotes and all), without its line terminator: a
    /// slice of the input's window.
    fn raw_bytes(&self) -> &[u8] {
        self.window.record_bytes()
    }

    /// `error` placed at field `i` of the current record: the line it starts on (a quoted
    /// field may follow line breaks in the record), its byte column, an excerpt around it.
    #[cold]
    #[inline(never)]
    fn at_field(&self, i: usize, mut error: InputError) -> InputError {
        let place = self.window.field_place(i);
        let line = &self.raw_bytes()[place.line_start..];
        error.line = self.line() + place.line;
        error.column = Some(self.base.file_column(line, place.column));
        error.excerpt = excerpt(line, Some(place.column));
        error
    }

    /// The error of a record with fewer fields than the `names` a header (or a schema) gave,
    /// under Spark's conventions, named at its end: Spark's CSV reader takes it as malformed
    /// when it reads every column (its partial results keep the fields there are). Drill's
    /// rule, Arrow's conventions here, reads the missing fields as nulls.
    #[cold]
    fn short_record(&self, names: usize) -> InputError {
        let fields = self.record().count();
        let message = format!(
            "the record has {fields} fields, {} {names} (Spark's CSV reader takes a record \
             short of fields as malformed){}",
            self.names_given_by(),
            self.by_position_hint()
        );
        self.at_field(fields, self.error(None, message))
    }

    /// For a file with a header whose fields a schema's names take by position, what a
    /// message on its record's field count adds: why, and how to read by the header's names.
    fn by_position_hint(&self) -> &'static str {
        if self.options.header && self.schema_names.is_some() {
            "; the schema's columns take the fields by position, the header's names aside, as \
             Spark's CSV reader takes them (enforceSchema): enforce_schema=None finds them by \
             the header's names"
        } else {
            ""
        }
    }

    /// What named the columns, in messages: the header, or the schema (`with_names`).
    fn names_given_by(&self) -> &'static str {
        if self.options.header && self.schema_names.is_none() {
            "the header"
        } else {
            "the schema"
        }
    }

    /// The error of a record that ends inside quotes, the input's last (`CsvWindow::
    /// ends_in_quotes`). (The `csv` crate ends such a field at the end of the input without
    /// a word, so every line after the quote would silently be one field.)
    #[cold]
    #[inline(never)]
    fn quote_left_open(&self) -> InputError {
        // the lines it took in: a line break ending the input starts no other
        let fields = trim_line_breaks(self.record().as_slice());
        let lines = line_breaks(fields, false) + 1;
        let noun = if lines == 1 { "line" } else { "lines" };
        self.error(
            None,
            format!(
                "a quote opened in this record is never closed: it runs to the end of the \
                 input, taking in {lines} {noun}"
            ),
        )
    }

    /// Take the column names from the header record (the first record read). An empty
    /// name is `column<n>` (1-based); under Spark's conventions, as Spark's CSV reader names
    /// them, `_c<i>` (0-based; a null text too), and a name given more than once (in any
    /// case) takes its index as a suffix (`a0`, `A3`) where it is otherwise refused.
    fn set_names(&mut self) -> Result<(), InputError> {
        self.header_offset = self.window.record_offset();
        if let Some((names, rule)) = &self.schema_names {
            if let HeaderNames::Checked(positions) = rule {
                self.check_header(names, positions.as_deref())?;
            }
            self.names = Some(names.clone());
            return Ok(());
        }
        let mut given = Vec::new();
        for (i, f) in self.record().iter().enumerate() {
            let text = self.text(f, i)?;
            let null = self.is_null_field(f, i) && self.options.conventions == Conventions::Spark;
            given.push(if null { "" } else { text.trim() }.to_string());
        }
        // how often each name is given, in any case (Spark's suffixes)
        let mut counts = std::collections::HashMap::new();
        for name in &given {
            *counts.entry(name.to_lowercase()).or_insert(0) += 1;
        }
        let repeated = |name: &str| counts[&name.to_lowercase()] > 1;
        let mut names = Vec::new();
        // the loader's rule: names are equal if their lowercase forms are
        let mut lowercase = HashSet::new();
        for (i, name) in given.iter().enumerate() {
            let name = match self.options.conventions {
                Conventions::Spark if name.is_empty() => format!("_c{i}"),
                Conventions::Spark if repeated(name) => format!("{name}{i}"),
                _ if name.is_empty() => format!("column{}", i + 1),
                _ => name.clone(),
            };
            if !lowercase.insert(name.to_lowercase()) {
                let error = self.error(None, format!("the header names '{name}' twice"));
                return Err(self.at_field(i, error));
            }
            names.push(name);
        }
        self.names = Some(names);
        Ok(())
    }

    /// Refuse the file unless its header (the current record) gives `names` at `positions`
    /// (all: also as many fields), in any case (lower-cased as Java's `Locale.ROOT` does),
    /// as Spark's CSV reader checks a header under `enforceSchema=false`.
    fn check_header(
        &self,
        names: &[String],
        positions: Option<&[usize]>,
    ) -> Result<(), InputError> {
        let mut header = Vec::new();
        for (i, f) in self.record().iter().enumerate() {
            header.push(self.text(f, i)?);
        }
        let listed = || {
            format!(
                "header: {}; schema: {}",
                header.join(", "),
                names.join(", ")
            )
        };
        if positions.is_none() && header.len() != names.len() {
            let message = format!(
                "the header has {} fields, the schema {} ({}): with enforce_schema=False (Spark's \
                 enforceSchema) they must name the same fields",
                header.len(),
                names.len(),
                listed()
            );
            return Err(self.error(None, message));
        }
        let all: Vec<usize> = (0..names.len()).collect();
        for &i in positions.unwrap_or(&all) {
            let found = header.get(i).copied().unwrap_or_default();
            if found.to_lowercase() != names[i].to_lowercase() {
                let message = format!(
                    "the header names field {} '{found}' where the schema has '{}' ({}): with \
                     enforce_schema=False (Spark's enforceSchema) they must name the same fields",
                    i + 1,
                    names[i],
                    listed()
                );
                return Err(self.at_field(i.min(header.len()), self.error(None, message)));
            }
        }
        Ok(())
    }

    fn text<'r>(&self, field: &'r [u8], i: usize) -> Result<&'r str, InputError> {
        std::str::from_utf8(field).map_err(|e| {
            let error = self.error(None, format!("field {} is not valid UTF-8: {e}", i + 1));
            self.at_field(i, error)
        })
    }

    /// The loader column of each header field, adding the projected ones it lacks (as utf8).
    /// Keep the header fields' columns, and the projected ones in order.
    fn set_ids(&mut self, l: &ResultSetLoader, ids: Vec<Option<ColumnId>>) {
        let targets = ids.iter().enumerate();
        self.targets = targets
            .filter_map(|(field, id)| {
                let id = (*id)?;
                let dt = l.field(id).data_type();
                // a column read by a pattern is read by `converted_value`
                let conversion = match self.formats.of(dt) {
                    Some(_) => Conversion::Other,
                    None => Conversion::of(dt, !self.float_texts.spell_plain_numbers()),
                };
                Some(Target {
                    field,
                    id,
                    conversion,
                })
            })
            .collect();
        self.window.last_needed = Some(self.last_target());
        let listed = !matches!(l.projection(ROOT), Projection::All);
        self.prunes_fields = self.options.conventions == Conventions::Spark
            && listed
            && self.targets.len() < ids.len();
        self.ids = Some(ids);
    }

    /// The position of the last header field the projection keeps (0 if none).
    fn last_target(&self) -> usize {
        self.targets.last().map_or(0, |t| t.field)
    }

    fn resolve(&mut self, l: &mut ResultSetLoader) -> Result<Vec<Option<ColumnId>>, LoaderError> {
        let names = self.names.clone().unwrap_or_default();
        let mut ids = Vec::with_capacity(names.len());
        for name in &names {
            let id = match l.column(ROOT, name) {
                Some(id) => Some(id),
                None if l.would_project(ROOT, name) => {
                    let field = Arc::new(Field::new(name, DataType::Utf8, true));
                    Some(l.add_column(ROOT, field)?)
                }
                None => {
                    self.ignored.note(name);
                    None
                }
            };
            ids.push(id.filter(|id| l.is_projected(*id)));
        }
        Ok(ids)
    }

    /// Field `i` as text: cut from the record validated whole (`whole`), else validated alone
    /// (which also gives the error).
    fn field_text<'r>(
        &self,
        whole: Option<&'r str>,
        raw: &'r [u8],
        i: usize,
    ) -> Result<&'r str, InputError> {
        match whole.and_then(|s| s.get(self.record().range(i)?)) {
            Some(text) => Ok(text),
            None => self.text(raw, i),
        }
    }

    /// Field `i` converted and written to column `id`. Not inlined, but the conversion is:
    /// the value goes from the conversion to the write without being stored and loaded
    /// whole (a `Value` copied out of a returned `Result` is loaded 16 bytes at a time over
    /// 8 stored, which stalls the load).
    #[inline(never)]
    fn write_field(
        &self,
        l: &mut ResultSetLoader,
        target: &Target,
        raw: &[u8],
        whole: Option<&str>,
    ) -> Result<(), InputError> {
        let value = match plain_value(target.conversion, raw) {
            Some(value) => value,
            None => self.converted_value(l, target, raw, whole)?,
        };
        // the usual first write in one pass (its limits checked by the row's commit)
        if l.set_plain(target.id, value) {
            return Ok(());
        }
        match l.set(target.id, value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.at_field(target.field, loader_error(self, e))),
        }
    }

    /// Write the current record's fields to their columns (`whole`: the record, if it was
    /// checked as UTF-8 whole). `NULLS`: some field texts stand for nulls; the loop without
    /// them is compiled apart, without their check.
    #[inline(never)]
    fn write_targets<const NULLS: bool>(
        &self,
        l: &mut ResultSetLoader,
        whole: Option<&str>,
    ) -> Result<(), InputError> {
        let record = self.record();
        for target in &self.targets {
            // a short record: the rest null
            let Some(raw) = record.get(target.field) else {
                break;
            };
            if NULLS && self.is_null_field(raw, target.field) {
                self.write_null(l, target)?;
                continue;
            }
            // Text to a utf8 column, the common case, unchecked: a limit it breaks is found
            // by the row's commit (or the next checked write), which overflows then.
            if target.conversion == Conversion::Utf8 {
                let text = whole.and_then(|s| s.get(record.range(target.field)?));
                if text.is_some_and(|text| l.set_plain(target.id, Value::Str(text))) {
                    continue;
                }
            }
            self.write_field(l, target, raw, whole)?;
        }
        Ok(())
    }

    /// A null (a field of a null text) written to the target's column.
    #[cold]
    fn write_null(&self, l: &mut ResultSetLoader, target: &Target) -> Result<(), InputError> {
        l.set(target.id, Value::Null)
            .map_err(|e| self.at_field(target.field, loader_error(self, e)))
    }

    /// `field_value` past the usual spellings: by the column's type.
    fn converted_value<'r>(
        &self,
        l: &ResultSetLoader,
        target: &Target,
        raw: &'r [u8],
        whole: Option<&'r str>,
    ) -> Result<Value<'r>, InputError> {
        let (id, i) = (target.id, target.field);
        let dt = l.field(id).data_type();
        let bad = |what: &str| {
            let message = format!(
                "field {} ({}) is not {what}: {:?}",
                i + 1,
                l.path(id),
                String::from_utf8_lossy(raw)
            );
            self.at_field(i, self.error(None, message))
        };
        if raw.is_empty() && !matches!(dt, DataType::Utf8 | DataType::LargeUtf8) {
            return Ok(Value::Null);
        }
        Ok(match dt {
            DataType::Binary | DataType::LargeBinary => Value::Bytes(raw),
            _ => {
                let text = self.field_text(whole, raw, i)?;
                // the text as it is: a pattern says where spaces go
                if let Some(read) = self.formats.value_of(dt, text) {
                    return read.map_err(|why| {
                        let message = format!("field {} ({}): {why}", i + 1, l.path(id));
                        self.at_field(i, self.error(None, message))
                    });
                }
                match dt {
                    DataType::Utf8 | DataType::LargeUtf8 => Value::Str(text),
                    DataType::Boolean => match self.options.conventions.exact_type_text(text) {
                        t if t.eq_ignore_ascii_case("true") => Value::Bool(true),
                        t if t.eq_ignore_ascii_case("false") => Value::Bool(false),
                        _ => return Err(bad("a boolean")),
                    },
                    DataType::Float64 => Value::Float(
                        (self.options.conventions)
                            .float_of_field(text, &self.float_texts)
                            .ok_or_else(|| bad("a number"))?,
                    ),
                    // rounded once, to f32 (an f64 on the way could land on a midpoint
                    // between two f32s and round again); the f64 of an f32 is exact
                    DataType::Float32 => Value::Float(f64::from(
                        (self.options.conventions)
                            .float_of_field::<f32>(text, &self.float_texts)
                            .ok_or_else(|| bad("a number"))?,
                    )),
                    DataType::Date32 => Value::Date(
                        self.options
                            .conventions
                            .date_of_text(text.trim(), false)
                            .ok_or_else(|| bad("a date"))?,
                    ),
                    DataType::Timestamp(unit, _) => Value::Timestamp({
                        // the positional read was tried above (unless the column has a
                        // zone, whose local times the general rules read); a column
                        // without a zone holds wall clocks: a text with an offset is
                        // refused, as pyarrow.csv and Spark's CSV reader refuse it
                        let zone = TextZone::of_wall_clocks(dt);
                        self.options
                            .conventions
                            .timestamp_of_text(text, *unit, zone)
                            .ok_or_else(|| {
                                match self.options.conventions.timestamp_refusal(text, dt, zone) {
                                    Some(why) => self.at_field(
                                        i,
                                        self.error(
                                            None,
                                            format!("field {} ({}): {why}", i + 1, l.path(id)),
                                        ),
                                    ),
                                    None => bad("a timestamp"),
                                }
                            })?
                    }),
                    DataType::Decimal128(_, scale) => {
                        let conventions = self.options.conventions;
                        let text = conventions.decimal_text(text);
                        Value::Decimal(
                            conventions
                                .decimal_of_text(&text, *scale, l.is_declared(id))
                                .ok_or_else(|| bad("a decimal that fits"))?,
                        )
                    }
                    dt if dt.is_integer() => {
                        let text = self.options.conventions.exact_type_text(text);
                        match text.parse::<i64>() {
                            Ok(v) => Value::Int(v),
                            Err(_) => Value::UInt(text.parse().map_err(|_| bad("an integer"))?),
                        }
                    }
                    _ => return Err(bad(&format!("convertible to {dt}"))),
                }
            }
        })
    }
}

impl RecordSource for CsvRecords {
    fn next_record(&mut self) -> Result<bool, InputError> {
        loop {
            let more = self.window.next_record().map_err(|e| {
                super::driver::io_error(&self.path, self.base.get() + self.window.line(), &e)
            })?;
            if !more {
                return Ok(false);
            }
            self.records += 1;
            // Only a quoted field can hold a line break.
            if self.one_line_records && self.window.spans_lines() {
                return Err(self.error(
                    None,
                    "a quoted field holds a line break, which a file read in byte ranges \
                     cannot have (a range starting inside it would misread it): read the \
                     file whole (split_bytes=0, or multiline=True: Spark's multiLine)"
                        .into(),
                ));
            }
            if self.options.header && self.names.is_none() {
                // blank lines before the header are skipped as blank records are
                if !self.is_blank() {
                    self.set_names()?;
                }
                continue;
            }
            if let Some(header) = self.header_at {
                // A range that starts before the header's line (after blank lines only)
                // meets the header: no row (found by fuzzing: it was read as data).
                let here = self.base.offset() + self.window.record_offset();
                if here >= header {
                    self.header_at = None;
                    if here == header {
                        continue;
                    }
                }
            }
            return Ok(true);
        }
    }

    /// A line that is empty or only whitespace, as Spark skips them; a quoted field (`""`,
    /// `"  "`) is a value, so its line is a record. Under Spark's conventions whitespace is
    /// any byte up to the space but NUL, a delimiter that is one too (a line of tabs in a
    /// file delimited by them is blank, as univocity's parser skips it).
    fn is_blank(&self) -> bool {
        if self.options.conventions == Conventions::Spark {
            let blank = |c: &u8| *c != 0 && *c <= b' ';
            // the fields first: a record's first byte mostly tells
            return self.record().iter().all(|f| f.iter().all(blank))
                && self.raw_bytes().iter().all(blank);
        }
        self.record().count() == 1
            && self
                .record()
                .get(0)
                .unwrap_or_default()
                .iter()
                .all(u8::is_ascii_whitespace)
            && memchr::memchr(self.options.quote, self.raw_bytes()).is_none()
    }

    fn write(&mut self, l: &mut ResultSetLoader) -> Result<(), InputError> {
        // only the input's last record can hold a quote left open
        if self.window.ends_in_quotes() {
            return Err(self.quote_left_open());
        }
        if self.names.is_none() {
            // no header, no names: Drill's `columns` list
            let id = match l.column(ROOT, COLUMNS) {
                Some(id) => id,
                None if l.would_project(ROOT, COLUMNS) => {
                    let item = Arc::new(Field::new("item", DataType::Utf8, true));
                    let field = Arc::new(Field::new(COLUMNS, DataType::List(item), true));
                    l.add_column(ROOT, field)
                        .map_err(|e| loader_error(self, e))?
                }
                None => {
                    self.ignored.note(COLUMNS);
                    return Ok(());
                }
            };
            if !l.is_projected(id) {
                return Ok(());
            }
            let element = l.element(id).expect("a list");
            l.open(id).map_err(|e| loader_error(self, e))?;
            let whole = std::str::from_utf8(self.record().as_slice()).ok();
            let selective = l.selects_elements(id);
            for (i, f) in self.record().iter().enumerate() {
                // `columns[2]` projected: fields not asked for are not looked at
                match selective.then(|| l.element_fate(id)) {
                    Some(ElementFate::Drop) => break,
                    Some(ElementFate::Null) => {
                        l.save_element(id).map_err(|e| loader_error(self, e))?;
                        continue;
                    }
                    _ => {}
                }
                let value = if self.is_null_field(f, i) {
                    Value::Null
                } else {
                    Value::Str(self.field_text(whole, f, i)?)
                };
                l.set(element, value)
                    .and_then(|_| l.save_element(id))
                    .map_err(|e| self.at_field(i, loader_error(self, e)))?;
            }
            return Ok(());
        }
        if self.ids.is_none() {
            let ids = self.resolve(l).map_err(|e| loader_error(self, e))?;
            self.set_ids(l, ids);
        }
        // a record split before the columns changed may lack a field now needed
        let needed = self.last_target();
        if needed >= self.record().len() && needed < self.record().count() {
            let (path, base) = (&self.path, &self.base);
            self.window
                .split_whole()
                .map_err(|e| super::driver::io_error(path, base.get() + self.window.line(), &e))?;
        }
        let ids = self.ids.as_ref().expect("resolved");
        if self.record().count() > ids.len() && !self.prunes_fields {
            let message = format!(
                "the record has {} fields, {} {}{}",
                self.record().count(),
                self.names_given_by(),
                ids.len(),
                self.by_position_hint()
            );
            // named at the first field the header has no name for
            return Err(self.at_field(ids.len(), self.error(None, message)));
        }
        if self.record().count() < ids.len()
            && self.options.conventions == Conventions::Spark
            && !self.prunes_fields
        {
            return Err(self.short_record(ids.len()));
        }
        // One UTF-8 check for the whole record, fields cut from it at char boundaries;
        // unless the projection keeps few of its fields: then each is checked alone.
        let record = self.record();
        let few = self.targets.len() * 4 < record.count();
        let whole = if few {
            None
        } else {
            std::str::from_utf8(record.as_slice()).ok()
        };
        if self.null_texts.is_empty() {
            self.write_targets::<false>(l, whole)
        } else {
            self.write_targets::<true>(l, whole)
        }
    }

    /// Under Spark's conventions, a bad record's fields the header names, each converted
    /// or null where it does not convert (or its column cannot take it), as Spark's CSV
    /// reader keeps partial results; the fields past the header's are left out (the raw
    /// record beside them keeps them). A headerless file's `columns` take every field
    /// written as text: nothing to keep apart there.
    fn write_partial(
        &mut self,
        l: &mut ResultSetLoader,
        _failed: &InputError,
    ) -> Result<bool, InputError> {
        if self.options.conventions != Conventions::Spark || self.ids.is_none() {
            return Ok(true);
        }
        let record = self.record();
        for target in &self.targets {
            let Some(raw) = record.get(target.field) else {
                break; // a short record: the rest null
            };
            if self.is_null_field(raw, target.field)
                || self.write_field(l, target, raw, None).is_err()
            {
                self.write_null(l, target)?;
            }
        }
        Ok(true)
    }

    /// The record as the file has it (quotes and all), without its line terminator.
    fn raw(&self) -> String {
        String::from_utf8_lossy(self.raw_bytes()).into_owned()
    }

    fn error(&self, column: Option<usize>, message: String) -> InputError {
        let raw = self.raw_bytes();
        InputError {
            path: self.path.clone(),
            line: self.line(),
            column: column.map(|c| self.base.file_column(raw, c)),
            message,
            excerpt: excerpt(raw, column),
            unreadable: false,
        }
    }

    fn records_read(&self) -> u64 {
        self.records
    }

    /// A header names the file's columns even if no record follows it.
    fn flush(&mut self, l: &mut ResultSetLoader) -> Result<(), LoaderError> {
        if self.names.is_some() && self.ids.is_none() {
            let ids = self.resolve(l)?;
            self.set_ids(l, ids);
        }
        Ok(())
    }

    fn forget_columns(&mut self) {
        self.ids = None;
        self.window.last_needed = None;
    }

    fn ignored_columns(&self) -> &[String] {
        self.ignored.names()
    }
}

/// Reads one CSV file into a loader, batch by batch.
pub type CsvReader = RecordReader<CsvRecords>;

impl CsvReader {
    /// Open `source` (gzip / zstd by suffix), or with `range` only the records on lines that
    /// start in it (one split of a file read by several tasks; a record holding a quoted line
    /// break is then refused, as a range cannot tell whether it starts inside one). With a
    /// header, the column names come from the file's first record.
    pub fn open(
        source: &input::Source,
        range: Option<input::ByteRange>,
        options: CsvOptions,
        on_error: OnError,
    ) -> Result<Self, InputError> {
        let (mut names, mut header_at) = (None, None);
        if options.header && range.is_some_and(|r| r.start > 0) {
            let mut header = Self::open(source, None, options.clone(), on_error)?;
            header.src.next_record()?;
            names = header.src.names.take();
            header_at = Some(header.src.header_offset);
        }
        let (lines, base) = input::open_lines(source, range, &options.line_ends())?;
        let mut reader = Self::from_reader(lines, source.name(), options, on_error);
        if !base.starts_file() {
            reader.src.window.starts_inside_file();
        }
        reader.src.base = base;
        reader.src.names = names;
        reader.src.header_at = header_at;
        reader.src.one_line_records = range.is_some();
        Ok(reader)
    }

    /// Read from any buffered input (`path` names it in errors).
    pub fn from_reader(
        input: Box<dyn BufRead + Send>,
        path: &str,
        options: CsvOptions,
        on_error: OnError,
    ) -> Self {
        let conventions = options.conventions;
        let src = CsvRecords {
            window: options.window(input),
            path: path.to_string(),
            options,
            names: None,
            schema_names: None,
            header_offset: 0,
            header_at: None,
            ids: None,
            targets: Vec::new(),
            prunes_fields: false,
            records: 0,
            base: input::LineBase::default(),
            one_line_records: false,
            ignored: IgnoredNames::default(),
            null_texts: spark_null_texts(conventions),
            formats: TimeFormats::default(),
            float_texts: FloatTexts::of(conventions, None, None, None),
        };
        RecordReader::new(src, on_error)
    }

    /// Read date and timestamp texts by the patterns `formats` gives (Spark's `dateFormat`,
    /// `timestampFormat`, `timestampNTZFormat`) instead of the conventions' reading.
    pub fn with_time_formats(mut self, formats: TimeFormats) -> Self {
        self.src.formats = formats;
        self
    }

    /// Name the fields of a file without a header by position (`names`: a schema's columns,
    /// as Spark's CSV reader maps a schema onto such a file): its records are read as a
    /// header's names would read them, record counts checked against `names`, instead of
    /// into Drill's `columns` list. A file with a header: as `header` says
    /// ([`HeaderNames`]); a byte range that starts past the header does not check it (it
    /// does not start the file, as Spark checks only the split that does).
    pub fn with_names(mut self, names: Vec<String>, header: HeaderNames) -> Self {
        if !self.src.options.header {
            self.src.names = Some(names);
        } else if header != HeaderNames::Kept {
            if self.src.names.is_some() {
                // the header was read by `open`, for a range past it
                self.src.names = Some(names.clone());
            }
            self.src.schema_names = Some((names, header));
        }
        self
    }

    /// Read float fields spelled as `texts` says as the non-numeric floats (Spark's
    /// `nanValue`, `positiveInf`, `negativeInf`), as [`FloatTexts::of`] has them.
    pub fn with_float_texts(mut self, texts: FloatTexts) -> Self {
        self.src.float_texts = texts;
        self
    }

    /// Read a field whose text (quoted or not) is one of `texts` as a null, in any column
    /// (pyarrow.csv's `null_values`, Spark's `nullValue`): `[""]` makes empty fields null.
    /// None given keeps the conventions' own (Spark's: `""`; Arrow's: none).
    pub fn with_null_values<S: AsRef<str>>(mut self, texts: &[S]) -> Self {
        if !texts.is_empty() {
            self.src.null_texts = texts.iter().map(|t| t.as_ref().as_bytes().into()).collect();
        }
        self
    }
}

/// The null texts of CSV read by `conventions` when none are given: Spark's CSV reader reads
/// an empty field, quoted or not, as a null (its `nullValue` is `""`); Arrow's (Drill's,
/// pyarrow.csv's) keeps `""` in a string column.
fn spark_null_texts(conventions: Conventions) -> Vec<Box<[u8]>> {
    match conventions {
        Conventions::Spark => vec![Box::from(&b""[..])],
        Conventions::Arrow => Vec::new(),
    }
}
/// A field's value in the usual spellings of numbers, booleans and timestamps, read from
/// the bytes (ASCII: no UTF-8 check, nothing to trim); `None`: any other spelling, which
/// `converted_value` reads by the column's type. Kept out of the `Result` the general way
/// returns, so the common value stays in registers on its way to the loader.
#[inline(always)]
fn plain_value(conversion: Conversion, raw: &[u8]) -> Option<Value<'static>> {
    match conversion {
        Conversion::Float64 => plain_float(raw).map(Value::Float),
        Conversion::Bool => match raw {
            b"true" => Some(Value::Bool(true)),
            b"false" => Some(Value::Bool(false)),
            _ => None,
        },
        Conversion::Int => plain_int(raw).map(Value::Int),
        Conversion::Timestamp(unit) => parse_plain_timestamp(raw, unit).map(Value::Timestamp),
        Conversion::Utf8 | Conversion::Other => None,
    }
}

//! One JSON value straight into the loader: a serde visitor that writes each token as the
//! tokenizer meets it. Unprojected fields are skipped with `IgnoredAny` (nothing is built),
//! unknown fields become columns typed by their first non-null token (if discovering).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::conventions::Conventions;
use super::driver::IgnoredNames;
use super::time_pattern::TimeFormats;
use crate::loader::{
    unknown_list_type, ColumnId, ColumnKind, Discovery, ElementFate, LoaderError, ResultSetLoader,
    Value, MAX_NESTING, ROOT,
};

/// Arrays and objects read into columns nest at most this deep in a line, the row object
/// counting as 1: the deepest a column's type may nest ([`MAX_NESTING`]). Values the
/// projection skips are read past at any depth (serde_json skips without recursing).
pub(crate) const MAX_DEPTH: usize = MAX_NESTING;

/// What to do about a value whose type differs from the one an earlier value gave its
/// column.
const MIXED_TYPES_HINT: &str = "for values of mixed types, give it a string type in the \
    scan's schema, which reads each value as its JSON text";

/// The start of the message of a line nesting deeper than [`MAX_DEPTH`].
pub(crate) const TOO_DEEP: &str = "arrays and objects nest too deep";

/// The one-pass path notes the nulls of a [`NULL_ONLY`] key as the general path does; the
/// general path's lookups take it for a key it has not seen.
pub(crate) use crate::loader::NULL_ONLY;

/// A flag on the target of a cached key whose column takes any JSON value as its text (a
/// declared utf8 column, see `ResultSetLoader::takes_any_text`): the one-pass path writes
/// a non-string value's text there. Column ids stay far below it; a target at or above it
/// is not a column id as it is.
pub(crate) const ANY_TEXT: ColumnId = 1 << (ColumnId::BITS - 2);

/// The target to cache for column `id` of `l` (flagged [`ANY_TEXT`] if it takes any text).
pub(crate) fn cached_target(l: &ResultSetLoader, id: ColumnId) -> ColumnId {
    if l.takes_any_text(id) {
        id | ANY_TEXT
    } else {
        id
    }
}

/// Whether field `key` of struct `parent`, which has no column in `l`, may become one
/// (typed by its first value that is not null) for a reader that discovers columns
/// (`discover`) and adds new ones (`new_columns`); else its values are skipped and it is
/// noted (`ignored_columns`, `ignored_members`). Without `new_columns` (a consumer whose
/// columns are fixed would drop it, and a value of mixed types in it would fail its line for
/// nothing) only a member of a struct typed by a guess the schema fixed may: it takes its
/// values as text (`JsonWriter::text_member`). The projection must want it.
pub(crate) fn may_become_column(
    l: &ResultSetLoader,
    discover: bool,
    new_columns: bool,
    parent: ColumnId,
    key: &str,
) -> bool {
    discover
        && (new_columns || (parent != ROOT && l.is_fixed_guess(parent)))
        && l.would_project(parent, key)
}

/// Per struct (by column id), the keys its objects had, in order, and where each went
/// (`None`: skipped). Objects of one file mostly repeat their key order, so a key is usually
/// resolved by one comparison with the key seen at the same position, without hashing.
#[derive(Default)]
pub(crate) struct KeyCache {
    by_struct: Vec<Vec<CachedKey>>,
}

/// A key of [`KeyCache`]: its text, where it went, and whether its JSON text is the same
/// bytes (no character a JSON string must escape).
pub(crate) struct CachedKey {
    text: String,
    /// Where the key goes: a column (maybe flagged [`ANY_TEXT`]), `None` (skipped), or
    /// [`NULL_ONLY`].
    pub target: Option<ColumnId>,
    /// For a [`NULL_ONLY`] key: the loader's column ids when it was cached (a column added
    /// since may be the field's own).
    pub columns: usize,
    plain: bool,
    /// A plain key of up to 7 bytes with its closing quote, as a little-endian word (0 if
    /// longer), and the mask of its bytes in it: a key is checked with one compare.
    pub quoted: u64,
    pub quoted_mask: u64,
}

impl CachedKey {
    fn new(key: &str, target: Option<ColumnId>) -> Self {
        let mut cached = CachedKey {
            text: String::new(),
            target: None,
            columns: 0,
            plain: false,
            quoted: 0,
            quoted_mask: 0,
        };
        cached.set(key, target);
        cached
    }

    /// Make it `key` going to `target`, its text's buffer kept (objects whose keys vary,
    /// as sparse ones do, replace a key on most fields).
    fn set(&mut self, key: &str, target: Option<ColumnId>) {
        let plain = !key.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
        let (mut quoted, mut quoted_mask) = (0, 0);
        if plain && key.len() < 8 {
            let mut word = [0u8; 8];
            word[..key.len()].copy_from_slice(key.as_bytes());
            word[key.len()] = b'"';
            quoted = u64::from_le_bytes(word);
            quoted_mask = u64::MAX >> (8 * (7 - key.len()));
        }
        self.text.clear();
        self.text.push_str(key);
        self.target = target;
        self.plain = plain;
        self.quoted = quoted;
        self.quoted_mask = quoted_mask;
    }

    /// The key's JSON text, without its quotes.
    pub fn text(&self) -> &[u8] {
        self.text.as_bytes()
    }
}

impl KeyCache {
    #[inline(always)]
    fn get(&self, parent: ColumnId, pos: usize, key: &str) -> Option<Option<ColumnId>> {
        let k = self.by_struct.get(parent)?.get(pos)?;
        if k.target == Some(NULL_ONLY) || !same_key(k.text.as_bytes(), key.as_bytes()) {
            return None;
        }
        Some(k.target.map(|t| t & !ANY_TEXT))
    }

    /// The key last seen at position `pos` of an object of struct `parent`, and where it
    /// went; `None` if there was none, or if its JSON text has escapes.
    #[inline(always)]
    pub(crate) fn expected(&self, parent: ColumnId, pos: usize) -> Option<&CachedKey> {
        let k = self.by_struct.get(parent)?.get(pos)?;
        k.plain.then_some(k)
    }

    pub(crate) fn put(
        &mut self,
        parent: ColumnId,
        pos: usize,
        key: &str,
        target: Option<ColumnId>,
    ) {
        if self.by_struct.len() <= parent {
            self.by_struct.resize_with(parent + 1, Vec::new);
        }
        let keys = &mut self.by_struct[parent];
        if pos < keys.len() {
            keys[pos].set(key, target);
        } else if pos == keys.len() {
            keys.push(CachedKey::new(key, target));
        }
    }

    /// Cache `key` at `pos` of struct `parent` as a field seen only as null ([`NULL_ONLY`]),
    /// the loader having `columns` column ids.
    pub(crate) fn put_null_only(
        &mut self,
        parent: ColumnId,
        pos: usize,
        key: &str,
        columns: usize,
    ) {
        self.put(parent, pos, key, Some(NULL_ONLY));
        if let Some(k) = self.by_struct[parent].get_mut(pos) {
            k.columns = columns;
        }
    }

    /// The key cached at `pos` of struct `parent`.
    pub(crate) fn at(&self, parent: ColumnId, pos: usize) -> Option<&CachedKey> {
        self.by_struct.get(parent)?.get(pos)
    }
}

/// `a == b`, inline for keys of up to 16 bytes (two overlapping word compares instead of a
/// call to `memcmp`: a key is compared on every field of every line).
#[inline(always)]
pub(crate) fn same_key(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4"));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// The loader a JSON value is written into, and discovery's state.
pub(crate) struct JsonWriter<'a> {
    pub l: &'a mut ResultSetLoader,
    pub discovery: &'a mut Discovery,
    pub keys: &'a mut KeyCache,
    /// Unknown fields become columns (else they are ignored).
    pub discover: bool,
    /// With `discover`: unknown fields at any level (else only the members of a struct
    /// typed by a guess, see [`may_become_column`]).
    pub new_columns: bool,
    /// The element type of a list seen only empty (a guess).
    pub null_type: &'a DataType,
    /// How numbers and strings convert to declared types where Arrow and Spark differ.
    pub conventions: Conventions,
    /// Patterns date and timestamp strings are read by, where given.
    pub formats: &'a TimeFormats,
    /// The loader error that stopped the value (serde itself carries only a message).
    pub error: Option<LoaderError>,
    /// Top-level keys skipped because the projection leaves them out.
    pub ignored: &'a mut IgnoredNames,
    /// Struct members the projection wants that the loader's fixed schema lacks (skipped),
    /// by path (`m.x`).
    pub ignored_members: &'a mut IgnoredNames,
    /// The key of the top-level field, or the path of the member, that `resolve_key` just
    /// skipped without noting it (for a member: the reader adds no columns, its schema is
    /// fixed, see [`may_become_column`]): noted in `ignored` or `ignored_members` only if
    /// its value holds data ([`HoldsData`]), as nulls and empty arrays and objects lose
    /// nothing (Spark's inference leaves out the fields that hold only those).
    pub unnoted: Option<String>,
    /// Arrays and objects open around the value being read (the row object is 1).
    pub depth: usize,
    /// The text serde reads: the line, or its respelling (see [`respell_for_serde`]),
    /// every byte at its place.
    pub parsed: &'a str,
    /// The line as written, if serde reads a respelling of it.
    pub written: Option<&'a str>,
    /// Where the value that stopped the line starts (a byte offset), when a column that
    /// reads its values from their text refused it: serde's position is then past it.
    pub refused_at: Option<usize>,
    /// An empty string is written as a null (see `NdjsonReader::empty_strings_as_nulls`).
    pub empty_strings_null: bool,
}

/// The tokens Spark's JSON reader takes as floats (`allowNonNumericNumbers`, on by default;
/// Python's `json.dumps` writes the first, second and fifth), with the JSON string of the same length they
/// are respelled as for serde (the byte before the string's content is no quote in the line
/// as written: that tells them from a real string, see `JsonWriter::non_numeric`). Spark
/// reads the same six as strings too, into a float column (see `Conventions`).
pub(crate) const NON_NUMERIC: [(&str, &str, f64); 6] = [
    ("NaN", "\"N\"", f64::NAN),
    ("Infinity", "\"Infini\"", f64::INFINITY),
    ("+Infinity", "\"+Infini\"", f64::INFINITY),
    ("+INF", "\"+I\"", f64::INFINITY),
    ("-Infinity", "\"-Infini\"", f64::NEG_INFINITY),
    ("-INF", "\"-I\"", f64::NEG_INFINITY),
];

/// The non-numeric number (see [`NON_NUMERIC`]) at `i` of `b`, if one is there and ends
/// there (a delimiter or the end of the line follows): both paths read them by it.
#[cold]
pub(crate) fn non_numeric_at(
    b: &[u8],
    i: usize,
) -> Option<&'static (&'static str, &'static str, f64)> {
    let rest = &b[i..];
    let found = NON_NUMERIC
        .iter()
        .find(|(token, _, _)| rest.starts_with(token.as_bytes()))?;
    let end = i + found.0.len();
    let ends = matches!(
        b.get(end),
        None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n')
    );
    ends.then_some(found)
}

/// The JSON a reader takes beyond the standard's, as Spark's JSON reader options say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonSyntax {
    /// `/* ... */` and `// ...` comments outside strings (Spark's `allowComments`; off).
    pub comments: bool,
    /// Numbers with leading zeros, `007` as 7 (`allowNumericLeadingZeros`; off).
    pub leading_zeros: bool,
    /// `NaN`, `Infinity`, `-INF`... as floats (`allowNonNumericNumbers`; on).
    pub non_numeric: bool,
    /// Strings in single quotes (`allowSingleQuotes`): None takes them under Spark's
    /// conventions only, as this library's readers always have.
    pub single_quotes: Option<bool>,
}

impl Default for JsonSyntax {
    fn default() -> Self {
        JsonSyntax {
            comments: false,
            leading_zeros: false,
            non_numeric: true,
            single_quotes: None,
        }
    }
}

/// What of [`JsonSyntax`] a line is respelled for ([`respell_for_serde`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Respelling {
    pub single_quotes: bool,
    pub comments: bool,
    pub leading_zeros: bool,
    pub non_numeric: bool,
    /// Numbers past a double's range (`1E400`), infinities to Spark's JSON reader (Java's
    /// `parseDouble`), where serde_json calls them out of range.
    pub overflow: bool,
}

impl Respelling {
    /// What a reader of `syntax` under `conventions` respells.
    pub(crate) fn of(syntax: JsonSyntax, conventions: Conventions) -> Self {
        Respelling {
            single_quotes: syntax
                .single_quotes
                .unwrap_or(conventions == Conventions::Spark),
            comments: syntax.comments,
            leading_zeros: syntax.leading_zeros,
            non_numeric: syntax.non_numeric,
            overflow: conventions == Conventions::Spark,
        }
    }
}

/// Where `text` (a JSON line) has something serde_json reads other than the line means, the
/// same text respelled, written into `out`; `None` (`out` untouched) if it has none. Every
/// other byte keeps its column (error messages name the same place):
/// - the integer `-0` becomes `0 `: serde_json reads `-0` as the float -0.0, as it reads
///   `-0.0`; it is the integer 0 (as `json.loads` and pyarrow read it);
/// - `NaN`, `Infinity` and `-Infinity` (what Spark reads as floats and Python writes)
///   become strings of their length, which serde_json reads, and the writer knows again;
/// - with `single_quotes` (Spark's JSON reader allows them, as its `allowSingleQuotes`
///   does by default), a string in single quotes (`'x'`, a key or a value) becomes the
///   same string in double quotes; one holding a `"` or an escaped `'` has no respelling
///   of its length and stays as it is (bad input);
/// - with `comments`, a `// ...` comment (to the line's end) or a closed `/* ... */` one
///   becomes spaces;
/// - with `leading_zeros`, a number's leading zeros become spaces before it (`-007` is
///   `  -7`, `00.5` is ` 0.5`);
/// - without `non_numeric`, `NaN` and the rest stay as they are (bad input);
/// - with `overflow`, a number with a positive exponent of three digits or more that a
///   double cannot hold (`1E400`, `-1e999`) becomes a string of its length of `~`s, which
///   no text column reads as a value, and the writer knows again as an infinity
///   ([`overflowing_number`]).
///
/// Only a token that starts a value (after `:`, `,`, `[`, whitespace or nothing) and ends
/// there (before `,`, `]`, `}`, whitespace or nothing; `-0` not before a digit, `.`, `e` or
/// `E`) is one; strings are left alone. Invalid text stays invalid at the same column.
pub(crate) fn respell_for_serde<'o>(
    text: &str,
    out: &'o mut String,
    how: Respelling,
) -> Option<&'o str> {
    let b = text.as_bytes();
    let finder = |needle: &[u8]| memchr::memmem::find(b, needle).is_some();
    let quotes = how.single_quotes && memchr::memchr(b'\'', b).is_some();
    let comments = how.comments && memchr::memchr(b'/', b).is_some();
    let zeros = how.leading_zeros && finder(b"0");
    let non_numeric = how.non_numeric && (finder(b"NaN") || finder(b"Inf") || finder(b"INF"));
    let overflow = how.overflow && may_overflow(b);
    if !(quotes || comments || zeros || non_numeric || overflow || finder(b"-0")) {
        return None;
    }
    // (a comment's closing `/` before a value is white space too)
    let starts_value = |i: usize| {
        i == 0
            || matches!(b[i - 1], b':' | b',' | b'[' | b' ' | b'\t' | b'\r' | b'\n')
            || (comments && b[i - 1] == b'/')
    };
    let mut respelled = false;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let replace = match b[i] {
            b'\\' if in_string => {
                i += 2;
                continue;
            }
            b'"' => {
                in_string = !in_string;
                None
            }
            b'\'' if quotes && !in_string => {
                let end = single_quoted_end(b, i);
                if let Some(end) = end.filter(|&end| !b[i..end].contains(&b'"')) {
                    if !respelled {
                        out.clear();
                        out.push_str(text);
                        respelled = true;
                    }
                    out.replace_range(i..=i, "\"");
                    out.replace_range(end..=end, "\"");
                }
                i = end.map_or(b.len(), |end| end + 1);
                continue;
            }
            b'/' if comments && !in_string => match b.get(i + 1) {
                // to the line's end, or to a line break a line given whole holds
                // (`LineEnds::Exact`), as Jackson ends it
                Some(b'/') => Some((
                    memchr::memchr2(b'\n', b'\r', &b[i..]).unwrap_or(b.len() - i),
                    "",
                )),
                Some(b'*') => memchr::memmem::find(&b[i + 2..], b"*/").map(|k| (k + 4, "")),
                _ => None,
            },
            b'-' | b'0' if zeros && !in_string && starts_value(i) && leading_zeros(b, i) > 0 => {
                let sign = usize::from(b[i] == b'-');
                let run = leading_zeros(b, i);
                let to = if sign == 1 { "-" } else { "" };
                let digits_after = i + sign + run;
                // `-00` is the integer zero: `0`, as `-0` is
                let zero = b[digits_after] == b'0'
                    && !matches!(
                        b.get(digits_after + 1),
                        Some(b'0'..=b'9' | b'.' | b'e' | b'E')
                    );
                Some((sign + run, if zero { "" } else { to }))
            }
            b'-' if !in_string
                && b.get(i + 1) == Some(&b'0')
                && !matches!(b.get(i + 2), Some(b'0'..=b'9' | b'.' | b'e' | b'E'))
                && starts_value(i) =>
            {
                Some((2, "0 "))
            }
            b'N' | b'I' | b'-' | b'+' if non_numeric && !in_string && starts_value(i) => {
                non_numeric_at(b, i).map(|&(token, string, _)| (token.len(), string))
            }
            b'-' | b'0'..=b'9' if overflow && !in_string && starts_value(i) => {
                if let Some(len) = overflowing_number(b, i).map(|(len, _)| len) {
                    if !respelled {
                        out.clear();
                        out.push_str(text);
                        respelled = true;
                    }
                    let tildes = format!("\"{}\"", "~".repeat(len - 2));
                    out.replace_range(i..i + len, &tildes);
                    i += len;
                    continue;
                }
                None
            }
            _ => None,
        };
        if let Some((len, with)) = replace {
            if !respelled {
                out.clear();
                out.push_str(text);
                respelled = true;
            }
            // spaces before what replaces it (a comment, zeros): every byte keeps its place
            let pad = len - with.len();
            if pad > 0 {
                out.replace_range(i..i + pad, &" ".repeat(pad));
            }
            out.replace_range(i + pad..i + len, with);
            i += len;
            continue;
        }
        i += 1;
    }
    respelled.then_some(out.as_str())
}

/// Whether `b` may hold a number past a double's range: one with a positive exponent of
/// three digits or more (`1e400`, `2E+308`: a digit or `.`, an `e` or `E`, maybe `+`, three
/// digits), or a run of more digits than a double's largest integer has (309).
fn may_overflow(b: &[u8]) -> bool {
    const MAX_DIGITS: usize = 309;
    let long_run = b.len() >= MAX_DIGITS && {
        let mut run = 0;
        b.iter().any(|c| {
            run = if c.is_ascii_digit() { run + 1 } else { 0 };
            run >= MAX_DIGITS
        })
    };
    long_run
        || memchr::memchr2_iter(b'e', b'E', b).any(|k| {
            let before = k.checked_sub(1).map(|j| b[j]);
            let after = &b[k + 1..];
            let after = after.strip_prefix(b"+").unwrap_or(after);
            before.is_some_and(|c| c.is_ascii_digit() || c == b'.')
                && after.len() >= 3
                && after[..3].iter().all(u8::is_ascii_digit)
        })
}

/// The length and value of the number at `i` of `b` if it is one (JSON's syntax, ending
/// where a value ends) that a double cannot hold: `1E400` is infinity, as Java's
/// `parseDouble` (Spark's JSON reader) reads it.
pub(crate) fn overflowing_number(b: &[u8], i: usize) -> Option<(usize, f64)> {
    let rest = &b[i..];
    let sign = usize::from(rest.first() == Some(&b'-'));
    let digits = |from: usize| {
        rest[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut end = sign + digits(sign);
    if end == sign {
        return None;
    }
    if rest.get(end) == Some(&b'.') {
        let fraction = digits(end + 1);
        if fraction == 0 {
            return None;
        }
        end += 1 + fraction;
    }
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        end += 1 + usize::from(matches!(rest.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end);
        if exponent == 0 {
            return None;
        }
        end += exponent;
    }
    let ends = matches!(
        rest.get(end),
        None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n')
    );
    let x: f64 = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
    (ends && x.is_infinite()).then_some((end, x))
}

/// How many leading zeros the number at `b[i]` (after its `-`) has before its last digit
/// before the point (`007`: 2, `00.5`: 1, `0`, `10`, `0.5`: 0).
fn leading_zeros(b: &[u8], i: usize) -> usize {
    let start = i + usize::from(b[i] == b'-');
    let mut k = start;
    while b.get(k) == Some(&b'0') && b.get(k + 1).is_some_and(u8::is_ascii_digit) {
        k += 1;
    }
    k - start
}

/// The closing quote of the string in single quotes opening at `b[start]`, past escapes;
/// `None` if one of them is an escaped `'` (serde reads no `\'`) or the string is not closed.
fn single_quoted_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1) == Some(&b'\'') => return None,
            b'\\' => i += 2,
            b'\'' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// 2^64, the first float past every u64.
const TWO_TO_THE_64: f64 = 18_446_744_073_709_551_616.0;

/// Where a value goes.
#[derive(Clone, Copy)]
enum Slot<'k> {
    /// An existing, projected column.
    Column(ColumnId),
    /// A field no column has yet: created from the value's first token.
    New { parent: ColumnId, name: &'k str },
    /// An element of a list (whose element type may still be a guess).
    Element(ColumnId),
}

/// The kind of JSON token a value starts with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Object,
    Array,
}

fn discovered_type(shape: Shape) -> Option<DataType> {
    Some(match shape {
        Shape::Null => return None,
        Shape::Bool => DataType::Boolean,
        Shape::Int => DataType::Int64,
        Shape::Float => DataType::Float64,
        Shape::Str => DataType::Utf8,
        Shape::Object => DataType::Struct(Fields::empty()),
        // The element type is a guess until an element says better.
        Shape::Array => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
    })
}

impl<'a> JsonWriter<'a> {
    #[cold]
    #[inline(never)]
    fn fail<E: de::Error>(&mut self, e: LoaderError) -> E {
        let msg = e.to_string();
        self.error = Some(e);
        E::custom(msg)
    }

    /// `id` cannot take a JSON `what`; at the row itself (`ROOT`), the line is not an object.
    fn conflict<E: de::Error>(&mut self, id: ColumnId, what: &str) -> E {
        if id == ROOT {
            return self.fail(LoaderError::SchemaConflict(format!(
                "a row must be a JSON object, not {what}"
            )));
        }
        // a second key for the column (`{"a": 1, "A": [1]}`): that, not the second type
        if let Err(twice) = self.l.refuse_second_write(id) {
            return self.fail(twice);
        }
        let e = LoaderError::SchemaConflict(format!(
            "column '{}' ({}) cannot take {what}",
            self.l.path(id),
            // as it stands: a struct's field lists the members it was created with
            self.l.current_field(id).data_type()
        ));
        self.fail_at(id, e)
    }

    /// `fail` for a write to `id`, saying why the column has its type if no value gave it.
    #[cold]
    #[inline(never)]
    fn fail_at<E: de::Error>(&mut self, id: ColumnId, e: LoaderError) -> E {
        match e {
            LoaderError::SchemaConflict(msg) if self.discovery.took_null_type(id) => {
                self.fail(LoaderError::SchemaConflict(format!(
                    "{msg} (it was null in every row of an earlier batch, so it took the null \
                     type then; give its type in the scan's schema)"
                )))
            }
            // a type that does not fit a discovered column (not yet written in this record)
            LoaderError::SchemaConflict(msg)
                if self.discovery.is_discovered(id) && !self.l.has_value_in_record(id) =>
            {
                let typed_by = if self.discovery.is_new_in_row(id) {
                    "an earlier value in this line"
                } else {
                    "earlier lines"
                };
                self.fail(LoaderError::SchemaConflict(format!(
                    "{msg} ({typed_by} typed it: {MIXED_TYPES_HINT})"
                )))
            }
            e => self.fail(e),
        }
    }

    /// The column a value of `shape` goes to, creating or retyping it if discovery allows.
    #[inline(always)]
    fn resolve<E: de::Error>(
        &mut self,
        slot: Slot<'_>,
        shape: Shape,
    ) -> Result<Option<ColumnId>, E> {
        match slot {
            Slot::Column(id) => Ok(Some(id)),
            Slot::Element(list) if shape == Shape::Null || !self.discovery.is_guess(list) => {
                Ok(Some(self.l.element(list).expect("a list")))
            }
            slot => self.resolve_new(slot, shape),
        }
    }

    /// `resolve` for a field without a column, or an element whose type is still a guess.
    /// Out of line: it runs once per new column, and inlined it would crowd the hot loop.
    #[inline(never)]
    fn resolve_new<E: de::Error>(
        &mut self,
        slot: Slot<'_>,
        shape: Shape,
    ) -> Result<Option<ColumnId>, E> {
        match slot {
            Slot::Column(id) => Ok(Some(id)),
            Slot::New { parent, name } => {
                let dt = match shape {
                    Shape::Array => Some(unknown_list_type(self.l, parent, name, self.null_type)),
                    shape => discovered_type(shape),
                };
                let Some(dt) = dt else {
                    // Null says nothing about the type: wait for a value that does (a field
                    // that stays null gets the null type when the batch is handed over).
                    if let Err(e) = self.discovery.note_null(self.l, parent, name) {
                        return Err(self.fail(e));
                    }
                    return Ok(None);
                };
                if let Err(e) = self.discovery.check_new_field(self.l, parent, name) {
                    return Err(self.fail(e));
                }
                let name = self.discovery.first_spelling(parent, name);
                let id = match self.l.add_column(parent, Field::new(name, dt, true)) {
                    Ok(id) => id,
                    Err(e) => return Err(self.fail(e)),
                };
                self.discovery.mark(self.l, id);
                if shape == Shape::Array {
                    self.discovery.guess(id);
                }
                Ok(Some(id))
            }
            Slot::Element(list) => {
                let child = self.l.element(list).expect("a list");
                self.discovery.settle(list);
                let dt = discovered_type(shape).expect("not null");
                if self.l.field(child).data_type() == &dt {
                    return Ok(Some(child)); // the guess was right
                }
                let child = match self.l.replace_element(list, Field::new("item", dt, true)) {
                    Ok(c) => c,
                    Err(e) => return Err(self.fail(e)),
                };
                self.discovery.mark(self.l, child);
                if shape == Shape::Array {
                    self.discovery.guess(child);
                }
                Ok(Some(child))
            }
        }
    }

    #[inline(always)]
    fn set<E: de::Error>(&mut self, id: ColumnId, value: Value<'_>) -> Result<(), E> {
        match self.l.set(id, value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail_at(id, e)),
        }
    }

    /// One array or object deeper, or the error of a line nesting deeper than [`MAX_DEPTH`]
    /// (a syntax error: serde_json gives it the position). `shallower` undoes it.
    #[inline(always)]
    fn deeper<E: de::Error>(&mut self) -> Result<(), E> {
        self.depth += 1;
        if self.depth <= MAX_DEPTH {
            Ok(())
        } else {
            Err(E::custom(format!(
                "{TOO_DEEP} (a line can hold {MAX_DEPTH} levels, the row object included)"
            )))
        }
    }

    #[inline(always)]
    fn shallower(&mut self) {
        self.depth -= 1;
    }

    fn scalar_column<E: de::Error>(&mut self, id: ColumnId, what: &str) -> Result<(), E> {
        if self.l.kind(id) == ColumnKind::Scalar {
            Ok(())
        } else {
            Err(self.conflict(id, what))
        }
    }

    fn write_float<E: de::Error>(&mut self, id: ColumnId, x: f64) -> Result<(), E> {
        self.scalar_column(id, "a number")?;
        match self.l.field(id).data_type() {
            DataType::Int64 if self.discovery.may_widen(self.l, id) => {
                self.l.widen_to_float64(id).map_err(|e| self.fail(e))?;
                self.set(id, Value::Float(x))
            }
            _ => self.set(id, Value::Float(x)),
        }
    }

    fn write_str<E: de::Error>(&mut self, id: ColumnId, s: &str) -> Result<(), E> {
        self.scalar_column(id, "a string")?;
        match self.formats.value_of(self.l.field(id).data_type(), s) {
            Some(Ok(value)) => return self.set(id, value),
            Some(Err(why)) => return Err(self.conflict(id, &why)),
            None => {}
        }
        let value = match self.l.field(id).data_type() {
            dt @ DataType::Timestamp(unit, _) => {
                let zone = self.conventions.text_zone(dt);
                match self.conventions.timestamp_of_text(s, *unit, zone) {
                    Some(t) => Value::Timestamp(t),
                    None => {
                        let why = self.conventions.timestamp_refusal(s, dt, zone);
                        let why =
                            why.unwrap_or_else(|| format!("{s:?}: not an ISO-8601 timestamp"));
                        return Err(self.conflict(id, &why));
                    }
                }
            }
            DataType::Date32 => match self.conventions.date_of_text(s, true) {
                Some(d) => Value::Date(d),
                None => return Err(self.conflict(id, &format!("{s:?}: not an ISO-8601 date"))),
            },
            // (a decimal column the data typed, from whole numbers, takes no string either)
            DataType::Decimal128(_, scale) if !self.l.typed_by_data(id) => {
                let text = self.conventions.decimal_text(s);
                match self
                    .conventions
                    .decimal_of_text(&text, *scale, self.l.is_declared(id))
                {
                    Some(d) => Value::Decimal(d),
                    None => {
                        return Err(self.conflict(id, &format!("{s:?}: not a decimal that fits")))
                    }
                }
            }
            // a column the data typed takes no string: to Spark's inference a float and a
            // string make a string column, "NaN" or not
            dt @ (DataType::Float64 | DataType::Float32) if !self.l.typed_by_data(id) => {
                match self.conventions.float_of_text(dt, s) {
                    Some(x) => Value::Float(x),
                    None => Value::Str(s), // refused by the loader, as any string
                }
            }
            dt if self.conventions.decodes_string(dt) => {
                let bytes = match self.conventions.binary(s) {
                    Ok(bytes) => bytes,
                    Err(why) => return Err(self.conflict(id, &why)),
                };
                return self.set(id, Value::Bytes(&bytes));
            }
            _ => Value::Str(s),
        };
        self.set(id, value)
    }

    /// Note that column `id` holds whole number `v` as a float that is not `v` (digits
    /// lost: `note_whole_rounded`), so that the scan can say so.
    fn note_if_rounded(&mut self, id: ColumnId, v: u64) {
        let x = v as f64;
        // (near u64::MAX the float is 2^64, which `as` would saturate back to u64::MAX)
        if x >= TWO_TO_THE_64 || x as u64 != v {
            self.l.note_whole_rounded(id);
        }
    }

    /// A whole number `value` (an int or a uint) to scalar column `id`: as it is, or as
    /// the conventions convert it (a timestamp from seconds under Spark's).
    #[inline(always)]
    fn write_whole<E: de::Error>(&mut self, id: ColumnId, value: Value<'_>) -> Result<(), E> {
        // Arrow's rules convert nothing: no look at the column's type for each integer
        if self.conventions == Conventions::Arrow {
            return self.set(id, value);
        }
        let dt = self.l.field(id).data_type();
        if !self.conventions.converts_whole_number(dt) {
            return self.set(id, value);
        }
        let whole = match value {
            Value::Int(v) => i128::from(v),
            Value::UInt(v) => i128::from(v),
            _ => return self.set(id, value),
        };
        let converted = self.conventions.whole_number_time(dt, whole);
        match converted {
            Ok(t) => self.set(id, Value::Timestamp(t)),
            Err(why) => Err(self.conflict(id, &why)),
        }
    }

    /// Whether column `id` reads a value from its JSON text (see `TextSeed`): a decimal, a
    /// float32 (rounded once, from the text), or a utf8 column the user declared.
    #[inline(always)]
    fn reads_text(&self, id: ColumnId) -> bool {
        self.l.takes_number_text(id) || self.l.takes_any_text(id)
    }

    /// Write the JSON text of one value (`raw`, as the line has it) to column `id`, which
    /// takes numbers from their text (`takes_number_text`): a number its own way, any other
    /// value as the visitor writes it (null, a string converted, the rest refused).
    #[cold]
    #[inline(never)]
    fn write_number_text<E: de::Error>(&mut self, id: ColumnId, raw: &str) -> Result<(), E> {
        let raw = self.overflow_as_written(raw).unwrap_or(raw);
        match raw.as_bytes().first() {
            Some(b'-' | b'0'..=b'9') => match *self.l.field(id).data_type() {
                DataType::Decimal128(..) if raw.starts_with("-I") => {
                    Err(self.conflict(id, &format!("{raw}: no decimal")))
                }
                DataType::Decimal128(_, scale) => self.write_decimal_number(id, raw, scale),
                _ => self.write_float32_number(id, raw),
            },
            Some(b'n') => self.set(id, Value::Null),
            // `NaN`, `Infinity`, `+INF`... (see `respell_for_serde`): a float32 takes them
            Some(b'N' | b'I' | b'+') => match *self.l.field(id).data_type() {
                DataType::Decimal128(..) => Err(self.conflict(id, &format!("{raw}: no decimal"))),
                _ => self.write_float32_number(id, raw),
            },
            Some(b'"') => {
                let text: Cow<'_, str> = serde_json::from_str(raw).map_err(E::custom)?;
                self.write_str(id, &text)
            }
            Some(b't' | b'f') => {
                self.scalar_column(id, "a boolean")?;
                self.set(id, Value::Bool(raw == "true"))
            }
            Some(b'{') => Err(self.conflict(id, "an object")),
            _ => Err(self.conflict(id, "an array")),
        }
    }

    /// A JSON number (`raw`) to decimal column `id` of `scale`, from its digits: a float
    /// would round 12345678901234567.89.
    fn write_decimal_number<E: de::Error>(
        &mut self,
        id: ColumnId,
        raw: &str,
        scale: i8,
    ) -> Result<(), E> {
        match self
            .conventions
            .decimal_of_text(raw, scale, self.l.is_declared(id))
        {
            Some(d) => self.set(id, Value::Decimal(d)),
            None => Err(self.conflict(id, &format!("number {raw}: too precise or too large"))),
        }
    }

    /// A JSON number (`raw`) to float32 column `id`: a fraction or exponent rounded once,
    /// straight to f32. Through the f64 the visitor gets, a number near the midpoint between
    /// two f32s (the shortest spelling of one, say) becomes the midpoint and rounds to the
    /// even neighbour. A whole number is an int, as everywhere (`-0` is 0).
    fn write_float32_number<E: de::Error>(&mut self, id: ColumnId, raw: &str) -> Result<(), E> {
        if !raw.contains(['.', 'e', 'E']) {
            let whole = match raw.parse::<i64>() {
                Ok(v) => Some(Value::Int(v)),
                Err(_) => raw.parse::<u64>().ok().map(Value::UInt),
            };
            if let Some(value) = whole {
                self.scalar_column(id, "a number")?;
                return self.set(id, value);
            }
        }
        let x: f32 = raw.parse().map_err(E::custom)?;
        // out of f64's range is an error, as serde_json makes it for other columns (out of
        // f32's only is infinity, as pyarrow makes it)
        let named = NON_NUMERIC.iter().any(|(token, _, _)| *token == raw);
        // (under Spark's conventions past f64's range is infinity: see `respell_for_serde`)
        let arrow = self.conventions == Conventions::Arrow;
        if x.is_infinite() && !named && arrow && !raw.parse::<f64>().is_ok_and(f64::is_finite) {
            return Err(E::custom("number out of range"));
        }
        self.write_float(id, f64::from(x))
    }

    /// The float a string serde read stands for, if it is the respelling of `NaN`,
    /// `Infinity` or `-Infinity`, or of a number past a double's range (see
    /// [`respell_for_serde`]): the line as written has no quote before it.
    fn non_numeric(&self, v: &str) -> Option<f64> {
        let written = self.written?;
        let start = (v.as_ptr() as usize).checked_sub(self.parsed.as_ptr() as usize)?;
        if start == 0
            || start > self.parsed.len()
            || matches!(written.as_bytes()[start - 1], b'"' | b'\'')
        {
            return None;
        }
        let token = written.get(start - 1..start + v.len() + 1)?;
        NON_NUMERIC
            .iter()
            .find(|(t, _, _)| *t == token)
            .map(|&(_, _, x)| x)
            .or_else(|| overflowing_number(token.as_bytes(), 0).map(|(_, x)| x))
    }

    /// The number as the line has it where serde reads `raw` (a value of the text serde
    /// parses), if `raw` is the respelling of one past a double's range (see
    /// [`respell_for_serde`]).
    fn overflow_as_written(&self, raw: &str) -> Option<&'a str> {
        let written = self.written?;
        if !raw.starts_with("\"~") {
            return None;
        }
        let start = (raw.as_ptr() as usize).checked_sub(self.parsed.as_ptr() as usize)?;
        if start >= written.len() {
            return None;
        }
        let (len, _) = overflowing_number(written.as_bytes(), start)?;
        written.get(start..start + len)
    }

    /// The text of the value at `start..start + len` of the text serde parses as the line
    /// has it: the same range, as the respelling keeps every byte's place, but for a bare
    /// integer zero (`0`, where the line has `-0`); a string in single quotes, or an array
    /// or object holding one, as serde reads it (in double quotes: JSON's spelling).
    fn as_written(&self, start: usize, len: usize) -> &'a str {
        let parsed = &self.parsed[start..start + len];
        let Some(written) = self.written else {
            return parsed;
        };
        let first = written.as_bytes()[start];
        if first == b'-' && self.parsed.as_bytes()[start] == b'0' {
            return &written[start..start + 2];
        }
        let text = &written[start..start + len];
        let quoted = first == b'\''
            || (matches!(first, b'[' | b'{') && text != parsed && text.contains('\''));
        if quoted {
            parsed
        } else {
            text
        }
    }

    /// Write the JSON text of one value (`raw`, as the line has it) to declared utf8 column
    /// `id`: a string as its content, null as null, anything else (a number, a boolean, an
    /// object, an array) as its text, as Spark's JSON reader does for a string column.
    #[cold]
    #[inline(never)]
    fn write_text<E: de::Error>(&mut self, id: ColumnId, raw: &str) -> Result<(), E> {
        match raw.as_bytes().first() {
            Some(b'n') => self.set(id, Value::Null),
            Some(b'"') if !raw.contains('\\') => self.set(id, Value::Str(&raw[1..raw.len() - 1])),
            Some(b'"') => {
                let text: Cow<'_, str> = serde_json::from_str(raw).map_err(E::custom)?;
                self.set(id, Value::Str(&text))
            }
            _ => {
                self.l.note_text_kept(id);
                self.set(id, Value::Str(raw))
            }
        }
    }

    /// Where key `key` at position `pos` of an object of struct `parent` goes, when the key
    /// cache does not know it (None: skip the value); cached for the next object, and a
    /// top-level key the projection leaves out is noted. Out of line: the cache answers all
    /// but a struct's first objects.
    #[cold]
    #[inline(never)]
    fn resolve_key<'k>(&mut self, parent: ColumnId, pos: usize, key: &'k str) -> Option<Slot<'k>> {
        let mut slot = self.member(parent, key);
        if matches!(slot, Some(Slot::New { .. })) && self.l.is_fixed_guess(parent) {
            if let Some(id) = self.text_member(parent, key) {
                slot = Some(Slot::Column(id));
            }
        }
        match slot {
            Some(Slot::Column(c)) => {
                self.keys
                    .put(parent, pos, key, Some(cached_target(self.l, c)))
            }
            None => {
                if parent == ROOT {
                    if !self.ignored.contains(key) {
                        // not cached: a later value that holds data notes it
                        self.unnoted = Some(key.to_owned());
                        return None;
                    }
                } else if self.l.would_project(parent, key) {
                    let path = self.l.member_path(parent, key);
                    if !self.adds_columns() && !self.ignored_members.contains(&path) {
                        // not cached: a later value that is not null notes it
                        self.unnoted = Some(path);
                        return None;
                    }
                    self.ignored_members.note(&path);
                }
                self.keys.put(parent, pos, key, None)
            }
            _ => {} // a new column: cached once it exists
        }
        slot
    }

    /// Whether unknown fields become columns at every level (else the schema is fixed, but
    /// for the members of structs typed by a guess).
    fn adds_columns(&self) -> bool {
        self.discover && self.new_columns
    }

    /// A new member `key` of struct `parent`, whose type was a guess the schema fixed (a
    /// struct null in a whole batch, shaped by the projection): a utf8 column made now, which
    /// takes the value as its text, as the struct's guessed members do. `None` if it cannot
    /// be made (the usual path then says why).
    fn text_member(&mut self, parent: ColumnId, key: &str) -> Option<ColumnId> {
        self.discovery.check_new_field(self.l, parent, key).ok()?;
        let name = self.discovery.first_spelling(parent, key).to_string();
        let id = self
            .l
            .add_column(parent, Field::new(name, DataType::Utf8, true))
            .ok()?;
        self.discovery.mark(self.l, id);
        self.l.take_any_text(id);
        Some(id)
    }

    /// Where the member `key` of struct `parent` goes (None: skip the value).
    fn member<'k>(&self, parent: ColumnId, key: &'k str) -> Option<Slot<'k>> {
        match self.l.column(parent, key) {
            Some(id) if self.l.is_projected(id) => Some(Slot::Column(id)),
            Some(_) => None,
            None if may_become_column(self.l, self.discover, self.new_columns, parent, key) => {
                Some(Slot::New { parent, name: key })
            }
            None => None,
        }
    }
}

/// A key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Reads past a value no column takes, telling whether it holds data: a scalar other
/// than null anywhere in it (so not a null, nor arrays and objects of nothing else).
/// Read as raw text, as `IgnoredAny` reads, so that any depth is read past.
struct HoldsData;

impl<'de> DeserializeSeed<'de> for HoldsData {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        let raw = <&'de RawValue as de::Deserialize>::deserialize(d)?;
        Ok(holds_data(raw.get().as_bytes()))
    }
}

/// Whether JSON text `value` (valid: serde read it) has a scalar other than null: a
/// string that is not a key (no `:` after it), a number, `true` or `false`.
fn holds_data(value: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&c) = value.get(i) {
        match c {
            b'{' | b'}' | b'[' | b']' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'n' => i += 4,
            b'"' => {
                i += 1;
                while value[i] != b'"' {
                    i += if value[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                let next = value[i..].iter().find(|c| !c.is_ascii_whitespace());
                if next != Some(&b':') {
                    return true;
                }
            }
            _ => return true,
        }
    }
    false
}

/// Deserializes one value into `slot`.
pub(crate) struct ValueSeed<'w, 'a, 'k> {
    w: &'w mut JsonWriter<'a>,
    slot: Slot<'k>,
}

impl<'w, 'a> ValueSeed<'w, 'a, 'static> {
    /// A seed for a whole row (a JSON object).
    pub fn row(w: &'w mut JsonWriter<'a>) -> Self {
        ValueSeed {
            w,
            slot: Slot::Column(ROOT),
        }
    }
}

impl ValueSeed<'_, '_, '_> {
    /// Whether an integer past int64 here is the data's to type, so it is read as a float
    /// (a new column, a discovered int64 column that may still widen, a list element not
    /// typed yet), as one past uint64 is; a declared column converts it or calls it out of
    /// range.
    fn types_big_integers(&self) -> bool {
        let widens = |id: ColumnId| {
            *self.w.l.field(id).data_type() == DataType::Int64
                && self.w.discovery.may_widen(self.w.l, id)
        };
        match self.slot {
            Slot::New { .. } => true,
            Slot::Column(id) => widens(id),
            Slot::Element(list) => {
                self.w.discovery.is_guess(list) || widens(self.w.l.element(list).expect("a list"))
            }
        }
    }

    /// Whole number `v` past int64 to a column the data types: a float (see
    /// `types_big_integers`), noted as rounded if the float is not `v`.
    fn write_big_whole<E: de::Error>(self, v: u64) -> Result<(), E> {
        if let Some(id) = self.w.resolve(self.slot, Shape::Float)? {
            self.w.write_float(id, v as f64)?;
            self.w.note_if_rounded(id, v);
        }
        Ok(())
    }

    /// Whole number `v` past int64 to a typed column (a uint64 or decimal takes it exactly,
    /// an int says it is out of range); a float64 column the data typed (not the user)
    /// notes it as rounded if the float is not `v`.
    fn write_uint<E: de::Error>(self, v: u64) -> Result<(), E> {
        if let Some(id) = self.w.resolve(self.slot, Shape::Int)? {
            self.w.scalar_column(id, "a number")?;
            self.w.write_whole(id, Value::UInt(v))?;
            if !self.w.l.is_declared(id) && *self.w.l.field(id).data_type() == DataType::Float64 {
                self.w.note_if_rounded(id, v);
            }
        }
        Ok(())
    }

    /// Write a JSON scalar of `shape` (`what` names it in a type conflict).
    fn scalar<E: de::Error>(self, shape: Shape, what: &str, value: Value<'_>) -> Result<(), E> {
        if let Some(id) = self.w.resolve(self.slot, shape)? {
            self.w.scalar_column(id, what)?;
            if shape == Shape::Int {
                self.w.write_whole(id, value)?;
            } else {
                self.w.set(id, value)?;
            }
        }
        Ok(())
    }
}

/// Deserializes one value into a column that reads it from its JSON text (see
/// `JsonWriter::reads_text`): a decimal or a float32 (`write_number_text`), or a declared
/// utf8 column (`write_text`). The three places that make a seed for a known column (struct members,
/// map values, list elements) pick it; deciding in `ValueSeed::deserialize` instead, for
/// every value, cost the nested NDJSON scan 1.4% more instructions.
struct TextSeed<'w, 'a> {
    w: &'w mut JsonWriter<'a>,
    id: ColumnId,
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let raw = <&'de RawValue as de::Deserialize>::deserialize(d)?.get();
        // a slice of the text parsed: where it starts there
        let start = raw.as_ptr() as usize - self.w.parsed.as_ptr() as usize;
        let raw = self.w.as_written(start, raw.len());
        if raw == "\"\"" && self.w.empty_strings_null {
            return self.w.set(self.id, Value::Null);
        }
        let written = if self.w.l.takes_number_text(self.id) {
            self.w.write_number_text(self.id, raw)
        } else {
            self.w.write_text(self.id, raw)
        };
        if written.is_err() {
            self.w.refused_at = Some(start);
        }
        written
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        match self.w.resolve(self.slot, Shape::Null)? {
            Some(ROOT) => Err(self.w.conflict(ROOT, "null")),
            Some(id) => self.w.set(id, Value::Null),
            None => Ok(()),
        }
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(Shape::Bool, "a boolean", Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(Shape::Int, "a number", Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        match i64::try_from(v) {
            Ok(i) => self.visit_i64(i),
            // as an integer past uint64 comes (serde_json gives it as a float), noted if
            // the float lost digits of it
            Err(_) if self.types_big_integers() => self.write_big_whole(v),
            Err(_) => self.write_uint(v),
        }
    }

    /// A float, `-0.0` and `-0e5` included (`-0` never comes here: see
    /// [`respell_for_serde`]).
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if let Some(id) = self.w.resolve(self.slot, Shape::Float)? {
            self.w.write_float(id, v)?;
        }
        Ok(())
    }

    /// A string, or a non-numeric number respelled as one (see [`respell_for_serde`]).
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        match self.w.non_numeric(v) {
            Some(x) => self.visit_f64(x),
            None => self.visit_str(v),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v.is_empty() && self.w.empty_strings_null {
            return self.visit_unit();
        }
        if let Some(id) = self.w.resolve(self.slot, Shape::Str)? {
            self.w.write_str(id, v)?;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.w.deeper()?;
        let Some(id) = self.w.resolve(self.slot, Shape::Object)? else {
            self.w.shallower();
            return Ok(());
        };
        match self.w.l.kind(id) {
            ColumnKind::Struct => {
                if id != ROOT {
                    self.w.l.begin(id).map_err(|e| self.w.fail(e))?;
                }
                let mut pos = 0;
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    let slot = match self.w.keys.get(id, pos, &key) {
                        Some(target) => target.map(Slot::Column),
                        None => self.w.resolve_key(id, pos, &key),
                    };
                    pos += 1;
                    match slot {
                        Some(Slot::Column(c)) if self.w.reads_text(c) => {
                            map.next_value_seed(TextSeed { w: self.w, id: c })?
                        }
                        Some(slot) => map.next_value_seed(ValueSeed { w: self.w, slot })?,
                        None => match self.w.unnoted.take() {
                            None => {
                                map.next_value::<IgnoredAny>()?;
                            }
                            Some(path) => {
                                if map.next_value_seed(HoldsData)? {
                                    if id == ROOT {
                                        self.w.ignored.note(&path);
                                    } else {
                                        self.w.ignored_members.note(&path);
                                    }
                                }
                            }
                        },
                    }
                }
                self.w.shallower();
                Ok(())
            }
            ColumnKind::Map => {
                let entries = self.w.l.element(id).expect("map entries");
                let key = self.w.l.column_at(entries, 0).expect("key");
                let value = self.w.l.column_at(entries, 1).expect("value");
                self.w.l.begin(id).map_err(|e| self.w.fail(e))?;
                let text = self.w.reads_text(value);
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    self.w.write_str(key, &k)?;
                    if text {
                        map.next_value_seed(TextSeed {
                            w: self.w,
                            id: value,
                        })?;
                    } else {
                        let slot = Slot::Column(value);
                        map.next_value_seed(ValueSeed { w: self.w, slot })?;
                    }
                    self.w.l.save_element(id).map_err(|e| self.w.fail(e))?;
                }
                self.w.shallower();
                Ok(())
            }
            _ => Err(self.w.conflict(id, "an object")),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.w.deeper()?;
        let Some(id) = self.w.resolve(self.slot, Shape::Array)? else {
            self.w.shallower();
            return Ok(());
        };
        // the row itself is a struct: an array there is a conflict too
        if self.w.l.kind(id) != ColumnKind::List {
            return Err(self.w.conflict(id, "an array"));
        }
        self.w.l.begin(id).map_err(|e| self.w.fail(e))?;
        let selective = self.w.l.selects_elements(id);
        let text = self.w.l.element(id).filter(|&e| self.w.reads_text(e));
        loop {
            let fate = if selective {
                self.w.l.element_fate(id)
            } else {
                ElementFate::Keep
            };
            let more = match fate {
                ElementFate::Keep => match text {
                    Some(e) => seq.next_element_seed(TextSeed { w: self.w, id: e })?,
                    None => {
                        let slot = Slot::Element(id);
                        seq.next_element_seed(ValueSeed { w: self.w, slot })?
                    }
                },
                // not asked for (`c[1]` projected): skipped unparsed, saved as a null
                ElementFate::Null => seq.next_element::<IgnoredAny>()?.map(|_| ()),
                ElementFate::Drop => {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    None
                }
            };
            if more.is_none() {
                break;
            }
            self.w.l.save_element(id).map_err(|e| self.w.fail(e))?;
        }
        self.w.shallower();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{holds_data, overflowing_number, respell_for_serde, same_key, Respelling};

    /// What readers respell by default: under Arrow's conventions, under Spark's.
    const ARROW: Respelling = Respelling {
        single_quotes: false,
        comments: false,
        leading_zeros: false,
        non_numeric: true,
        overflow: false,
    };
    const SPARK: Respelling = Respelling {
        single_quotes: true,
        overflow: true,
        ..ARROW
    };

    /// Nulls, and arrays and objects of nothing else, hold no data; any other scalar does,
    /// a string in an object's key place (escaped quotes and all) aside.
    #[test]
    fn values_hold_data_where_a_scalar_other_than_null_is() {
        let none = [
            "null",
            "{}",
            "[ ]",
            "[null, {}, [[]]]",
            "{\"a\": null, \"b\" : {\"c\": [null]}}",
            "{\"k\\\":\": null}",
            "{\"\\\\\": {}}",
        ];
        let some = [
            "0",
            "-1.5e3",
            "true",
            "false",
            "\"\"",
            "[null, \"x\"]",
            "{\"a\": {\"b\": [null, 0]}}",
            "{\"a\": \"b\"}",
            "{\"k\\\":\": \":\"}",
            "[\"a\" , null]",
        ];
        for text in none {
            assert!(!holds_data(text.as_bytes()), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text}"
            );
        }
        for text in some {
            assert!(holds_data(text.as_bytes()), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text}"
            );
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(!holds_data(deep.as_bytes()));
    }

    #[test]
    fn same_key_agrees_with_equality() {
        let keys = [
            "", "a", "b", "ab", "ba", "abc", "abd", "xbc", "azc", "abcd", "abce", "abcdefg",
        ];
        let long: Vec<String> = (4..=20)
            .flat_map(|n| {
                let base: String = "abcdefghijklmnopqrstuvwxyz"[..n].to_string();
                // one byte changed at the start, the middle and the end
                [0, n / 2, n - 1].into_iter().map(move |at| {
                    let mut changed = base.clone().into_bytes();
                    changed[at] = b'#';
                    String::from_utf8(changed).unwrap()
                })
            })
            .chain((4..=20).map(|n| "abcdefghijklmnopqrstuvwxyz"[..n].to_string()))
            .collect();
        let all: Vec<&str> = keys
            .iter()
            .copied()
            .chain(long.iter().map(|s| s.as_str()))
            .collect();
        for a in &all {
            for b in &all {
                assert_eq!(
                    same_key(a.as_bytes(), b.as_bytes()),
                    a == b,
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn only_integer_zeros_and_non_numeric_numbers_that_are_values_are_respelled() {
        let cases = [
            (r#"{"a": -0}"#, Some(r#"{"a": 0 }"#)),
            (r#"{"a":-0,"b":[-0,-0]}"#, Some(r#"{"a":0 ,"b":[0 ,0 ]}"#)),
            ("-0", Some("0 ")),
            // floats, exponents, other numbers, invalid numbers
            (
                r#"{"a": -0.0, "b": -0e5, "c": -0E1, "d": 1e-0, "e": -01}"#,
                None,
            ),
            (r#"{"a": --0, "b": 1-0, "c": x-0}"#, None),
            // strings and keys, escaped quotes included
            (r#"{"-0": "-0", "b": "\"-0", "c": "\\"}"#, None),
            (r#"{"s": "\\", "a": -0}"#, Some(r#"{"s": "\\", "a": 0 }"#)),
            (r#"{"s": "\"", "a":	-0}"#, Some(r#"{"s": "\"", "a":	0 }"#)),
            ("", None),
            // non-numeric numbers: as strings of their length, where they are values
            (
                r#"{"a": NaN, "b": [Infinity,-Infinity], "c":-0}"#,
                Some(r#"{"a": "N", "b": ["Infini","-Infini"], "c":0 }"#),
            ),
            ("NaN", Some(r#""N""#)),
            (
                r#"[+Infinity, +INF, -INF, INF, +NaN]"#,
                Some(r#"["+Infini", "+I", "-I", INF, +NaN]"#),
            ),
            (
                r#"{"NaN": "NaN", "a": NaNx, "b": xNaN, "c": Infinityy, "d": -Inf, "e": nan}"#,
                None,
            ),
            (r#"{"s": "\" NaN", "a": 1}"#, None),
        ];
        for (text, want) in cases {
            let mut out = String::from("left over");
            let got = respell_for_serde(text, &mut out, ARROW).map(str::to_owned);
            assert_eq!(got.as_deref(), want, "{text}");
            if got.is_none() {
                assert_eq!(out, "left over");
            }
        }
    }

    /// Strings in single quotes (Spark's `allowSingleQuotes`) respelled in double quotes,
    /// keys and values, every byte in its place; not without `single_quotes`, nor where no
    /// respelling of the same length exists (a `"` or an escaped `'` inside).
    #[test]
    fn single_quoted_strings_are_respelled_in_double_quotes() {
        let cases = [
            ("{'a': 'x', \"b\": 1}", Some("{\"a\": \"x\", \"b\": 1}")),
            (
                "{\"s\": \"it's\", 'n': NaN}",
                Some("{\"s\": \"it's\", \"n\": \"N\"}"),
            ),
            (
                "{'s': 'a\\\\b\\n', 'e': ''}",
                Some("{\"s\": \"a\\\\b\\n\", \"e\": \"\"}"),
            ),
            (
                "{'s': 'say \"hi\"', 'b': 'x'}",
                Some("{\"s\": 'say \"hi\"', \"b\": \"x\"}"),
            ),
            ("{'s': 'it\\'s'}", Some("{\"s\": 'it\\'s'}")),
            ("{'s': 'open}", Some("{\"s\": 'open}")),
            ("['it\\'s', 'x']", None),
            ("{\"s\": \"no quotes\"}", None),
        ];
        for (text, want) in cases {
            let mut out = String::new();
            let got = respell_for_serde(text, &mut out, SPARK).map(str::to_owned);
            assert_eq!(got.as_deref(), want, "{text}");
            if let Some(got) = got {
                assert_eq!(got.len(), text.len(), "{text}");
            }
            if !text.contains("NaN") {
                assert_eq!(respell_for_serde(text, &mut out, ARROW), None, "{text}");
            }
        }
    }

    /// Numbers past a double's range, infinities to Spark's reader: respelled under its
    /// conventions as strings of `~`s of their length (serde calls them out of range); a
    /// number that underflows, a long exponent that fits, a string, left alone.
    #[test]
    fn numbers_past_a_doubles_range_are_respelled_under_sparks_conventions() {
        let text = r#"{"a": 1E400, "b": [-1e999], "c": 1e-400, "d": "1e400", "e": 1E+308}"#;
        let want = r#"{"a": "~~~", "b": ["~~~~"], "c": 1e-400, "d": "1e400", "e": 1E+308}"#;
        let mut out = String::new();
        assert_eq!(respell_for_serde(text, &mut out, SPARK), Some(want));
        assert_eq!(respell_for_serde(text, &mut out, ARROW), None);
        let fits = r#"{"a": 1.5e300, "b": 12e3}"#;
        assert_eq!(respell_for_serde(fits, &mut out, SPARK), None);
        assert_eq!(
            overflowing_number(b"-2.5E+400]", 0),
            Some((9, f64::NEG_INFINITY))
        );
        assert_eq!(overflowing_number(b"1e400x", 0), None);
        // an integer of more digits than a double's largest
        let long = format!("{{\"a\": -{}}}", "9".repeat(320));
        let want = format!("{{\"a\": \"{}\"}}", "~".repeat(319));
        assert_eq!(
            respell_for_serde(&long, &mut out, SPARK),
            Some(want.as_str())
        );
        let fits = format!("{{\"a\": {}}}", "9".repeat(300));
        assert_eq!(respell_for_serde(&fits, &mut out, SPARK), None);
    }

    /// Spark's `allowComments`, `allowNumericLeadingZeros` and `allowNonNumericNumbers`
    /// set otherwise: comments and leading zeros become spaces, every byte in its place;
    /// strings are left alone; without non-numeric numbers, `NaN` stays (bad input).
    #[test]
    fn comments_and_leading_zeros_are_respelled_as_spaces() {
        let comments = Respelling {
            comments: true,
            ..ARROW
        };
        let zeros = Respelling {
            leading_zeros: true,
            ..ARROW
        };
        let cases = [
            (comments, r#"{"a": 1} // c"#, Some(r#"{"a": 1}     "#)),
            (comments, r#"{"a": /* x */ 2}"#, Some(r#"{"a":         2}"#)),
            (
                comments,
                r#"/**/{"a": 3}/* */"#,
                Some(r#"    {"a": 3}     "#),
            ),
            (comments, r#"{"s": "// no /* no */"}"#, None),
            (comments, r#"{"a": 1} /* open"#, None),
            (comments, r#"{"a": 1 / 2}"#, None),
            (
                zeros,
                r#"{"a": 007, "b": -01, "c": 00.5, "d": [000, -00]}"#,
                Some(r#"{"a":   7, "b":  -1, "c":  0.5, "d": [  0,   0]}"#),
            ),
            (
                zeros,
                r#"{"a": 0, "b": 10, "c": 0.05, "d": 1e007, "s": "007"}"#,
                None,
            ),
            (ARROW, r#"{"a": 007}"#, None),
            (
                Respelling {
                    comments: true,
                    ..zeros
                },
                r#"{"a":/**/00,"b":/**/NaN}"#,
                Some(r#"{"a":     0,"b":    "N"}"#),
            ),
        ];
        for (how, text, want) in cases {
            let mut out = String::new();
            let got = respell_for_serde(text, &mut out, how).map(str::to_owned);
            assert_eq!(got.as_deref(), want, "{text}");
            if let Some(got) = got {
                assert_eq!(got.len(), text.len(), "{text}");
            }
        }
        let strict = Respelling {
            non_numeric: false,
            ..ARROW
        };
        assert_eq!(
            respell_for_serde(r#"{"a": NaN}"#, &mut String::new(), strict),
            None
        );
    }
}

//! The common case of an NDJSON line in one pass over its bytes: keys the struct has
//! columns for (checked against the key the cache expects at each place, else looked up),
//! values the columns take as they are; the nulls of a field without a column are noted as
//! the general path notes them. Anything else (a key with escapes, a value that would add,
//! widen or retype a column: a field's first value that is not null, the first element of
//! a list seen only empty; an integer out of int64's range, a lone surrogate, bad syntax or
//! UTF-8) makes [`write_common`] give up; the reader then restarts the row and writes the
//! line through the general path (`json::ValueSeed`), which has the last word on every
//! rule and every error. What this path writes, it writes with the same loader calls and
//! the same values as the general one, so a line gives the same row either way. A rule
//! added to the general path must be added here too, or made a reason to give up.

use super::conventions::Conventions;
use super::driver::IgnoredNames;
use super::json::{
    cached_target, may_become_column, same_key, CachedKey, KeyCache, ANY_TEXT, NULL_ONLY,
};
use super::numbers::{
    decimal_fraction, digits_end, digits_value, eight_digits, not_digits, word_at,
};
use super::temporal::{parse_date, parse_timestamp_in};
use super::time_pattern::TimeFormats;
use crate::loader::{
    parse_decimal, ColumnId, ColumnKind, Discovery, ElementFate, ResultSetLoader, Value, ROOT,
};
use arrow_schema::DataType;

/// Skipped values nest at most this deep here (the general path reads past any depth): one
/// bit each in a `u64`.
const SKIP_DEPTH: usize = 64;

/// A JSON number, by what the general path makes of it.
#[derive(Clone, Copy)]
enum Number {
    /// Up to 18 digits, no fraction or exponent: its magnitude (an int64 whatever it is).
    Whole(u64),
    /// More digits, no fraction or exponent (an int64, a uint64 or a float).
    LongWhole,
    /// A fraction or an exponent (a float); `Some(m, k)` if it is exactly `m / 10^k` with
    /// no exponent and at most 19 digits in all (see [`decimal_fraction`]).
    Fraction(Option<(u64, usize)>),
}

/// Why the quick path gave up; the general path will say what, if anything, is wrong.
struct GiveUp;

type Quick<T = ()> = Result<T, GiveUp>;

/// Write the line `text` starts with into the open row of `l` if every part of it is the
/// common case: its length (up to its `\n`, or the whole of `text` if `ends_input`: the
/// input's last line need not end with one). `None`: something is not (or `text` ends before
/// the line does), and the row may hold part of the line (restart it). A `\n` inside the
/// object is never taken for whitespace: it ends the line, and the line is cut short. The
/// line need not be valid UTF-8: a byte that is not ASCII can only be inside a string, and
/// every string kept, skipped or matched as a key is checked (or compared with a key that
/// was).
pub(crate) fn write_common(
    text: &[u8],
    ends_input: bool,
    l: &mut ResultSetLoader,
    keys: &mut KeyCache,
    discovery: &mut Discovery,
    known: Known<'_>,
    scratch: &mut Vec<u8>,
) -> Option<usize> {
    let mut cursor = Line {
        b: text,
        i: 0,
        l,
        keys,
        discovery,
        known,
        scratch,
    };
    cursor.row(ends_input).ok()
}

/// What the reader knows beyond the loader's columns.
#[derive(Clone, Copy)]
pub(crate) struct Known<'a> {
    /// Unknown fields become columns (else they are skipped).
    pub discover: bool,
    /// With `discover`: unknown fields at any level (see `json::may_become_column`).
    pub new_columns: bool,
    /// Top-level fields the general path noted as left out by the projection.
    pub ignored: &'a IgnoredNames,
    /// Struct members the general path noted as missing from the fixed schema.
    pub ignored_members: &'a IgnoredNames,
    /// How numbers and strings convert to declared types (strings into binary, which the
    /// loader takes as they are only under Arrow's, are left to the general path).
    pub conventions: Conventions,
    /// Patterns date and timestamp strings are read by, where given.
    pub formats: &'a TimeFormats,
    /// `NaN`, `Infinity`... are floats (else the general path refuses them).
    pub non_numeric: bool,
    /// An empty string is a null (`NdjsonReader::empty_strings_as_nulls`).
    pub empty_strings_null: bool,
}

impl Known<'_> {
    /// Whether unknown fields become columns at every level (see `JsonWriter`'s).
    fn adds_columns(&self) -> bool {
        self.discover && self.new_columns
    }
}

/// The target `Line::resolve` gives a field or member skipped and not yet noted (see
/// `JsonWriter::unnoted`): a null or an empty array or object is read past, any other
/// value is left to the general path, which notes it if it holds data. Never cached; not a column id (see [`ANY_TEXT`]).
const UNNOTED: ColumnId = NULL_ONLY - 1;

struct Line<'a> {
    b: &'a [u8],
    i: usize,
    l: &'a mut ResultSetLoader,
    keys: &'a mut KeyCache,
    /// The reader's discovery (the fields seen only as null are noted in it).
    discovery: &'a mut Discovery,
    known: Known<'a>,
    /// Where a string with escapes is decoded.
    scratch: &'a mut Vec<u8>,
}

/// `true` for the four bytes JSON counts as whitespace.
#[inline(always)]
pub(super) fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r')
}

/// Bytes of a word (8 bytes, little-endian) equal to `byte`: their high bit set.
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (0x0101_0101_0101_0101u64 * u64::from(byte));
    x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080
}

/// Bytes of a word below 0x20 (control characters): their high bit set.
#[inline(always)]
fn bytes_below_space(word: u64) -> u64 {
    word.wrapping_sub(0x2020_2020_2020_2020) & !word & 0x8080_8080_8080_8080
}

/// Bit `k` set in the first mask if byte `k` of `chunk` (16 bytes) is `"`, `\` or a control
/// character, in the second if it is not ASCII. SSE2, which every x86_64 processor has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stops_and_high_bits(chunk: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert_eq!(chunk.len(), 16);
    // SAFETY: the load reads the 16 bytes of `chunk` (checked above), unaligned loads
    // allowed; SSE2 is part of the x86_64 baseline.
    unsafe {
        let x = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
        // x <= 0x1f (unsigned) exactly when min(x, 0x1f) == x
        let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
        let stops = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        (_mm_movemask_epi8(stops) as u32, _mm_movemask_epi8(x) as u32)
    }
}

/// The position of the first `"`, `\` or control character of `b` at or after `i` (`None`:
/// there is none), and whether a byte before it, from `i` on, may be non-ASCII (`false`:
/// they are all ASCII, so valid UTF-8).
#[inline(always)]
fn string_stop(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut high = 0;
    // sixteen bytes at a time while the line has them
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= b.len() {
        let (stop, non_ascii) = stops_and_high_bits(&b[i..i + 16]);
        if stop != 0 {
            let at = stop.trailing_zeros();
            let before = non_ascii & ((1 << at) - 1);
            return Some((i + at as usize, (high | u64::from(before)) != 0));
        }
        high |= u64::from(non_ascii);
        i += 16;
    }
    if high != 0 {
        high = 0x80;
    }
    while i + 8 <= b.len() {
        let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        // the bytes past the end count too: a needless check at worst
        high |= word;
        let stop = bytes_equal(word, b'"') | bytes_equal(word, b'\\') | bytes_below_space(word);
        if stop != 0 {
            let end = i + (stop.trailing_zeros() / 8) as usize;
            return Some((end, high & 0x8080_8080_8080_8080 != 0));
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return Some((i, high & 0x8080_8080_8080_8080 != 0));
        }
        high |= u64::from(c);
        i += 1;
    }
    None
}

impl<'a> Line<'a> {
    /// The next byte that is not whitespace (not consumed). No whitespace, or one space
    /// (`", "` and `": "` are the usual separators), without a loop.
    #[inline(always)]
    fn peek(&mut self) -> Quick<u8> {
        let b = self.b;
        let i = self.i;
        match b.get(i) {
            Some(&c) if c > b' ' => Ok(c),
            Some(&b' ') => match b.get(i + 1) {
                Some(&c) if c > b' ' => {
                    self.i = i + 1;
                    Ok(c)
                }
                _ => self.peek_past_spaces(),
            },
            _ => self.peek_past_spaces(),
        }
    }

    /// `peek` past any run of whitespace.
    #[cold]
    fn peek_past_spaces(&mut self) -> Quick<u8> {
        while let Some(&c) = self.b.get(self.i) {
            // a line break ends the line: no token starts with it
            if !is_space(c) || c == b'\n' {
                return Ok(c);
            }
            self.i += 1;
        }
        Err(GiveUp)
    }

    /// Consume `byte` after any whitespace.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Quick {
        if self.peek()? == byte {
            self.i += 1;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// The line: one object, then only whitespace up to its `\n` (or the end of the text
    /// if it `ends_input`); its length. Its writes broke no limit (else the general path
    /// writes it again, overflowing where the limit broke).
    fn row(&mut self, ends_input: bool) -> Quick<usize> {
        self.expect(b'{')?;
        self.members(ROOT)?;
        let end = loop {
            match self.b.get(self.i) {
                Some(b'\n') => break self.i,
                Some(&c) if is_space(c) => self.i += 1,
                None if ends_input => break self.i,
                _ => return Err(GiveUp),
            }
        };
        if self.l.limits_hold() {
            Ok(end)
        } else {
            Err(GiveUp)
        }
    }

    /// The members of an object of struct `parent`, its `{` consumed, up to its `}`.
    fn members(&mut self, parent: ColumnId) -> Quick {
        if self.peek()? == b'}' {
            self.i += 1;
            return Ok(());
        }
        let mut pos = 0;
        loop {
            self.expect(b'"')?;
            let expected = match self.keys.expected(parent, pos) {
                Some(key) => self.key_end(key).ok().map(|end| (end, key.target)),
                None => None,
            };
            let target = match expected {
                Some((end, target)) => {
                    self.i = end;
                    target
                }
                None => self.other_key(parent, pos)?,
            };
            self.expect(b':')?;
            self.member_value(parent, pos, target)?;
            pos += 1;
            if !self.more(b'}')? {
                return Ok(());
            }
        }
    }

    /// After a member or element: `true` past a `,` (another follows), `false` past
    /// `close` (the object or array ends).
    #[inline(always)]
    fn more(&mut self, close: u8) -> Quick<bool> {
        let c = self.peek()?;
        self.i += 1;
        match c {
            b',' => Ok(true),
            c if c == close => Ok(false),
            _ => Err(GiveUp),
        }
    }

    /// Where the key at the cursor goes when the key cache expected another at `pos` (an
    /// object with a key more or less than the last one): a column the struct has, or
    /// `None` for a key skipped (not projected, or unknown and not discovered), learnt by
    /// the cache. A key that would make a column, one with escapes, or one skipped at the
    /// top level for the first time, is left to the general path (which makes, or notes,
    /// it).
    #[cold]
    #[inline(never)]
    fn other_key(&mut self, parent: ColumnId, pos: usize) -> Quick<Option<ColumnId>> {
        let end = self.string_end()?;
        let line: &'a [u8] = self.b;
        if line[end] != b'"' {
            return Err(GiveUp);
        }
        let key = std::str::from_utf8(&line[self.i..end]).map_err(|_| GiveUp)?;
        let target = self.resolve(parent, pos, key)?;
        self.i = end + 1;
        Ok(target)
    }

    /// Where key `key` at position `pos` of an object of struct `parent` goes (see
    /// `other_key`), learnt by the key cache.
    fn resolve(&mut self, parent: ColumnId, pos: usize, key: &str) -> Quick<Option<ColumnId>> {
        let target = match self.l.column(parent, key) {
            Some(id) => self.l.is_projected(id).then(|| cached_target(self.l, id)),
            None if may_become_column(
                self.l,
                self.known.discover,
                self.known.new_columns,
                parent,
                key,
            ) =>
            {
                // a column to come, typed by the field's first value that is not null
                self.keys
                    .put_null_only(parent, pos, key, self.l.column_ids());
                return Ok(Some(NULL_ONLY));
            }
            None => None,
        };
        if target.is_none() {
            // the general path notes the top-level keys it skips, and the members the
            // projection wants that the schema lacks
            let noted = if parent == ROOT {
                self.known.ignored.contains(key)
            } else {
                !self.l.would_project(parent, key)
                    || self
                        .known
                        .ignored_members
                        .contains(&self.l.member_path(parent, key))
            };
            if !noted {
                if parent == ROOT || !self.known.adds_columns() {
                    // a field or member the reader adds no column for, noted once a value
                    // that holds data shows it (by the general path): nulls and empty
                    // arrays and objects lose nothing. Not cached.
                    return Ok(Some(UNNOTED));
                }
                return Err(GiveUp);
            }
        }
        self.keys.put(parent, pos, key, target);
        Ok(target)
    }

    /// Member `pos` of an object of struct `parent`, its key's `target` known (see
    /// [`CachedKey::target`]): written, noted as a null-only field's, or skipped.
    #[inline(always)]
    fn member_value(&mut self, parent: ColumnId, pos: usize, target: Option<ColumnId>) -> Quick {
        match target {
            Some(id) if id < ANY_TEXT => self.value(id),
            Some(target @ UNNOTED..=NULL_ONLY) => self.no_column(parent, pos, target),
            Some(flagged) => self.any_text(flagged & !ANY_TEXT),
            None => self.skip(),
        }
    }

    /// The value of member `pos` of an object of struct `parent` whose key has no column
    /// (`target`: [`NULL_ONLY`] or [`UNNOTED`]). Out of line: only a struct's first objects,
    /// or fields that stay null, come here.
    #[cold]
    #[inline(never)]
    fn no_column(&mut self, parent: ColumnId, pos: usize, target: ColumnId) -> Quick {
        if target == UNNOTED {
            // a field skipped and not yet noted: read past a null or an empty array or
            // object, leave anything else (it may hold data: see `json::HoldsData`)
            return match self.peek()? {
                b'n' => self.word(b"null"),
                open @ (b'{' | b'[') => {
                    self.i += 1;
                    self.expect(if open == b'{' { b'}' } else { b']' })
                }
                _ => Err(GiveUp),
            };
        }
        self.null_only(parent, pos)
    }

    /// The value of member `pos` of an object of struct `parent`, whose key the cache holds
    /// as a field seen only as null: if a column was added since (maybe the field's own),
    /// the key is resolved anew; else a null is noted as the general path notes it (with
    /// its checks: a field named twice in a row, a name no column can have), and anything
    /// else is left to the general path, which makes the column.
    fn null_only(&mut self, parent: ColumnId, pos: usize) -> Quick {
        let key = self.keys.at(parent, pos).ok_or(GiveUp)?;
        if key.columns != self.l.column_ids() {
            let text = std::str::from_utf8(key.text())
                .map_err(|_| GiveUp)?
                .to_owned();
            let target = self.resolve(parent, pos, &text)?;
            if target != Some(NULL_ONLY) {
                return self.member_value(parent, pos, target);
            }
        }
        if self.peek()? != b'n' {
            return Err(GiveUp);
        }
        self.word(b"null")?;
        let key = self.keys.at(parent, pos).ok_or(GiveUp)?;
        let text = std::str::from_utf8(key.text()).map_err(|_| GiveUp)?;
        self.discovery
            .note_null(self.l, parent, text)
            .map_err(|_| GiveUp)
    }

    /// `value`, or `any_text` if column `id` takes any value as its text (`text`: asked
    /// once for a list's or map's elements, not for each).
    #[inline(always)]
    fn value_as(&mut self, id: ColumnId, text: bool) -> Quick {
        if text {
            self.any_text(id)
        } else {
            self.value(id)
        }
    }

    /// A value to utf8 column `id`, which takes any JSON value as its text (a declared
    /// string column, see `ResultSetLoader::takes_any_text`), as the general path writes
    /// it: a string as its content, null as null, anything else (a number, a boolean, an
    /// object, an array) as its text as the line has it, its syntax checked.
    #[cold]
    #[inline(never)]
    fn any_text(&mut self, id: ColumnId) -> Quick {
        if matches!(self.peek()?, b'"' | b'n') {
            return self.value(id);
        }
        let start = self.i;
        self.skip()?;
        let line: &'a [u8] = self.b;
        // its strings were checked by the skip; the rest is ASCII
        let text = std::str::from_utf8(&line[start..self.i]).map_err(|_| GiveUp)?;
        self.l.note_text_kept(id);
        self.set(id, Value::Str(text))
    }

    /// Past the closing quote of `key` if the key at the cursor is `key`.
    #[inline(always)]
    fn key_end(&self, key: &CachedKey) -> Quick<usize> {
        let i = self.i;
        if key.quoted_mask != 0 {
            if let Some(word) = self.word_at(i) {
                // the key and its closing quote in one compare
                return if (word ^ key.quoted) & key.quoted_mask == 0 {
                    Ok(i + key.text().len() + 1)
                } else {
                    Err(GiveUp)
                };
            }
        }
        let text = key.text();
        let end = i + text.len();
        let same = self.b.get(i..end).is_some_and(|k| same_key(k, text));
        if same && self.b.get(end) == Some(&b'"') {
            Ok(end + 1)
        } else {
            Err(GiveUp)
        }
    }

    /// The 8 bytes at `i` as a little-endian word, if the line has them.
    #[inline(always)]
    fn word_at(&self, i: usize) -> Option<u64> {
        word_at(self.b, i)
    }

    /// Write one value to column `id`: a scalar in place, an object or array by a call
    /// (they recurse; most values are scalars).
    #[inline(always)]
    fn value(&mut self, id: ColumnId) -> Quick {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                let (end, non_ascii) = self.string_end_seeing_non_ascii()?;
                if self.b[end] != b'"' {
                    return self.escaped_string(id, end);
                }
                let line: &'a [u8] = self.b;
                let text = Self::utf8(&line[self.i..end], non_ascii)?;
                self.i = end + 1;
                self.string(id, text)
            }
            b'0'..=b'9' => match self.short_whole() {
                Some(v) => self.whole(id, v),
                None => self.number(id),
            },
            b'-' => self.number(id),
            b'N' | b'I' | b'+' => self.non_numeric(id),
            b'n' => {
                self.word(b"null")?;
                self.set(id, Value::Null)
            }
            b't' => {
                self.word(b"true")?;
                self.scalar(id, Value::Bool(true))
            }
            b'f' => {
                self.word(b"false")?;
                self.scalar(id, Value::Bool(false))
            }
            b'{' => self.object(id),
            b'[' => {
                self.i += 1;
                self.elements(id)
            }
            _ => Err(GiveUp),
        }
    }

    /// An object to struct or map column `id`, at its `{`.
    #[inline(never)]
    fn object(&mut self, id: ColumnId) -> Quick {
        self.i += 1;
        match self.l.kind(id) {
            ColumnKind::Struct => {
                self.begin(id)?;
                self.members(id)
            }
            ColumnKind::Map => self.map_entries(id),
            _ => Err(GiveUp),
        }
    }

    /// The members of an object to map column `id` (its `{` consumed) as its entries, as
    /// the general path writes them: each key to the entries' utf8 key column, each value
    /// to their value column, in the object's order. A key with escapes, or a map whose keys
    /// are not utf8, is left to the general path.
    #[cold]
    #[inline(never)]
    fn map_entries(&mut self, id: ColumnId) -> Quick {
        let entries = self.l.element(id).ok_or(GiveUp)?;
        let key = self.l.column_at(entries, 0).ok_or(GiveUp)?;
        let value = self.l.column_at(entries, 1).ok_or(GiveUp)?;
        if !matches!(
            self.l.field(key).data_type(),
            DataType::Utf8 | DataType::LargeUtf8
        ) {
            return Err(GiveUp);
        }
        self.begin(id)?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.expect(b'"')?;
            let (end, non_ascii) = self.string_end_seeing_non_ascii()?;
            let line: &'a [u8] = self.b;
            if line[end] != b'"' {
                return Err(GiveUp);
            }
            let text = Self::utf8(&line[self.i..end], non_ascii)?;
            self.i = end + 1;
            self.string(key, text)?;
            self.expect(b':')?;
            let text = self.l.takes_any_text(value);
            self.value_as(value, text)?;
            self.l.save_element_plain(id).map_err(|_| GiveUp)?;
            if !self.more(b'}')? {
                return Ok(());
            }
        }
    }

    /// `l.set`, giving up on any error (the general path will raise it, placed).
    #[inline(always)]
    fn set(&mut self, id: ColumnId, value: Value<'_>) -> Quick {
        self.l.set(id, value).map_err(|_| GiveUp)
    }

    /// The loader's one-pass first write of `value` (`set_plain`, limits checked once at
    /// the end of the line), if it is that case: `None` leaves the column's type to the
    /// caller's checks.
    #[inline(always)]
    fn plain(&mut self, id: ColumnId, value: Value<'_>) -> Option<Quick> {
        self.l.set_plain(id, value).then_some(Ok(()))
    }

    /// `l.begin`: its one-pass case unchecked, as `plain`'s writes are.
    #[inline(always)]
    fn begin(&mut self, id: ColumnId) -> Quick {
        if self.l.begin_plain(id) {
            return Ok(());
        }
        self.l.begin(id).map_err(|_| GiveUp)
    }

    /// `set` to a scalar column (the general path calls anything else a conflict).
    #[inline(always)]
    fn scalar(&mut self, id: ColumnId, value: Value<'_>) -> Quick {
        if let Some(written) = self.plain(id, value) {
            return written;
        }
        self.scalar_any(id, value)
    }

    /// `scalar` past a plain first write (a column of another type, one written already).
    #[inline(never)]
    fn scalar_any(&mut self, id: ColumnId, value: Value<'_>) -> Quick {
        if self.l.kind(id) != ColumnKind::Scalar {
            return Err(GiveUp);
        }
        self.set(id, value)
    }

    /// A string to column `id`: as text, or as the timestamp or date it spells.
    #[inline(always)]
    fn string(&mut self, id: ColumnId, text: &str) -> Quick {
        if text.is_empty() && self.known.empty_strings_null {
            return self.set(id, Value::Null);
        }
        if let Some(written) = self.plain(id, Value::Str(text)) {
            return written;
        }
        self.string_any(id, text)
    }

    /// `string` past a plain first write to a utf8 column.
    #[inline(never)]
    fn string_any(&mut self, id: ColumnId, text: &str) -> Quick {
        if self.l.kind(id) != ColumnKind::Scalar {
            return Err(GiveUp);
        }
        let value = match self.l.field(id).data_type() {
            DataType::Utf8 | DataType::LargeUtf8 => Value::Str(text),
            dt if self.known.formats.of(dt).is_some() => {
                let read = self.known.formats.value_of(dt, text).ok_or(GiveUp)?;
                read.map_err(|_| GiveUp)?
            }
            dt @ DataType::Timestamp(unit, _) => {
                let zone = self.known.conventions.text_zone(dt);
                Value::Timestamp(parse_timestamp_in(text, *unit, zone).ok_or(GiveUp)?)
            }
            DataType::Date32 => Value::Date(parse_date(text).ok_or(GiveUp)?),
            // (as the general path reads them: a column the data typed takes no string)
            DataType::Decimal128(_, scale) if !self.l.typed_by_data(id) => {
                let conventions = self.known.conventions;
                let text = conventions.decimal_text(text);
                Value::Decimal(
                    conventions
                        .decimal_of_text(&text, *scale, self.l.is_declared(id))
                        .ok_or(GiveUp)?,
                )
            }
            _ => return Err(GiveUp),
        };
        self.set(id, value)
    }

    /// The elements of an array to list `id`, its `[` consumed. An empty array needs no
    /// element type, so a list typed by a guess (seen only empty so far) takes it here too.
    #[inline(never)]
    fn elements(&mut self, id: ColumnId) -> Quick {
        let l = &*self.l;
        if l.kind(id) != ColumnKind::List {
            return Err(GiveUp);
        }
        let element = l.element(id).ok_or(GiveUp)?;
        self.begin(id)?;
        if self.peek()? == b']' {
            self.i += 1;
            return Ok(());
        }
        if self.l.selects_elements(id) {
            return self.selected_elements(id, element);
        }
        if self.discovery.is_guess(id) {
            return Err(GiveUp); // the general path types the list by this element
        }
        let text = self.l.takes_any_text(element);
        loop {
            self.value_as(element, text)?;
            self.l.save_element_plain(id).map_err(|_| GiveUp)?;
            if !self.more(b']')? {
                return Ok(());
            }
        }
    }

    /// `elements` for a list projected by index (`c[1]`), as the general path writes it:
    /// an element asked for is written (unless the list's type is still a guess: the
    /// general path types it), one before it is skipped and saved as a null, the ones after
    /// the last asked for are skipped (their syntax checked) and not saved.
    #[cold]
    #[inline(never)]
    fn selected_elements(&mut self, id: ColumnId, element: ColumnId) -> Quick {
        loop {
            match self.l.element_fate(id) {
                ElementFate::Keep if self.discovery.is_guess(id) => return Err(GiveUp),
                ElementFate::Keep => {
                    let text = self.l.takes_any_text(element);
                    self.value_as(element, text)?
                }
                ElementFate::Null => self.skip()?,
                ElementFate::Drop => loop {
                    self.skip()?;
                    if !self.more(b']')? {
                        return Ok(());
                    }
                },
            }
            self.l.save_element_plain(id).map_err(|_| GiveUp)?;
            if !self.more(b']')? {
                return Ok(());
            }
        }
    }

    /// A number to column `id`: a whole number of up to 18 digits as an int (as the general
    /// path writes it), a fraction or exponent as a float to a float column only (an int
    /// column may have to widen: the general path decides).
    fn number(&mut self, id: ColumnId) -> Quick {
        let start = self.i;
        let (kind, negative) = match self.scan_number() {
            Ok(number) => number,
            Err(_) if self.b.get(start + 1) == Some(&b'I') => return self.non_numeric(id),
            Err(e) => return Err(e),
        };
        match kind {
            // `-0` too: the integer 0
            Number::Whole(magnitude) => {
                let v = i64::try_from(magnitude).map_err(|_| GiveUp)?;
                self.whole(id, if negative { -v } else { v })
            }
            // 19 digits or more: an int64 if it is one (64-bit ids have 19 digits), as serde
            // reads it; else the general path decides (a uint64, a float)
            Number::LongWhole => {
                let line: &'a [u8] = self.b;
                let text = std::str::from_utf8(&line[start..self.i]).map_err(|_| GiveUp)?;
                self.whole(id, text.parse().map_err(|_| GiveUp)?)
            }
            Number::Fraction(exact) => {
                // correctly rounded, as serde_json's float_roundtrip is: the same bits
                let x = match exact {
                    Some((mantissa, scale)) => {
                        let x = decimal_fraction(mantissa, scale);
                        if negative {
                            -x
                        } else {
                            x
                        }
                    }
                    None => fast_float2::parse(&self.b[start..self.i]).map_err(|_| GiveUp)?,
                };
                // too large: serde_json calls it out of range
                if !x.is_finite() {
                    return Err(GiveUp);
                }
                if let Some(written) = self.plain(id, Value::Float(x)) {
                    return written;
                }
                match *self.l.field(id).data_type() {
                    DataType::Float64 => self.scalar_any(id, Value::Float(x)),
                    DataType::Decimal128(_, scale) => self.decimal(id, start, scale),
                    // rounded once, from the text, as the general path does
                    DataType::Float32 => {
                        let text =
                            std::str::from_utf8(&self.b[start..self.i]).map_err(|_| GiveUp)?;
                        let x: f32 = text.parse().map_err(|_| GiveUp)?;
                        self.scalar_any(id, Value::Float(f64::from(x)))
                    }
                    _ => Err(GiveUp),
                }
            }
        }
    }

    /// `NaN`, `Infinity`, `-INF`... at the cursor to column `id`: a float, as Spark's
    /// reader and Python's json take them (see `json::respell_for_serde`). A float column
    /// takes it here; any other (an int column to widen, a decimal to refuse it) is left to
    /// the general path.
    #[cold]
    #[inline(never)]
    fn non_numeric(&mut self, id: ColumnId) -> Quick {
        if !self.known.non_numeric {
            return Err(GiveUp);
        }
        let (len, x) = non_numeric_at(self.b, self.i).ok_or(GiveUp)?;
        self.i += len;
        if let Some(written) = self.plain(id, Value::Float(x)) {
            return written;
        }
        match *self.l.field(id).data_type() {
            DataType::Float64 | DataType::Float32 => self.scalar_any(id, Value::Float(x)),
            _ => Err(GiveUp),
        }
    }

    /// A whole number to column `id` (as the general path writes it: an int, which a
    /// decimal column takes its own way).
    #[inline(always)]
    fn whole(&mut self, id: ColumnId, v: i64) -> Quick {
        if self.known.conventions != Conventions::Arrow {
            return self.whole_by_conventions(id, v);
        }
        self.whole_value(id, v, Value::Int(v))
    }

    /// `whole`'s write of `value`, the column's value of whole number `v`.
    #[inline(always)]
    fn whole_value(&mut self, id: ColumnId, v: i64, value: Value<'_>) -> Quick {
        if let Some(written) = self.plain(id, value) {
            return written;
        }
        if self.l.is_decimal(id) {
            return self.whole_decimal(id, v);
        }
        self.scalar_any(id, value)
    }

    /// `whole` under conventions other than Arrow's: a timestamp converted (Spark's
    /// seconds), other columns as under Arrow's; a number the conventions refuse is left to
    /// the general path, which says why.
    #[inline(never)]
    fn whole_by_conventions(&mut self, id: ColumnId, v: i64) -> Quick {
        let conventions = self.known.conventions;
        let dt = self.l.field(id).data_type();
        let value = if conventions.converts_whole_number(dt) {
            let t = conventions
                .whole_number_time(dt, i128::from(v))
                .map_err(|_| GiveUp)?;
            Value::Timestamp(t)
        } else {
            Value::Int(v)
        };
        self.whole_value(id, v, value)
    }

    /// A whole number to decimal column `id`, by [`parse_decimal`] as any number (the
    /// digits of `v` spell it: a whole number here has no leading zeros, and `-0` is 0).
    #[cold]
    #[inline(never)]
    fn whole_decimal(&mut self, id: ColumnId, v: i64) -> Quick {
        let DataType::Decimal128(_, scale) = *self.l.field(id).data_type() else {
            return Err(GiveUp);
        };
        let d = parse_decimal(&v.to_string(), scale).ok_or(GiveUp)?;
        self.scalar_any(id, Value::Decimal(d))
    }

    /// The number at `start..` (the cursor past it) to a decimal column of `scale`, from
    /// its digits as the general path reads it (a float would round): if it is not exact
    /// at that scale, the general path says so.
    #[cold]
    #[inline(never)]
    fn decimal(&mut self, id: ColumnId, start: usize, scale: i8) -> Quick {
        let line: &'a [u8] = self.b;
        let text = std::str::from_utf8(&line[start..self.i]).map_err(|_| GiveUp)?;
        let d = self
            .known
            .conventions
            .decimal_of_text(text, scale, self.l.is_declared(id))
            .ok_or(GiveUp)?;
        self.scalar_any(id, Value::Decimal(d))
    }

    /// The usual id or count in one word: 1 to 7 digits (no leading zero) followed by a
    /// byte that does not go on with the number (not a digit, `.`, `e` or `E`). Its value,
    /// the cursor past it; `None` (the cursor not moved) for any other number.
    #[inline(always)]
    fn short_whole(&mut self) -> Option<i64> {
        let word = self.word_at(self.i)?;
        let n = (not_digits(word).trailing_zeros() / 8) as usize;
        if n == 0 || n == 8 {
            return None;
        }
        let next = (word >> (8 * n)) as u8;
        if next == b'.' || next | 0x20 == b'e' || (n > 1 && word as u8 == b'0') {
            return None;
        }
        self.i += n;
        let values = word.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - n));
        Some(eight_digits(values) as i64)
    }

    /// Read past a JSON number: what kind it is, and whether it has a minus sign.
    #[inline(always)]
    fn scan_number(&mut self) -> Quick<(Number, bool)> {
        let b = self.b;
        let mut i = self.i;
        let negative = b.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let first = i;
        let (end, magnitude) = self.digits_value(i, 0);
        i = end;
        let digits = i - first;
        if digits == 0 || (digits > 1 && b[first] == b'0') {
            return Err(GiveUp);
        }
        let mut kind = if digits <= 18 {
            Number::Whole(magnitude)
        } else {
            Number::LongWhole
        };
        if b.get(i) == Some(&b'.') {
            let (end, mantissa) = self.digits_value(i + 1, magnitude);
            let scale = end - (i + 1);
            if scale == 0 {
                return Err(GiveUp);
            }
            let exact = digits + scale <= 19;
            kind = Number::Fraction(exact.then_some((mantissa, scale)));
            i = end;
        }
        if let Some(end) = self.exponent_end(i)? {
            i = end;
            kind = Number::Fraction(None);
        }
        self.i = i;
        Ok((kind, negative))
    }

    /// Where the exponent at `i` (`e` or `E`, a sign, digits) ends; `None` if there is none.
    #[inline(always)]
    fn exponent_end(&self, mut i: usize) -> Quick<Option<usize>> {
        let b = self.b;
        if !matches!(b.get(i), Some(b'e' | b'E')) {
            return Ok(None);
        }
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        self.digits_from(i).map(Some)
    }

    /// The end of the run of digits at `i` (maybe empty), and `before` followed by them
    /// (see [`digits_value`]).
    #[inline(always)]
    fn digits_value(&self, start: usize, before: u64) -> (usize, u64) {
        digits_value(self.b, start, before)
    }

    /// The end of the run of digits at `i`, which must not be empty.
    #[inline(always)]
    fn digits_from(&self, start: usize) -> Quick<usize> {
        let end = digits_end(self.b, start);
        if end == start {
            Err(GiveUp)
        } else {
            Ok(end)
        }
    }

    /// Consume the literal `word`.
    #[inline(always)]
    fn word(&mut self, word: &[u8]) -> Quick {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// A string with escapes to column `id`: decoded into the scratch buffer. `stop` is
    /// where the first escape (or a control character) is.
    #[inline(never)]
    fn escaped_string(&mut self, id: ColumnId, stop: usize) -> Quick {
        let mut text = std::mem::take(self.scratch);
        text.clear();
        let written = self.unescape(stop, &mut text).and_then(|()| {
            let text = std::str::from_utf8(&text).map_err(|_| GiveUp)?;
            self.string(id, text)
        });
        *self.scratch = text;
        written
    }

    /// Decode the rest of a string into `out`, from the cursor (`stop`: its first `"`, `\`
    /// or control character); the closing `"` consumed. An escape naming half a surrogate
    /// pair, or anything else amiss, is left to the general path.
    fn unescape(&mut self, mut stop: usize, out: &mut Vec<u8>) -> Quick {
        let b = self.b;
        loop {
            out.extend_from_slice(&b[self.i..stop]);
            match b[stop] {
                b'"' => {
                    self.i = stop + 1;
                    return Ok(());
                }
                b'\\' => {}
                _ => return Err(GiveUp), // a control character
            }
            let (c, next) = self.escape_at(stop)?;
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            self.i = next;
            stop = self.string_end()?;
        }
    }

    /// The character the escape at `at` (its `\`) names, and where the escape ends; a `\u`
    /// naming half a surrogate pair, or anything else amiss, is left to the general path.
    fn escape_at(&self, at: usize) -> Quick<(char, usize)> {
        let b = self.b;
        Ok(match b.get(at + 1) {
            Some(b'"') => ('"', at + 2),
            Some(b'\\') => ('\\', at + 2),
            Some(b'/') => ('/', at + 2),
            Some(b'b') => ('\u{8}', at + 2),
            Some(b'f') => ('\u{c}', at + 2),
            Some(b'n') => ('\n', at + 2),
            Some(b'r') => ('\r', at + 2),
            Some(b't') => ('\t', at + 2),
            Some(b'u') => {
                let unit = self.hex4(at + 2)?;
                match unit {
                    0xD800..=0xDBFF if b.get(at + 6..at + 8) == Some(b"\\u") => {
                        let low = self.hex4(at + 8)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(GiveUp);
                        }
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        (char::from_u32(code).ok_or(GiveUp)?, at + 12)
                    }
                    0xD800..=0xDFFF => return Err(GiveUp),
                    _ => (char::from_u32(unit).ok_or(GiveUp)?, at + 6),
                }
            }
            _ => return Err(GiveUp),
        })
    }

    /// The four hex digits at `at` (a `\u` escape's), as a number.
    fn hex4(&self, at: usize) -> Quick<u32> {
        let digits = self.b.get(at..at + 4).ok_or(GiveUp)?;
        digits.iter().try_fold(0, |n, &d| {
            let v = (d as char).to_digit(16).ok_or(GiveUp)?;
            Ok(n * 16 + v)
        })
    }

    /// The position of the first `"`, `\` or control character at or after the cursor.
    #[inline(always)]
    fn string_end(&self) -> Quick<usize> {
        self.string_end_seeing_non_ascii().map(|(end, _)| end)
    }

    /// `string_end`, and whether the bytes before it may hold a non-ASCII one (`false`:
    /// they are all ASCII, so valid UTF-8).
    #[inline(always)]
    fn string_end_seeing_non_ascii(&self) -> Quick<(usize, bool)> {
        string_stop(self.b, self.i).ok_or(GiveUp)
    }

    /// `text` as a `str`, if it is UTF-8 (checked only if `maybe_non_ascii`).
    #[inline(always)]
    fn utf8(text: &[u8], maybe_non_ascii: bool) -> Quick<&str> {
        if maybe_non_ascii {
            std::str::from_utf8(text).map_err(|_| GiveUp)
        } else {
            // SAFETY: every byte is ASCII.
            Ok(unsafe { std::str::from_utf8_unchecked(text) })
        }
    }

    /// Read past one value no column takes, checking its syntax as the general path would.
    fn skip(&mut self) -> Quick {
        // open arrays and objects: bit `d` set if the one at depth `d` is an object
        let mut objects: u64 = 0;
        let mut depth = 0;
        loop {
            // a value
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    self.skip_string()?;
                }
                b'-' | b'0'..=b'9' => {
                    if self.skip_number().is_err() {
                        // `-Infinity`, or no number at all
                        self.i += self.skipped_non_numeric()?;
                    }
                }
                b'N' | b'I' | b'+' => self.i += self.skipped_non_numeric()?,
                b'n' => self.word(b"null")?,
                b't' => self.word(b"true")?,
                b'f' => self.word(b"false")?,
                c @ (b'{' | b'[') => {
                    self.i += 1;
                    if depth == SKIP_DEPTH {
                        return Err(GiveUp);
                    }
                    let object = c == b'{';
                    objects = (objects & !(1 << depth)) | (u64::from(object) << depth);
                    depth += 1;
                    let close = if object { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.i += 1;
                        depth -= 1;
                    } else {
                        if object {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                _ => return Err(GiveUp),
            }
            // after a value: the next one in its array or object, or their ends
            loop {
                if depth == 0 {
                    return Ok(());
                }
                let object = objects & (1 << (depth - 1)) != 0;
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if object {
                            self.skip_key()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        self.i += 1;
                        depth -= 1;
                    }
                    b']' if !object => {
                        self.i += 1;
                        depth -= 1;
                    }
                    _ => return Err(GiveUp),
                }
            }
        }
    }

    /// The length of the non-numeric number at the cursor, in a value no column takes.
    #[cold]
    fn skipped_non_numeric(&self) -> Quick<usize> {
        if !self.known.non_numeric {
            return Err(GiveUp);
        }
        Ok(non_numeric_at(self.b, self.i).ok_or(GiveUp)?.0)
    }

    /// Read past a number no column takes: its syntax checked as `scan_number` checks it,
    /// its value not computed.
    #[inline(always)]
    fn skip_number(&mut self) -> Quick {
        let b = self.b;
        let first = self.i + usize::from(b.get(self.i) == Some(&b'-'));
        let mut i = self.digits_from(first)?;
        if i - first > 1 && b[first] == b'0' {
            return Err(GiveUp);
        }
        if b.get(i) == Some(&b'.') {
            i = self.digits_from(i + 1)?;
        }
        self.i = self.exponent_end(i)?.unwrap_or(i);
        Ok(())
    }

    /// Read past `"key":` in an object being skipped.
    #[inline(always)]
    fn skip_key(&mut self) -> Quick {
        self.expect(b'"')?;
        self.skip_string()?;
        self.expect(b':')
    }

    /// Read past the rest of a string, its `"` consumed: its UTF-8 and escapes checked as
    /// for a string kept.
    #[inline(always)]
    fn skip_string(&mut self) -> Quick {
        loop {
            let (at, non_ascii) = self.string_end_seeing_non_ascii()?;
            Self::utf8(&self.b[self.i..at], non_ascii)?;
            match self.b[at] {
                b'"' => {
                    self.i = at + 1;
                    return Ok(());
                }
                b'\\' => self.i = self.escape_at(at)?.1,
                _ => return Err(GiveUp), // a control character
            }
        }
    }
}

/// The length and value of the non-numeric number (`NaN`, `-INF`...) at `i` of `b`, if one
/// is there and ends there (see `json::non_numeric_at`).
#[inline]
fn non_numeric_at(b: &[u8], i: usize) -> Option<(usize, f64)> {
    super::json::non_numeric_at(b, i).map(|&(token, _, x)| (token.len(), x))
}

#[cfg(test)]
mod tests {
    use super::string_stop;
    use crate::readers::numbers::tests::xorshift;

    /// Lines of random lengths mixing plain, stopping and non-ASCII bytes, scanned from every
    /// start: the stop found is the first `"`, `\` or control character, and a non-ASCII
    /// byte before it is always seen (the unchecked UTF-8 conversion relies on it); one
    /// after it is not counted when the scan can tell (16 and 8 byte steps overlap the end).
    #[test]
    fn string_scans_stop_where_bytewise_scans_do() {
        let bytes = [
            b'a', b'a', b'a', b'Z', b' ', b'"', b'\\', 0x1f, 0x7f, 0x80, 0xc3, 0xff,
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let len = (next() % 48) as usize;
            // mostly plain bytes, so stops fall anywhere in a 16-byte step
            let line: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if r.is_multiple_of(8) {
                        bytes[(r >> 8) as usize % bytes.len()]
                    } else {
                        b'a' + (r >> 16) as u8 % 26
                    }
                })
                .collect();
            for start in 0..=len {
                let want = line[start..]
                    .iter()
                    .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                    .map(|k| start + k);
                let got = string_stop(&line, start);
                assert_eq!(got.map(|(at, _)| at), want, "{line:?} from {start}");
                if let (Some((at, non_ascii)), Some(_)) = (got, want) {
                    let any = line[start..at].iter().any(|&c| c >= 0x80);
                    assert!(non_ascii || !any, "non-ASCII missed: {line:?} from {start}");
                }
            }
        }
    }
}

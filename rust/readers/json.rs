//! One JSON value straight into the loader: a walk over jiter's pull parser that writes each
//! token as it is read. Unprojected fields are skipped (validated, nothing built), unknown
//! fields become columns typed by their first non-null token (if discovering).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use jiter::{Jiter, JiterError, JiterErrorType, JsonErrorType, NumberAny, NumberInt, Peek};

use super::driver::note_ignored;
use super::temporal::{parse_date, parse_timestamp};
use crate::loader::{
    parse_decimal, ColumnId, ColumnKind, Discovery, ElementFate, LoaderError, ResultSetLoader,
    Value, MAX_NESTING, ROOT,
};

/// Per struct (by column id), the keys its objects had, in order, and where each went
/// (`None`: skipped). Objects of one file mostly repeat their key order, so a key is usually
/// resolved by one comparison with the key seen at the same position, without hashing.
#[derive(Default)]
pub(crate) struct KeyCache {
    by_struct: Vec<Vec<(Box<str>, Option<ColumnId>)>>,
}

impl KeyCache {
    #[inline(always)]
    fn get(&self, parent: ColumnId, pos: usize, key: &str) -> Option<Option<ColumnId>> {
        let (k, target) = self.by_struct.get(parent)?.get(pos)?;
        same_key(k.as_bytes(), key.as_bytes()).then_some(*target)
    }

    fn put(&mut self, parent: ColumnId, pos: usize, key: &str, target: Option<ColumnId>) {
        if self.by_struct.len() <= parent {
            self.by_struct.resize_with(parent + 1, Vec::new);
        }
        let keys = &mut self.by_struct[parent];
        let entry = (Box::from(key), target);
        if pos < keys.len() {
            keys[pos] = entry;
        } else if pos == keys.len() {
            keys.push(entry);
        }
    }
}

/// `a == b`, inline for keys of up to 16 bytes (two overlapping word compares instead of a
/// call to `memcmp`: a key is compared on every field of every line).
#[inline(always)]
fn same_key(a: &[u8], b: &[u8]) -> bool {
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
    /// Top-level keys skipped because the projection leaves them out.
    pub ignored: &'a mut Vec<String>,
    /// The name of the field being read that has no column yet ([`Slot::New`]): the key
    /// itself is borrowed from the parser, which moves on before the column is made.
    pub new_name: &'a mut String,
}

/// Where a value goes.
#[derive(Clone, Copy)]
enum Slot {
    /// An existing, projected column.
    Column(ColumnId),
    /// A field no column has yet, named `JsonWriter::new_name`: created from the value's
    /// first token.
    New { parent: ColumnId },
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

impl JsonWriter<'_> {
    /// `id` cannot take a JSON `what`; at the row itself (`ROOT`), the line is not an object.
    #[cold]
    #[inline(never)]
    fn conflict(&self, id: ColumnId, what: &str) -> JsonStop {
        if id == ROOT {
            return JsonStop::Loader(LoaderError::SchemaConflict(format!(
                "a line must hold a JSON object, not {what}"
            )));
        }
        let e = LoaderError::SchemaConflict(format!(
            "column '{}' ({}) cannot take {what}",
            self.l.path(id),
            self.l.field(id).data_type()
        ));
        self.fail_at(id, e)
    }

    /// The loader's error `e` for a write to `id`, saying why the column has its type if no
    /// value gave it.
    #[cold]
    #[inline(never)]
    fn fail_at(&self, id: ColumnId, e: LoaderError) -> JsonStop {
        JsonStop::Loader(match e {
            LoaderError::SchemaConflict(msg) if self.discovery.took_null_type(id) => {
                LoaderError::SchemaConflict(format!(
                    "{msg} (it was null in every row of an earlier batch, so it took the null \
                     type then; give its type in the scan's schema)"
                ))
            }
            e => e,
        })
    }

    /// The column a value of `shape` goes to, creating or retyping it if discovery allows.
    #[inline(always)]
    fn resolve(&mut self, slot: Slot, shape: Shape) -> Step<Option<ColumnId>> {
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
    fn resolve_new(&mut self, slot: Slot, shape: Shape) -> Step<Option<ColumnId>> {
        match slot {
            Slot::Column(id) => Ok(Some(id)),
            Slot::New { parent } => {
                let name = self.new_name.as_str();
                let Some(dt) = discovered_type(shape) else {
                    // Null says nothing about the type: wait for a value that does (a field
                    // that stays null gets the null type when the batch is handed over).
                    self.discovery.note_null(parent, name);
                    return Ok(None);
                };
                let id = self.l.add_column(parent, Field::new(name, dt, true))?;
                self.discovery.mark(self.l, id);
                if shape == Shape::Array {
                    self.discovery.guess(id);
                }
                Ok(Some(id))
            }
            Slot::Element(list) => {
                let child = self.l.element(list).expect("a list");
                self.discovery.settle(list);
                if shape == Shape::Str {
                    return Ok(Some(child)); // the guess was right
                }
                let dt = discovered_type(shape).expect("not null");
                let child = self.l.replace_element(list, Field::new("item", dt, true))?;
                self.discovery.mark(self.l, child);
                if shape == Shape::Array {
                    self.discovery.guess(child);
                }
                Ok(Some(child))
            }
        }
    }

    #[inline(always)]
    fn set(&mut self, id: ColumnId, value: Value<'_>) -> Step {
        match self.l.set(id, value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail_at(id, e)),
        }
    }

    /// `set` of a JSON scalar (`what` names it): a struct, list or map column refuses it, and
    /// the error then says which JSON value it met (checked only then: the loader refuses
    /// anything but a null on those columns anyway).
    #[inline(always)]
    fn set_scalar(&mut self, id: ColumnId, value: Value<'_>, what: &str) -> Step {
        match self.l.set(id, value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.refused(id, e, what)),
        }
    }

    #[cold]
    #[inline(never)]
    fn refused(&self, id: ColumnId, e: LoaderError, what: &str) -> JsonStop {
        if self.l.kind(id) == ColumnKind::Scalar {
            self.fail_at(id, e)
        } else {
            self.conflict(id, what)
        }
    }

    fn write_float(&mut self, id: ColumnId, x: f64) -> Step {
        match self.l.field(id).data_type() {
            DataType::Int64 if self.discovery.is_discovered(id) => {
                self.l.widen_to_float64(id)?;
                self.set(id, Value::Float(x))
            }
            DataType::Decimal128(_, scale) => {
                let scale = *scale;
                match parse_decimal(&format!("{x}"), scale) {
                    Some(d) => self.set(id, Value::Decimal(d)),
                    None => {
                        Err(self.conflict(id, &format!("number {x}: too precise or too large")))
                    }
                }
            }
            _ => self.set_scalar(id, Value::Float(x), "a number"),
        }
    }

    fn write_str(&mut self, id: ColumnId, s: &str) -> Step {
        let value = match self.l.field(id).data_type() {
            DataType::Timestamp(unit, _) => match parse_timestamp(s, *unit) {
                Some(t) => Value::Timestamp(t),
                None => return Err(self.conflict(id, &format!("{s:?}: not an ISO-8601 timestamp"))),
            },
            DataType::Date32 => match parse_date(s) {
                Some(d) => Value::Date(d),
                None => return Err(self.conflict(id, &format!("{s:?}: not an ISO-8601 date"))),
            },
            DataType::Decimal128(_, scale) => match parse_decimal(s.trim(), *scale) {
                Some(d) => Value::Decimal(d),
                None => return Err(self.conflict(id, &format!("{s:?}: not a decimal that fits"))),
            },
            _ => return self.set_scalar(id, Value::Str(s), "a string"),
        };
        self.set(id, value)
    }

    /// Where key `key` at position `pos` of an object of struct `parent` goes, when the key
    /// cache does not know it (None: skip the value); cached for the next object, and a
    /// top-level key the projection leaves out is noted. Out of line: the cache answers all
    /// but a struct's first objects.
    #[cold]
    #[inline(never)]
    fn resolve_key(&mut self, parent: ColumnId, pos: usize, key: &str) -> Option<Slot> {
        let slot = self.member(parent, key);
        match slot {
            Some(Slot::Column(c)) => self.keys.put(parent, pos, key, Some(c)),
            None => {
                if parent == ROOT {
                    note_ignored(self.ignored, key);
                }
                self.keys.put(parent, pos, key, None)
            }
            Some(Slot::New { .. }) => {
                // a new column (cached once it exists)
                self.new_name.clear();
                self.new_name.push_str(key);
            }
            Some(Slot::Element(_)) => unreachable!("a member is not an element"),
        }
        slot
    }

    /// Where the member `key` of struct `parent` goes (None: skip the value).
    fn member(&self, parent: ColumnId, key: &str) -> Option<Slot> {
        match self.l.column(parent, key) {
            Some(id) if self.l.is_projected(id) => Some(Slot::Column(id)),
            Some(_) => None,
            None if self.discover && self.l.would_project(parent, key) => {
                Some(Slot::New { parent })
            }
            None => None,
        }
    }
}

/// Why a JSON value stopped being written: the text is not JSON, or the loader refused a value.
pub(crate) enum JsonStop {
    /// Malformed JSON (or a nesting deeper than [`MAX_DEPTH`]) at a byte of the line.
    Syntax(JiterError),
    /// The loader's error for a value (a type conflict, a row too large...).
    Loader(LoaderError),
}

impl From<JiterError> for JsonStop {
    fn from(e: JiterError) -> Self {
        JsonStop::Syntax(e)
    }
}

impl From<LoaderError> for JsonStop {
    fn from(e: LoaderError) -> Self {
        JsonStop::Loader(e)
    }
}

type Step<T = ()> = Result<T, JsonStop>;

/// Arrays and objects read into columns nest at most this deep in a line, the row object
/// counting as 1: the deepest a column's type may nest ([`MAX_NESTING`]), and the stack stays
/// bounded whatever the input. Values the projection skips are held to jiter's own limit
/// (200 levels below the value).
pub(crate) const MAX_DEPTH: usize = MAX_NESTING;

impl JsonWriter<'_> {
    /// Write the JSON object in `j` (a whole line) as one row; anything after it is an error.
    pub fn write_row(&mut self, j: &mut Jiter<'_>) -> Step {
        let peek = j.peek()?;
        self.value(j, peek, Slot::Column(ROOT), 0)?;
        j.finish()?;
        Ok(())
    }

    /// Write the value starting with `peek` into `slot`, `depth` arrays/objects down.
    fn value(&mut self, j: &mut Jiter<'_>, peek: Peek, slot: Slot, depth: usize) -> Step {
        match peek {
            Peek::Null => {
                j.known_null()?;
                match self.resolve(slot, Shape::Null)? {
                    Some(ROOT) => Err(self.conflict(ROOT, "null")),
                    Some(id) => self.set(id, Value::Null),
                    None => Ok(()),
                }
            }
            Peek::True | Peek::False => {
                let b = j.known_bool(peek)?;
                self.scalar(slot, Shape::Bool, "a boolean", Value::Bool(b))
            }
            Peek::String => {
                let s = j.known_str()?;
                match self.resolve(slot, Shape::Str)? {
                    Some(id) => self.write_str(id, s),
                    None => Ok(()),
                }
            }
            Peek::Array => self.array(j, slot, deeper(j, depth)?),
            Peek::Object => self.object(j, slot, deeper(j, depth)?),
            _ => match j.known_number(peek)? {
                NumberAny::Int(NumberInt::Int(i)) => {
                    self.scalar(slot, Shape::Int, "a number", Value::Int(i))
                }
                NumberAny::Int(big) => self.big_int(slot, big),
                NumberAny::Float(x) => match self.resolve(slot, Shape::Float)? {
                    Some(id) => self.write_float(id, x),
                    None => Ok(()),
                },
            },
        }
    }

    /// Write a JSON scalar of `shape` (`what` names it in a type conflict).
    #[inline(always)]
    fn scalar(&mut self, slot: Slot, shape: Shape, what: &str, value: Value<'_>) -> Step {
        if let Some(id) = self.resolve(slot, shape)? {
            self.set_scalar(id, value, what)?;
        }
        Ok(())
    }

    /// An integer beyond int64: a uint64 if it fits (a uint64 column takes it), else the
    /// nearest float64 (as Python's `float(int)`).
    #[cold]
    #[inline(never)]
    fn big_int(&mut self, slot: Slot, n: NumberInt) -> Step {
        let unsigned = match &n {
            NumberInt::BigInt(b) => u64::try_from(b).ok(),
            NumberInt::Int(i) => u64::try_from(*i).ok(),
        };
        match unsigned {
            Some(u) => self.scalar(slot, Shape::Int, "a number", Value::UInt(u)),
            None => match self.resolve(slot, Shape::Float)? {
                Some(id) => self.write_float(id, f64::from(n)),
                None => Ok(()),
            },
        }
    }

    /// An object: the members of a struct column, or the entries of a map column.
    fn object(&mut self, j: &mut Jiter<'_>, slot: Slot, depth: usize) -> Step {
        let Some(id) = self.resolve(slot, Shape::Object)? else {
            return Ok(j.known_skip(Peek::Object)?);
        };
        match self.l.kind(id) {
            ColumnKind::Struct => {
                if id != ROOT {
                    self.l.begin(id)?;
                }
                let mut key = j.known_object()?;
                let mut pos = 0;
                while let Some(k) = key {
                    let slot = match self.keys.get(id, pos, k) {
                        Some(target) => target.map(Slot::Column),
                        None => self.resolve_key(id, pos, k),
                    };
                    pos += 1;
                    match slot {
                        Some(slot) => {
                            let peek = j.peek()?;
                            self.value(j, peek, slot, depth)?;
                        }
                        None => j.next_skip()?,
                    }
                    key = j.next_key()?;
                }
                Ok(())
            }
            ColumnKind::Map => {
                let entries = self.l.element(id).expect("map entries");
                let key_column = self.l.column_at(entries, 0).expect("key");
                let value = Slot::Column(self.l.column_at(entries, 1).expect("value"));
                self.l.begin(id)?;
                let mut key = j.known_object()?;
                while let Some(k) = key {
                    self.write_str(key_column, k)?;
                    let peek = j.peek()?;
                    self.value(j, peek, value, depth)?;
                    self.l.save_element(id)?;
                    key = j.next_key()?;
                }
                Ok(())
            }
            _ => Err(self.conflict(id, "an object")),
        }
    }

    /// An array: the elements of a list column (those an element projection keeps).
    fn array(&mut self, j: &mut Jiter<'_>, slot: Slot, depth: usize) -> Step {
        let Some(id) = self.resolve(slot, Shape::Array)? else {
            return Ok(j.known_skip(Peek::Array)?);
        };
        // the row itself is a struct: an array there is a conflict too
        if self.l.kind(id) != ColumnKind::List {
            return Err(self.conflict(id, "an array"));
        }
        self.l.begin(id)?;
        let selective = self.l.selects_elements(id);
        let mut next = j.known_array()?;
        while let Some(peek) = next {
            let fate = if selective {
                self.l.element_fate(id)
            } else {
                ElementFate::Keep
            };
            match fate {
                ElementFate::Keep => self.value(j, peek, Slot::Element(id), depth)?,
                // not asked for (`c[1]` projected): skipped unparsed, saved as a null
                ElementFate::Null => j.known_skip(peek)?,
                // past the last index asked for: the rest is skipped, nothing saved
                ElementFate::Drop => {
                    j.known_skip(peek)?;
                    while let Some(peek) = j.array_step()? {
                        j.known_skip(peek)?;
                    }
                    return Ok(());
                }
            }
            self.l.save_element(id)?;
            next = j.array_step()?;
        }
        Ok(())
    }
}

/// `depth + 1`, or an error at the current byte if that nests too deep.
#[inline(always)]
fn deeper(j: &Jiter<'_>, depth: usize) -> Result<usize, JiterError> {
    if depth < MAX_DEPTH {
        Ok(depth + 1)
    } else {
        Err(JiterError {
            error_type: JiterErrorType::JsonError(JsonErrorType::RecursionLimitExceeded),
            index: j.current_index(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::same_key;

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
}

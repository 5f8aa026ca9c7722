//! One column of the writer tree and the buffers it owns.
//!
//! A node only ever touches its own buffers; walking the tree (fill, truncate, split) is the
//! job of [`super::tree`]. Every node keeps the invariant that its offsets buffer (if any)
//! holds `len + 1` entries, so the bytes it would export are known at any time.

use std::collections::HashMap;

/// A struct's members by lower-cased name (aHash: a scan of a sparse file looks names up for
/// every value, and SipHash cost 9% of it).
pub(crate) type NameIndex = HashMap<String, usize, NameHasher>;

/// aHash with keys drawn once per process (random, as std's are per map), held outside the
/// maps: a zero-sized hasher keeps every node as small as with std's.
#[derive(Clone, Copy, Default)]
pub(crate) struct NameHasher;

impl std::hash::BuildHasher for NameHasher {
    type Hasher = ahash::AHasher;

    #[inline]
    fn build_hasher(&self) -> ahash::AHasher {
        static KEYS: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
        KEYS.get_or_init(ahash::RandomState::new).build_hasher()
    }
}

use arrow_buffer::{BooleanBuffer, Buffer, MutableBuffer};

use super::append::{extend, push, repeat, zeros};
use super::bits::Bits;
use arrow_schema::{DataType, FieldRef};

use super::options::Projection;
use super::value::Value;

/// Identifies a column (at any depth) of one loader. Stable for the loader's life.
pub type ColumnId = usize;

/// The id of the row itself: the tuple whose members are the top-level columns.
pub const ROOT: ColumnId = 0;

/// What a column holds, as seen by a writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// A single value per entry.
    Scalar,
    /// A tuple of named members (also the row itself).
    Struct,
    /// A variable number of elements (`list` or `large_list`).
    List,
    /// Key/value entries (an Arrow map: a list of `struct<key, value>`).
    Map,
}

/// Where a node's write position comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The row: position is the loader's row index.
    Root,
    /// A struct member: the struct's position.
    Member(ColumnId),
    /// A list's element (or a map's entries): the list's committed element count.
    Element(ColumnId),
}

/// How a scalar is stored physically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Physical {
    Bool,
    Int { width: usize, signed: bool },
    Float32,
    Float64,
    Decimal { precision: u8, scale: i8 },
    Date32,
    Timestamp,
    Utf8,
    Binary,
}

/// A value checked and converted for one column, ready to push.
#[derive(Clone, Copy)]
pub(crate) enum Encoded<'a> {
    Null,
    Bool(bool),
    /// An integer already range-checked for the column's width (dates, timestamps too).
    Int(i64),
    Float32(f32),
    Float64(f64),
    /// An i128 as (low, high) halves: keeps the enum small and 8-byte aligned.
    Decimal(u64, u64),
    Bytes(&'a [u8]),
}

/// Why a value does not fit a column (the message is built by the caller, off the hot path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EncodeError {
    OutOfRange,
    WrongType,
}

/// A node's buffers.
pub(crate) enum Data {
    Bool(Bits),
    Fixed {
        width: usize,
        values: MutableBuffer,
    },
    Var {
        large: bool,
        offsets: MutableBuffer,
        data: MutableBuffer,
    },
    Struct {
        members: Vec<ColumnId>,
        /// lower-cased name -> index in `members`
        index: NameIndex,
    },
    List {
        large: bool,
        offsets: MutableBuffer,
        child: ColumnId,
    },
}

/// One column of the writer tree.
pub(crate) struct Node {
    pub field: FieldRef,
    /// Dotted path for messages (`m.x`, `events[].kind`).
    pub path: String,
    pub role: Role,
    /// The list whose element count is this node's write position (`None`: the row index).
    /// Derived from the roles up the tree, so `pos` is one lookup rather than a climb.
    pub anchor: Option<ColumnId>,
    /// Whether the consumer wants this column; unprojected nodes own no buffers.
    pub projected: bool,
    /// The projection of this node's members, and of a list its element indexes (`c[1]`);
    /// meaningful only when projected.
    pub projection: Projection,
    /// Physical storage of a scalar node.
    pub physical: Option<Physical>,
    /// Entries written: Drill's last write position + 1.
    pub len: usize,
    /// This node's share of the loader's byte count: its `own_bytes` when last counted.
    pub counted: usize,
    pub validity: Option<Bits>,
    pub data: Data,
    /// Fill value for a non-nullable scalar (little-endian bytes or string bytes).
    pub default: Vec<u8>,
    /// A utf8 value was built with `append_bytes` and must be validated at commit.
    pub check_utf8: bool,
    /// The position, among the top-level columns, of the one this node belongs to
    /// (`usize::MAX` for the row itself).
    pub top: usize,
    /// `null_bytes_if_deferred`, kept: it is asked at every row's first write to a column.
    pub deferrable: Option<(usize, usize)>,
    /// The row (`ResultSetLoader::row_stamp`) whose first write to this column whose nulls
    /// are deferred was noted.
    pub noted_in: u64,
    /// Its type was a guess the schema fixed (no value had shown it): a utf8 column takes
    /// any JSON value, a non-string as its text (`ResultSetLoader::take_any_text`).
    pub any_text: bool,
    /// It lies in a column whose type was declared (`LoaderOptions::declared`), which a
    /// member added later inherits from its struct.
    pub declared: bool,
}

/// The set-aside head of a node after a split: exactly what is exported.
pub(crate) struct Frozen {
    /// The scalar type at the split (a column can be widened after it).
    pub data_type: DataType,
    pub len: usize,
    pub validity: Option<BooleanBuffer>,
    pub buffers: Vec<Buffer>,
    pub children: Vec<ColumnId>,
}

impl Frozen {
    /// Bytes of its own buffers (validity included).
    pub fn bytes(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.inner().len())
            + self.buffers.iter().map(|b| b.len()).sum::<usize>()
    }
}

pub(crate) fn offset_width(large: bool) -> usize {
    if large {
        8
    } else {
        4
    }
}

/// Offset `i` (read from the bytes: `typed_data` re-checks alignment on every call, and this
/// sits on every write's path).
#[inline]
pub(crate) fn offset_get(buf: &MutableBuffer, large: bool, i: usize) -> usize {
    let bytes = buf.as_slice();
    if large {
        let at = i * 8;
        i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
    } else {
        let at = i * 4;
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize
    }
}

#[inline]
pub(crate) fn offset_push(buf: &mut MutableBuffer, large: bool, v: usize) {
    // i32 offsets wrap past 2 GiB; the byte limits move the row away before that matters
    // (rebasing uses wrapping arithmetic, so the moved row's offsets stay right).
    if large {
        push(buf, v as i64)
    } else {
        push(buf, v as i32)
    }
}

/// Append `n` copies of offset `v`: the offsets of `n` values without bytes.
fn offsets_repeat(buf: &mut MutableBuffer, large: bool, v: usize, n: usize) {
    // wrapping as `offset_push`
    if large {
        repeat(buf, v as i64, n)
    } else {
        repeat(buf, v as i32, n)
    }
}

#[inline]
fn offset_set_last(buf: &mut MutableBuffer, large: bool, v: usize) {
    let bytes = buf.as_slice_mut();
    let n = bytes.len();
    if large {
        bytes[n - 8..].copy_from_slice(&(v as i64).to_le_bytes());
    } else {
        bytes[n - 4..].copy_from_slice(&(v as i32).to_le_bytes());
    }
}

#[inline]
fn offset_last(buf: &MutableBuffer, large: bool) -> usize {
    let w = offset_width(large);
    offset_get(buf, large, buf.len() / w - 1)
}

/// A fresh offsets buffer holding the single offset 0.
pub(crate) fn new_offsets(large: bool) -> MutableBuffer {
    let mut buf = MutableBuffer::new(64);
    offset_push(&mut buf, large, 0);
    buf
}

fn bits_bytes(n: usize) -> usize {
    n.div_ceil(8)
}

/// Split a byte buffer at `at`: returns the head without copying it; the tail is copied into a
/// fresh buffer of the same capacity (so the next batch does not grow it again).
fn split_bytes(buf: &mut MutableBuffer, at: usize) -> Buffer {
    let mut tail = MutableBuffer::with_capacity(buf.capacity());
    tail.extend_from_slice(&buf.as_slice()[at..]);
    buf.truncate(at);
    std::mem::replace(buf, tail).into()
}

/// Split offsets at entry `at`: the head keeps offsets `0..=at`; the tail gets `at..` rebased.
fn split_offsets(buf: &mut MutableBuffer, large: bool, at: usize) -> Buffer {
    let w = offset_width(large);
    let n = buf.len() / w;
    let mut tail = MutableBuffer::with_capacity(buf.capacity());
    if large {
        let all = buf.typed_data::<i64>();
        let base = all[at];
        for &o in &all[at..n] {
            tail.push(o.wrapping_sub(base));
        }
    } else {
        let all = buf.typed_data::<i32>();
        let base = all[at];
        for &o in &all[at..n] {
            tail.push(o.wrapping_sub(base));
        }
    }
    buf.truncate((at + 1) * w);
    std::mem::replace(buf, tail).into()
}

impl Node {
    /// The writer-visible kind of this node.
    #[inline]
    pub fn kind(&self) -> ColumnKind {
        match &self.data {
            Data::Struct { .. } => ColumnKind::Struct,
            Data::List { .. } if matches!(self.field.data_type(), DataType::Map(..)) => {
                ColumnKind::Map
            }
            Data::List { .. } => ColumnKind::List,
            _ => ColumnKind::Scalar,
        }
    }

    #[inline]
    pub fn nullable(&self) -> bool {
        self.validity.is_some()
    }

    /// Bytes of this node's own buffers as they would be exported now.
    #[inline]
    pub fn own_bytes(&self) -> usize {
        self.own_bytes_at(self.len)
    }

    /// `own_bytes` with `len` entries, the data bytes of a var-width column as they are now
    /// (entries past `len` being nulls): what deferred nulls will take.
    #[inline]
    pub fn own_bytes_at(&self, len: usize) -> usize {
        let validity = if self.validity.is_some() {
            bits_bytes(len)
        } else {
            0
        };
        validity
            + match &self.data {
                Data::Bool(_) => bits_bytes(len),
                Data::Fixed { width, .. } => len * width,
                Data::Var { large, data, .. } => (len + 1) * offset_width(*large) + data.len(),
                Data::Struct { .. } => 0,
                Data::List { large, .. } => (len + 1) * offset_width(*large),
            }
    }

    /// The largest of this node's own buffers, in exported bytes.
    #[inline]
    pub fn max_buffer_bytes(&self) -> usize {
        self.max_buffer_bytes_at(self.len)
    }

    /// `max_buffer_bytes` with `len` entries (see `own_bytes_at`).
    #[inline]
    pub fn max_buffer_bytes_at(&self, len: usize) -> usize {
        let validity = if self.validity.is_some() {
            bits_bytes(len)
        } else {
            0
        };
        let own = match &self.data {
            Data::Bool(_) => bits_bytes(len),
            Data::Fixed { width, .. } => len * width,
            Data::Var { large, data, .. } => {
                if !large && data.len() > i32::MAX as usize {
                    usize::MAX
                } else {
                    ((len + 1) * offset_width(*large)).max(data.len())
                }
            }
            Data::Struct { .. } => 0,
            Data::List { large, .. } => (len + 1) * offset_width(*large),
        };
        own.max(validity)
    }

    /// For a column whose nulls may be deferred (see `lazy.rs`: a nullable scalar with one
    /// entry a row, top-level or in structs, projected), the bytes a null adds to it: always (its value or offset width), and once
    /// every 8 entries (its bitmaps: validity, and the values of a bool). `None` for other
    /// nodes.
    #[inline(always)]
    pub fn deferrable_null_bytes(&self) -> Option<(usize, usize)> {
        self.deferrable.filter(|_| self.projected)
    }

    /// What `deferrable_null_bytes` gives when the node is projected (fixed when it is
    /// built: its role, nullability and storage do not change).
    pub fn null_bytes_if_deferred(&self) -> Option<(usize, usize)> {
        // a member of the row, or of a struct outside lists: one entry a row
        if !matches!(self.role, Role::Member(_)) || self.anchor.is_some() || self.validity.is_none()
        {
            return None;
        }
        match &self.data {
            Data::Fixed { width, .. } => Some((*width, 1)),
            Data::Var { large, .. } => Some((offset_width(*large), 1)),
            Data::Bool(_) => Some((0, 2)),
            Data::Struct { .. } | Data::List { .. } => None,
        }
    }

    /// The offset after the last entry (lists and var-width values).
    #[inline]
    pub fn last_offset(&self) -> usize {
        match &self.data {
            Data::Var { large, offsets, .. } | Data::List { large, offsets, .. } => {
                offset_last(offsets, *large)
            }
            _ => self.len,
        }
    }

    /// Whether entry `i` is valid (non-null).
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.as_ref().is_none_or(|v| v.get_bit(i))
    }

    #[inline(always)]
    fn push_validity(&mut self, valid: bool) {
        if let Some(v) = self.validity.as_mut() {
            v.append(valid);
        }
    }

    /// Append a null entry (caller checked the node is nullable).
    #[inline]
    pub fn push_null(&mut self) {
        self.push_validity(false);
        match &mut self.data {
            Data::Bool(b) => b.append(false),
            Data::Fixed { width, values } => zeros(values, *width),
            Data::Var {
                large,
                offsets,
                data,
            } => offset_push(offsets, *large, data.len()),
            Data::List { large, offsets, .. } => {
                let last = offset_last(offsets, *large);
                offset_push(offsets, *large, last)
            }
            Data::Struct { .. } => {}
        }
        self.len += 1;
    }

    /// Append `n` null entries at once to a nullable scalar: the deferred nulls of a column
    /// no row wrote for a while.
    pub fn push_nulls(&mut self, n: usize) {
        if let Some(v) = self.validity.as_mut() {
            v.append_zeros(n);
        }
        match &mut self.data {
            Data::Bool(b) => b.append_zeros(n),
            Data::Fixed { width, values } => zeros(values, *width * n),
            Data::Var {
                large,
                offsets,
                data,
            } => offsets_repeat(offsets, *large, data.len(), n),
            Data::Struct { .. } | Data::List { .. } => {
                unreachable!("only scalars' nulls are deferred")
            }
        }
        self.len += n;
    }

    /// Append the back-fill value: null if nullable, else the default ("" / 0 / [] / struct).
    #[inline]
    pub fn push_fill(&mut self) {
        if self.validity.is_some() {
            return self.push_null();
        }
        match &mut self.data {
            Data::Bool(b) => b.append(self.default.first() == Some(&1)),
            Data::Fixed { width, values } => {
                if self.default.is_empty() {
                    zeros(values, *width)
                } else {
                    extend(values, &self.default[..*width])
                }
            }
            Data::Var {
                large,
                offsets,
                data,
            } => {
                extend(data, &self.default);
                offset_push(offsets, *large, data.len())
            }
            Data::List { large, offsets, .. } => {
                let last = offset_last(offsets, *large);
                offset_push(offsets, *large, last)
            }
            Data::Struct { .. } => {}
        }
        self.len += 1;
    }

    /// Open a new valid entry of a struct or list (an empty list entry).
    #[inline]
    pub fn open_entry(&mut self) {
        self.push_validity(true);
        if let Data::List { large, offsets, .. } = &mut self.data {
            let last = offset_last(offsets, *large);
            offset_push(offsets, *large, last)
        }
        self.len += 1;
    }

    /// Mark the last entry valid (writing a member of a null struct makes it non-null).
    #[inline]
    pub fn set_last_valid(&mut self) {
        let n = self.len;
        if let Some(v) = self.validity.as_mut() {
            v.set_bit(n - 1, true);
        }
    }

    /// Set the end offset of the last list entry (commits list elements).
    #[inline]
    pub fn set_last_offset(&mut self, end: usize) {
        if let Data::List { large, offsets, .. } | Data::Var { large, offsets, .. } = &mut self.data
        {
            offset_set_last(offsets, *large, end)
        }
    }

    /// The message of an [`EncodeError`] for `value`.
    pub fn encode_error(&self, value: &Value<'_>, error: EncodeError) -> String {
        match error {
            EncodeError::OutOfRange => {
                format!("{value} is out of range for {}", self.field.data_type())
            }
            EncodeError::WrongType => format!(
                "{} value {value} does not fit {}",
                value.kind(),
                self.field.data_type()
            ),
        }
    }

    /// Check and convert a value for this scalar column.
    #[inline]
    pub fn encode<'a>(&self, value: &Value<'a>) -> Result<Encoded<'a>, EncodeError> {
        let physical = self.physical.expect("encode on a scalar node");
        let value = *value;
        let out_of_range = || EncodeError::OutOfRange;
        Ok(match (physical, value) {
            (_, Value::Null) => Encoded::Null,
            (Physical::Bool, Value::Bool(b)) => Encoded::Bool(b),
            (Physical::Int { width, signed }, Value::Int(i)) => {
                let ok = match (width, signed) {
                    (8, true) => true,
                    (8, false) => i >= 0,
                    (w, true) => {
                        let half = 1i64 << (w * 8 - 1);
                        (-half..half).contains(&i)
                    }
                    (w, false) => (0..1i64 << (w * 8)).contains(&i),
                };
                if !ok {
                    return Err(out_of_range());
                }
                Encoded::Int(i)
            }
            (
                Physical::Int {
                    width: 8,
                    signed: false,
                },
                Value::UInt(u),
            ) => Encoded::Int(u as i64),
            (Physical::Int { .. }, Value::UInt(_)) => return Err(out_of_range()),
            (Physical::Float32, Value::Float(x)) => Encoded::Float32(x as f32),
            (Physical::Float32, Value::Int(i)) => Encoded::Float32(i as f32),
            (Physical::Float32, Value::UInt(u)) => Encoded::Float32(u as f32),
            (Physical::Float64, Value::Float(x)) => Encoded::Float64(x),
            (Physical::Float64, Value::Int(i)) => Encoded::Float64(i as f64),
            (Physical::Float64, Value::UInt(u)) => Encoded::Float64(u as f64),
            (Physical::Decimal { precision, scale }, Value::Decimal(_) | Value::Int(_)) => {
                let unscaled = match value {
                    Value::Decimal(d) => Some(d),
                    Value::Int(i) if scale >= 0 => 10i128
                        .checked_pow(scale as u32)
                        .and_then(|m| (i as i128).checked_mul(m)),
                    _ => None,
                };
                let limit = 10i128.checked_pow(precision as u32).unwrap_or(i128::MAX);
                match unscaled {
                    Some(d) if d.abs() < limit => Encoded::Decimal(d as u64, (d >> 64) as u64),
                    _ => return Err(out_of_range()),
                }
            }
            (Physical::Date32, Value::Date(d)) => Encoded::Int(d as i64),
            (Physical::Date32, Value::Int(i)) => match i32::try_from(i) {
                Ok(d) => Encoded::Int(d as i64),
                Err(_) => return Err(out_of_range()),
            },
            (Physical::Timestamp, Value::Timestamp(t) | Value::Int(t)) => Encoded::Int(t),
            (Physical::Utf8, Value::Str(s)) => Encoded::Bytes(s.as_bytes()),
            (Physical::Binary, Value::Bytes(b)) => Encoded::Bytes(b),
            (Physical::Binary, Value::Str(s)) => Encoded::Bytes(s.as_bytes()),
            _ => return Err(EncodeError::WrongType),
        })
    }

    /// Turn an int64 column into float64, converting the values written so far.
    pub fn widen_to_float64(&mut self) {
        if let Data::Fixed { values, .. } = &mut self.data {
            for v in values.typed_data_mut::<i64>() {
                *v = f64::to_bits(*v as f64) as i64;
            }
        }
        self.physical = Some(Physical::Float64);
        self.set_data_type(DataType::Float64);
    }

    /// Give the node's field type `dt` (name, nullability and metadata stay).
    pub fn set_data_type(&mut self, dt: DataType) {
        self.field = std::sync::Arc::new(self.field.as_ref().clone().with_data_type(dt));
    }

    /// Append a checked value as a new entry.
    #[inline(always)]
    pub fn push_encoded(&mut self, value: &Encoded<'_>) {
        match (value, &mut self.data) {
            (Encoded::Null, _) => return self.push_null(),
            (Encoded::Bool(b), Data::Bool(bits)) => bits.append(*b),
            (Encoded::Int(i), Data::Fixed { width, values }) => match width {
                1 => push(values, *i as i8),
                2 => push(values, *i as i16),
                4 => push(values, *i as i32),
                _ => push(values, *i),
            },
            (Encoded::Float32(x), Data::Fixed { values, .. }) => push(values, *x),
            (Encoded::Float64(x), Data::Fixed { values, .. }) => push(values, *x),
            (Encoded::Decimal(lo, hi), Data::Fixed { values, .. }) => {
                push(values, ((*hi as i128) << 64) | *lo as i128)
            }
            (
                Encoded::Bytes(b),
                Data::Var {
                    large,
                    offsets,
                    data,
                },
            ) => {
                extend(data, b);
                offset_push(offsets, *large, data.len())
            }
            _ => unreachable!("encode() matched the value to the column"),
        }
        self.push_validity(true);
        self.len += 1;
    }

    /// Extend the last var-width value with more bytes.
    #[inline]
    pub fn extend_last(&mut self, bytes: &[u8]) {
        if let Data::Var {
            large,
            offsets,
            data,
        } = &mut self.data
        {
            data.extend_from_slice(bytes);
            offset_set_last(offsets, *large, data.len());
        }
    }

    /// The bytes of var-width entry `i`.
    pub fn value_bytes(&self, i: usize) -> &[u8] {
        match &self.data {
            Data::Var {
                large,
                offsets,
                data,
            } => {
                let start = offset_get(offsets, *large, i);
                let end = offset_get(offsets, *large, i + 1);
                &data.as_slice()[start..end]
            }
            _ => &[],
        }
    }

    /// Drop entries from `n` on. Returns where the child (of a list) must be cut.
    pub fn truncate_own(&mut self, n: usize) -> usize {
        let keep = n.min(self.len);
        let child_cut = match &self.data {
            Data::List { large, offsets, .. } => offset_get(offsets, *large, keep),
            _ => 0,
        };
        if self.len > n {
            if let Some(v) = self.validity.as_mut() {
                v.truncate(n);
            }
            match &mut self.data {
                Data::Bool(b) => b.truncate(n),
                Data::Fixed { width, values } => values.truncate(n * *width),
                Data::Var {
                    large,
                    offsets,
                    data,
                } => {
                    data.truncate(offset_get(offsets, *large, n));
                    offsets.truncate((n + 1) * offset_width(*large));
                }
                Data::List { large, offsets, .. } => {
                    offsets.truncate((n + 1) * offset_width(*large))
                }
                Data::Struct { .. } => {}
            }
            self.len = n;
        }
        child_cut
    }

    /// Set aside entries `0..at` (the head, returned without copying) and keep entries
    /// `at..len` (the overflow row) in fresh buffers, offsets rebased to start at 0.
    /// Returns the head and, for a list, the element index where its child must be split.
    pub fn split_own(&mut self, at: usize) -> (Frozen, usize) {
        debug_assert!(
            at <= self.len,
            "{}: split at {at} of {}",
            self.path,
            self.len
        );
        let validity = self.validity.as_mut().map(|v| v.split(at));
        let mut child_at = 0;
        let buffers = match &mut self.data {
            Data::Bool(bits) => vec![bits.split(at).into_inner()],
            Data::Fixed { width, values } => vec![split_bytes(values, at * *width)],
            Data::Var {
                large,
                offsets,
                data,
            } => {
                let cut = offset_get(offsets, *large, at);
                let offs = split_offsets(offsets, *large, at);
                vec![offs, split_bytes(data, cut)]
            }
            Data::List { large, offsets, .. } => {
                child_at = offset_get(offsets, *large, at);
                vec![split_offsets(offsets, *large, at)]
            }
            Data::Struct { .. } => vec![],
        };
        let children = match &self.data {
            Data::Struct { members, .. } => members.clone(),
            Data::List { child, .. } => vec![*child],
            _ => vec![],
        };
        let frozen = Frozen {
            data_type: self.field.data_type().clone(),
            len: at,
            validity,
            buffers,
            children,
        };
        self.len -= at;
        (frozen, child_at)
    }
}

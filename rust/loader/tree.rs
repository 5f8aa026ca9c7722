//! Walking the writer tree: building nodes, write positions, opening entries, committing
//! (back-fill), discarding (truncate) and adding columns mid-batch.

use std::collections::HashMap;

use arrow_buffer::MutableBuffer;

use super::bits::Bits;
use arrow_schema::{DataType, Field, FieldRef};

use super::error::{LoaderError, Result};
use super::lifecycle::ResultSetLoader;
use super::node::{
    new_offsets, offset_width, ColumnId, Data, NameIndex, Node, Physical, Role, ROOT,
};
use super::options::Projection;
use super::path;

/// Field metadata key holding the back-fill value of a non-nullable scalar column.
pub const DEFAULT_METADATA_KEY: &str = "default";

fn physical_of(dt: &DataType) -> Option<(Physical, Data)> {
    let fixed = |width: usize| Data::Fixed {
        width,
        values: MutableBuffer::new(width * 64),
    };
    let var = |large: bool| Data::Var {
        large,
        offsets: new_offsets(large),
        data: MutableBuffer::new(256),
    };
    let int = |width: usize, signed: bool| (Physical::Int { width, signed }, fixed(width));
    Some(match dt {
        DataType::Boolean => (Physical::Bool, Data::Bool(Bits::new(1024))),
        DataType::Int8 => int(1, true),
        DataType::Int16 => int(2, true),
        DataType::Int32 => int(4, true),
        DataType::Int64 => int(8, true),
        DataType::UInt8 => int(1, false),
        DataType::UInt16 => int(2, false),
        DataType::UInt32 => int(4, false),
        DataType::UInt64 => int(8, false),
        DataType::Float32 => (Physical::Float32, fixed(4)),
        DataType::Float64 => (Physical::Float64, fixed(8)),
        DataType::Date32 => (Physical::Date32, fixed(4)),
        DataType::Timestamp(_, _) => (Physical::Timestamp, fixed(8)),
        DataType::Decimal128(precision, scale) => (
            Physical::Decimal {
                precision: *precision,
                scale: *scale,
            },
            fixed(16),
        ),
        DataType::Utf8 => (Physical::Utf8, var(false)),
        DataType::LargeUtf8 => (Physical::Utf8, var(true)),
        DataType::Binary => (Physical::Binary, var(false)),
        DataType::LargeBinary => (Physical::Binary, var(true)),
        _ => return None,
    })
}

/// The nodes of each top-level column outside lists, for the commit's shortcut (see
/// [`ResultSetLoader::finalize_row`]).
pub(crate) struct RowShape {
    /// The projected top-level columns: (position, how many of its nodes are projected,
    /// itself included, or [`WALK_ALWAYS`]).
    widths: Vec<(usize, usize)>,
    /// The lists among them: (top-level position, list, element node).
    lists: Vec<(usize, ColumnId, ColumnId)>,
    /// The columns whose nulls are deferred (see `lazy.rs`), left out of `widths`: the
    /// bytes a null adds to all of them, always and once every 8 rows; the one whose
    /// buffers nulls grow the most, and the most rows it holds within `vector_byte_limit`
    /// (`usize::MAX`: no such column).
    pub(crate) lazy_value_bytes: usize,
    pub(crate) lazy_bitmaps: usize,
    pub(crate) lazy_widest: Option<ColumnId>,
    pub(crate) lazy_most_rows: usize,
}

impl RowShape {
    /// The positions of the top-level columns the commit walks (all but those whose nulls
    /// are deferred): the only ones, with those, whose count of first writes a row sets.
    pub(crate) fn walked_columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.widths.iter().map(|&(top, _)| top)
    }
}

/// The width of a column the commit walks whatever was written: one holding a list of lists
/// (an unsaved element of it may hide below the outer list's last offset). No count of first
/// writes reaches it (they saturate at `usize::MAX`).
const WALK_ALWAYS: usize = usize::MAX - 1;

/// How deep a type may nest: a top-level column is at level 1, each struct member, list
/// element, map entry and entry key/value one level below its parent. Batches cross to Python
/// through the Arrow C data interface, and pyarrow imports at most 64 levels of it, the
/// batch's own struct included.
pub const MAX_NESTING: usize = 63;

/// A name Arrow's C data interface (the way batches reach pyarrow) can carry: it ends names
/// at NUL. `path` gives the column's path for the error (built only then).
fn check_name(name: &str, path: impl FnOnce() -> String) -> Result<()> {
    if name.contains('\0') {
        let path = path();
        return Err(LoaderError::SchemaConflict(format!(
            "column {path:?} has a NUL character in its name: Arrow's C data interface (the \
             way batches reach pyarrow) ends names at NUL"
        )));
    }
    Ok(())
}

/// Check that every type in `field` (at nesting `level`) is one the loader writes, nests no
/// deeper than [`MAX_NESTING`], names can cross to pyarrow, and struct member names are
/// unique (case-insensitively).
pub(crate) fn validate_field(field: &Field, path: &str, level: usize) -> Result<()> {
    if level > MAX_NESTING {
        return Err(LoaderError::SchemaConflict(format!(
            "column '{path}' nests {level} levels deep: at most {MAX_NESTING} cross to pyarrow"
        )));
    }
    check_name(field.name(), || path.to_string())?;
    let below = level + 1;
    match field.data_type() {
        DataType::Struct(fields) => {
            let mut seen = HashMap::new();
            for f in fields {
                if let Some(first) = seen.insert(f.name().to_lowercase(), f.name()) {
                    return Err(LoaderError::SchemaConflict(format!(
                        "struct '{path}' has two members named '{first}' and '{}' \
                         (names are case-insensitive)",
                        f.name()
                    )));
                }
                validate_field(f, &path::member(Some(path), f.name()), below)?;
            }
            Ok(())
        }
        DataType::List(f) | DataType::LargeList(f) => {
            validate_field(f, &format!("{path}[]"), below)
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                validate_field(&kv[0], &format!("{path}.key"), below + 1)?;
                validate_field(&kv[1], &format!("{path}.value"), below + 1)
            }
            _ => Err(LoaderError::SchemaConflict(format!(
                "map column '{path}' must have struct<key, value> entries"
            ))),
        },
        dt if physical_of(dt).is_some() => Ok(()),
        dt => Err(LoaderError::SchemaConflict(format!(
            "column '{path}' has type {dt}, which the loader does not write"
        ))),
    }
}

/// Parse a field's `default` metadata into the bytes a fill pushes.
fn parse_default(field: &Field, physical: Physical, path: &str) -> Result<Option<Vec<u8>>> {
    let Some(text) = field.metadata().get(DEFAULT_METADATA_KEY) else {
        return Ok(None);
    };
    let bad = || {
        LoaderError::SchemaConflict(format!(
            "column '{path}': default '{text}' is not a valid {}",
            field.data_type()
        ))
    };
    let t = text.trim();
    let int = || t.parse::<i128>().map_err(|_| bad());
    let bytes = match physical {
        Physical::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "1" => vec![1],
            "false" | "0" => vec![0],
            _ => return Err(bad()),
        },
        Physical::Int { width, signed } => {
            let v = int()?;
            let bits = (width * 8) as u32;
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return Err(bad());
            }
            v.to_le_bytes()[..width].to_vec()
        }
        Physical::Float32 => t.parse::<f32>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        Physical::Float64 => t.parse::<f64>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        Physical::Decimal { scale, .. } => parse_decimal(t, scale)
            .ok_or_else(bad)?
            .to_le_bytes()
            .to_vec(),
        Physical::Date32 => {
            let days = match int() {
                Ok(d) => i32::try_from(d).map_err(|_| bad())?,
                Err(_) => parse_iso_date(t).ok_or_else(bad)?,
            };
            days.to_le_bytes().to_vec()
        }
        Physical::Timestamp => (int()? as i64).to_le_bytes().to_vec(),
        Physical::Utf8 | Physical::Binary => text.as_bytes().to_vec(),
    };
    Ok(Some(bytes))
}

/// `"-12.5"` at scale 2 -> -1250; an exponent is taken exactly (`"1.5e3"`, `"25E-3"`).
/// `None` if malformed, if it needs more fractional digits than `scale`, or if it does not fit
/// an i128.
pub fn parse_decimal(text: &str, scale: i8) -> Option<i128> {
    decimal_at_scale(text, scale, false)
}

/// [`parse_decimal`], but digits past `scale` are rounded away, half away from zero
/// (Java's `HALF_UP`, as Spark's readers set a decimal to its column's scale):
/// `"1.235"` at scale 2 -> 124, `"-1.235"` -> -124, `"1.5e-3"` -> 0.
pub fn parse_decimal_rounded(text: &str, scale: i8) -> Option<i128> {
    decimal_at_scale(text, scale, true)
}

/// The digits of decimal `text` at `scale`: digits past it refused, or rounded half up.
fn decimal_at_scale(text: &str, scale: i8, round: bool) -> Option<i128> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int_part.is_empty() && frac_part.is_empty()) || scale < 0 {
        return None;
    }
    let digits = int_part.bytes().chain(frac_part.bytes());
    // the value is digits x 10^shift at the column's scale; a negative shift drops digits,
    // which must be zeros unless rounded away
    let mut shift = i64::from(exponent) - frac_part.len() as i64 + i64::from(scale);
    let mut kept: Vec<u8> = Vec::with_capacity(int_part.len() + frac_part.len());
    for d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        if !(kept.is_empty() && d == b'0') {
            kept.push(d - b'0');
        }
    }
    // the most significant digit dropped (what rounding looks at)
    let mut first_dropped = 0;
    while shift < 0 {
        match kept.pop() {
            None => {
                // past every digit: the rest dropped are leading zeros
                first_dropped = 0;
                shift = 0;
            }
            Some(d) => {
                if d != 0 && !round {
                    return None;
                }
                first_dropped = d;
                shift += 1;
            }
        }
    }
    let mut v: i128 = 0;
    for d in kept {
        v = v.checked_mul(10)?.checked_add(i128::from(d))?;
    }
    if v != 0 {
        v = v.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?;
    }
    if first_dropped >= 5 {
        v = v.checked_add(1)?;
    }
    Some(if neg { -v } else { v })
}

/// `"2024-01-31"` -> days since 1970-01-01 (proleptic Gregorian).
pub(crate) fn parse_iso_date(text: &str) -> Option<i32> {
    let mut parts = text.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Whether back-filling `n` entries of `field` has an honest value for every leaf.
fn check_backfill(field: &Field, n: usize, path: &str) -> Result<()> {
    if n == 0 || field.is_nullable() {
        return Ok(());
    }
    match field.data_type() {
        DataType::Date32 | DataType::Timestamp(_, _)
            if !field.metadata().contains_key(DEFAULT_METADATA_KEY) =>
        {
            Err(LoaderError::SchemaConflict(format!(
                "column '{path}' is a non-nullable {} added after the first row: it has no \
                 honest back-fill value; make it nullable or give it a 'default'",
                field.data_type()
            )))
        }
        DataType::Struct(fields) => fields
            .iter()
            .try_for_each(|f| check_backfill(f, n, &path::member(Some(path), f.name()))),
        _ => Ok(()),
    }
}

impl ResultSetLoader {
    /// Apply `f` to node `id`, keeping the batch's byte count exact.
    #[inline(always)]
    pub(crate) fn mutate<R>(&mut self, id: ColumnId, f: impl FnOnce(&mut Node) -> R) -> R {
        let r = f(&mut self.nodes[id]);
        let own = self.nodes[id].own_bytes();
        self.account(id, own);
        r
    }

    /// Count node `id`'s buffers as `own` bytes now, and note if one of them broke
    /// `vector_byte_limit`.
    #[inline(always)]
    pub(crate) fn account(&mut self, id: ColumnId, own: usize) {
        let node = &mut self.nodes[id];
        self.bytes = self.bytes + own - node.counted;
        node.counted = own;
        // A node's largest buffer is never larger than all its buffers (the i32 offsets of a
        // var-width column overflowing count as too large, hence the clamp).
        let limit = self.options.vector_byte_limit;
        if own > limit.min(i32::MAX as usize)
            && self.breach.is_none()
            && node.max_buffer_bytes() > limit
        {
            self.breach = Some(id);
        }
    }

    /// The path a member `name` of struct `parent` would have.
    pub(crate) fn member_path(&self, parent: ColumnId, name: &str) -> String {
        path::member(
            (parent != ROOT).then(|| self.nodes[parent].path.as_str()),
            name,
        )
    }

    /// Whether `add_column(parent, ...)` could name a column `name` (discovery checks a
    /// field it notes before adding it, so the error has its record).
    pub(crate) fn check_member_name(&self, parent: ColumnId, name: &str) -> Result<()> {
        check_name(name, || self.member_path(parent, name))
    }

    /// How deep `id` nests (see [`MAX_NESTING`]; the row is at level 0).
    fn level(&self, id: ColumnId) -> usize {
        let mut level = 0;
        let mut at = id;
        while let Some(parent) = self.parent(at) {
            level += 1;
            at = parent;
        }
        level
    }

    /// The struct or list a node belongs to (`None` for the row).
    #[inline]
    pub(crate) fn parent(&self, id: ColumnId) -> Option<ColumnId> {
        match self.nodes[id].role {
            Role::Root => None,
            Role::Member(p) | Role::Element(p) => Some(p),
        }
    }

    /// The index of the entry a write to `id` lands in.
    #[inline(always)]
    pub(crate) fn pos(&self, id: ColumnId) -> usize {
        match self.nodes[id].anchor {
            None => self.row_pos,
            Some(l) => self.nodes[l].last_offset(),
        }
    }

    /// Member `i` of struct `id` (the row included).
    #[inline]
    pub(crate) fn member_at(&self, id: ColumnId, i: usize) -> Option<ColumnId> {
        match &self.nodes[id].data {
            Data::Struct { members, .. } => members.get(i).copied(),
            _ => None,
        }
    }

    /// The element (or map entries) node of a list.
    #[inline]
    pub(crate) fn child_of(&self, id: ColumnId) -> Option<ColumnId> {
        match &self.nodes[id].data {
            Data::List { child, .. } => Some(*child),
            _ => None,
        }
    }

    /// Make sure the current entry of struct/list `id` (and of its ancestors) exists and is
    /// valid, so members or elements can be written into it.
    #[inline(always)]
    pub(crate) fn ensure_open(&mut self, id: ColumnId) {
        if id == ROOT {
            return;
        }
        let p = self.pos(id);
        if self.is_open_at(id, p) {
            return; // the usual case: the entry was begun
        }
        self.open_at(id, p)
    }

    /// Whether entry `p` of struct or list `id` exists and is valid (not null).
    #[inline(always)]
    pub(crate) fn is_open_at(&self, id: ColumnId, p: usize) -> bool {
        let node = &self.nodes[id];
        node.len == p + 1 && node.is_valid(p)
    }

    /// `ensure_open` when entry `p` of `id` is not open yet (or is null).
    #[inline(never)]
    fn open_at(&mut self, id: ColumnId, p: usize) {
        let node = &self.nodes[id];
        debug_assert!(
            node.len == p || node.len == p + 1,
            "{} len {} pos {p}",
            node.path,
            node.len
        );
        if node.len == p {
            if let Some(parent) = self.parent(id) {
                self.ensure_open(parent);
            }
            self.mutate(id, Node::open_entry);
        } else {
            self.nodes[id].set_last_valid();
        }
    }

    /// Whether committing entry `p` of `id` has anything to do; `false` for the usual case of
    /// a scalar written in that entry (nothing to back-fill or validate).
    #[inline(always)]
    pub(crate) fn needs_finalize(&self, id: ColumnId, p: usize) -> bool {
        let node = &self.nodes[id];
        if node.deferrable_null_bytes().is_some() {
            // its null, if it has none, is deferred, and a value `append_bytes` built is
            // checked by `finalize_row` (`lazy.rs`): nothing to do in a walk
            return false;
        }
        !(node.len == p + 1 && node.physical.is_some() && !node.check_utf8)
    }

    /// `needs_finalize`, also `false` for a struct entry `p` whose members were all written
    /// as scalars in it (a list of structs commits one per element): looked at in place.
    #[inline(always)]
    pub(crate) fn needs_finalize_deep(&self, id: ColumnId, p: usize) -> bool {
        let node = &self.nodes[id];
        match &node.data {
            Data::Struct { members, .. } if node.len == p + 1 && !node.check_utf8 => {
                members.iter().any(|&m| self.needs_finalize(m, p))
            }
            _ => self.needs_finalize(id, p),
        }
    }

    /// Commit entry `p` of `id`: back-fill it if it was not written, recursively for struct
    /// members, and discard list elements that were started but not saved.
    pub(crate) fn finalize(&mut self, id: ColumnId, p: usize) -> Result<()> {
        let node = &self.nodes[id];
        if !node.projected {
            return Ok(());
        }
        if id != ROOT {
            if node.len == p {
                self.mutate(id, Node::push_fill);
            } else if node.check_utf8 {
                self.nodes[id].check_utf8 = false;
                let bytes = self.nodes[id].value_bytes(p);
                if let Err(e) = std::str::from_utf8(bytes) {
                    return Err(LoaderError::SchemaConflict(format!(
                        "column '{}': the bytes appended are not valid UTF-8 ({e})",
                        self.nodes[id].path
                    )));
                }
            }
        }
        match &self.nodes[id].data {
            // Usually every member was written: a pass that only reads tells.
            Data::Struct { members, .. } if members.iter().any(|&m| self.needs_finalize(m, p)) => {
                for i in 0..members.len() {
                    let m = self.member_at(id, i).expect("member");
                    if self.needs_finalize(m, p) {
                        self.finalize(m, p)?;
                    }
                }
            }
            Data::List { child, .. } => {
                let (child, q) = (*child, self.nodes[id].last_offset());
                // Elements past the last saved one: only an unsaved element leaves any.
                let node = &self.nodes[child];
                if node.len > q || matches!(node.data, Data::List { .. }) {
                    self.truncate(child, q);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Discard entries `n..` of `id` and everything below them.
    pub(crate) fn truncate(&mut self, id: ColumnId, n: usize) {
        let node = &self.nodes[id];
        if !node.projected {
            return;
        }
        // Nothing to cut: a scalar is as long as it is; a struct's members are never longer
        // than the struct (writing a member opens its entry). A list may still hold elements
        // of an unsaved element past its last offset, so it is always walked.
        if id != ROOT && node.len <= n && !matches!(node.data, Data::List { .. }) {
            return;
        }
        if node.len > n {
            // entries counted as first writes go: written again, they would count twice
            self.uncount_column(id);
            self.unnote_lazy_write(id, n);
        }
        let cut = if id == ROOT {
            n
        } else {
            self.mutate(id, |node| node.truncate_own(n))
        };
        match &self.nodes[id].data {
            Data::Struct { members, .. } => {
                for i in 0..members.len() {
                    let m = self.member_at(id, i).expect("member");
                    self.truncate(m, n);
                }
            }
            Data::List { child, .. } => {
                let child = *child;
                self.truncate(child, cut)
            }
            _ => {}
        }
    }

    /// Make the commit walk the top-level column of `id` (see `finalize_row`): an entry of
    /// it went, or needs a check. Nodes in lists have no count.
    pub(crate) fn uncount_column(&mut self, id: ColumnId) {
        let node = &self.nodes[id];
        // (the commit walks no column whose nulls are deferred: its count only tells
        // whether the row wrote it, `lazy.rs`)
        if node.anchor.is_none() && node.deferrable_null_bytes().is_none() {
            if let Some(count) = self.top_writes.get_mut(node.top) {
                *count = usize::MAX;
            }
        }
    }

    /// Back-fill a new node with `n` entries (struct members too; lists stay empty).
    fn backfill(&mut self, id: ColumnId, n: usize) {
        if n == 0 || !self.nodes[id].projected {
            return;
        }
        self.mutate(id, |node| {
            for _ in 0..n {
                node.push_fill()
            }
        });
        if let Data::Struct { members, .. } = &self.nodes[id].data {
            for i in 0..members.len() {
                let m = self.member_at(id, i).expect("member");
                self.backfill(m, n);
            }
        }
    }

    /// Create the node (and its children) for `field`. The field must have been validated.
    pub(crate) fn build_node(
        &mut self,
        field: &FieldRef,
        role: Role,
        projection: Option<Projection>,
        path: String,
        structural: bool,
    ) -> Result<ColumnId> {
        let id = self.nodes.len();
        let projected = projection.is_some();
        let dt = field.data_type();
        // Element indexes (`c[1]`) select elements of a list only; elsewhere they mean nothing.
        let projection = match (projection, dt) {
            (Some(p), DataType::List(_) | DataType::LargeList(_)) => Some(p),
            (p, _) => p.map(|p| p.element().clone()),
        };
        let (physical, data) = match dt {
            DataType::Struct(_) => (
                None,
                Data::Struct {
                    members: Vec::new(),
                    index: NameIndex::default(),
                },
            ),
            DataType::List(_) | DataType::Map(_, _) => (
                None,
                Data::List {
                    large: false,
                    offsets: new_offsets(false),
                    child: ROOT,
                },
            ),
            DataType::LargeList(_) => (
                None,
                Data::List {
                    large: true,
                    offsets: new_offsets(true),
                    child: ROOT,
                },
            ),
            dt => {
                let (p, d) = physical_of(dt).ok_or_else(|| {
                    LoaderError::SchemaConflict(format!("column '{path}': unsupported {dt}"))
                })?;
                (Some(p), d)
            }
        };
        let default = match physical {
            Some(p) => parse_default(field, p, &path)?,
            None => None,
        };
        let validity = (field.is_nullable() && role != Role::Root).then(|| Bits::new(1024));
        let anchor = match role {
            Role::Root => None,
            Role::Member(s) => self.nodes[s].anchor,
            Role::Element(l) => Some(l),
        };
        let top = match role {
            Role::Root => usize::MAX,
            Role::Member(ROOT) => self.top_writes.len(),
            Role::Member(s) | Role::Element(s) => self.nodes[s].top,
        };
        self.nodes.push(Node {
            field: field.clone(),
            path: path.clone(),
            role,
            anchor,
            projected,
            projection: projection.clone().unwrap_or(Projection::All),
            physical,
            len: 0,
            counted: 0,
            validity,
            data,
            default: default.unwrap_or_default(),
            check_utf8: false,
            top,
            deferrable: None,
            noted_in: 0,
            any_text: false,
            declared: match role {
                Role::Member(s) | Role::Element(s) if s != ROOT => self.nodes[s].declared,
                _ => false,
            },
        });
        self.nodes[id].deferrable = self.nodes[id].null_bytes_if_deferred();
        if projected {
            let own = self.nodes[id].own_bytes();
            self.nodes[id].counted = own;
            self.bytes += own;
            if !structural && !matches!(role, Role::Element(_)) {
                self.schema_version += 1;
            }
        }
        match dt {
            DataType::Struct(fields) => {
                for f in fields {
                    let member_projection = projection.as_ref().and_then(|p| p.member(f.name()));
                    let member_projection = member_projection.cloned();
                    // Only a map's entries struct makes its members (key, value) structural.
                    let member_structural = structural && matches!(role, Role::Element(_));
                    self.attach_member(id, f, member_projection, member_structural)?;
                }
            }
            DataType::List(f) | DataType::LargeList(f) => {
                let child = self.build_node(
                    f,
                    Role::Element(id),
                    projection.as_ref().map(|p| p.element().clone()),
                    format!("{path}[]"),
                    false,
                )?;
                self.set_child(id, child);
            }
            DataType::Map(entries, _) => {
                // A map is projected whole: its entries and key/value are structure, not
                // columns of their own.
                let whole = projection.map(|_| Projection::All);
                let child =
                    self.build_node(entries, Role::Element(id), whole, path.to_string(), true)?;
                self.set_child(id, child);
            }
            _ => {}
        }
        Ok(id)
    }

    fn set_child(&mut self, list: ColumnId, new_child: ColumnId) {
        if let Data::List { child, .. } = &mut self.nodes[list].data {
            *child = new_child;
        }
        self.row_shape = None;
    }

    /// Build member `field` of struct `parent` and register it by name.
    fn attach_member(
        &mut self,
        parent: ColumnId,
        field: &FieldRef,
        projection: Option<Projection>,
        structural: bool,
    ) -> Result<ColumnId> {
        let path = self.member_path(parent, field.name());
        let projection = if self.nodes[parent].projected {
            projection
        } else {
            None
        };
        let id = self.build_node(field, Role::Member(parent), projection, path, structural)?;
        if let Data::Struct { members, index } = &mut self.nodes[parent].data {
            index.insert(field.name().to_lowercase(), members.len());
            members.push(id);
        }
        if parent == ROOT {
            self.top_writes.push(0);
        }
        self.row_shape = None;
        Ok(id)
    }

    /// Add a column to struct `parent` (`ROOT` for a top-level column) at any time; it is
    /// back-filled for the entries already committed in the current batch. Returns its id.
    pub fn add_column(&mut self, parent: ColumnId, field: impl Into<FieldRef>) -> Result<ColumnId> {
        self.check_open()?;
        let field: FieldRef = field.into();
        let node = self
            .nodes
            .get(parent)
            .ok_or_else(|| LoaderError::InvalidArgument(format!("no column with id {parent}")))?;
        let Data::Struct { members, index } = &node.data else {
            return Err(LoaderError::SchemaConflict(format!(
                "cannot add column '{}' to '{}': it is not a struct",
                field.name(),
                node.path
            )));
        };
        if let Some(&i) = index.get(&field.name().to_lowercase()) {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' already exists as '{}' (names are case-insensitive)",
                field.name(),
                self.nodes[members[i]].field.name()
            )));
        }
        if self.structural(parent) {
            return Err(LoaderError::SchemaConflict(format!(
                "cannot add column '{}' to the entries of map '{}'",
                field.name(),
                node.path
            )));
        }
        let path = self.member_path(parent, field.name());
        validate_field(&field, &path, self.level(parent) + 1)?;
        let projection = node.projection.member(field.name()).cloned();
        let projected = node.projected && projection.is_some();
        let n = if projected { self.pos(parent) } else { 0 };
        check_backfill(&field, n, &path)?;
        let id = self.attach_member(parent, &field, projection, false)?;
        self.backfill(id, n);
        self.breach = None;
        if projected && self.row_pos > 0 && self.frozen.is_none() && self.limits_broken(id) {
            self.defer_column(id, parent);
        }
        Ok(id)
    }

    /// A column whose back-fill took the batch past a limit: the committed rows cannot move,
    /// so they are set aside without it (as if it had been added after them) and it starts
    /// with the look-ahead batch, where the row being written (if any) goes too.
    fn defer_column(&mut self, id: ColumnId, parent: ColumnId) {
        self.truncate(id, 0);
        self.nodes[id].projected = false; // not part of the batch set aside
        let at = self.row_pos;
        self.frozen = Some(self.split_tree(at));
        self.row_pos = 0;
        self.nodes[id].projected = true;
        let n = self.pos(parent);
        self.backfill(id, n);
        for node in self.nodes.iter_mut().filter(|n| n.projected) {
            node.counted = node.own_bytes();
        }
        self.bytes = self.recount_bytes();
        self.breach = None;
    }

    /// Give list `list` a new element type while it holds no element in the current batch
    /// but nulls (schema discovery: a list first seen empty, or with null elements, gets its
    /// element type from the first non-null element). Returns the new element's id; batches
    /// set aside keep the old element.
    pub fn replace_element(
        &mut self,
        list: ColumnId,
        element: impl Into<FieldRef>,
    ) -> Result<ColumnId> {
        self.check_open()?;
        let element: FieldRef = element.into();
        let Some(old) = self.child_of(list) else {
            return Err(LoaderError::SchemaConflict(format!(
                "'{}' is not a list",
                self.nodes[list].path
            )));
        };
        if !matches!(
            self.nodes[list].field.data_type(),
            DataType::List(_) | DataType::LargeList(_)
        ) {
            return Err(LoaderError::SchemaConflict(format!(
                "'{}' is not a list",
                self.nodes[list].path
            )));
        }
        // Elements already in the batch can only be nulls (`[null, 1]`): the new element
        // column starts with as many.
        let held = self.nodes[old].len;
        let only_nulls = (0..held).all(|i| !self.nodes[old].is_valid(i));
        if held > 0 && !(only_nulls && element.is_nullable()) {
            return Err(LoaderError::SchemaConflict(format!(
                "the elements of '{}' cannot change type: the batch already holds some",
                self.nodes[list].path
            )));
        }
        let path = format!("{}[]", self.nodes[list].path);
        validate_field(&element, &path, self.level(list) + 1)?;
        let projection = self.nodes[list]
            .projected
            .then(|| self.nodes[list].projection.element().clone());
        if self.nodes[old].projected {
            self.bytes = self.bytes.saturating_sub(self.nodes[old].counted);
            self.nodes[old].counted = 0;
            self.nodes[old].projected = false;
        }
        let id = self.build_node(&element, Role::Element(list), projection, path, false)?;
        self.set_child(list, id);
        self.backfill(id, held);
        self.set_list_element(list, element);
        if self.nodes[list].projected {
            self.schema_version += 1;
        }
        Ok(id)
    }

    /// Give list `list`'s field the element field `element` (a list or large list still).
    pub(crate) fn set_list_element(&mut self, list: ColumnId, element: FieldRef) {
        let dt = match self.nodes[list].field.data_type() {
            DataType::LargeList(_) => DataType::LargeList(element),
            _ => DataType::List(element),
        };
        self.nodes[list].set_data_type(dt);
    }

    /// Commit row entry `p`: back-fill what the row did not write. A top-level column whose
    /// nodes outside lists each had their first write, and whose lists hold no element
    /// started and never saved, is skipped (`finalize` would find nothing to do).
    pub(crate) fn finalize_row(&mut self, p: usize) -> Result<()> {
        if self.row_shape.is_none() {
            self.row_shape = Some(self.measure_row());
        }
        // columns whose nulls are deferred are not walked: those that took bytes from
        // `append_bytes` have their UTF-8 checked here
        for i in 0..self.lazy_utf8.len() {
            let id = self.lazy_utf8[i];
            if self
                .nodes
                .get(id)
                .is_some_and(|n| n.len == p + 1 && n.check_utf8)
            {
                self.finalize(id, p)?;
            }
        }
        let Some(shape) = &self.row_shape else {
            unreachable!("measured above");
        };
        for &(top, list, element) in &shape.lists {
            if self.nodes[element].len != self.nodes[list].last_offset() {
                self.top_writes[top] = usize::MAX; // an element left unsaved: cut it
            }
        }
        let counts = &self.top_writes;
        let Some(first) = shape.widths.iter().position(|&(i, w)| counts[i] != w) else {
            return Ok(()); // the usual row: every column written whole
        };
        let shape = self.row_shape.take().expect("measured above");
        let mut result = Ok(());
        for &(i, width) in &shape.widths[first..] {
            if self.top_writes[i] == width {
                continue;
            }
            let m = self.member_at(ROOT, i).expect("member");
            if self.needs_finalize(m, p) {
                result = self.finalize(m, p);
                if result.is_err() {
                    break;
                }
            }
        }
        self.row_shape = Some(shape);
        result
    }

    /// The projected nodes outside lists of each top-level column (lists included, their
    /// elements not).
    fn measure_row(&self) -> RowShape {
        let mut widths = vec![0; self.top_writes.len()];
        let mut lists = Vec::new();
        let (mut lazy_value_bytes, mut lazy_bitmaps) = (0, 0);
        let mut lazy_widest: Option<(usize, ColumnId)> = None;
        let row = self.nodes.iter().enumerate().skip(1);
        for (id, node) in row.filter(|(_, n)| n.projected && n.anchor.is_none()) {
            if let Some((values, bitmaps)) = node.deferrable_null_bytes() {
                lazy_value_bytes += values;
                lazy_bitmaps += bitmaps;
                let most_rows = self.most_null_rows(id);
                if lazy_widest.is_none_or(|(fewest, _)| most_rows < fewest) {
                    lazy_widest = Some((most_rows, id));
                }
                continue;
            }
            let width = &mut widths[node.top];
            if *width != WALK_ALWAYS {
                *width += 1;
            }
            if let Data::List { child, .. } = node.data {
                if matches!(self.nodes[child].data, Data::List { .. }) {
                    *width = WALK_ALWAYS;
                }
                lists.push((node.top, id, child));
            }
        }
        // an unprojected column has no nodes to fill
        let widths = widths.into_iter().enumerate().filter(|&(_, w)| w > 0);
        RowShape {
            widths: widths.collect(),
            lists,
            lazy_value_bytes,
            lazy_bitmaps,
            lazy_widest: lazy_widest.map(|(_, id)| id),
            lazy_most_rows: lazy_widest.map_or(usize::MAX, |(rows, _)| rows),
        }
    }

    /// The most rows column `id` (a nullable scalar) can hold before the growth nulls give
    /// its validity, values or offsets takes one past `vector_byte_limit` (the data bytes
    /// of a var-width column grow only by writes, which check them).
    fn most_null_rows(&self, id: ColumnId) -> usize {
        let limit = self.options.vector_byte_limit;
        let bitmaps = limit.saturating_mul(8);
        match &self.nodes[id].data {
            Data::Fixed { width, .. } => (limit / width).min(bitmaps),
            Data::Var { large, .. } => (limit / offset_width(*large))
                .saturating_sub(1)
                .min(bitmaps),
            _ => bitmaps,
        }
    }

    /// Whether `id` is a map's entries struct (its members are fixed).
    fn structural(&self, id: ColumnId) -> bool {
        match self.nodes[id].role {
            Role::Element(l) => matches!(self.nodes[l].field.data_type(), DataType::Map(..)),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text() {
        assert_eq!(parse_decimal("-12.5", 2), Some(-1250));
        assert_eq!(parse_decimal("3", 0), Some(3));
        assert_eq!(parse_decimal("1.234", 2), None);
        assert_eq!(parse_decimal("1.2300", 2), Some(123));
        assert_eq!(parse_decimal("x", 2), None);
        assert_eq!(parse_decimal("1.5e3", 0), Some(1500));
        assert_eq!(parse_decimal("25E-3", 3), Some(25));
        assert_eq!(parse_decimal("25E-3", 2), None);
        assert_eq!(parse_decimal("-1e-10", 10), Some(-1));
        assert_eq!(parse_decimal("1200e-2", 0), Some(12));
        assert_eq!(parse_decimal("0e-999", 0), Some(0));
        assert_eq!(parse_decimal("0.000", 0), Some(0));
        assert_eq!(parse_decimal("1e39", 0), None);
        assert_eq!(parse_decimal("1e999999", 0), None);
        assert_eq!(parse_decimal("1e", 0), None);
        assert_eq!(parse_decimal("1.2.3", 2), None);
        assert_eq!(parse_decimal(".5", 1), Some(5));
    }

    /// Java's `BigDecimal.setScale(scale, HALF_UP)`, as Spark sets a decimal to its
    /// column's scale (the cases probed against Spark 4.3's JSON and CSV readers too).
    #[test]
    fn decimal_text_rounded_half_up() {
        let cases: &[(&str, i8, Option<i128>)] = &[
            ("1.234", 2, Some(123)),
            ("1.235", 2, Some(124)),
            ("-1.235", 2, Some(-124)),
            ("1.2", 2, Some(120)),
            ("999.994", 2, Some(99999)),
            ("999.995", 2, Some(100000)),
            ("0.005", 2, Some(1)),
            ("0.0049999", 2, Some(0)),
            ("-0.005", 2, Some(-1)),
            ("1.5e-3", 2, Some(0)),
            ("5e-3", 2, Some(1)),
            ("5e-4", 2, Some(0)),
            ("1e-999999", 2, Some(0)),
            ("9.5", 0, Some(10)),
            ("2.5", 0, Some(3)),
            ("-2.5", 0, Some(-3)),
            ("2.49", 0, Some(2)),
            ("1200e-2", 0, Some(12)),
            ("1.5e3", 0, Some(1500)),
            ("x", 2, None),
            ("1.2.3", 2, None),
            ("1e39", 0, None),
        ];
        for &(text, scale, want) in cases {
            assert_eq!(
                parse_decimal_rounded(text, scale),
                want,
                "{text} at {scale}"
            );
            // exact texts read the same either way; the others only rounded
            let exact = parse_decimal(text, scale);
            assert!(exact.is_none() || exact == want, "{text} at {scale}");
        }
        assert_eq!(parse_decimal("1.235", 2), None);
    }

    #[test]
    fn iso_dates() {
        assert_eq!(parse_iso_date("1970-01-01"), Some(0));
        assert_eq!(parse_iso_date("2000-03-01"), Some(11017));
        assert_eq!(parse_iso_date("1969-12-31"), Some(-1));
        assert_eq!(parse_iso_date("2024-13-01"), None);
    }
}

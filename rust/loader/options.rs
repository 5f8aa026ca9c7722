//! Loader options and the loader's view of a projection list.

use std::collections::HashMap;

use arrow_schema::SchemaRef;

use super::error::{LoaderError, Result};

/// Which columns the consumer wants. Unprojected columns still get writers (so readers need no
/// special cases) but their values are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Projection {
    /// Every column and every member (`None` or `["*"]`).
    All,
    /// Only the named columns; each maps (lower-cased) to the projection of its members.
    /// An empty map projects no column at all (`[]`).
    Some(HashMap<String, Projection>),
    /// Only some elements of a list (`c[1]`, `c[0]`): the positions asked for, sorted, and the
    /// projection of each element. A list keeps its elements' positions: an element not asked
    /// for is null, elements past the last one asked for are not kept. On anything but a list
    /// the indexes mean nothing and `element` is the projection.
    Elements {
        /// The positions asked for, sorted, without repeats.
        indexes: Vec<usize>,
        /// The projection of each element kept.
        element: Box<Projection>,
    },
    /// The whole column, named by members too (`m.a, m`): read as `All`, but a struct's
    /// shape for a column seen only as null (as the scan's schema expects), and each member
    /// named the shape its mentions give it (`m.l[1], m`: `l` a list), by lower-cased name.
    AllMembers(HashMap<String, Projection>),
    /// Every element of a list, each projected so: a list named by an index and without one
    /// (`c[1], c`), or by an index and by members (`c[1], c.x`: every element, as `c.x` wants
    /// every element's `x`). A list's shape for a column seen only as null.
    EveryElement(Box<Projection>),
}

/// What a list projected by element index does with its element at some position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementFate {
    /// Asked for: written as it comes.
    Keep,
    /// Not asked for, but before the last one that is: a null keeps the positions.
    Null,
    /// Past the last position asked for: dropped, as is every later element.
    Drop,
}

impl Projection {
    /// Parse a projection list: `a`, `m.b`, `m1.m2.c[3]`, `c[1].x`, `*`. An array index
    /// projects that element of a list (the first index of a segment counts); names are
    /// case-insensitive; a name holding `.`, `[` or `]` goes in backquotes (`` `a.b` ``), a
    /// backquote in it doubled (`` `a``b` `` is a`b).
    pub fn parse<S: AsRef<str>>(paths: &[S]) -> Result<Projection> {
        let mut root = Projection::Some(HashMap::new());
        for path in paths {
            let path = path.as_ref().trim();
            if path == "*" {
                return Ok(Projection::All);
            }
            let segments = split_path(path).ok_or_else(|| {
                LoaderError::InvalidArgument(format!(
                    "malformed projection path '{path}': expected names (`quoted` if they hold \
                     '.', '[' or ']', a backquote in them doubled), each with optional [index]es, joined by '.'"
                ))
            })?;
            root.insert(&segments);
        }
        Ok(root)
    }

    /// Add the path `segments` (name, first array index) to a `Some` projection.
    fn insert(&mut self, segments: &[(String, Option<usize>)]) {
        let Projection::Some(map) = self else { return };
        let ((name, index), rest) = segments.split_first().expect("a path has a segment");
        let mut tail = Projection::All;
        if !rest.is_empty() {
            tail = Projection::Some(HashMap::new());
            tail.insert(rest);
        }
        let new = match index {
            None => tail,
            Some(i) => Projection::Elements {
                indexes: vec![*i],
                element: Box::new(tail),
            },
        };
        match map.get_mut(name) {
            None => {
                map.insert(name.clone(), new);
            }
            Some(old) => old.merge(new),
        }
    }

    /// Fold a second mention of a column into this one: the whole column wins over members
    /// (`m.a, m`), a mention without an index over indexes (`c[1], c`), indexes add up,
    /// members add up; what the mentions say of the column's shape (a struct, a list) stays.
    fn merge(&mut self, other: Projection) {
        let this = std::mem::replace(self, Projection::All);
        *self = Projection::merged(this, other);
    }

    fn merged(a: Projection, b: Projection) -> Projection {
        use Projection::*;
        match (a, b) {
            (All, All) => All,
            (All, p) | (p, All) => p.whole(),
            (Some(a), Some(b)) => Some(merged_members(a, b)),
            (AllMembers(a), Some(b) | AllMembers(b)) | (Some(a), AllMembers(b)) => {
                Some(merged_members(a, b)).whole()
            }
            (
                Elements { indexes, element },
                Elements {
                    indexes: more,
                    element: other,
                },
            ) => {
                let mut indexes = indexes;
                indexes.extend(more);
                indexes.sort_unstable();
                indexes.dedup();
                let element = Box::new(Projection::merged(*element, *other));
                Elements { indexes, element }
            }
            // every element (`c[1], c`, `c[1], c.x`), or members and elements (`c.x, c[1]`)
            (a, b) => EveryElement(Box::new(Projection::merged(
                a.into_element(),
                b.into_element(),
            ))),
        }
    }

    /// The whole column, with the shape this projection gives it.
    fn whole(self) -> Projection {
        match self {
            Projection::All => Projection::All,
            Projection::Some(members) | Projection::AllMembers(members) => Projection::AllMembers(
                members
                    .into_iter()
                    .map(|(name, p)| (name, p.whole()))
                    .collect(),
            ),
            Projection::Elements { element, .. } | Projection::EveryElement(element) => {
                Projection::EveryElement(Box::new(element.whole()))
            }
        }
    }

    /// The projection of a list's elements, or this one if it names no element.
    fn into_element(self) -> Projection {
        match self {
            Projection::Elements { element, .. } | Projection::EveryElement(element) => *element,
            p => p,
        }
    }

    /// The projection of member `name`, or `None` if it is not projected.
    pub fn member(&self, name: &str) -> Option<&Projection> {
        match self {
            Projection::All => Some(&Projection::All),
            Projection::Some(map) => map.get(&name.to_lowercase()),
            Projection::AllMembers(map) => map.get(&name.to_lowercase()).or(Some(&Projection::All)),
            Projection::Elements { element, .. } | Projection::EveryElement(element) => {
                element.member(name)
            }
        }
    }

    /// The projection of each element of a list (or, for a non-list, of the column itself).
    pub fn element(&self) -> &Projection {
        match self {
            Projection::Elements { element, .. } | Projection::EveryElement(element) => element,
            p => p,
        }
    }

    /// What a list projected this way does with its element at position `i`.
    #[inline]
    pub fn element_fate(&self, i: usize) -> ElementFate {
        match self {
            Projection::Elements { indexes, .. } => {
                if indexes.binary_search(&i).is_ok() {
                    ElementFate::Keep
                } else if indexes.last().is_some_and(|&last| i < last) {
                    ElementFate::Null
                } else {
                    ElementFate::Drop
                }
            }
            _ => ElementFate::Keep,
        }
    }
}

/// Two mentions' members, a member both name merged.
fn merged_members(
    mut a: HashMap<String, Projection>,
    b: HashMap<String, Projection>,
) -> HashMap<String, Projection> {
    for (name, p) in b {
        match a.get_mut(&name) {
            None => {
                a.insert(name, p);
            }
            Some(old) => old.merge(p),
        }
    }
    a
}

/// The segments of a projection path, lower-cased: names joined by `.`, each with optional
/// `[index]`es (the first counts). A name in backquotes (`` `a.b` ``) may hold anything but a
/// backquote; a bare one anything but `.`, `[`, `]` and backquotes (trimmed).
fn split_path(path: &str) -> Option<Vec<(String, Option<usize>)>> {
    let mut segments = Vec::new();
    let mut rest = path.trim_start();
    loop {
        // only a quoted name may be empty (`` is the key "")
        let (name, after) = match rest.strip_prefix('`') {
            Some(quoted) => backquoted(quoted)?,
            None => {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                let name = rest[..end].trim();
                if name.is_empty() || name.contains([']', '`']) {
                    return None;
                }
                (name.to_string(), &rest[end..])
            }
        };
        let mut after = after.trim_start();
        let mut index = None;
        while let Some(open) = after.strip_prefix('[') {
            let close = open.find(']')?;
            let i: usize = open[..close].trim().parse().ok()?;
            index.get_or_insert(i);
            after = open[close + 1..].trim_start();
        }
        segments.push((name.to_lowercase(), index));
        if after.is_empty() {
            return Some(segments);
        }
        rest = after.strip_prefix('.')?.trim_start();
    }
}

/// The name in backquotes that `quoted` starts with (its opening backquote consumed), a
/// doubled backquote standing for one (as in Spark SQL), and what follows its closing one.
fn backquoted(quoted: &str) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut rest = quoted;
    loop {
        let end = rest.find('`')?;
        name.push_str(&rest[..end]);
        match rest[end + 1..].strip_prefix('`') {
            Some(more) => {
                name.push('`');
                rest = more;
            }
            None => return Some((name, &rest[end + 1..])),
        }
    }
}

/// Limits and schema of a loader. See DESIGN.md section 1.
#[derive(Debug, Clone)]
pub struct LoaderOptions {
    /// Columns known up front; more can be added at any time.
    pub schema: Option<SchemaRef>,
    /// Which columns to keep.
    pub projection: Projection,
    /// Maximum rows per batch (>= 1).
    pub row_limit: usize,
    /// Maximum bytes of any one buffer of any one column.
    pub vector_byte_limit: usize,
    /// Optional maximum of all buffers of a batch together.
    pub batch_byte_limit: Option<usize>,
    /// Optional total rows for the whole scan (LIMIT push-down).
    pub limit: Option<u64>,
    /// Room kept in every batch for columns the consumer adds outside the loader (a scan's
    /// file and null columns), so the batch it finally hands on still respects the limits.
    pub reserve: Reserve,
    /// Top-level columns of `schema` whose types were inferred from earlier data (a scan's
    /// earlier files), not declared: writers that discover treat them as their own
    /// discoveries, so an int64 in them (at any depth) widens to float64 when a float comes.
    pub inferred: Vec<String>,
    /// Columns of `schema` whose types the user declared (a scan's `schema=`), as opposed to
    /// types taken from data, by top-level name or by path (`m.x`, as
    /// `ResultSetLoader::path` spells it: that member and what it holds): a reader converts
    /// values to them, and a utf8 one (at any depth) takes any JSON value, a non-string as
    /// its JSON text (Spark's rule).
    pub declared: Vec<String>,
    /// Parts of `schema` whose utf8 types were guesses the scan fixed (no value had shown
    /// them: only nulls, lists only empty), by path as `ResultSetLoader::path` spells them
    /// (`x`, `m.x`, `l[]`; any case): their utf8 columns (at any depth) take any JSON value,
    /// a non-string as its JSON text, as a declared utf8 column does.
    pub text_guesses: Vec<String>,
}

/// Bytes a consumer will add to each batch outside the loader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reserve {
    /// Bytes added per row, all added buffers together.
    pub per_row: usize,
    /// Bytes added per batch whatever its rows (e.g. one more offset per column).
    pub per_batch: usize,
    /// Bytes the largest single added buffer grows by per row.
    pub largest_buffer_per_row: usize,
}

impl Reserve {
    /// Total bytes reserved for a batch of `rows` rows.
    pub fn total(&self, rows: usize) -> usize {
        if *self == Reserve::default() {
            return 0;
        }
        self.per_batch + rows * self.per_row
    }

    /// Bytes of the largest added buffer for `rows` rows.
    pub fn largest_buffer(&self, rows: usize) -> usize {
        if self.largest_buffer_per_row == 0 {
            return 0;
        }
        self.per_batch + rows * self.largest_buffer_per_row
    }
}

impl Default for LoaderOptions {
    fn default() -> Self {
        LoaderOptions {
            schema: None,
            projection: Projection::All,
            row_limit: 65536,
            vector_byte_limit: 16 << 20,
            batch_byte_limit: None,
            limit: None,
            reserve: Reserve::default(),
            inferred: Vec::new(),
            declared: Vec::new(),
            text_guesses: Vec::new(),
        }
    }
}

impl LoaderOptions {
    /// Check the options' domains.
    pub fn validate(&self) -> Result<()> {
        if self.row_limit < 1 {
            return Err(LoaderError::InvalidArgument(format!(
                "row_limit must be >= 1, got {}",
                self.row_limit
            )));
        }
        if self.vector_byte_limit < 1 {
            return Err(LoaderError::InvalidArgument(
                "vector_byte_limit must be >= 1".into(),
            ));
        }
        if self.batch_byte_limit == Some(0) {
            return Err(LoaderError::InvalidArgument(
                "batch_byte_limit must be >= 1".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(indexes: &[usize], element: Projection) -> Projection {
        Projection::Elements {
            indexes: indexes.to_vec(),
            element: Box::new(element),
        }
    }

    #[test]
    fn parses_nested_paths_and_indexes() {
        let p = Projection::parse(&["a", "M.b", "c[2]", "m.x.y", "m.l[ 3 ]"]).unwrap();
        assert_eq!(p.member("A"), Some(&Projection::All));
        assert_eq!(p.member("c"), Some(&elements(&[2], Projection::All)));
        let m = p.member("m").unwrap();
        assert_eq!(m.member("l"), Some(&elements(&[3], Projection::All)));
        assert_eq!(m.member("b"), Some(&Projection::All));
        assert!(m.member("z").is_none());
        assert!(m.member("x").unwrap().member("y").is_some());
        assert!(p.member("zz").is_none());
    }

    #[test]
    fn backquoted_names_may_hold_dots_brackets_and_spaces() {
        let p = Projection::parse(&["`a.b`", "a.`C.d`[2]", "` x[1] `", "m . n [ 0 ][5]"]).unwrap();
        assert_eq!(p.member("a.b"), Some(&Projection::All));
        let a = p.member("a").unwrap();
        assert_eq!(a.member("c.d"), Some(&elements(&[2], Projection::All)));
        assert!(a.member("b").is_none());
        assert_eq!(p.member(" x[1] "), Some(&Projection::All));
        let m = p.member("m").unwrap();
        assert_eq!(m.member("n"), Some(&elements(&[0], Projection::All)));
        for bad in [
            "`a", "a.", "a]", "c[x]", "a b.`c`d", ".a", "a[1]b", "", "a..b",
        ] {
            assert!(Projection::parse(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_doubled_backquote_in_a_quoted_name_is_one() {
        let p = Projection::parse(&["`a``b`.`x``y```", "````", "`p`` q`[1]"]).unwrap();
        let ab = p.member("a`b").unwrap();
        assert_eq!(ab.member("x`y`"), Some(&Projection::All));
        assert_eq!(p.member("`"), Some(&Projection::All));
        let empty = Projection::parse(&["``", "m.``"]).unwrap();
        assert_eq!(empty.member(""), Some(&Projection::All));
        assert_eq!(
            empty.member("m").unwrap().member(""),
            Some(&Projection::All)
        );
        assert_eq!(p.member("p` q"), Some(&elements(&[1], Projection::All)));
        assert!(p.member("a").is_none() && p.member("ab").is_none());
        let closing = Projection::parse(&["`a```"]).unwrap();
        assert_eq!(closing.member("a`"), Some(&Projection::All));
        for bad in ["`a`b`", "```", "`a``"] {
            assert!(Projection::parse(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn whole_map_wins_over_members() {
        for paths in [["m.a", "m"], ["m", "m.a"]] {
            let p = Projection::parse(&paths).unwrap();
            let m = p.member("m").unwrap();
            assert!(matches!(m, Projection::AllMembers(_)), "{paths:?}");
            assert_eq!(m.member("zzz"), Some(&Projection::All));
            assert_eq!(m.element_fate(7), ElementFate::Keep);
        }
        // a member of a member: the whole of the outer one still has a struct's shape
        let p = Projection::parse(&["m.a.b", "M", "m.c"]).unwrap();
        let m = p.member("m").unwrap();
        assert!(
            matches!(m.member("a"), Some(Projection::AllMembers(_))),
            "{m:?}"
        );
        assert_eq!(m.member("c"), Some(&Projection::All));
        // and a member named as a list keeps a list's shape, every element kept
        let p = Projection::parse(&["m", "m.l[2]"]).unwrap();
        let l = p.member("m").unwrap().member("l").unwrap();
        assert_eq!(l, &Projection::EveryElement(Box::new(Projection::All)));
    }

    #[test]
    fn element_indexes_merge() {
        let p = Projection::parse(&["c[4]", "c[0]", "C[4]"]).unwrap();
        assert_eq!(p.member("c"), Some(&elements(&[0, 4], Projection::All)));
        // a mention without an index wants every element, in either order
        let every = |element| Projection::EveryElement(Box::new(element));
        for paths in [["c[1]", "c"], ["c", "c[1]"]] {
            let p = Projection::parse(&paths).unwrap();
            assert_eq!(p.member("c"), Some(&every(Projection::All)), "{paths:?}");
            assert_eq!(p.member("c").unwrap().element_fate(9), ElementFate::Keep);
        }
        // the elements' members named too: every element whole, and a list of structs
        for paths in [["c[1].x", "c"], ["c", "c[1].x"]] {
            let p = Projection::parse(&paths).unwrap();
            let want = every(Projection::AllMembers(
                [("x".into(), Projection::All)].into(),
            ));
            assert_eq!(p.member("c"), Some(&want), "{paths:?}");
        }
        // members of the elements: `c[1].x, c[2].y` -> elements 1, 2, each with x and y
        let p = Projection::parse(&["c[2].y", "c[1].x"]).unwrap();
        let Some(Projection::Elements { indexes, element }) = p.member("c") else {
            panic!("{p:?}");
        };
        assert_eq!(indexes, &[1, 2]);
        assert!(element.member("x").is_some() && element.member("y").is_some());
        assert!(element.member("z").is_none());
        // `c.x` wants x of every element: it wins over the index, the members add up
        for paths in [["c[1].y", "c.x"], ["c.x", "c[1].y"]] {
            let p = Projection::parse(&paths).unwrap();
            let c = p.member("c").unwrap();
            assert!(matches!(c.element(), Projection::Some(_)), "{c:?}");
            assert!(matches!(c, Projection::EveryElement(_)), "{c:?}");
            assert!(c.member("x").is_some() && c.member("y").is_some());
            assert!(c.member("z").is_none());
            assert_eq!(c.element_fate(5), ElementFate::Keep);
        }
        // an index and members of every element: every element whole
        let p = Projection::parse(&["c[1]", "c.x"]).unwrap();
        let c = p.member("c").unwrap();
        assert!(matches!(c.element(), Projection::AllMembers(_)), "{c:?}");
        assert_eq!(c.element_fate(5), ElementFate::Keep);
        for bad in ["c[", "c[x]", "c[-1]", "[1]", "c]"] {
            assert!(Projection::parse(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn element_fates() {
        let p = elements(&[1, 3], Projection::All);
        let fates: Vec<ElementFate> = (0..6).map(|i| p.element_fate(i)).collect();
        use ElementFate::*;
        assert_eq!(fates, [Null, Keep, Null, Keep, Drop, Drop]);
        assert_eq!(Projection::All.element_fate(99), Keep);
    }

    #[test]
    fn star_and_empty() {
        assert_eq!(Projection::parse(&["*"]).unwrap(), Projection::All);
        let none = Projection::parse::<&str>(&[]).unwrap();
        assert!(none.member("a").is_none());
        assert!(Projection::parse(&["a..b"]).is_err());
    }
}

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
}

impl Projection {
    /// Parse a projection list: `a`, `m.b`, `m1.m2.c[3]`, `*`. Array indexes project the whole
    /// array here (selecting elements is the scan's job); names are case-insensitive.
    pub fn parse<S: AsRef<str>>(paths: &[S]) -> Result<Projection> {
        let mut root = Projection::Some(HashMap::new());
        for path in paths {
            let path = path.as_ref().trim();
            if path == "*" {
                return Ok(Projection::All);
            }
            let mut segments = Vec::new();
            for segment in path.split('.') {
                let name = match segment.find('[') {
                    Some(i) => &segment[..i],
                    None => segment,
                };
                let name = name.trim();
                if name.is_empty() {
                    return Err(LoaderError::InvalidArgument(format!(
                        "malformed projection path '{path}': empty name"
                    )));
                }
                segments.push(name.to_lowercase());
            }
            root.insert(&segments);
        }
        Ok(root)
    }

    fn insert(&mut self, segments: &[String]) {
        let Projection::Some(map) = self else { return };
        let (first, rest) = segments.split_first().expect("a path has a segment");
        if rest.is_empty() {
            map.insert(first.clone(), Projection::All);
        } else {
            map.entry(first.clone())
                .or_insert_with(|| Projection::Some(HashMap::new()))
                .insert(rest);
        }
    }

    /// The projection of member `name`, or `None` if it is not projected.
    pub fn member(&self, name: &str) -> Option<&Projection> {
        match self {
            Projection::All => Some(&Projection::All),
            Projection::Some(map) => map.get(&name.to_lowercase()),
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

    #[test]
    fn parses_nested_paths_and_indexes() {
        let p = Projection::parse(&["a", "M.b", "c[2]", "m.x.y"]).unwrap();
        assert_eq!(p.member("A"), Some(&Projection::All));
        assert_eq!(p.member("c"), Some(&Projection::All));
        let m = p.member("m").unwrap();
        assert_eq!(m.member("b"), Some(&Projection::All));
        assert!(m.member("z").is_none());
        assert!(m.member("x").unwrap().member("y").is_some());
        assert!(p.member("zz").is_none());
    }

    #[test]
    fn whole_map_wins_over_members() {
        let p = Projection::parse(&["m.a", "m"]).unwrap();
        assert_eq!(p.member("m"), Some(&Projection::All));
        let p = Projection::parse(&["m", "m.a"]).unwrap();
        assert_eq!(p.member("m").unwrap().member("zzz"), Some(&Projection::All));
    }

    #[test]
    fn star_and_empty() {
        assert_eq!(Projection::parse(&["*"]).unwrap(), Projection::All);
        let none = Projection::parse::<&str>(&[]).unwrap();
        assert!(none.member("a").is_none());
        assert!(Projection::parse(&["a..b"]).is_err());
    }
}

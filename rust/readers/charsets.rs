//! Text in the single-byte charsets Spark's readers take besides UTF-8 (their `encoding`
//! option), turned into UTF-8 as it is read, so that the readers see UTF-8 as ever: ISO-8859-1
//! (each byte the code point of its value, as Java's decoder reads it: `0x80` is U+0080, not
//! windows-1252's `€`) and US-ASCII (a byte past `0x7F` is U+FFFD, as Java's decoder
//! replaces it). A line break is the same byte in both, so byte ranges and line counts of
//! the file's own bytes hold.

use std::io::{self, BufRead, Read};

/// The charset of a file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Charset {
    /// UTF-8, the readers' own.
    #[default]
    Utf8,
    /// ISO-8859-1 (Latin-1).
    Latin1,
    /// US-ASCII.
    Ascii,
}

impl Charset {
    /// Every charset, in the order their names are listed.
    pub const ALL: [Charset; 3] = [Charset::Utf8, Charset::Latin1, Charset::Ascii];

    /// The charset's name as Spark lists it (lower case).
    pub fn name(self) -> &'static str {
        match self {
            Charset::Utf8 => "utf-8",
            Charset::Latin1 => "iso-8859-1",
            Charset::Ascii => "us-ascii",
        }
    }

    /// The charset `name` names as Spark 4 takes it: one of the names in any case, nothing
    /// else (Spark refuses `utf8`, `latin1`, `iso_8859_1` and a name with blanks around
    /// it); `None` for any other.
    pub fn named(name: &str) -> Option<Charset> {
        Charset::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// The bytes of `inner` (text in a charset) as UTF-8.
pub struct Utf8Of<R> {
    inner: R,
    charset: Charset,
    /// What was decoded and not yet consumed: `decoded[pos..]`.
    decoded: Vec<u8>,
    pos: usize,
}

impl<R: BufRead> Utf8Of<R> {
    /// `inner`'s text, in `charset` (not UTF-8: that needs no decoding), as UTF-8.
    pub fn new(inner: R, charset: Charset) -> Self {
        debug_assert_ne!(charset, Charset::Utf8);
        Utf8Of {
            inner,
            charset,
            decoded: Vec::new(),
            pos: 0,
        }
    }
}

/// `bytes` decoded from `charset` onto the end of `out`.
fn decode(bytes: &[u8], charset: Charset, out: &mut Vec<u8>) {
    // the usual run: ASCII, the same bytes in UTF-8
    let ascii = bytes
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(bytes.len());
    out.extend_from_slice(&bytes[..ascii]);
    for &b in &bytes[ascii..] {
        match (b.is_ascii(), charset) {
            (true, _) => out.push(b),
            (false, Charset::Latin1) => {
                out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)])
            }
            (false, _) => out.extend_from_slice("\u{FFFD}".as_bytes()),
        }
    }
}

impl<R: BufRead> BufRead for Utf8Of<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.decoded.len() {
            self.decoded.clear();
            self.pos = 0;
            let raw = self.inner.fill_buf()?;
            let n = raw.len();
            decode(raw, self.charset, &mut self.decoded);
            self.inner.consume(n);
        }
        Ok(&self.decoded[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.decoded.len());
    }
}

impl<R: BufRead> Read for Utf8Of<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        super::input::read_through(self, out)
    }
}

#[cfg(test)]
mod tests {
    use super::{Charset, Utf8Of};
    use std::io::{BufReader, Cursor, Read};

    /// Every byte of ISO-8859-1 is the character of its value, whatever the reads; a byte
    /// past ASCII in US-ASCII is U+FFFD.
    #[test]
    fn single_byte_charsets_read_as_java_decodes_them() {
        let bytes: Vec<u8> = (0..=255u8).chain(b"a\nb".iter().copied()).collect();
        for capacity in [1, 3, 64, 1024] {
            let read = |charset| {
                let input = BufReader::with_capacity(capacity, Cursor::new(bytes.clone()));
                let mut text = String::new();
                Utf8Of::new(input, charset)
                    .read_to_string(&mut text)
                    .unwrap();
                text
            };
            let latin1: String = bytes.iter().map(|&b| char::from(b)).collect();
            assert_eq!(read(Charset::Latin1), latin1, "reads of {capacity}");
            let ascii: String = bytes
                .iter()
                .map(|&b| {
                    if b.is_ascii() {
                        char::from(b)
                    } else {
                        '\u{FFFD}'
                    }
                })
                .collect();
            assert_eq!(read(Charset::Ascii), ascii, "reads of {capacity}");
        }
    }

    #[test]
    fn charsets_are_found_by_sparks_names_in_any_case() {
        assert_eq!(Charset::named("ISO-8859-1"), Some(Charset::Latin1));
        assert_eq!(Charset::named("US-ASCII"), Some(Charset::Ascii));
        assert_eq!(Charset::named("Utf-8"), Some(Charset::Utf8));
        // what Spark 4.3 refuses (probed): aliases Java knows, blanks around a name
        let refused = [
            "utf8",
            "UTF8",
            "iso_8859_1",
            "iso8859-1",
            "ascii",
            " utf-8",
            "utf-8 ",
        ];
        for other in refused
            .into_iter()
            .chain(["latin1", "windows-1252", "UTF-16", ""])
        {
            assert_eq!(Charset::named(other), None, "{other}");
        }
    }
}

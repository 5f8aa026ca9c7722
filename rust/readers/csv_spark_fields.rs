//! A CSV record's fields as Spark's CSV reader (univocity's parser, set up as Spark sets it
//! up) reads them where csv-core reads otherwise. The window splits a record again by these
//! rules after csv-core found where it ends (`CsvWindow::split_again`):
//!
//! - in a quoted field, an escape before a byte that is neither the quote nor the escape
//!   stays (`"C:\Users"` is `C:\Users`; csv-core drops it);
//! - a quoted empty field (`""`) is told from an empty one, or reads as `emptyValue`;
//! - whitespace after a closing quote is dropped (`"a"  ,` is `a`), and other text after it
//!   makes the field read as written from its opening quote (`"a"b` is `"a"b`; csv-core
//!   reads `ab`);
//! - whitespace before a field (`ignoreLeadingWhiteSpace`: a quote after it then opens a
//!   quoted field) or after an unquoted one (`ignoreTrailingWhiteSpace`) is dropped if asked.
//!
//! A doubled quote inside quotes is one quote, as csv-core (and RFC 4180) read it; Spark with
//! its escape `\` reads it as written (a known difference, kept: files written by other tools
//! read right).

use super::csv_window::Fields;

/// How Spark's options shape a field beyond csv-core's rules (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SparkFields {
    /// Whitespace before a field is no part of it (Spark's `ignoreLeadingWhiteSpace`).
    pub trim_leading: bool,
    /// Whitespace after an unquoted field is no part of it (`ignoreTrailingWhiteSpace`).
    pub trim_trailing: bool,
    /// The text a quoted empty field reads as (Spark's `emptyValue`); `None`: it reads
    /// empty, noted as quoted (`Fields::is_quoted_empty`), as `emptyValue` `""` has it.
    pub empty_value: Option<Box<[u8]>>,
}

/// The bytes that play a part in splitting a record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    pub delimiter: u8,
    pub quote: u8,
    pub escape: Option<u8>,
}

impl SparkFields {
    /// Whether the record went through csv-core's parser as `text` (its bytes, quotes and
    /// all) must be split again: it has a quote, or whitespace may need trimming.
    pub(crate) fn resplits(&self, text: &[u8], quote: u8) -> bool {
        self.trims() || memchr::memchr(quote, text).is_some()
    }

    /// Whether whitespace around fields is trimmed (the window's quick split does not).
    pub(crate) fn trims(&self) -> bool {
        self.trim_leading || self.trim_trailing
    }

    /// Split `text` (one record, without its line terminator) into `fields` by these rules.
    pub(crate) fn split(&self, text: &[u8], d: Dialect, fields: &mut Fields) {
        fields.clear();
        let mut field = Vec::new();
        let mut i = 0;
        loop {
            let read = self.read_field(text, i, d, &mut field);
            match (&self.empty_value, read.quoted_empty) {
                (Some(text), true) => fields.push(text),
                (None, true) => fields.push_quoted_empty(),
                _ => fields.push(&field),
            }
            if read.end >= text.len() {
                return;
            }
            i = read.end + 1;
        }
    }

    /// Where field `i` of record `text` starts as [`split`](Self::split) splits it (past
    /// the whitespace trimmed before it, a quoted field at its quote; the record's end if
    /// it has no field `i`): for errors.
    pub(crate) fn field_start(&self, text: &[u8], d: Dialect, i: usize) -> usize {
        let mut scratch = Vec::new();
        let mut at = 0;
        for _ in 0..i {
            let end = self.read_field(text, at, d, &mut scratch).end;
            if end >= text.len() {
                return text.len();
            }
            at = end + 1;
        }
        self.read_field(text, at, d, &mut scratch).start
    }

    /// Read the field of record `text` that starts at `i` (its first byte, or the record's
    /// end) into `field`, by these rules.
    fn read_field(&self, text: &[u8], i: usize, d: Dialect, field: &mut Vec<u8>) -> FieldRead {
        let blank = |c: u8| is_blank(c, d.delimiter);
        let skip_blanks = |mut k: usize| {
            while text.get(k).is_some_and(|&c| blank(c)) {
                k += 1;
            }
            k
        };
        field.clear();
        let start = if self.trim_leading { skip_blanks(i) } else { i };
        let mut quoted_empty = false;
        let mut trim = self.trim_trailing;
        let end = if text.get(start) == Some(&d.quote) {
            let after = quoted_content(text, start + 1, d, field);
            let k = skip_blanks(after);
            if k == text.len() || text[k] == d.delimiter {
                quoted_empty = field.is_empty();
                trim = false;
                k
            } else {
                // text after the closing quote: the field as written from its opening
                // quote to the delimiter (univocity's unescaped quote), escapes read
                let end = delimiter_at(text, after, d.delimiter);
                field.insert(0, d.quote);
                field.push(d.quote);
                field.extend_from_slice(&text[after..end]);
                end
            }
        } else {
            let end = delimiter_at(text, start, d.delimiter);
            field.extend_from_slice(&text[start..end]);
            end
        };
        if trim {
            let kept = field.iter().rposition(|&c| !blank(c)).map_or(0, |k| k + 1);
            field.truncate(kept);
        }
        FieldRead {
            start,
            end,
            quoted_empty,
        }
    }
}

/// Where a field [`SparkFields::read_field`] read lies in its record.
struct FieldRead {
    /// Its first byte (past whitespace trimmed before it; its opening quote if quoted).
    start: usize,
    /// The delimiter after it, or the record's end.
    end: usize,
    /// It was written `""`.
    quoted_empty: bool,
}

/// Whether `c` is whitespace to Spark's CSV reader (univocity's: any byte up to the space
/// but NUL), and no delimiter or line break.
#[inline(always)]
pub(crate) fn is_blank(c: u8, delimiter: u8) -> bool {
    c != 0 && c <= b' ' && c != delimiter && c != b'\n' && c != b'\r'
}

/// The first delimiter in `text` at or after `from`, or its end.
fn delimiter_at(text: &[u8], from: usize, delimiter: u8) -> usize {
    let from = from.min(text.len());
    memchr::memchr(delimiter, &text[from..]).map_or(text.len(), |k| from + k)
}

/// Read a quoted field's content from `i` (past its opening quote) into `field`: where it
/// ends, past its closing quote (or the text's end, if none closes it). The escape before
/// the quote or itself stands for that byte, and stays before any other; a doubled quote is
/// one quote.
fn quoted_content(text: &[u8], mut i: usize, d: Dialect, field: &mut Vec<u8>) -> usize {
    while let Some(&c) = text.get(i) {
        let next = text.get(i + 1).copied();
        if Some(c) == d.escape && next.is_some_and(|n| n == d.quote || Some(n) == d.escape) {
            field.push(next.unwrap_or_default());
            i += 2;
        } else if c == d.quote && next == Some(d.quote) {
            field.push(c);
            i += 2;
        } else if c == d.quote {
            return i + 1;
        } else {
            field.push(c);
            i += 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::SparkFields;
    use crate::readers::csv_window::CsvWindow;
    use std::io;

    /// The fields of every record of `text` read with `rules` (a quoted empty field shown
    /// as `<"">`), a few bytes at a time.
    fn fields(text: &str, rules: SparkFields) -> Vec<Vec<String>> {
        let input = io::BufReader::with_capacity(5, io::Cursor::new(text.as_bytes().to_vec()));
        let mut w =
            CsvWindow::new(Box::new(input), b',', b'"', Some(b'\\')).reading_as_spark(Some(rules));
        let mut out = Vec::new();
        while w.next_record().unwrap() {
            let record = &w.record;
            out.push(
                (0..record.len())
                    .map(|i| match record.is_quoted_empty(i) {
                        true => "<\"\">".to_string(),
                        false => String::from_utf8_lossy(record.get(i).unwrap()).into_owned(),
                    })
                    .collect(),
            );
        }
        out
    }

    /// Records where Spark's readings differ from csv-core's, each record on the quick
    /// split's path and the parser's.
    const TEXT: &str = "  x  ,  \"y z\"  ,\" q \"\n\"\",x,\"\"\n \"p,q\" ,r,s\n\t t\t, u ,v\n\
                        \"w\"  ,  \"\",  x\n\"w\" x,\"a\"b ,c\n\"a\\\"b\"c,\"\"\"\"\n";

    /// As Spark 4.3's CSV reader read `TEXT` (probed with `spark.read.csv`), with and
    /// without `ignoreLeadingWhiteSpace` and `ignoreTrailingWhiteSpace`.
    #[test]
    fn whitespace_and_text_after_quotes_read_as_spark_reads_them() {
        let rules = |trim_leading, trim_trailing| SparkFields {
            trim_leading,
            trim_trailing,
            empty_value: None,
        };
        let e = "<\"\">";
        let neither: Vec<Vec<&str>> = vec![
            vec!["  x  ", "  \"y z\"  ", " q "],
            vec![e, "x", e],
            vec![" \"p", "q\" ", "r", "s"],
            vec!["\t t\t", " u ", "v"],
            vec!["w", "  \"\"", "  x"],
            vec!["\"w\" x", "\"a\"b ", "c"],
            vec!["\"a\"b\"c", "\""],
        ];
        assert_eq!(fields(TEXT, rules(false, false)), neither);
        let leading: Vec<Vec<&str>> = vec![
            vec!["x  ", "y z", " q "],
            vec![e, "x", e],
            vec!["p,q", "r", "s"],
            vec!["t\t", "u ", "v"],
            vec!["w", e, "x"],
            vec!["\"w\" x", "\"a\"b ", "c"],
            vec!["\"a\"b\"c", "\""],
        ];
        assert_eq!(fields(TEXT, rules(true, false)), leading);
        let trailing: Vec<Vec<&str>> = vec![
            vec!["  x", "  \"y z\"", " q "],
            vec![e, "x", e],
            vec![" \"p", "q\"", "r", "s"],
            vec!["\t t", " u", "v"],
            vec!["w", "  \"\"", "  x"],
            vec!["\"w\" x", "\"a\"b", "c"],
            vec!["\"a\"b\"c", "\""],
        ];
        assert_eq!(fields(TEXT, rules(false, true)), trailing);
        let both = fields(TEXT, rules(true, true));
        assert_eq!(both[0], ["x", "y z", " q "]);
        assert_eq!(both[2], ["p,q", "r", "s"]);
        assert_eq!(both[3], ["t", "u", "v"]);
        assert_eq!(both[4], ["w", e, "x"]);
    }

    /// The fields of every record of `text` read by `rules` a few bytes at a time, split
    /// where the window's quick split takes the record (`quick`) or all through the parser
    /// and Spark's split: each field with whether it was a quoted empty one; and how many
    /// records the quick split took.
    fn read_both_ways(text: &[u8], rules: &SparkFields, quick: bool) -> (Vec<Record>, u64) {
        let input = io::BufReader::with_capacity(3, io::Cursor::new(text.to_vec()));
        let w = CsvWindow::new(Box::new(input), b',', b'"', Some(b'\\'))
            .reading_as_spark(Some(rules.clone()));
        let mut w = if quick { w } else { w.parsing_only() };
        let mut out = Vec::new();
        while w.next_record().unwrap() {
            let r = &w.record;
            out.push(
                (0..r.len())
                    .map(|i| (r.get(i).unwrap().to_vec(), r.is_quoted_empty(i)))
                    .collect(),
            );
        }
        (out, w.split_records)
    }

    /// A record's fields, each with whether it was written `""`.
    type Record = Vec<(Vec<u8>, bool)>;

    /// Random records of blanks, quotes, escapes, delimiters and text read under every
    /// set of rules: the quick split reads each as the parser and Spark's split do.
    #[test]
    fn the_quick_split_reads_as_sparks_split() {
        let pieces: [&[u8]; 14] = [
            b"a",
            b" ",
            b"\t",
            b",",
            b"\n",
            b"\r\n",
            b"\"",
            b"\"x y\"",
            b"\"\"",
            b"\\",
            b"\"a,b\"",
            b"  ",
            b"\xc3\xa9",
            b"\"q\\\"\"",
        ];
        let mut next = crate::readers::numbers::tests::xorshift(0x5851_f42d_4c95_7f2d);
        let mut quick_used = 0;
        for _ in 0..3000 {
            let text: Vec<u8> = (0..next() % 24)
                .flat_map(|_| pieces[(next() % pieces.len() as u64) as usize].to_vec())
                .collect();
            for (lead, trail, empty) in [
                (false, false, None),
                (false, false, Some("E")),
                (true, false, None),
                (false, true, Some("E")),
                (true, true, None),
            ] {
                let rules = SparkFields {
                    trim_leading: lead,
                    trim_trailing: trail,
                    empty_value: empty.map(|e| e.as_bytes().into()),
                };
                let (parsed, _) = read_both_ways(&text, &rules, false);
                let (split, used) = read_both_ways(&text, &rules, true);
                assert_eq!(
                    split,
                    parsed,
                    "{:?} {rules:?}",
                    String::from_utf8_lossy(&text)
                );
                quick_used += used;
            }
        }
        assert!(quick_used > 1000, "{quick_used}");
    }

    /// `emptyValue`: a quoted empty field reads as its text (on both paths), an empty one
    /// without quotes stays empty; with whitespace trimmed before it, `  ""` is quoted too.
    #[test]
    fn an_empty_value_stands_for_quoted_empty_fields_only() {
        let rules = SparkFields {
            empty_value: Some(b"E".as_slice().into()),
            ..SparkFields::default()
        };
        let text = "\"\",x,\"\"\n,,\n\"\",\"a\\\"\",\"\"\n  \"\",\"\"  \n";
        let want = [
            vec!["E", "x", "E"],
            vec!["", "", ""],
            vec!["E", "a\"", "E"],
            vec!["  \"\"", "E"],
        ];
        assert_eq!(fields(text, rules.clone()), want);
        let trimmed = SparkFields {
            trim_leading: true,
            ..rules
        };
        assert_eq!(fields(text, trimmed)[3], ["E", "E"]);
    }
}

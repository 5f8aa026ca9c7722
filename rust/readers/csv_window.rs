//! The records of a CSV input, read from a window of its bytes: each record's fields (out of
//! their quoting) and its text as the file has it, a slice of the window.
//!
//! A record of plain fields (unquoted, or quoted without a quote, escape or line break
//! inside) ending in a line break is split here, a field boundary found sixteen bytes at a
//! time; any other record goes through `csv-core`'s parser, whose rules the split follows.
//!
//! Records ended by an exact separator (Spark's `lineSep`, [`CsvWindow::separated`]) are
//! the lines of a [`LineWindow`] instead, each split by Spark's rules whatever its quotes.

use std::io::{self, BufRead};
use std::ops::Range;

use csv_core::ReadRecordResult;

use super::csv_spark_fields::{is_blank, Dialect, SparkFields};
use super::input::READ_BUFFER;
use super::lines::{
    leading_line_breaks, line_breaks, read_into, trim_line_breaks, LineEnds, LineWindow,
};
use crate::loader::copy_short;

/// The fields of one record: their bytes end to end, and where each ends. Both vectors are
/// buffers, longer than the record needs; the record is the first `len` ends.
#[derive(Debug)]
pub(crate) struct Fields {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    len: usize,
    /// Fields after the last one kept, counted but not split (see `CsvWindow::last_needed`).
    skipped: usize,
    /// The kept fields written as `""` (quoted and empty), where the window tells them from
    /// empty fields without quotes (under Spark's rules: `CsvWindow::reading_as_spark`).
    quoted_empties: Vec<usize>,
}

impl Fields {
    fn new() -> Self {
        Fields {
            bytes: vec![0; 1024],
            ends: vec![0; 64],
            len: 0,
            skipped: 0,
            quoted_empties: Vec::new(),
        }
    }

    /// Whether field `i` was written as `""` (told apart under Spark's rules only: see
    /// `CsvWindow::reading_as_spark`).
    pub fn is_quoted_empty(&self, i: usize) -> bool {
        self.quoted_empties.contains(&i)
    }

    /// No field yet (a record about to be split into it).
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.skipped = 0;
        self.quoted_empties.clear();
    }

    /// How many fields the record keeps (`get` has them).
    pub fn len(&self) -> usize {
        self.len
    }

    /// How many fields the record has: those it keeps and those after them, counted only.
    pub fn count(&self) -> usize {
        self.len + self.skipped
    }

    /// The bytes of every field, end to end.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.end()]
    }

    /// Where the last field ends.
    fn end(&self) -> usize {
        self.len.checked_sub(1).map_or(0, |last| self.ends[last])
    }

    /// Where field `i` is in [`as_slice`](Self::as_slice).
    #[inline]
    pub fn range(&self, i: usize) -> Option<Range<usize>> {
        if i >= self.len {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(start..self.ends[i])
    }

    /// Field `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.range(i).map(|r| &self.bytes[r])
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len).map(|i| self.get(i).expect("a field"))
    }

    /// Append a field (a record the window splits). Inlined into the split's loop: the
    /// other caller, Spark's split (`SparkFields::split`), is off the common path.
    #[inline(always)]
    pub(super) fn push(&mut self, field: &[u8]) {
        let start = self.end();
        let end = start + field.len();
        if end > self.bytes.len() {
            self.bytes.resize(end.max(2 * self.bytes.len()), 0);
        }
        if self.len == self.ends.len() {
            self.ends.resize(2 * self.len, 0);
        }
        copy_short(&mut self.bytes[start..end], field);
        self.ends[self.len] = end;
        self.len += 1;
    }

    /// Append a field written as `""`, noted as such (`is_quoted_empty`).
    pub(super) fn push_quoted_empty(&mut self) {
        self.quoted_empties.push(self.len);
        self.push(&[]);
    }
}

/// The UTF-8 byte order mark, which may open an input.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Reads CSV records from an input through a window of its bytes.
pub(crate) struct CsvWindow {
    input: Box<dyn BufRead + Send>,
    /// Boxed: its tables are most of the reader's size.
    parser: Box<csv_core::Reader>,
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    /// Lines starting with this byte where a record could start are skipped (`comment`).
    comment: Option<u8>,
    /// Fields read as Spark's CSV reader reads them (`SparkFields`): a record the quick
    /// split does not take is split again by its rules after csv-core's parser; `None`:
    /// csv-core's (and pyarrow's) reading.
    spark: Option<SparkFields>,
    /// Spark's rules trim whitespace around fields (the quick split's loop that does).
    trims: bool,
    /// The dialect lets the split read plain records (else every record is parsed).
    split: bool,
    buf: Vec<u8>,
    /// `buf[..filled]` holds what was read.
    filled: usize,
    /// The current record's text is `buf[start..pos]` (line breaks before it included).
    start: usize,
    pos: usize,
    /// Offset in the input of `buf[0]`, the line breaks before it, and whether the byte
    /// before it is a `\r` (a `\n` at `buf[0]` is then the end of a `\r\n`, not a line).
    dropped: u64,
    dropped_lines: u64,
    dropped_cr: bool,
    eof: bool,
    /// The current record's fields.
    pub record: Fields,
    /// Records the window split (the others went through the parser).
    pub split_records: u64,
    /// The last field the reader uses: the split counts the fields after it without
    /// splitting them (`None`: every field is split).
    pub last_needed: Option<usize>,
    /// Records ended by an exact separator, if given (`CsvWindow::separated`): the window's
    /// own buffer is then unused.
    separated: Option<Box<Separated>>,
}

/// Where a field of a record is in its text (`CsvWindow::field_place`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldPlace {
    /// The line breaks in the record before the field (0: on the record's first line).
    pub line: u64,
    /// Where the field's line starts in the record's text.
    pub line_start: usize,
    /// The field's 1-based byte column in its line.
    pub column: usize,
}

/// The records of an input ended by an exact separator (Spark's CSV `lineSep`), as Spark's
/// CSV reader has them: the bytes up to each separator (a quote does not protect it, a line
/// break is text), each split by Spark's rules (`SparkFields::split`, a quote left open
/// closed by the record's end).
struct Separated {
    lines: LineWindow,
    /// Records read so far (the current one's number).
    records: u64,
    /// The input starts inside a file: a byte order mark there is text.
    inside_file: bool,
}

/// csv-core's parser of a dialect: a quote inside a quoted field is the doubled quote
/// (RFC 4180) and, with an `escape`, also the escaped one (`\"`, as Spark's CSV writer
/// writes it by default): a file of either kind reads right with `escape='\\'`.
pub(super) fn csv_core_parser(delimiter: u8, quote: u8, escape: Option<u8>) -> csv_core::Reader {
    csv_core::ReaderBuilder::new()
        .delimiter(delimiter)
        .quote(quote)
        .escape(escape)
        .double_quote(true)
        .build()
}

impl CsvWindow {
    /// The records of `input` in a dialect (a quote in a quoted field is written twice, or
    /// after `escape`: see `CsvOptions::parser`).
    pub fn new(
        input: Box<dyn BufRead + Send>,
        delimiter: u8,
        quote: u8,
        escape: Option<u8>,
    ) -> Self {
        let parser = Box::new(csv_core_parser(delimiter, quote, escape));
        let special = [delimiter, quote, b'\r', b'\n'];
        let split = !special
            .iter()
            .enumerate()
            .any(|(i, b)| special[..i].contains(b))
            && escape.is_none_or(|e| !special.contains(&e));
        CsvWindow {
            input,
            parser,
            delimiter,
            quote,
            escape,
            comment: None,
            spark: None,
            trims: false,
            split,
            buf: vec![0; 2 * READ_BUFFER],
            filled: 0,
            start: 0,
            pos: 0,
            dropped: 0,
            dropped_lines: 0,
            dropped_cr: false,
            eof: false,
            record: Fields::new(),
            split_records: 0,
            last_needed: None,
            separated: None,
        }
    }

    /// The records of `input` ended by exactly `sep` (not empty), each split by Spark's
    /// rules as `spark` shapes them (see [`Separated`]).
    pub fn separated(
        input: Box<dyn BufRead + Send>,
        sep: &[u8],
        dialect: Dialect,
        spark: SparkFields,
    ) -> Self {
        let mut lines = LineWindow::new(input);
        lines.set_ends(LineEnds::Exact(Box::from(sep)));
        let mut window = CsvWindow::new(
            Box::new(io::empty()),
            dialect.delimiter,
            dialect.quote,
            dialect.escape,
        )
        .reading_as_spark(Some(spark));
        window.separated = Some(Box::new(Separated {
            lines,
            records: 0,
            inside_file: false,
        }));
        window
    }

    /// The next record ended by the separator: `false` at the end of the input. Comment
    /// lines are skipped.
    fn next_separated(&mut self) -> io::Result<bool> {
        let dialect = self.dialect();
        let separated = self
            .separated
            .as_mut()
            .expect("records ended by a separator");
        let spark = self.spark.as_ref().expect("split by Spark's rules");
        loop {
            let lines = &mut separated.lines;
            if !lines.begin_line()? {
                self.record.clear();
                return Ok(false);
            }
            lines.find_end()?;
            separated.records += 1;
            if separated.records == 1 && !separated.inside_file && lines.line().starts_with(&BOM) {
                lines.drop_prefix(BOM.len());
            }
            let line = lines.line();
            if self.comment.is_some() && line.first() == self.comment.as_ref() {
                continue;
            }
            spark.split(line, dialect, &mut self.record);
            return Ok(true);
        }
    }

    /// The same window, skipping the lines that start with `comment` (if any) where a
    /// record could start: before the first record, between records, at the end.
    pub fn with_comment(mut self, comment: Option<u8>) -> Self {
        self.comment = comment;
        self
    }

    /// The same window, reading fields as Spark's CSV reader reads them (`Some`: see
    /// `SparkFields`).
    pub fn reading_as_spark(mut self, spark: Option<SparkFields>) -> Self {
        self.trims = spark.as_ref().is_some_and(SparkFields::trims);
        self.spark = spark;
        self
    }

    /// The same window, every record through the parser (for comparing the two ways).
    #[cfg(test)]
    pub(super) fn parsing_only(mut self) -> Self {
        self.split = false;
        self
    }

    /// The input starts inside a file (a byte range after its first line): a byte order
    /// mark there is the text of a field, which the parser would drop from its first input.
    /// A line break alone is no record to it, so it reads one first.
    pub fn starts_inside_file(&mut self) {
        if let Some(separated) = &mut self.separated {
            separated.inside_file = true;
            return;
        }
        let (mut out, mut ends) = ([0; 1], [0; 1]);
        let (result, ..) = self.parser.read_record(b"\n", &mut out, &mut ends);
        debug_assert!(matches!(result, ReadRecordResult::InputEmpty));
    }

    /// Read the next record: `false` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<bool> {
        if self.separated.is_some() {
            return self.next_separated();
        }
        self.start = self.pos;
        if let Some(comment) = self.comment {
            self.skip_comments(comment)?;
        }
        if self.dropped + self.pos as u64 == 0 {
            // The first record goes to the parser, which drops a byte order mark before
            // it if its first input holds the mark's 3 bytes, and a byte more (an input
            // left empty would be the end to it): found by fuzzing.
            while self.filled < 4 && !self.eof {
                self.read_more()?;
            }
            return self.parse_record();
        }
        if self.split && self.split_record() {
            return Ok(true);
        }
        self.parse_record()
    }

    /// Split the current record again, every field of it (it was split up to an earlier
    /// `last_needed`: the fields after it were only counted).
    pub fn split_whole(&mut self) -> io::Result<()> {
        if self.separated.is_some() {
            return Ok(()); // split whole already
        }
        let last = self.last_needed.take();
        self.pos = self.start;
        let split = self.split && self.split_record();
        if !split {
            self.parse_record()?;
        }
        self.last_needed = last;
        Ok(())
    }

    /// The current record's text as read: the line breaks before it, the record, its
    /// terminator (records ended by a separator: the record alone, line breaks and all).
    pub fn text(&self) -> &[u8] {
        match &self.separated {
            Some(separated) => separated.lines.line(),
            None => &self.buf[self.start..self.pos],
        }
    }

    /// The 1-based line of the input where the current record starts (its first byte past
    /// the line breaks before it). A line ends at a `\n`, a `\r\n` or a lone `\r`, as a
    /// record does; with records ended by a separator, the record's number.
    pub fn line(&self) -> u64 {
        if let Some(separated) = &self.separated {
            return separated.records;
        }
        let before = &self.buf[..self.start + self.lead()];
        self.dropped_lines + line_breaks(before, self.dropped_cr) + 1
    }

    /// The offset in the input of the current record's first byte (past the line breaks
    /// before it).
    pub fn record_offset(&self) -> u64 {
        if let Some(separated) = &self.separated {
            return separated.lines.line_offset();
        }
        self.dropped + (self.start + leading_line_breaks(self.text())) as u64
    }

    /// The bytes of the current record's text before its first line: the line breaks
    /// before it, after a byte order mark that opens the input (the mark is on the first
    /// line: a line break after it ends that line).
    fn lead(&self) -> usize {
        let text = self.text();
        let bom = if self.dropped + self.start as u64 == 0 && text.starts_with(&BOM) {
            BOM.len()
        } else {
            0
        };
        bom + leading_line_breaks(&text[bom..])
    }

    /// Whether the input was read to its end and the current record is its last (never
    /// said of records ended by a separator, where no quote is left open).
    fn ends_input(&self) -> bool {
        self.separated.is_none() && self.eof && self.pos == self.filled
    }

    /// The current record as the file has it (quotes and all), without the line breaks
    /// before it and its terminator (a record ended by a separator: the bytes before the
    /// separator, line breaks and all).
    pub fn record_bytes(&self) -> &[u8] {
        let text = self.text();
        match self.separated {
            Some(_) => text,
            None => trim_line_breaks(&text[leading_line_breaks(text)..]),
        }
    }

    /// Whether the current record runs over a line break, one a quoted field holds (a
    /// record ended by a separator has none: its line breaks are text).
    #[inline]
    pub fn spans_lines(&self) -> bool {
        self.separated.is_none() && memchr::memchr2(b'\n', b'\r', self.record.as_slice()).is_some()
    }

    /// Where field `i` of the current record is in its text as the file has it, by the
    /// rules that split it (a quoted field at its quote, past whitespace trimmed before it;
    /// the record's end if it has no field `i`). For errors.
    #[cold]
    #[inline(never)]
    pub fn field_place(&self, i: usize) -> FieldPlace {
        let record = self.record_bytes();
        let at = self.field_start(record, i);
        if self.separated.is_some() {
            // one line, whatever line breaks it holds
            return FieldPlace {
                line: 0,
                line_start: 0,
                column: at + 1,
            };
        }
        let before = &record[..at];
        let line_start = before
            .iter()
            .rposition(|&c| matches!(c, b'\n' | b'\r'))
            .map_or(0, |k| k + 1);
        FieldPlace {
            line: line_breaks(before, false),
            line_start,
            column: at - line_start + 1,
        }
    }

    /// Where field `i` of `record` (the current one's bytes) starts: see `field_place`.
    fn field_start(&self, record: &[u8], i: usize) -> usize {
        if let Some(spark) = &self.spark {
            // every record read by Spark's rules is split as Spark's split splits it
            return spark.field_start(record, self.dialect(), i);
        }
        let mut parser = csv_core_parser(self.delimiter, self.quote, self.escape);
        let mut out = [0; 1024];
        let mut at = 0;
        for _ in 0..i {
            loop {
                // the record's end as the input's end: its last field ends there
                let (result, nin, _) = parser.read_field(&record[at..], &mut out);
                at += nin;
                match result {
                    csv_core::ReadFieldResult::Field { record_end: false } => break,
                    csv_core::ReadFieldResult::Field { record_end: true }
                    | csv_core::ReadFieldResult::End => return record.len(),
                    _ => {}
                }
            }
        }
        at
    }

    /// Whether the input ends inside a quote the current record opened: a line break after
    /// it would still be part of its last field. (Never so for records ended by a
    /// separator, where a quote protects nothing.)
    #[inline]
    pub fn ends_in_quotes(&self) -> bool {
        self.ends_input() && self.quote_left_open()
    }

    /// Whether the current record leaves a quote open (out of line: only the input's last
    /// record is asked).
    #[cold]
    #[inline(never)]
    fn quote_left_open(&self) -> bool {
        let record = self.record_bytes();
        if memchr::memchr(self.quote, record).is_none() {
            return false;
        }
        let mut parser = csv_core_parser(self.delimiter, self.quote, self.escape);
        let input = [record, b"\n"].concat();
        let mut fields = vec![0; input.len()];
        let mut ends = vec![0; input.len() + 1];
        let (result, ..) = parser.read_record(&input, &mut fields, &mut ends);
        matches!(result, ReadRecordResult::InputEmpty)
    }

    /// The bytes that split a record.
    fn dialect(&self) -> Dialect {
        Dialect {
            delimiter: self.delimiter,
            quote: self.quote,
            escape: self.escape,
        }
    }

    /// Read past the comment lines at `pos` (each after the line breaks before it, and at
    /// the input's start after a byte order mark): the record then starts at the line break
    /// that ends the last one, so its line and offset are counted as ever.
    fn skip_comments(&mut self, comment: u8) -> io::Result<()> {
        loop {
            let at = self.pos + leading_line_breaks(&self.buf[self.pos..self.filled]);
            if self.filled - at <= BOM.len() && !self.eof {
                self.read_more()?;
                continue;
            }
            let line = &self.buf[at..self.filled];
            let bom = self.dropped + at as u64 == 0 && line.starts_with(&BOM);
            let first = at + if bom { BOM.len() } else { 0 };
            if self.buf[..self.filled].get(first) != Some(&comment) {
                return Ok(());
            }
            match memchr::memchr2(b'\n', b'\r', &self.buf[first..self.filled]) {
                Some(k) => {
                    self.pos = first + k;
                    self.start = self.pos;
                }
                None if self.eof => {
                    self.pos = self.filled;
                    self.start = self.pos;
                    return Ok(());
                }
                None => self.read_more()?,
            }
        }
    }

    /// The next record through `csv-core`'s parser.
    fn parse_record(&mut self) -> io::Result<bool> {
        let (mut out, mut ends) = (0, 0);
        loop {
            if self.pos == self.filled && !self.eof {
                self.read_more()?;
                continue;
            }
            let fields = &mut self.record;
            let (result, nin, nout, nend) = self.parser.read_record(
                &self.buf[self.pos..self.filled],
                &mut fields.bytes[out..],
                &mut fields.ends[ends..],
            );
            self.pos += nin;
            out += nout;
            ends += nend;
            match result {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => {
                    let n = 2 * fields.bytes.len();
                    fields.bytes.resize(n, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let n = 2 * fields.ends.len();
                    fields.ends.resize(n, 0);
                }
                ReadRecordResult::Record => {
                    fields.len = ends;
                    fields.skipped = 0;
                    fields.quoted_empties.clear();
                    self.split_again();
                    return Ok(true);
                }
                ReadRecordResult::End => {
                    fields.len = 0;
                    fields.skipped = 0;
                    return Ok(false);
                }
            }
        }
    }

    /// The current record's fields split again from its text by Spark's rules
    /// (`SparkFields`), where they may differ from the parser's. The parser found where the
    /// record ends.
    fn split_again(&mut self) {
        let Some(spark) = &self.spark else {
            return;
        };
        let lead = self.lead();
        let text = &self.buf[self.start + lead..self.pos];
        if !spark.resplits(text, self.quote) {
            return;
        }
        let dialect = self.dialect();
        spark.split(without_terminator(text), dialect, &mut self.record);
    }

    /// Split the record at `pos` if its fields are plain and its end is in the window (`false`:
    /// nothing read, the parser reads it). What the parser does with the same bytes: line
    /// breaks before a record are skipped; an unquoted field runs to a delimiter or line break;
    /// a quoted one to its closing quote, which a delimiter or line break must follow here.
    fn split_record(&mut self) -> bool {
        if self.trims {
            self.split_trimming::<true>()
        } else {
            self.split_trimming::<false>()
        }
    }

    /// `split_record`, trimming whitespace as Spark's options ask if `TRIM` (compiled
    /// apart: the loop without trimming has none of its checks).
    #[inline(always)]
    fn split_trimming<const TRIM: bool>(&mut self) -> bool {
        let b = &self.buf[self.pos..self.filled];
        let mut i = leading_line_breaks(b);
        if i == b.len() {
            return false;
        }
        self.record.clear();
        let (lead, trail) = match &self.spark {
            Some(s) if TRIM => (s.trim_leading, s.trim_trailing),
            _ => (false, false),
        };
        let blank = |c: u8| is_blank(c, self.delimiter);
        loop {
            if lead {
                while b.get(i).is_some_and(|&c| blank(c)) {
                    i += 1;
                }
            }
            let field = if b.get(i) == Some(&self.quote) {
                let inner = &b[i + 1..];
                let close = match self.escape {
                    Some(e) => memchr::memchr2(self.quote, e, inner),
                    None => memchr::memchr(self.quote, inner),
                };
                let Some(close) = close.filter(|&k| inner[k] == self.quote) else {
                    return false;
                };
                let field = &inner[..close];
                if memchr::memchr2(b'\n', b'\r', field).is_some() {
                    return false; // the parser counts lines the same, but it is rare
                }
                i += close + 2;
                if close == 0 {
                    match self.spark.as_ref().map(|s| &s.empty_value) {
                        Some(Some(text)) => text,
                        Some(None) => {
                            self.record.quoted_empties.push(self.record.len);
                            field
                        }
                        None => field,
                    }
                } else {
                    field
                }
            } else {
                let stop = field_stop(b, i, self.delimiter, self.quote);
                let end = stop.unwrap_or(b.len());
                if stop.is_some_and(|k| b[k] == self.quote) {
                    return false; // a quote inside an unquoted field
                }
                let mut field = &b[i..end];
                if trail {
                    let kept = field.iter().rposition(|&c| !blank(c)).map_or(0, |k| k + 1);
                    field = &field[..kept];
                }
                i = end;
                field
            };
            self.record.push(field);
            if self.last_needed.is_some_and(|last| self.record.len > last)
                && b.get(i) == Some(&self.delimiter)
            {
                // the fields after the last one used: counted up to the record's end, if
                // no quote makes them need the parser
                let rest = &b[i + 1..];
                let end = match memchr::memchr3(b'\n', b'\r', self.quote, rest) {
                    Some(k) if rest[k] == self.quote => return false,
                    Some(k) => k,
                    None if self.eof => rest.len(),
                    None => return false,
                };
                self.record.skipped = memchr::memchr_iter(self.delimiter, &rest[..end]).count() + 1;
                i += 1 + end + usize::from(end < rest.len());
                break;
            }
            match b.get(i) {
                Some(&c) if c == self.delimiter => i += 1,
                Some(b'\n') => {
                    i += 1;
                    break;
                }
                // a `\n` after it is a line break before the next record, as for the parser
                Some(b'\r') => {
                    i += 1;
                    break;
                }
                None if self.eof => break,
                _ => return false,
            }
        }
        self.pos += i;
        self.split_records += 1;
        true
    }

    /// Read more of the input, keeping the current record's text.
    fn read_more(&mut self) -> io::Result<()> {
        let keep = self.start;
        if keep > 0 {
            self.dropped += keep as u64;
            self.dropped_lines += line_breaks(&self.buf[..keep], self.dropped_cr);
            self.dropped_cr = self.buf[keep - 1] == b'\r';
            self.buf.copy_within(keep..self.filled, 0);
            self.filled -= keep;
            self.pos -= keep;
            self.start = 0;
        }
        let n = read_into(&mut *self.input, &mut self.buf, self.filled)?;
        self.filled += n;
        self.eof |= n == 0;
        Ok(())
    }
}

/// A record's text without the line break that ends it (`\r\n`, `\n` or `\r`), if any.
fn without_terminator(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// The first delimiter, quote, `\n` or `\r` in `b` at or after `i`.
#[inline(always)]
fn field_stop(b: &[u8], mut i: usize, delimiter: u8, quote: u8) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= b.len() {
        let stops = stop_mask(&b[i..i + 16], delimiter, quote);
        if stops != 0 {
            return Some(i + stops.trailing_zeros() as usize);
        }
        i += 16;
    }
    b[i..]
        .iter()
        .position(|&c| c == delimiter || c == quote || c == b'\n' || c == b'\r')
        .map(|k| i + k)
}

/// Bit `k` set if byte `k` of `chunk` (16 bytes) is `delimiter`, `quote`, `\n` or `\r`.
/// SSE2, which every x86_64 processor has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stop_mask(chunk: &[u8], delimiter: u8, quote: u8) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    assert_eq!(chunk.len(), 16);
    // SAFETY: the load reads the 16 bytes of `chunk` (checked above), unaligned loads
    // allowed; SSE2 is part of the x86_64 baseline.
    unsafe {
        let x = _mm_loadu_si128(chunk.as_ptr().cast());
        let is = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
        let stops = _mm_or_si128(
            _mm_or_si128(is(delimiter), is(quote)),
            _mm_or_si128(is(b'\n'), is(b'\r')),
        );
        _mm_movemask_epi8(stops) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::lines::Trickle;

    /// A record as read: its fields, its text, its line.
    type Record = (Vec<Vec<u8>>, Vec<u8>, u64);

    /// Every record of `text`, split where it can be or parsed only, and how many were split.
    fn records(text: &[u8], chunk: usize, split: bool, escape: Option<u8>) -> (Vec<Record>, u64) {
        let (kept, used) = read(text, chunk, split, escape, None, false, None);
        let records = kept.into_iter().map(|(f, _, text, line)| (f, text, line));
        (records.collect(), used)
    }

    /// A record read with some fields only counted: the kept ones, the count, text, line.
    type Kept = (Vec<Vec<u8>>, usize, Vec<u8>, u64);

    /// Every record of `text` read with `last_needed = last` (split where it can be, if
    /// `split`), the lines starting with `comment` skipped: its kept fields, its count of
    /// fields, its text and line; with `whole`, each split again whole once read. And how
    /// many records were split.
    fn read(
        text: &[u8],
        chunk: usize,
        split: bool,
        escape: Option<u8>,
        last: Option<usize>,
        whole: bool,
        comment: Option<u8>,
    ) -> (Vec<Kept>, u64) {
        let input = io::BufReader::with_capacity(chunk, Trickle::new(text, chunk));
        let mut w = CsvWindow::new(Box::new(input), b',', b'"', escape).with_comment(comment);
        w.split &= split;
        w.last_needed = last;
        let mut out = Vec::new();
        while w.next_record().unwrap() {
            if whole {
                w.split_whole().unwrap();
            }
            let fields = w.record.iter().map(<[u8]>::to_vec).collect();
            out.push((fields, w.record.count(), w.text().to_vec(), w.line()));
        }
        (out, w.split_records)
    }

    /// The line `offset` of `text` is on, counted byte by byte: a `\r\n`, a lone `\r` and a
    /// `\n` each end one.
    fn line_of(text: &[u8], offset: usize) -> u64 {
        let mut line = 1;
        let mut k = 0;
        while k < offset {
            if text[k] == b'\r' && text.get(k + 1) == Some(&b'\n') {
                k += 1;
            }
            if matches!(text[k], b'\r' | b'\n') {
                line += 1;
            }
            k += 1;
        }
        line
    }

    /// A byte order mark is on the first line: the line breaks after it end lines, so a
    /// record after them is on a later one.
    #[test]
    fn lines_after_a_byte_order_mark_are_counted() {
        for chunk in [1, 2, 64] {
            let text = [&BOM[..], b"\n\r\na,b\n\"c\"\n"].concat();
            let (records, _) = records(&text, chunk, true, None);
            let lines: Vec<u64> = records.iter().map(|r| r.2).collect();
            assert_eq!(lines, [3, 4], "chunk {chunk}");
        }
    }

    /// Comment lines (`#` first, whatever follows: quotes, delimiters) are skipped where a
    /// record could start, a byte order mark before the first one: the records and their
    /// lines are those of the same text with the comments' bytes taken out (their line
    /// breaks left), read without comments, in every chunking, split or parsed. A `#`
    /// after a space or a delimiter is data.
    #[test]
    fn comment_lines_are_skipped_as_if_empty() {
        let comments: [&[u8]; 5] = [b"#", b"#c", b"#a,\"b", b"#\"open", b"##,,"];
        let records: [&[u8]; 7] = [
            b"a,b",
            b"\"x\",y",
            b"  #z,1",
            b"1,#",
            b"\"q\"\"\",r",
            b"\"#\"",
            b"7",
        ];
        let breaks: [&[u8]; 4] = [b"\n", b"\r\n", b"\r", b"\n\n"];
        let mut next = crate::readers::numbers::tests::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut skipped = 0;
        for case in 0..1500 {
            let (mut text, mut blanked) = (Vec::new(), Vec::new());
            if case % 5 == 0 {
                text.extend_from_slice(&BOM);
                blanked.extend_from_slice(&BOM);
            }
            // a `\r`, a comment, a `\n`: blanked, the two breaks would be one `\r\n`
            let mut cr_comment = false;
            for line in 0..(next() % 8) {
                if line > 0 {
                    let mut b = breaks[(next() % 4) as usize];
                    if cr_comment && b[0] == b'\n' {
                        b = b"\r";
                    }
                    text.extend_from_slice(b);
                    blanked.extend_from_slice(b);
                }
                cr_comment = blanked.last() == Some(&b'\r');
                if next().is_multiple_of(3) {
                    text.extend_from_slice(comments[(next() % 5) as usize]);
                    skipped += 1;
                } else {
                    let r = records[(next() % 7) as usize];
                    text.extend_from_slice(r);
                    blanked.extend_from_slice(r);
                    cr_comment = false;
                }
            }
            if next().is_multiple_of(2) && !cr_comment {
                text.push(b'\n');
                blanked.push(b'\n');
            }
            for (chunk, split) in [(1, true), (3, false), (7, true), (64, true)] {
                let fields_and_lines = |(kept, _): (Vec<Kept>, u64)| -> Vec<_> {
                    kept.into_iter().map(|(f, _, _, line)| (f, line)).collect()
                };
                let got = read(&text, chunk, split, None, None, false, Some(b'#'));
                let want = read(&blanked, chunk, split, None, None, false, None);
                assert_eq!(
                    fields_and_lines(got),
                    fields_and_lines(want),
                    "{:?} chunk {chunk}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        assert!(skipped > 1000, "{skipped}");
    }

    #[test]
    fn split_records_equal_the_parsers() {
        let pieces: [&[u8]; 14] = [
            b"a",
            b"bc",
            b",",
            b",",
            b"\n",
            b"\r\n",
            b"\r",
            b"\"",
            b"\"x\"",
            b"\"\"",
            b"\\",
            b" ",
            b"\xc3\xa9",
            b"\"q,\nr\"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut split_used = 0;
        let mut counted_only = 0;
        for case in 0..3000 {
            let n = (next() % 40) as usize;
            let mut text = Vec::new();
            for _ in 0..n {
                text.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
            if case % 3 == 0 {
                text = b"h1,h2\n\"a\",\"b\"\n1,2\r\n"
                    .iter()
                    .chain(&text)
                    .copied()
                    .collect();
            }
            let chunk = [1, 3, 7, 64][case % 4];
            for escape in [None, Some(b'\\')] {
                let (parsed, none) = records(&text, chunk, false, escape);
                // the records' texts tile the input; each one's line is its first byte's
                // past the line breaks it starts with
                let mut offset = 0;
                for (_, record, line) in &parsed {
                    let lead = record.iter().take_while(|&&b| b == b'\n' || b == b'\r');
                    let first = offset + lead.count();
                    assert_eq!(*line, line_of(&text, first), "{text:?} at {first}");
                    offset += record.len();
                }
                // with the fields after `last` counted only: the same records, the fields
                // up to `last` kept, as many counted; split again whole, all of them
                for last in [0, 1, 2] {
                    for whole in [false, true] {
                        let (kept, _) = read(&text, chunk, true, escape, Some(last), whole, None);
                        assert_eq!(kept.len(), parsed.len(), "{text:?} last {last}");
                        for (k, (fields, record, line)) in kept.iter().zip(&parsed) {
                            // at least the fields up to `last` (the parser keeps them all)
                            let least = if whole {
                                fields.len()
                            } else {
                                fields.len().min(last + 1)
                            };
                            let n = k.0.len();
                            assert!(n >= least, "{text:?} last {last} whole {whole}");
                            counted_only += usize::from(k.1 > n);
                            assert_eq!(k.0, fields[..n], "{text:?} last {last} whole {whole}");
                            assert_eq!((k.1, &k.2, k.3), (fields.len(), record, *line));
                        }
                    }
                }
                let (split, used) = records(&text, chunk, true, escape);
                assert_eq!(none, 0);
                assert_eq!(
                    split,
                    parsed,
                    "{:?} escape {escape:?} chunk {chunk}",
                    String::from_utf8_lossy(&text)
                );
                split_used += used;
            }
        }
        assert!(
            counted_only > 1000,
            "fields were seldom counted only: {counted_only}"
        );
        assert!(
            split_used > 1000,
            "the split was seldom tried: {split_used}"
        );
    }
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    /// The fields of every record of `text`, read with the escape `\`, a lone escape kept
    /// (Spark's reading) or not (csv-core's and pyarrow's), a few bytes at a time.
    fn fields(text: &str, keep: bool) -> Vec<Vec<String>> {
        let input = io::BufReader::with_capacity(7, io::Cursor::new(text.as_bytes().to_vec()));
        let mut w = CsvWindow::new(Box::new(input), b',', b'"', Some(b'\\'))
            .reading_as_spark(keep.then(SparkFields::default));
        let mut out = Vec::new();
        while w.next_record().unwrap() {
            let record = w.record.iter();
            out.push(
                record
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect(),
            );
        }
        out
    }

    /// As Spark's CSV reader reads them (probed on 4.3): in a quoted field `\"` is a quote,
    /// `\\` a backslash, and a backslash before any other byte stays; unquoted fields are as
    /// they are; text after a closing quote makes the field its text as written from the
    /// opening quote, escapes read (Spark's, csv-core reads on); quoted line breaks and
    /// doubled quotes read as ever.
    #[test]
    fn a_lone_escape_stays_where_spark_keeps_it() {
        let text = "\u{feff}k,\"p\\q\"\n1,\"C:\\Users\\x\"\n2,\"a\\\"b\",\"a\\\\b\"\r\n\
                    3,C:\\y,\"q\"\"r\"\n4,\"m\nn\\z\",\"tab\\t\"x\n\n5,\"\",\\\n";
        let kept = fields(text, true);
        let want: Vec<Vec<&str>> = vec![
            vec!["k", "p\\q"],
            vec!["1", "C:\\Users\\x"],
            vec!["2", "a\"b", "a\\b"],
            vec!["3", "C:\\y", "q\"r"],
            vec!["4", "m\nn\\z", "\"tab\\t\"x"],
            vec!["5", "", "\\"],
        ];
        assert_eq!(kept, want);
        let dropped = fields(text, false);
        assert_eq!(dropped[1], ["1", "C:Usersx"]);
        assert_eq!(dropped[2], kept[2]);
        assert_eq!(dropped[3], kept[3]);
        assert_eq!(dropped[4], ["4", "m\nnz", "tabtx"]);
    }
}

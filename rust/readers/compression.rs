//! How a file is compressed: by its name's suffix, as Spark and Hadoop name the files they
//! write (`.gz`, `.bz2`, `.zst`, `.deflate`, `.snappy`, `.lz4`); the first bytes tell apart
//! the two framings `.snappy` and `.lz4` files come in (Hadoop's blocks, or the codec's own
//! frame format as its command-line tools write it).

use std::io::{self, BufRead, BufReader, Cursor, Read};

use super::charsets::Charset;
use super::hadoop_block::{self, BlockDecoder};
use super::input::READ_BUFFER;

/// How a file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (several members read one after the other, as `cat a.gz b.gz` makes).
    Gzip,
    /// bzip2 (several streams, as `pbzip2` writes).
    Bzip2,
    /// Zstandard (several frames).
    Zstd,
    /// zlib streams: Hadoop's `DefaultCodec`, Spark's `compression="deflate"`.
    Deflate,
    /// Snappy: Hadoop's blocks, or the snappy frame format.
    Snappy,
    /// LZ4: Hadoop's blocks, or the LZ4 frame format.
    Lz4,
}

/// The suffixes (lower case) of the files read decompressed, with their compressions.
pub const SUFFIXES: [(&str, Compression); 7] = [
    (".gz", Compression::Gzip),
    (".bz2", Compression::Bzip2),
    (".zst", Compression::Zstd),
    (".zstd", Compression::Zstd),
    (".deflate", Compression::Deflate),
    (".snappy", Compression::Snappy),
    (".lz4", Compression::Lz4),
];

/// The first bytes of compressed data in formats a name may hide: the format, and the suffix
/// that has it read (none: not read).
const SIGNATURES: [(&[u8], &str, Option<&str>); 7] = [
    (b"\x1f\x8b", "gzip", Some(".gz")),
    (b"\x28\xb5\x2f\xfd", "zstd", Some(".zst")),
    (b"BZh", "bzip2", Some(".bz2")), // then a block size digit and a block magic
    (b"\xfd7zXZ\x00", "xz", None),
    (LZ4_FRAME, "lz4", Some(".lz4")),
    (SNAPPY_FRAME, "snappy", Some(".snappy")),
    (b"PK\x03\x04", "zip", None),
];
const LZ4_FRAME: &[u8] = b"\x04\x22\x4d\x18";
const SNAPPY_FRAME: &[u8] = b"\xff\x06\x00\x00sNaPpY";

impl Compression {
    /// The compression of a file named `name` (a local path or URI), by its suffix.
    pub fn of(name: &str) -> Self {
        let lower = name.to_ascii_lowercase();
        SUFFIXES
            .iter()
            .find(|(suffix, _)| lower.ends_with(suffix))
            .map_or(Compression::None, |&(_, c)| c)
    }
}

/// `raw`'s bytes decompressed as `compression` says, for buffered reading. Plain bytes whose
/// start is a compressed format's signature are an error (a file named as plain text that is
/// not), rather than lines of garbage.
pub fn decompress(
    mut raw: BufReader<Box<dyn Read + Send>>,
    compression: Compression,
    charset: Charset,
) -> io::Result<Box<dyn BufRead + Send>> {
    let buffered = |r: Box<dyn Read + Send>| Box::new(BufReader::with_capacity(READ_BUFFER, r));
    Ok(match compression {
        Compression::None => {
            refuse_non_text(raw.fill_buf()?, charset)?;
            Box::new(raw)
        }
        Compression::Gzip => buffered(Box::new(flate2::read::MultiGzDecoder::new(raw))),
        Compression::Bzip2 => buffered(Box::new(bzip2::read::MultiBzDecoder::new(raw))),
        Compression::Zstd => buffered(Box::new(zstd::stream::read::Decoder::with_buffer(raw)?)),
        Compression::Deflate => buffered(Box::new(Streams::new(
            raw,
            flate2::bufread::ZlibDecoder::new,
            flate2::bufread::ZlibDecoder::into_inner,
        ))),
        Compression::Snappy | Compression::Lz4 => {
            let (head, rest) = peek(raw, SNAPPY_FRAME.len())?;
            let framed = head.get_ref().starts_with(match compression {
                Compression::Snappy => SNAPPY_FRAME,
                _ => LZ4_FRAME,
            });
            let raw = head.chain(rest);
            match (compression, framed) {
                (Compression::Snappy, true) => {
                    buffered(Box::new(snap::read::FrameDecoder::new(raw)))
                }
                (Compression::Snappy, false) => {
                    Box::new(BlockDecoder::new(raw, hadoop_block::snappy))
                }
                (_, true) => buffered(Box::new(Lz4Frames::new(raw)?)),
                (_, false) => Box::new(BlockDecoder::new(raw, hadoop_block::lz4)),
            }
        }
    })
}

/// The first `n` bytes of `raw` (fewer at its end), and `raw` after them.
fn peek<R: Read>(mut raw: R, n: usize) -> io::Result<(Cursor<Vec<u8>>, R)> {
    let mut head = Vec::with_capacity(n);
    (&mut raw).take(n as u64).read_to_end(&mut head)?;
    Ok((Cursor::new(head), raw))
}

/// The byte order marks of the Unicode encodings other than UTF-8, longest first.
const OTHER_ENCODINGS: [(&[u8], &str); 4] = [
    (b"\xff\xfe\x00\x00", "UTF-32LE"),
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe", "UTF-16LE"),
    (b"\xfe\xff", "UTF-16BE"),
];

/// An error if `start`, a plain file's first bytes, is not the start of text in `charset`
/// but of compressed data, or for UTF-8 of UTF-16 or UTF-32 text (by its byte order mark:
/// what Windows tools write as "Unicode", Excel's "Unicode Text" export among them; in a
/// single-byte charset those bytes are text, `ÿþ` in ISO-8859-1).
pub fn refuse_non_text(start: &[u8], charset: Charset) -> io::Result<()> {
    if let Some((_, encoding)) = OTHER_ENCODINGS
        .iter()
        .find(|(bom, _)| charset == Charset::Utf8 && start.starts_with(bom))
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "its text is {encoding} (by its byte order mark): the readers read UTF-8; \
                 convert it first (iconv -f {encoding} -t UTF-8)"
            ),
        ));
    }
    let Some(&(_, format, suffix)) = SIGNATURES.iter().find(|(magic, format, _)| {
        start.starts_with(magic)
            && (*format != "bzip2"
                || start.get(3).is_some_and(u8::is_ascii_digit)
                    && start.get(4..10) == Some(b"1AY&SY"))
    }) else {
        return Ok(());
    };
    let what = match suffix {
        Some(suffix) => format!("but its name does not end in {suffix}: rename it to read it"),
        None => "which the readers do not read: decompress it first".to_string(),
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("its bytes are {format}-compressed, {what}"),
    ))
}

/// Compressed streams one after the other, each read by a decoder `D` that stops at its
/// stream's end (as Hadoop's `DecompressorStream` reads them).
struct Streams<R: BufRead, D: Read> {
    stream: Option<D>,
    start: fn(R) -> D,
    rest: fn(D) -> R,
}

impl<R: BufRead, D: Read> Streams<R, D> {
    fn new(raw: R, start: fn(R) -> D, rest: fn(D) -> R) -> Self {
        Streams {
            stream: Some(start(raw)),
            start,
            rest,
        }
    }
}

impl<R: BufRead, D: Read> Read for Streams<R, D> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while let Some(stream) = self.stream.as_mut() {
            let n = stream.read(out)?;
            if n > 0 || out.is_empty() {
                return Ok(n);
            }
            // this stream has ended: another may follow it
            let mut raw = (self.rest)(self.stream.take().expect("a stream"));
            if !raw.fill_buf()?.is_empty() {
                self.stream = Some((self.start)(raw));
            }
        }
        Ok(0)
    }
}

/// LZ4 frames one after the other, as the `lz4` tool reads them. `lz4_flex` takes the end of
/// the input where a block's header should be for the frame's end: a frame cut at a block's
/// edge would read short without a word. Noting whether the decoder met the end of the input
/// tells that apart from the frame's end mark, after which it reads nothing more.
struct Lz4Frames<R: BufRead> {
    frame: Option<lz4_flex::frame::FrameDecoder<NoteEnd<R>>>,
}

/// A reader that notes whether a read met the end of its input.
struct NoteEnd<R> {
    inner: R,
    ended: bool,
}

impl<R: Read> Read for NoteEnd<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.ended |= n == 0 && !out.is_empty();
        Ok(n)
    }
}

impl<R: BufRead> Lz4Frames<R> {
    fn new(mut raw: R) -> io::Result<Self> {
        // an empty file holds no frame, and no line
        let empty = raw.fill_buf()?.is_empty();
        let inner = NoteEnd {
            inner: raw,
            ended: false,
        };
        Ok(Lz4Frames {
            frame: (!empty).then(|| lz4_flex::frame::FrameDecoder::new(inner)),
        })
    }
}

impl<R: BufRead> Read for Lz4Frames<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while let Some(frame) = self.frame.as_mut() {
            let n = frame.read(out)?;
            if n > 0 || out.is_empty() {
                return Ok(n);
            }
            let mut raw = self.frame.take().expect("a frame").into_inner();
            if raw.ended {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "an LZ4 frame ends before its end mark",
                ));
            }
            if !raw.inner.fill_buf()?.is_empty() {
                self.frame = Some(lz4_flex::frame::FrameDecoder::new(raw));
            }
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::{decompress, refuse_non_text, Charset, Compression};
    use std::io::{BufReader, Read, Write};

    fn read(bytes: Vec<u8>, name: &str) -> std::io::Result<Vec<u8>> {
        let raw: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(bytes));
        let mut out = Vec::new();
        decompress(BufReader::new(raw), Compression::of(name), Charset::Utf8)?
            .read_to_end(&mut out)?;
        Ok(out)
    }

    /// Every compression, written by its crate's encoder in two pieces concatenated (two
    /// members, streams or frames; Hadoop blocks for `.snappy` and `.lz4`), reads back.
    #[test]
    fn every_compression_reads_back_across_its_streams() {
        let (a, b) = (b"{\"a\": 1}\n".repeat(5000), b"{\"a\": 2}\n".repeat(3));
        type Encode = fn(&[u8]) -> Vec<u8>;
        let cases: [(&str, Encode); 8] = [
            ("gz", |t| {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(t).unwrap();
                e.finish().unwrap()
            }),
            ("bz2", |t| {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(t).unwrap();
                e.finish().unwrap()
            }),
            ("zst", |t| zstd::encode_all(t, 1).unwrap()),
            ("deflate", |t| {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(t).unwrap();
                e.finish().unwrap()
            }),
            ("snappy", |t| {
                let mut e = snap::write::FrameEncoder::new(Vec::new());
                e.write_all(t).unwrap();
                e.into_inner().unwrap()
            }),
            ("snappy", |t| {
                let c = snap::raw::Encoder::new().compress_vec(t).unwrap();
                hadoop_block(t.len(), &c)
            }),
            ("lz4", |t| {
                let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
                e.write_all(t).unwrap();
                e.finish().unwrap()
            }),
            ("lz4", |t| {
                hadoop_block(t.len(), &lz4_flex::block::compress(t))
            }),
        ];
        for (suffix, encode) in cases {
            let name = format!("x.json.{}", suffix.to_uppercase()); // suffixes in any case
            assert_ne!(Compression::of(&name), Compression::None);
            let mut bytes = encode(&a);
            bytes.extend(encode(&b));
            let want = [a.clone(), b.clone()].concat();
            let got = read(bytes.clone(), &name).unwrap();
            assert!(
                got == want,
                "{suffix}: {} bytes of {}",
                got.len(),
                want.len()
            );
            // cut short: an error, never fewer lines read silently
            let cut = bytes.len() - 3;
            let short = read(bytes[..cut].to_vec(), &name);
            assert!(short.is_err(), "{suffix} cut: {:?}", short.map(|b| b.len()));
        }
    }

    /// A stream with an end mark (or a checksum after its data) cut at any byte is an error:
    /// no line goes missing without a word. (A cut between two streams, or in the formats
    /// without one, Hadoop's blocks and snappy's frames, cannot be told from an end.)
    #[test]
    fn a_stream_cut_anywhere_is_an_error() {
        let text = b"{\"a\": 1}\n".repeat(300);
        let streams: [(&str, Vec<u8>); 5] = [
            ("gz", {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&text).unwrap();
                e.finish().unwrap()
            }),
            ("bz2", {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(&text).unwrap();
                e.finish().unwrap()
            }),
            ("zst", zstd::encode_all(&text[..], 1).unwrap()),
            ("deflate", {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&text).unwrap();
                e.finish().unwrap()
            }),
            ("lz4", {
                // blocks of 64 KiB, so cuts fall on a block's edge too
                let info = lz4_flex::frame::FrameInfo::new()
                    .block_size(lz4_flex::frame::BlockSize::Max64KB);
                let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
                e.write_all(&b"{\"b\": 22}\n".repeat(20_000)).unwrap();
                e.finish().unwrap()
            }),
        ];
        for (suffix, bytes) in streams {
            let name = format!("x.json.{suffix}");
            assert!(read(bytes.clone(), &name).is_ok(), "{suffix}");
            for cut in 1..bytes.len() {
                let short = read(bytes[..cut].to_vec(), &name);
                assert!(
                    short.is_err(),
                    "{suffix} cut at {cut}: {:?}",
                    short.map(|b| b.len())
                );
            }
        }
    }

    fn hadoop_block(len: usize, chunk: &[u8]) -> Vec<u8> {
        let mut out = (len as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        out.extend_from_slice(chunk);
        out
    }

    #[test]
    fn compressed_bytes_under_a_plain_name_are_refused() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"{\"a\": 1}\n").unwrap();
        let gz = gz.finish().unwrap();
        let e = read(gz, "x.json").unwrap_err();
        assert!(
            e.to_string().contains("gzip-compressed") && e.to_string().contains(".gz"),
            "{e}"
        );
        let e = refuse_non_text(b"\xfd7zXZ\x00\x00", Charset::Utf8).unwrap_err();
        assert!(
            e.to_string()
                .contains("xz-compressed, which the readers do not read"),
            "{e}"
        );
        let e = refuse_non_text(b"BZh91AY&SY\x00", Charset::Utf8).unwrap_err();
        assert!(e.to_string().contains(".bz2"), "{e}");
        let e = refuse_non_text(b"\xff\xfe{\x00", Charset::Utf8).unwrap_err();
        assert!(e.to_string().contains("UTF-16LE"), "{e}");
        let e = refuse_non_text(b"\xff\xfe\x00\x00{\x00\x00\x00", Charset::Utf8).unwrap_err();
        assert!(e.to_string().contains("UTF-32LE"), "{e}");
        // text that starts like a signature but is not one (a UTF-8 BOM is UTF-8)
        for text in [
            &b"BZh9 is a header,x\n"[..],
            b"{\"a\": 1}\n",
            b"",
            b"\x1f",
            b"\xef\xbb\xbf{}",
        ] {
            assert!(refuse_non_text(text, Charset::Utf8).is_ok(), "{text:?}");
        }
        // in a single-byte charset a "byte order mark" is text (`ÿþ`), a signature is not
        for charset in [Charset::Latin1, Charset::Ascii] {
            assert!(refuse_non_text(b"\xff\xfe{\x00", charset).is_ok());
            assert!(refuse_non_text(b"BZh91AY&SY\x00", charset).is_err());
        }
    }
}

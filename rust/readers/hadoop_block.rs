//! Hadoop's block-compressed streams (`BlockCompressorStream`), what Spark writes for text
//! files with `compression="snappy"` or `"lz4"`: blocks of a 4-byte big-endian uncompressed
//! length, then compressed chunks (each a 4-byte big-endian length and its bytes) that
//! decompress to exactly that many bytes.

use std::io::{self, BufRead, Read};

use super::input::read_through;

/// A block larger than this is not one Hadoop wrote (its codecs' buffers are 64-256 KiB):
/// refused rather than allocated, so a corrupt length cannot take the memory.
pub const MAX_BLOCK: usize = 64 << 20;

/// Decompresses one chunk into the front of `out`, giving the bytes written; an error if they
/// would not fit or the chunk is corrupt.
pub type Codec = fn(&[u8], &mut [u8]) -> io::Result<usize>;

/// A raw (unframed) snappy chunk.
pub fn snappy(chunk: &[u8], out: &mut [u8]) -> io::Result<usize> {
    let corrupt = |e: snap::Error| io::Error::new(io::ErrorKind::InvalidData, e);
    let len = snap::raw::decompress_len(chunk).map_err(corrupt)?;
    if len > out.len() {
        return Err(overrun(len, out.len()));
    }
    snap::raw::Decoder::new()
        .decompress(chunk, &mut out[..len])
        .map_err(corrupt)
}

/// A raw LZ4 block.
pub fn lz4(chunk: &[u8], out: &mut [u8]) -> io::Result<usize> {
    lz4_flex::block::decompress_into(chunk, out)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn overrun(got: usize, room: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("a chunk decompresses to {got} bytes where its block has {room} left"),
    )
}

/// The decompressed bytes of a Hadoop block-compressed stream, a block at a time.
pub struct BlockDecoder<R> {
    inner: R,
    codec: Codec,
    /// the current block, decompressed; `pos` bytes of it consumed
    block: Vec<u8>,
    pos: usize,
    chunk: Vec<u8>,
}

impl<R: Read> BlockDecoder<R> {
    /// Decodes `inner`'s blocks with `codec`.
    pub fn new(inner: R, codec: Codec) -> Self {
        BlockDecoder {
            inner,
            codec,
            block: Vec::new(),
            pos: 0,
            chunk: Vec::new(),
        }
    }

    /// A big-endian length; `None` at a clean end of the input (no byte of it read).
    fn length(&mut self) -> io::Result<Option<usize>> {
        let mut word = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.inner.read(&mut word[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let len = u32::from_be_bytes(word) as usize;
        if len > MAX_BLOCK {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a block or chunk of {len} bytes (over {MAX_BLOCK}): not Hadoop's framing"),
            ));
        }
        Ok(Some(len))
    }

    /// Decompresses the next block into `block`; `false` at the end of the input. An empty
    /// block (Hadoop's empty file) is passed over.
    fn next_block(&mut self) -> io::Result<bool> {
        let Some(len) = self.length()? else {
            return Ok(false);
        };
        self.block.clear();
        self.block.resize(len, 0);
        self.pos = 0;
        let mut filled = 0;
        while filled < len {
            let chunk_len = self.length()?.ok_or(io::ErrorKind::UnexpectedEof)?;
            self.chunk.resize(chunk_len, 0);
            self.inner.read_exact(&mut self.chunk)?;
            let n = (self.codec)(&self.chunk, &mut self.block[filled..])?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a chunk decompresses to nothing inside a block",
                ));
            }
            filled += n;
        }
        Ok(true)
    }
}

impl<R: Read> Read for BlockDecoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_through(self, out)
    }
}

impl<R: Read> BufRead for BlockDecoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.block.len() {
            if !self.next_block()? {
                return Ok(&[]);
            }
        }
        Ok(&self.block[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.block.len());
    }
}

#[cfg(test)]
mod tests {
    use super::{lz4, snappy, BlockDecoder, Codec};
    use std::io::{self, Read};

    /// `text` framed as Hadoop frames it: blocks of `block` bytes, each cut into chunks of
    /// `chunk` uncompressed bytes compressed by `compress`.
    fn framed(text: &[u8], block: usize, chunk: usize, compress: Compress) -> Vec<u8> {
        let mut out = Vec::new();
        for b in text.chunks(block) {
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            for c in b.chunks(chunk) {
                let packed = compress(c);
                out.extend_from_slice(&(packed.len() as u32).to_be_bytes());
                out.extend_from_slice(&packed);
            }
        }
        out
    }

    /// How a chunk is compressed.
    type Compress = fn(&[u8]) -> Vec<u8>;

    /// Each codec, and how its chunks are compressed.
    const CODECS: [(Codec, Compress); 2] = [(snappy, snappy_chunk), (lz4, lz4_chunk)];

    fn snappy_chunk(c: &[u8]) -> Vec<u8> {
        snap::raw::Encoder::new().compress_vec(c).unwrap()
    }

    fn lz4_chunk(c: &[u8]) -> Vec<u8> {
        lz4_flex::block::compress(c)
    }

    fn decode(bytes: &[u8], codec: Codec) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        BlockDecoder::new(bytes, codec).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn blocks_of_several_chunks_decode_to_the_text() {
        let text: Vec<u8> = (0..50_000u32)
            .flat_map(|i| format!("{{\"i\": {i}}}\n").into_bytes())
            .collect();
        for (codec, compress) in CODECS {
            for (block, chunk) in [(1 << 18, 1 << 18), (1000, 300), (7, 3), (1 << 20, 999)] {
                let mut bytes = framed(&text, block, chunk, compress);
                assert_eq!(decode(&bytes, codec).unwrap(), text, "{block}/{chunk}");
                // an empty block (Hadoop's empty file) in between reads as nothing
                bytes.extend_from_slice(&[0, 0, 0, 0]);
                bytes.extend_from_slice(&framed(b"x\n", block, chunk, compress));
                let mut want = text.clone();
                want.extend_from_slice(b"x\n");
                assert_eq!(decode(&bytes, codec).unwrap(), want, "{block}/{chunk}");
            }
        }
    }

    #[test]
    fn a_stream_cut_anywhere_is_truncated_or_corrupt_never_short() {
        let text: Vec<u8> = (0..300u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        for (codec, compress) in CODECS {
            let bytes = framed(&text, 500, 200, compress);
            let block_ends: Vec<usize> = {
                // the offsets where a whole number of blocks ends: only there may it stop
                let mut ends = vec![0];
                let mut at = 0;
                for b in text.chunks(500) {
                    at += framed(b, 500, 200, compress).len();
                    ends.push(at);
                }
                ends
            };
            for cut in 0..bytes.len() {
                match decode(&bytes[..cut], codec) {
                    Ok(out) => {
                        assert!(
                            block_ends.contains(&cut),
                            "cut at {cut} read short silently"
                        );
                        assert!(text.starts_with(&out));
                    }
                    Err(e) => assert!(
                        matches!(
                            e.kind(),
                            io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData
                        ),
                        "{e}"
                    ),
                }
            }
        }
    }

    #[test]
    fn lengths_past_the_block_are_refused() {
        let huge = (super::MAX_BLOCK as u32 + 1).to_be_bytes();
        assert_eq!(
            decode(&huge, snappy).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        // a chunk that decompresses past its block's length
        for (codec, compress) in CODECS {
            let packed = compress(b"longer than four bytes");
            let mut bytes = 4u32.to_be_bytes().to_vec();
            bytes.extend_from_slice(&(packed.len() as u32).to_be_bytes());
            bytes.extend_from_slice(&packed);
            assert_eq!(
                decode(&bytes, codec).unwrap_err().kind(),
                io::ErrorKind::InvalidData
            );
        }
    }
}

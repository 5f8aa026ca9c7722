//! Opening an input: local paths and `file://` URIs, gzip and zstd by suffix, read in chunks.

use std::fs::File;
use std::io::{self, BufRead, BufReader};

use super::driver::InputError;

/// Read buffer size: memory per open file, whatever the file's size.
pub const READ_BUFFER: usize = 1 << 20;

/// The local path of `path` (`file://` URIs accepted).
pub fn local_path(path: &str) -> &str {
    path.strip_prefix("file://").unwrap_or(path)
}

/// Open `path` for buffered reading, decompressing `.gz` and `.zst` files as they stream.
pub fn open(path: &str) -> io::Result<Box<dyn BufRead + Send>> {
    let local = local_path(path);
    let file = File::open(local)?;
    let lower = local.to_ascii_lowercase();
    Ok(if lower.ends_with(".gz") {
        let gz = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(READ_BUFFER, file));
        Box::new(BufReader::with_capacity(READ_BUFFER, gz))
    } else if lower.ends_with(".zst") || lower.ends_with(".zstd") {
        let zst =
            zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(READ_BUFFER, file))?;
        Box::new(BufReader::with_capacity(READ_BUFFER, zst))
    } else {
        Box::new(BufReader::with_capacity(READ_BUFFER, file))
    })
}

/// [`open`], failing with an [`InputError`] that names the file.
pub fn open_input(path: &str) -> Result<Box<dyn BufRead + Send>, InputError> {
    open(path).map_err(|e| InputError {
        path: path.to_string(),
        line: 0,
        column: None,
        message: format!("cannot open: {e}"),
        excerpt: String::new(),
    })
}

//! Reading the input file (or stdin) as bytes, with a size limit, and decoding it as UTF-8.
//! Every failure is a [`Diagnostic`] together with the text it should be rendered against.

use std::io::Read;

use crate::diag::{codes, Diagnostic, Span};

/// A decoded input: the name used in diagnostics and the text.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// Why the input could not be read, as a diagnostic plus the (lossy) text it points into.
#[derive(Debug)]
pub struct InputError {
    pub file: SourceFile,
    pub diag: Diagnostic,
}

/// The diagnostic name of the input argument (`-` is standard input).
pub fn display_name(arg: &str) -> String {
    if arg == "-" {
        "<stdin>".to_string()
    } else {
        arg.to_string()
    }
}

/// The largest input ptoc reads, whatever `--max-file-size` says: byte offsets into the source
/// are 32-bit (a token's location, a span's ends; `u32::MAX` stands for no span), and a name's
/// text is read back from its offsets.
pub const MAX_INPUT_BYTES: u64 = crate::diag::MAX_OFFSET as u64;

/// Reads `arg` (a path, or `-` for `stdin`), refusing more than `limit` bytes (and more than
/// [`MAX_INPUT_BYTES`]), and decodes it.
pub fn read(arg: &str, stdin: &mut dyn Read, limit: u64) -> Result<SourceFile, InputError> {
    let limit = limit.min(MAX_INPUT_BYTES);
    let name = display_name(arg);
    let bytes = if arg == "-" { read_limited(stdin, limit, 0) } else { read_file(arg, limit) };
    match bytes {
        Ok(bytes) => decode(name, bytes),
        Err(diag) => Err(InputError { file: SourceFile { name, text: String::new() }, diag }),
    }
}

fn read_file(path: &str, limit: u64) -> Result<Vec<u8>, Diagnostic> {
    let cannot_read =
        |e: std::io::Error| Diagnostic::error(codes::FILE_READ, Span::NONE, format!("cannot read `{path}`: {e}"));
    let mut file = std::fs::File::open(path).map_err(cannot_read)?;
    // Refuse early when the size is known; `read_limited` still guards pipes and special files.
    let mut size = 0;
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > limit {
            return Err(too_large(Some(meta.len()), limit));
        }
        size = meta.len();
    }
    read_limited(&mut file, limit, size)
}

/// Reads at most `limit` bytes; one byte more means the input is too large. `expected` sizes the
/// buffer (the file's length, when known): a multi-megabyte input read into a growing vector
/// costs a copy per doubling and page faults for every discarded buffer.
fn read_limited(reader: &mut dyn Read, limit: u64, expected: u64) -> Result<Vec<u8>, Diagnostic> {
    // One byte more than expected, so reading to the end finds EOF without growing the buffer.
    let mut buf = Vec::with_capacity(usize::try_from(expected.min(limit)).unwrap_or(0).saturating_add(1));
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| Diagnostic::error(codes::FILE_READ, Span::NONE, format!("cannot read input: {e}")))?;
    if buf.len() as u64 > limit {
        return Err(too_large(None, limit));
    }
    Ok(buf)
}

/// `size` is the input's size when known (a regular file), else it was cut off after `limit`.
fn too_large(size: Option<u64>, limit: u64) -> Diagnostic {
    let size = match size {
        Some(n) => format!("{n} bytes"),
        None => format!("more than {limit} bytes"),
    };
    Diagnostic::error(codes::FILE_TOO_LARGE, Span::NONE, format!("input is too large ({size})"))
        .with_note(format!("the limit is {limit} bytes; raise it with --max-file-size"))
}

/// Decodes UTF-8. On failure the diagnostic points at the first bad byte, in a lossy decoding
/// of the whole input (identical to the input up to that byte).
pub fn decode(name: String, bytes: Vec<u8>) -> Result<SourceFile, InputError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile { name, text }),
        Err(e) => {
            let bytes = e.into_bytes();
            let at = match std::str::from_utf8(&bytes) {
                Err(u) => u.valid_up_to(),
                Ok(_) => 0, // unreachable: from_utf8 just failed on the same bytes
            };
            let bad = bytes.get(at).copied().unwrap_or(0);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            // The lossy text has U+FFFD (3 bytes) where the bad sequence starts.
            let span = Span::new(at, (at + '\u{FFFD}'.len_utf8()).min(text.len()));
            let diag = Diagnostic::error(
                codes::INVALID_UTF8,
                span,
                format!("input is not valid UTF-8: byte 0x{bad:02X} at offset {at}"),
            )
            .with_label("invalid UTF-8 here");
            Err(InputError { file: SourceFile { name, text }, diag })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_passes_through() {
        let f = decode("f".into(), "héllo".as_bytes().to_vec()).unwrap();
        assert_eq!(f.text, "héllo");
    }

    #[test]
    fn invalid_utf8_points_at_first_bad_byte() {
        let err = decode("f".into(), b"ab\ncd\xFFef\xFE".to_vec()).unwrap_err();
        assert_eq!(err.diag.code, codes::INVALID_UTF8);
        assert_eq!(err.diag.span.range(), 5..8);
        assert!(err.diag.message.contains("0xFF at offset 5"), "{}", err.diag.message);
        assert!(err.file.text.starts_with("ab\ncd\u{FFFD}ef"));
    }

    #[test]
    fn truncated_multibyte_sequence_at_end() {
        let err = decode("f".into(), b"ab\xE2\x82".to_vec()).unwrap_err();
        assert_eq!(err.diag.span.lo, 2);
        assert!(err.file.text.is_char_boundary(err.diag.span.hi as usize));
    }

    #[test]
    fn stdin_limit() {
        let mut data: &[u8] = b"12345";
        assert_eq!(read("-", &mut data, 5).unwrap().text, "12345");
        let mut data: &[u8] = b"123456";
        let err = read("-", &mut data, 5).unwrap_err();
        assert_eq!(err.diag.code, codes::FILE_TOO_LARGE);
        assert_eq!(err.file.name, "<stdin>");
    }

    #[test]
    fn every_offset_of_the_largest_input_is_exact() {
        let last = MAX_INPUT_BYTES as usize;
        assert_eq!(crate::diag::location(last) as usize, last);
        assert_eq!(crate::diag::Span::new(0, last).range(), 0..last);
    }

    #[test]
    fn missing_file() {
        let mut none: &[u8] = b"";
        let err = read("/nonexistent/dir/x.pto", &mut none, 10).unwrap_err();
        assert_eq!(err.diag.code, codes::FILE_READ);
        assert!(err.diag.message.contains("/nonexistent/dir/x.pto"));
    }

    #[test]
    fn file_over_limit_is_refused_before_reading() {
        let dir = std::env::temp_dir().join(format!("ptoc-input-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.pto");
        std::fs::write(&path, vec![b'#'; 100]).unwrap();
        let mut none: &[u8] = b"";
        let err = read(path.to_str().unwrap(), &mut none, 99).unwrap_err();
        assert_eq!(err.diag.code, codes::FILE_TOO_LARGE);
        assert_eq!(read(path.to_str().unwrap(), &mut none, 100).unwrap().text.len(), 100);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

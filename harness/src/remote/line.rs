//! The lines of the agent's protocol, each way: read with a bound on their length, so a
//! peer cannot make the reader hold more than that bound whatever it sends, and written
//! whole (one JSON value, then `\n`).

use std::io::{self, BufRead, Read, Write};

use serde::Serialize;

/// Why no line was read.
#[derive(Debug)]
pub enum LineError {
    /// No newline within the bound: what was read is dropped, the rest left unread.
    TooLong {
        limit: usize,
    },
    Io(io::Error),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::TooLong { limit } => write!(f, "a line longer than {limit} bytes"),
            LineError::Io(error) => write!(f, "{error}"),
        }
    }
}

/// The next line of `reader`, without its `\n`, of at most `limit` bytes (one byte more
/// is the most taken from `reader` to find that out); `Ok(None)` at the end of the
/// stream, a last line cut short by it included.
pub fn read_line(reader: &mut impl BufRead, limit: usize) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    let bound = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .by_ref()
        .take(bound)
        .read_until(b'\n', &mut line)
        .map_err(LineError::Io)?;
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Some(line));
    }
    if line.len() > limit {
        return Err(LineError::TooLong { limit });
    }
    Ok(None)
}

/// Writes `value` as one line of JSON and flushes it.
pub fn write_line(writer: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    writer.write_all(&bytes)?;
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_up_to_their_bound_and_no_further() {
        fn next(input: &mut &[u8]) -> Result<Option<Vec<u8>>, String> {
            read_line(input, 5).map_err(|e| e.to_string())
        }
        let mut input: &[u8] = b"12345\n123456\nrest";
        assert_eq!(next(&mut input), Ok(Some(b"12345".to_vec())));
        assert_eq!(next(&mut input), Err("a line longer than 5 bytes".to_string()));
        // Six bytes were taken: the newline after them is what is left of that line.
        assert_eq!(next(&mut input), Ok(Some(Vec::new())));
        assert_eq!(next(&mut input), Ok(None), "a last line without its newline");
        assert_eq!(next(&mut input), Ok(None));
    }

    #[test]
    fn a_line_is_written_whole_with_its_newline() {
        let mut out = Vec::new();
        write_line(&mut out, &serde_json::json!({"error": "no"})).unwrap();
        assert_eq!(out, b"{\"error\":\"no\"}\n");
    }
}

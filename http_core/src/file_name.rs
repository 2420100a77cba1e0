//! The names `GET /files/{name}` serves (see [`crate::files`] for the route): a name is
//! 1 to [`MAX_FILE_NAME`] bytes of `A-Z a-z 0-9 . _ -`, not starting with a dot, so that
//! no name can lead out of the served directory. Anything else names no file.

/// The path prefix of the route.
pub const FILES_PREFIX: &str = "/files/";

/// The longest file name the route serves. Default is 64 bytes.
pub const MAX_FILE_NAME: usize = 64;

/// A valid file name, kept by value so an [`crate::Outcome`] stays `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileName {
    bytes: [u8; MAX_FILE_NAME],
    len: u8,
}

impl FileName {
    /// The name in `path` (a request path without its query) if `path` is
    /// `/files/{name}` with a name the route serves.
    pub fn from_path(path: &str) -> Option<FileName> {
        let name = path.strip_prefix(FILES_PREFIX)?;
        let plain = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
        if name.is_empty() || name.len() > MAX_FILE_NAME || name.starts_with('.') {
            return None;
        }
        if !name.bytes().all(|b| plain(&b)) {
            return None;
        }
        let mut bytes = [0; MAX_FILE_NAME];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(FileName {
            bytes,
            len: name.len() as u8,
        })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).expect("names are ASCII")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(path: &str) -> Option<String> {
        FileName::from_path(path).map(|name| name.as_str().to_owned())
    }

    #[test]
    fn plain_names_are_files() {
        assert_eq!(name("/files/4k-00042").as_deref(), Some("4k-00042"));
        assert_eq!(name("/files/a.b_c-D9").as_deref(), Some("a.b_c-D9"));
        let longest = "x".repeat(MAX_FILE_NAME);
        assert_eq!(name(&format!("/files/{longest}")), Some(longest));
    }

    #[test]
    fn anything_that_could_leave_the_root_is_no_name() {
        let long = format!("/files/{}", "x".repeat(MAX_FILE_NAME + 1));
        for bad in [
            "/files/",
            "/files/..",
            "/files/.",
            "/files/.hidden",
            "/files/../etc/passwd",
            "/files/a/b",
            "/files//etc/passwd",
            "/files/a\\b",
            "/files/a\0b",
            "/files/%2e%2e",
            "/files/a%2Fb",
            "/files/a%00",
            "/files/a b",
            "/filesx",
            "/files",
            "/file/a",
            long.as_str(),
        ] {
            assert_eq!(name(bad), None, "{bad:?}");
        }
    }
}

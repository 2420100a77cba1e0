//! What a connection keeps between two files, so that a file costs no allocation: its
//! read buffer (kept to be reused, with no page faults either, lent to the output that
//! sends from it) and the [`FileScratch`] OPENAT2 and the stat use; both given up when the
//! connection falls idle, so that an idle connection holds no buffer.

use http_core::files::MAX_FILE_NAME;

/// The memory OPENAT2 reads (the name, NUL-terminated), on the heap so that it stays put
/// while the connection moves, and the `statx` the stat fills.
pub struct FileScratch {
    pub statx: libc::statx,
    name: [u8; MAX_FILE_NAME + 1],
}

/// Shows nothing of its bytes: the kernel may be reading or writing them.
impl std::fmt::Debug for FileScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileScratch")
    }
}

impl FileScratch {
    /// A zeroed scratch.
    pub fn new() -> Box<FileScratch> {
        Box::new(FileScratch {
            statx: crate::files::fd::zeroed_statx(),
            name: [0; MAX_FILE_NAME + 1],
        })
    }

    /// Sets the name OPENAT2 opens (no NUL in it: file names are ASCII letters, digits and
    /// `._-`), NUL-terminated.
    pub fn set_name(&mut self, name: &str) {
        self.name[..name.len()].copy_from_slice(name.as_bytes());
        self.name[name.len()] = 0;
    }

    /// The name, NUL-terminated.
    pub fn name(&self) -> &std::ffi::CStr {
        std::ffi::CStr::from_bytes_until_nul(&self.name).expect("set_name ends the name with NUL")
    }
}

/// A connection's read buffer between two files: here to be reused (its capacity kept, no
/// allocation and no page faults per file), or lent to the output, which sends from it,
/// known by its address when it comes back.
#[derive(Debug, Default)]
pub enum FileSpare {
    #[default]
    None,
    Here(Vec<u8>),
    Lent(usize),
}

impl FileSpare {
    /// The buffer, if here, for the next transfer.
    pub fn take(&mut self) -> Vec<u8> {
        match std::mem::take(self) {
            FileSpare::Here(buffer) => buffer,
            other => {
                *self = other;
                Vec::new()
            }
        }
    }

    /// `buffer`, sent and handed back by the output, if it is the lent spare: kept.
    /// Returns it otherwise.
    pub fn reclaim(&mut self, buffer: Vec<u8>) -> Option<Vec<u8>> {
        match self {
            FileSpare::Lent(at) if *at == buffer.as_ptr() as usize => {
                *self = FileSpare::Here(buffer);
                None
            }
            _ => Some(buffer),
        }
    }

    /// The connection fell idle: give the buffer up (a later file allocates anew).
    pub fn release(&mut self) {
        if let FileSpare::Here(_) = self {
            *self = FileSpare::None;
        }
    }

    /// Bytes held here (not those lent to the output, which it counts).
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        match self {
            FileSpare::Here(buffer) => buffer.capacity(),
            FileSpare::None | FileSpare::Lent(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_spare_holds_nothing_and_a_lent_one_is_still_known() {
        let mut spare = FileSpare::Here(vec![0; 4096]);
        assert_eq!(spare.allocated(), 4096);
        spare.release();
        assert_eq!(spare.allocated(), 0);
        assert!(spare.take().is_empty());

        let buffer = vec![0u8; 64];
        let mut spare = FileSpare::Lent(buffer.as_ptr() as usize);
        spare.release();
        assert!(spare.reclaim(buffer).is_none(), "a lent buffer comes back to it");
        assert_eq!(spare.allocated(), 64);
    }
}

//! `GET /files/{name}` and `HEAD /files/{name}`: a regular file from the directory a
//! server is given with `--files-dir`, as `200 application/octet-stream` with the same
//! headers as every other route. This module is the sans-I/O half of the route, which
//! every server shares: which names are files, and the response head around the bytes
//! each server reads its own way.
//!
//! A name is 1 to [`MAX_FILE_NAME`] bytes of `A-Z a-z 0-9 . _ -`, not starting with a
//! dot. Anything else is answered 404 without touching the disk, so `..`, `/`, `\`, NUL
//! and every percent-encoding (`%2F`, `%2e%2e`) never reach a file system call. The
//! server then opens the name *inside* its root, refusing a symlink (`O_NOFOLLOW`:
//! even one that points inside the root, so a link can never lead out), and without
//! blocking (`O_NONBLOCK`, so a FIFO cannot stall it); anything that is not a regular
//! file (a directory, a device, a FIFO) is 404 too ([`FileAnswer`]). Without
//! `--files-dir` every file is 404.

pub use crate::file_name::{FILES_PREFIX, FileName, MAX_FILE_NAME};
use crate::output::Sink;
use crate::response::{Persistence, render, render_head};
use crate::routes::{OCTET_STREAM, pattern_byte, plain_error};

/// Bytes a server reads from a file per read, and so the most of a file it holds at
/// once: a larger file is streamed in pieces of this size, never loaded whole.
/// Default is 256 KiB.
pub const FILE_CHUNK: usize = 256 * 1024;

/// A file of at least this many bytes is handed to TCP by `sendfile(2)` by the servers
/// that can (io_uring_server by default, tokio_server's codec engines with `--sendfile`):
/// below it, one read gathered with the head into one write costs less than a separate
/// head write and the syscalls around sendfile.
pub const SENDFILE_MIN: u64 = 64 << 10;

/// A file request the codec has parsed and left for the server to read (see
/// [`crate::Outcome::file`]): the server answers it with [`render_file_head`] followed by
/// the file's bytes, or with [`render_file_error`], before anything after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRequest {
    pub name: FileName,
    /// `HEAD`: the head of the GET answer (Content-Length included), no body.
    pub head_only: bool,
    pub persistence: Persistence,
}

impl FileRequest {
    /// The connection closes after this response.
    pub fn closes(&self) -> bool {
        self.persistence == Persistence::Close
    }
}

/// What opening a requested file found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAnswer {
    /// A regular file of this many bytes: 200, then the bytes (none for HEAD).
    Found { len: u64 },
    /// No such file, a symlink, or not a regular file: 404.
    Missing,
    /// Any other failure (permissions, descriptors exhausted): 500, and the connection
    /// closes, as after every server error.
    Failed,
}

impl FileAnswer {
    /// The answer for a failed open or stat, from its errno: names that do not lead to a
    /// readable file in the root (ENOENT, ENOTDIR, ELOOP from `O_NOFOLLOW`, EISDIR,
    /// ENXIO from a FIFO, EXDEV from `RESOLVE_NO_XDEV`: a file on another mount) are
    /// missing; anything else failed. The numbers are Linux's.
    pub fn from_errno(errno: i32) -> FileAnswer {
        const ENOENT: i32 = 2;
        const ENXIO: i32 = 6;
        const EXDEV: i32 = 18;
        const ENOTDIR: i32 = 20;
        const EISDIR: i32 = 21;
        const ENAMETOOLONG: i32 = 36;
        const ELOOP: i32 = 40;
        match errno {
            ENOENT | ENXIO | EXDEV | ENOTDIR | EISDIR | ENAMETOOLONG | ELOOP => FileAnswer::Missing,
            _ => FileAnswer::Failed,
        }
    }

    /// The answer for an opened file from its metadata: only a regular file is found.
    pub fn from_metadata(is_regular_file: bool, len: u64) -> FileAnswer {
        if is_regular_file {
            FileAnswer::Found { len }
        } else {
            FileAnswer::Missing
        }
    }
}

/// Appends the head of a 200 answer for a file of `len` bytes: the same headers as
/// every route, `application/octet-stream`. The server appends the bytes (unless the
/// request was HEAD).
pub fn render_file_head(request: &FileRequest, len: u64, out: &mut impl Sink) {
    render_head(200, OCTET_STREAM, len, request.persistence, out);
}

/// Appends the whole answer for a file that was not found (404) or could not be read
/// (500, `Connection: close`). Returns whether the connection must close after it.
pub fn render_file_error(request: &FileRequest, answer: FileAnswer, out: &mut impl Sink) -> bool {
    let (status, persistence) = match answer {
        FileAnswer::Missing => (404, request.persistence),
        _ => (500, Persistence::Close),
    };
    render(&plain_error(status), request.head_only, persistence, out);
    persistence == Persistence::Close
}

/// One set of equal-sized files in the studies' corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusSet {
    /// The names' prefix: file `index` of the set is `{label}-{index:05}`.
    pub label: &'static str,
    pub size: usize,
    pub count: usize,
}

/// The corpus the file studies serve (the harness writes it; loadgen checks every byte):
/// 10,000 files of 4 KiB, 1,000 of 64 KiB and 100 of 1 MiB, about 200 MB.
pub const CORPUS: [CorpusSet; 3] = [
    CorpusSet {
        label: "4k",
        size: 4 << 10,
        count: 10_000,
    },
    CorpusSet {
        label: "64k",
        size: 64 << 10,
        count: 1_000,
    },
    CorpusSet {
        label: "1m",
        size: 1 << 20,
        count: 100,
    },
];

/// The first bytes of every corpus file: its name, padded with newlines, so that no two
/// files of the corpus hold the same bytes.
pub const STAMP_LEN: usize = 16;

impl CorpusSet {
    /// The name of file `index` of the set.
    pub fn name(&self, index: usize) -> String {
        format!("{}-{index:05}", self.label)
    }

    /// The first [`STAMP_LEN`] bytes of file `index`: its name, then newlines.
    pub fn stamp(&self, index: usize) -> [u8; STAMP_LEN] {
        let mut stamp = [b'\n'; STAMP_LEN];
        let name = self.name(index);
        stamp[..name.len()].copy_from_slice(name.as_bytes());
        stamp
    }

    /// Byte `offset` of file `index` past its stamp: the workspace's pattern shifted by
    /// the index, so a body from the wrong place in a file fails the check too.
    pub fn pattern_at(index: usize, offset: usize) -> u8 {
        pattern_byte(index + offset)
    }

    /// Every byte of file `index`: its [`stamp`](Self::stamp), then
    /// [`pattern_at`](Self::pattern_at) for each later offset.
    pub fn contents(&self, index: usize) -> Vec<u8> {
        let stamp = self.stamp(index);
        (0..self.size)
            .map(|offset| {
                stamp
                    .get(offset)
                    .copied()
                    .unwrap_or(Self::pattern_at(index, offset))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_files_are_stamped_with_their_names_and_all_differ() {
        let set = CORPUS[0];
        let (a, b) = (set.contents(1), set.contents(27));
        assert_eq!(&a[..STAMP_LEN], b"4k-00001\n\n\n\n\n\n\n\n");
        assert_eq!(a.len(), set.size);
        assert_ne!(a, b, "files whose patterns coincide differ by their stamps");
        assert_eq!(a[STAMP_LEN..], b[STAMP_LEN..]);
        assert_eq!(a[100], CorpusSet::pattern_at(1, 100));
        let longest = CORPUS.iter().map(|set| set.name(set.count - 1).len()).max();
        assert!(longest < Some(STAMP_LEN));
    }

    #[test]
    fn errors_and_metadata_decide_the_status() {
        assert_eq!(FileAnswer::from_errno(2), FileAnswer::Missing);
        assert_eq!(FileAnswer::from_errno(40), FileAnswer::Missing);
        assert_eq!(
            FileAnswer::from_errno(18),
            FileAnswer::Missing,
            "EXDEV: another mount"
        );
        assert_eq!(FileAnswer::from_errno(13), FileAnswer::Failed);
        assert_eq!(FileAnswer::from_errno(24), FileAnswer::Failed);
        assert_eq!(FileAnswer::from_metadata(false, 10), FileAnswer::Missing);
        assert_eq!(FileAnswer::from_metadata(true, 10), FileAnswer::Found { len: 10 });
    }

    #[test]
    fn heads_and_errors_keep_the_contract_headers() {
        let request = FileRequest {
            name: FileName::from_path("/files/a").unwrap(),
            head_only: false,
            persistence: Persistence::KeepAlive,
        };
        let mut out = Vec::new();
        render_file_head(&request, 5000, &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nServer: uring-vs-tokio\r\nDate: "));
        assert!(text.ends_with("Content-Type: application/octet-stream\r\nContent-Length: 5000\r\n\r\n"));
        let mut out = Vec::new();
        assert!(!render_file_error(&request, FileAnswer::Missing, &mut out));
        assert!(String::from_utf8(out).unwrap().ends_with("\r\n\r\nNot Found"));
        let mut out = Vec::new();
        assert!(render_file_error(&request, FileAnswer::Failed, &mut out));
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 500 "), "{text}");
        assert!(text.contains("Connection: close\r\n"), "{text}");
    }
}

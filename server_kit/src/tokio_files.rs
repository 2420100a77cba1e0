//! tokio's files for `/files/{name}` ([`crate::file_reply`]), as its users open and read
//! them: `tokio::fs`, whose calls run on the blocking thread pool, or on tokio's own
//! io_uring where the build and the runtime enabled it (`--cfg tokio_unstable`, tokio's
//! `io-uring` feature, `Builder::enable_io_uring`: tokio_server's `io-uring-fs` build).

use std::io;
use std::path::Path;

use tokio::fs::{File, OpenOptions};
use tokio::io::AsyncReadExt;

use crate::file_reply::{self, FileIo, OPEN_FLAGS};

/// `tokio::fs`, on the blocking pool or tokio's io_uring as the build says.
pub struct TokioFiles;

impl FileIo for TokioFiles {
    type File = File;

    async fn open(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_FLAGS)
            .open(path)
            .await
    }

    async fn metadata(file: &File) -> io::Result<(bool, u64)> {
        let metadata = file.metadata().await?;
        Ok((metadata.is_file(), metadata.len()))
    }

    fn let_reads_wait(file: &File) -> io::Result<()> {
        file_reply::clear_nonblocking(file)
    }

    /// Reads on from the file's position (reads follow each other from 0).
    async fn read(file: &mut File, _offset: u64, buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
        buffer.reserve(len);
        (&mut *file).take(len as u64).read_buf(buffer).await
    }
}

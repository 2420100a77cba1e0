//! compio's files for `/files/{name}` (`server_kit::file_reply`), as its users write them:
//! `compio::fs::OpenOptions` with custom flags, `metadata` (statx) and `read_at` on the
//! ring, each lending its buffer to the runtime until it completes. The worker refuses a
//! ring lacking these operations (OpenAt, Statx, Read), which compio would otherwise run
//! on a thread pool.

use std::io;
use std::mem;
use std::path::Path;

use compio::BufResult;
use compio::buf::{IntoInner, IoBuf};
use compio::fs::{File, OpenOptions};
use compio::io::AsyncReadAt;
use server_kit::file_reply::{self, FileIo, OPEN_FLAGS};

pub struct CompioFiles;

impl FileIo for CompioFiles {
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

    async fn read(file: &mut File, offset: u64, buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
        let mut owned = mem::take(buffer);
        let start = owned.len();
        owned.reserve(len);
        let BufResult(read, slice) = file.read_at(owned.slice(start..start + len), offset).await;
        *buffer = slice.into_inner();
        read
    }
}

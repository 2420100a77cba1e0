//! tokio-uring's files for `/files/{name}` (`server_kit::file_reply`), as its users write
//! them: `OpenOptions` with custom flags, `statx` and `read_at` on the ring, each lending
//! its buffer to the runtime until it completes.

use std::io;
use std::mem;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use server_kit::file_reply::{self, FileIo, OPEN_FLAGS, is_regular_mode};
use tokio_uring::buf::BoundedBuf;
use tokio_uring::fs::{File, OpenOptions};

pub struct UringFiles;

impl FileIo for UringFiles {
    type File = File;

    async fn open(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_FLAGS)
            .open(path)
            .await
    }

    async fn metadata(file: &File) -> io::Result<(bool, u64)> {
        let statx = file.statx().await?;
        Ok((is_regular_mode(u32::from(statx.stx_mode)), statx.stx_size))
    }

    fn let_reads_wait(file: &File) -> io::Result<()> {
        file_reply::clear_nonblocking(file)
    }

    async fn read(file: &mut File, offset: u64, buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
        let mut owned = mem::take(buffer);
        let start = owned.len();
        owned.reserve(len);
        let (read, slice) = file.read_at(owned.slice(start..start + len), offset).await;
        *buffer = slice.into_inner();
        read
    }
}

//! `GET|HEAD /files/{name}` for the codec-driven servers (see `http_core::files` for the
//! contract): once the codec stops at a file request, its answer is appended after the
//! responses already waiting, written here once for every runtime. Each runtime supplies
//! only its own file I/O, written the way its users write it ([`FileIo`]): tokio's
//! `tokio::fs` (its blocking pool; tokio's io_uring with `--cfg tokio_unstable`),
//! tokio-uring's, monoio's and compio's `fs` (io_uring).
//!
//! The head and the first [`FILE_CHUNK`] go out in one write with the responses before
//! them; a larger file follows one chunk per read and write, so a connection never holds
//! more than one chunk. Where the transport can and the settings ask for it
//! (tokio_server's `--sendfile`), a file of [`SENDFILE_MIN`] bytes or more goes out by
//! `sendfile(2)` after the head instead: never copied into the connection's memory. A file that ends early, or a read that fails, before the head went
//! out turns the answer into a 500 (and the connection closes); after it, the response
//! cannot be completed and the connection just closes. The file is closed (dropped) when
//! its answer is done either way.

use std::io;
use std::path::Path;

use http_core::Output;
use http_core::files::{
    FILE_CHUNK, FileAnswer, FileName, FileRequest, SENDFILE_MIN, render_file_error, render_file_head,
};

use crate::Activity;
pub use crate::transport::FileIo;
use crate::transport::Transport;

/// The flags every runtime opens a requested file with (besides read-only): a symlink
/// anywhere is refused (ELOOP), a FIFO does not block, and no child inherits it.
pub const OPEN_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// Whether a `st_mode`/`stx_mode` is a regular file's.
pub fn is_regular_mode(mode: u32) -> bool {
    mode & libc::S_IFMT == libc::S_IFREG
}

/// An answer appended to the output: whether the connection closes after it, and what is
/// left to stream once the output is sent.
pub struct Begun<F> {
    pub close: bool,
    pub rest: Option<Rest<F>>,
}

/// The part of a file after its first chunk, sent by [`stream`].
pub struct Rest<F> {
    file: F,
    offset: u64,
    left: u64,
    /// Sent by `sendfile(2)` ([`Transport::send_file`]), not read and written.
    by_sendfile: bool,
}

/// Appends the answer to `request` after what `output` holds: the head and the first
/// chunk of the file found in `root`, or the error answer (404 for everything without a
/// root). With `sendfile`, a file of [`SENDFILE_MIN`] bytes or more gets its head only:
/// all of its body is left to [`stream`], which sends it by sendfile.
pub async fn begin<Io: FileIo>(
    root: Option<&Path>,
    request: &FileRequest,
    output: &mut Output,
    sendfile: bool,
) -> Begun<Io::File> {
    let (mut file, len) = match open::<Io>(root, &request.name).await {
        Ok(found) => found,
        Err(answer) => {
            let close = render_file_error(request, answer, output);
            return Begun { close, rest: None };
        }
    };
    let before_head = output.owned().len();
    render_file_head(request, len, output);
    let close = request.closes();
    if request.head_only || len == 0 {
        return Begun { close, rest: None };
    }
    if sendfile && len >= SENDFILE_MIN {
        let rest = Rest {
            file,
            offset: 0,
            left: len,
            by_sendfile: true,
        };
        return Begun {
            close,
            rest: Some(rest),
        };
    }
    let first = len.min(FILE_CHUNK as u64);
    if read_exactly::<Io>(&mut file, 0, output.owned_mut(), first as usize)
        .await
        .is_err()
    {
        // Nothing of the head went out yet: the answer becomes a 500.
        output.owned_mut().truncate(before_head);
        let close = render_file_error(request, FileAnswer::Failed, output);
        return Begun { close, rest: None };
    }
    let rest = (len > first).then_some(Rest {
        file,
        offset: first,
        left: len - first,
        by_sendfile: false,
    });
    Begun { close, rest }
}

/// Sends the rest of a file through the (sent, empty) `output`, one chunk per read and
/// write, or by sendfile if [`begin`] left it all to that. An error means the response could not be completed: close the connection.
pub async fn stream<T: Transport>(
    transport: &mut T,
    rest: Rest<<T::Files as FileIo>::File>,
    output: &mut Output,
    activity: &Activity,
) -> io::Result<()> {
    let Rest {
        mut file,
        mut offset,
        mut left,
        by_sendfile,
    } = rest;
    if by_sendfile {
        // A slice at a time, as the read path's chunks, so that a slow reader making
        // progress is not ended by the request timeout.
        while left > 0 {
            let slice = left.min(FILE_CHUNK as u64);
            transport.send_file(&file, offset, slice).await?;
            activity.touch(false);
            offset += slice;
            left -= slice;
        }
        return Ok(());
    }
    output.clear();
    while left > 0 {
        let chunk = left.min(FILE_CHUNK as u64);
        read_exactly::<T::Files>(&mut file, offset, output.owned_mut(), chunk as usize).await?;
        transport.send_all(output).await?;
        output.clear();
        activity.touch(false);
        offset += chunk;
        left -= chunk;
    }
    Ok(())
}

/// The file `name` in `root`, opened, and its length; or the answer that replaces it (404
/// for every name without a root).
pub async fn open<Io: FileIo>(root: Option<&Path>, name: &FileName) -> Result<(Io::File, u64), FileAnswer> {
    let root = root.ok_or(FileAnswer::Missing)?;
    let errno = |error: io::Error| FileAnswer::from_errno(error.raw_os_error().unwrap_or(0));
    let file = Io::open(&root.join(name.as_str())).await.map_err(errno)?;
    let (regular, len) = Io::metadata(&file).await.map_err(errno)?;
    match FileAnswer::from_metadata(regular, len) {
        FileAnswer::Found { len } => {
            Io::let_reads_wait(&file).map_err(errno)?;
            Ok((file, len))
        }
        answer => Err(answer),
    }
}

/// Clears the file status flags `fcntl(F_SETFL)` may change (`O_NONBLOCK` among them;
/// files are opened with no other), one syscall that never blocks.
/// Takes a file, not a descriptor, as some runtimes' files only give their raw one.
pub fn clear_nonblocking(file: &impl std::os::fd::AsRawFd) -> io::Result<()> {
    // SAFETY: `file` is borrowed for the whole call, so its descriptor stays open while
    // the borrowed one is used; no memory is shared with the kernel.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(file.as_raw_fd()) };
    Ok(rustix::fs::fcntl_setfl(fd, rustix::fs::OFlags::empty())?)
}

/// Appends exactly `len` bytes from `offset` to `buffer`; a file that ends first (it was
/// truncated while served) is an error.
async fn read_exactly<Io: FileIo>(
    file: &mut Io::File,
    offset: u64,
    buffer: &mut Vec<u8>,
    len: usize,
) -> io::Result<()> {
    let mut done = 0;
    while done < len {
        match Io::read(file, offset + done as u64, buffer, len - done).await? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => done += n,
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "file_reply_tests.rs"]
mod tests;

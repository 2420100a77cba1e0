//! `GET|HEAD /files/{name}` for the codec-driven servers (see `http_core::files` for the
//! contract): once the codec stops at a file request, its answer is appended after the
//! responses already waiting, written here once for every runtime. Each runtime supplies
//! only its own file I/O, written the way its users write it ([`FileIo`]): tokio's
//! `tokio::fs` (its blocking pool; tokio's io_uring with `--cfg tokio_unstable`),
//! tokio-uring's, monoio's and compio's `fs` (io_uring).
//!
//! The head and the first [`FILE_CHUNK`] go out in one write with the responses before
//! them; a larger file follows one chunk per read and write, so a connection never holds
//! more than one chunk. A file that ends early, or a read that fails, before the head went
//! out turns the answer into a 500 (and the connection closes); after it, the response
//! cannot be completed and the connection just closes. The file is closed (dropped) when
//! its answer is done either way.

use std::future::Future;
use std::io;
use std::path::Path;

use http_core::Output;
use http_core::files::{FILE_CHUNK, FileAnswer, FileName, FileRequest, render_file_error, render_file_head};

use crate::Activity;
use crate::exchange::Transport;

/// The flags every runtime opens a requested file with (besides read-only): a symlink
/// anywhere is refused (ELOOP), a FIFO does not block, and no child inherits it.
pub const OPEN_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// Whether a `st_mode`/`stx_mode` is a regular file's.
pub fn is_regular_mode(mode: u32) -> bool {
    mode & libc::S_IFMT == libc::S_IFREG
}

/// A runtime's own file I/O. A future dropped before it completes (shutdown, timeout) is
/// never followed by another call on the same file.
pub trait FileIo {
    type File;
    /// Opens `path` read-only with [`OPEN_FLAGS`].
    fn open(path: &Path) -> impl Future<Output = io::Result<Self::File>>;
    /// Whether the opened file is a regular file, and its length.
    fn metadata(file: &Self::File) -> impl Future<Output = io::Result<(bool, u64)>>;
    /// Takes [`OPEN_FLAGS`]' `O_NONBLOCK` off a regular file once it is known to be one
    /// (with [`clear_nonblocking`] on its descriptor): on io_uring a read of a non-blocking
    /// file that would wait for the disk may fail with EAGAIN instead of waiting.
    fn let_reads_wait(file: &Self::File) -> io::Result<()>;
    /// Appends at most `len` bytes of the file, from `offset`, to `buffer`; `Ok(0)` at
    /// its end. Reads follow each other from offset 0, so a runtime whose files have a
    /// position may read from it instead.
    fn read(
        file: &mut Self::File,
        offset: u64,
        buffer: &mut Vec<u8>,
        len: usize,
    ) -> impl Future<Output = io::Result<usize>>;
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
}

/// Appends the answer to `request` after what `output` holds: the head and the first
/// chunk of the file found in `root`, or the error answer (404 for everything without a
/// root).
pub async fn begin<Io: FileIo>(
    root: Option<&Path>,
    request: &FileRequest,
    output: &mut Output,
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
    });
    Begun { close, rest }
}

/// Sends the rest of a file through the (sent, empty) `output`, one chunk per read and
/// write. An error means the response could not be completed: close the connection.
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
    } = rest;
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
mod tests {
    use super::*;
    use crate::tokio_files::TokioFiles;
    use http_core::response::Persistence;

    /// Files that claim [`SHRUNK_LEN`] bytes but hold as many as their name says (the
    /// `File` is that number): truncated while served.
    struct Shrunk;
    const SHRUNK_LEN: u64 = 2 * FILE_CHUNK as u64;

    impl FileIo for Shrunk {
        type File = usize;

        async fn open(path: &Path) -> io::Result<usize> {
            Ok(path.file_name().unwrap().to_str().unwrap().parse().unwrap())
        }

        async fn metadata(_: &usize) -> io::Result<(bool, u64)> {
            Ok((true, SHRUNK_LEN))
        }

        fn let_reads_wait(_: &usize) -> io::Result<()> {
            Ok(())
        }

        async fn read(file: &mut usize, offset: u64, buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
            let n = len.min(file.saturating_sub(offset as usize));
            buffer.resize(buffer.len() + n, 7);
            Ok(n)
        }
    }

    /// A socket that takes everything.
    #[derive(Default)]
    struct Sink {
        sent: usize,
    }

    impl Transport for Sink {
        type Files = Shrunk;

        async fn receive(&mut self, _: &mut Vec<u8>) -> io::Result<usize> {
            Ok(0)
        }

        async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
            self.sent += output.len();
            Ok(())
        }

        async fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }

        async fn discard(&mut self) -> io::Result<usize> {
            Ok(0)
        }
    }

    #[tokio::test]
    async fn a_file_that_ends_early_after_its_head_fails_the_stream() {
        let name = (FILE_CHUNK + 10).to_string();
        let mut output = Output::default();
        let begun = begin::<Shrunk>(Some(Path::new("/")), &request(&name, false), &mut output).await;
        let rest = begun.rest.expect("the first chunk was there");
        let mut sink = Sink::default();
        let streamed = stream(&mut sink, rest, &mut Output::default(), &Activity::new()).await;
        assert_eq!(streamed.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(sink.sent, 0, "no part of a chunk the file did not fill is sent");
    }

    #[tokio::test]
    async fn a_file_that_ends_before_its_head_went_out_is_a_500() {
        let mut output = Output::default();
        http_core::output::Sink::push(&mut output, b"EARLIER");
        let begun = begin::<Shrunk>(Some(Path::new("/")), &request("5", false), &mut output).await;
        assert!(begun.close && begun.rest.is_none());
        let text = String::from_utf8(output.to_vec()).unwrap();
        assert!(text.starts_with("EARLIERHTTP/1.1 500 "), "{text}");
        assert!(!text.contains(" 200 "), "{text}");
    }

    fn request(name: &str, head_only: bool) -> FileRequest {
        FileRequest {
            name: http_core::files::FileName::from_path(&format!("/files/{name}")).unwrap(),
            head_only,
            persistence: Persistence::KeepAlive,
        }
    }

    fn root_with(files: &[(&str, usize)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("file-reply-{}-{}", std::process::id(), files.len()));
        std::fs::create_dir_all(&root).unwrap();
        for (name, len) in files {
            let bytes: Vec<u8> = (0..*len).map(|i| (i % 251) as u8).collect();
            std::fs::write(root.join(name), bytes).unwrap();
        }
        root
    }

    #[tokio::test]
    async fn appends_head_and_first_chunk_after_earlier_responses() {
        let root = root_with(&[("small", 1000), ("large", FILE_CHUNK + 10)]);
        let mut output = Output::default();
        http_core::output::Sink::push(&mut output, b"EARLIER");
        let begun = begin::<TokioFiles>(Some(&root), &request("small", false), &mut output).await;
        assert!(!begun.close && begun.rest.is_none());
        let bytes = output.to_vec();
        assert!(bytes.starts_with(b"EARLIERHTTP/1.1 200 OK\r\n"));
        assert!(bytes.ends_with(&[(999 % 251) as u8]));
        assert_eq!(
            bytes.len() - bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() - 4,
            1000
        );

        let mut output = Output::default();
        let begun = begin::<TokioFiles>(Some(&root), &request("large", false), &mut output).await;
        let rest = begun.rest.expect("a file over one chunk is streamed");
        assert_eq!((rest.offset, rest.left), (FILE_CHUNK as u64, 10));

        let mut output = Output::default();
        let begun = begin::<TokioFiles>(Some(&root), &request("large", true), &mut output).await;
        assert!(begun.rest.is_none(), "HEAD reads nothing");
        assert!(
            output
                .to_vec()
                .ends_with(format!("Content-Length: {}\r\n\r\n", FILE_CHUNK + 10).as_bytes())
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[tokio::test]
    async fn missing_files_directories_and_no_root_are_404() {
        let root = root_with(&[]);
        std::fs::create_dir_all(root.join("dir")).unwrap();
        for (root, name) in [
            (Some(root.as_path()), "absent"),
            (Some(&root), "dir"),
            (None, "absent"),
        ] {
            let mut output = Output::default();
            let begun = begin::<TokioFiles>(root, &request(name, false), &mut output).await;
            assert!(!begun.close && begun.rest.is_none());
            assert!(output.to_vec().starts_with(b"HTTP/1.1 404 "), "{name}");
        }
        std::fs::remove_dir_all(root).unwrap();
    }
}

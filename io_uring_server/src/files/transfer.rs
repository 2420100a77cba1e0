//! One `/files/{name}` answer in progress: its steps (open, stat, then the body: read
//! chunk by chunk, or handed to TCP by `sendfile(2)`) and the memory the kernel writes
//! during them. No ring types: the connection asks
//! [`FileTransfer::wants`] for the next operation, `files/entries.rs` pushes it naming this
//! memory, and the completion comes back through the `on_*` transitions.
//!
//! Everything the kernel may read or write lives on the heap (the NUL-terminated name and
//! the `statx` buffer in a [`FileScratch`], the read buffer), kept by the connection from
//! file to file, so it stays put while the connection moves, and the
//! transfer is dropped only when no file operation is in flight (`DESIGN.md`, rule 7).
//! The opened descriptor is an `OwnedFd`: it is closed (plain `close(2)`) whenever the
//! transfer ends, however it ends, so a connection that dies mid-file leaks nothing.

use std::ffi::CStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd, RawFd};

use http_core::files::{FILE_CHUNK, FileAnswer, FileRequest, SENDFILE_MIN};

use crate::files::fd::FilesRoot;
use crate::files::spare::{FileScratch, FileSpare};
use crate::files::{fd as file_fd, sendfile};

/// Where the transfer stands; each step names the operation it waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Open the name inside the root (IORING_OP_OPENAT).
    Open,
    /// Stat the opened descriptor (IORING_OP_STATX).
    Stat,
    /// `read` of `len` bytes read (and handed to the output) so far (IORING_OP_READ); after
    /// a sendfile that could not go on, `read` starts at the bytes it sent.
    Stream { len: u64, read: u64 },
    /// `sendfile` of `len` bytes sent so far, once the output before it is sent.
    Sendfile { len: u64, sent: u64 },
    /// The socket buffer was full: wait for POLLOUT (IORING_OP_POLL_ADD), then sendfile.
    Writable { len: u64, sent: u64 },
}

/// What the next file operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    Open,
    Stat,
    Read,
    /// The `sendfile(2)` syscall, carried out at once (not through the ring).
    Sendfile,
    /// POLLOUT on the connection's socket.
    PollOut,
}

/// What a completion means for the response.
#[derive(Debug, PartialEq, Eq)]
pub enum Progress {
    /// Nothing to render yet; ask for the next operation.
    Continue,
    /// Render the error answer; the transfer is over.
    Error(FileAnswer),
    /// Render the head of a `len`-byte file; the transfer is over when `done`.
    Head { len: u64, done: bool },
    /// `n` bytes were read into the buffer: append them; the transfer is over when
    /// `done`.
    Chunk { n: usize, done: bool },
    /// sendfile sent the file's last bytes: the transfer is over.
    Sent,
    /// The file ended early or a read failed after the head went out: the response
    /// cannot be completed, so the connection closes.
    Broken,
}

pub struct FileTransfer {
    pub request: FileRequest,
    step: Step,
    /// Send a large resident file by sendfile (the connection has an ordinary socket
    /// descriptor and `--no-sendfile` is off).
    sendfile: bool,
    root: FilesRoot,
    /// The descriptor is still O_NONBLOCK, as opened.
    nonblocking: bool,
    /// The name, NUL-terminated, read by OPENAT until its completion, and the `statx`
    /// written by STATX until its completion.
    scratch: Box<FileScratch>,
    /// The opened file; closed on drop.
    fd: Option<OwnedFd>,
    /// The read buffer, when it is here: not lent to a read in flight nor kept by the
    /// output (`lent_at` then says where its bytes are, to know it when it comes back).
    buffer: Option<Vec<u8>>,
    lent_at: usize,
}

/// Shows the step, the name and the read buffer's size only: the kernel may be writing
/// the buffer (and the `statx`).
impl std::fmt::Debug for FileTransfer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileTransfer")
            .field("step", &self.step)
            .field("name", &self.request.name.as_str())
            .field("buffer", &self.buffer.as_ref().map(Vec::len))
            .finish()
    }
}

impl FileTransfer {
    /// A transfer naming its file in `scratch`, reading into `spare` (grown as the file
    /// needs, up to [`FILE_CHUNK`]), or with `sendfile` sending a large resident file by
    /// sendfile.
    pub fn new(
        request: FileRequest,
        root: FilesRoot,
        (mut scratch, spare): (Box<FileScratch>, Vec<u8>),
        sendfile: bool,
    ) -> FileTransfer {
        scratch.set_name(request.name.as_str());
        FileTransfer {
            request,
            step: Step::Open,
            sendfile,
            root,
            nonblocking: true,
            scratch,
            fd: None,
            buffer: Some(spare),
            lent_at: 0,
        }
    }

    /// The transfer is over (no operation in flight): where its read buffer is, and its
    /// scratch, for the next file.
    pub fn into_spare(mut self) -> (FileSpare, Box<FileScratch>) {
        let spare = match self.buffer.take() {
            Some(buffer) => FileSpare::Here(buffer),
            None => FileSpare::Lent(self.lent_at),
        };
        (spare, self.scratch)
    }

    /// Bytes of read buffer held here (not those lent to the output).
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.buffer.as_ref().map_or(0, Vec::capacity)
    }

    #[cfg(test)]
    pub fn step(&self) -> Step {
        self.step
    }

    /// The operation to submit next, if any: a read only once the buffer is back and the
    /// output has room (`paused` says it has not); a sendfile only once everything
    /// rendered before it is sent (`drained`), so that its bytes follow the head's.
    pub fn wants(&self, paused: bool, drained: bool) -> Option<FileOp> {
        match self.step {
            Step::Open => Some(FileOp::Open),
            Step::Stat => Some(FileOp::Stat),
            Step::Stream { .. } if paused || self.buffer.is_none() => None,
            Step::Stream { .. } => Some(FileOp::Read),
            Step::Sendfile { .. } => drained.then_some(FileOp::Sendfile),
            Step::Writable { .. } => Some(FileOp::PollOut),
        }
    }

    /// A completion with `result` is progress for the request timeout: every step's is,
    /// but a sendfile's only when it sent bytes, and a POLLOUT's never (a socket that
    /// polls writable yet takes nothing, as under TCP memory pressure, must time out).
    pub fn progressed(&self, result: i32) -> bool {
        match self.step {
            Step::Sendfile { .. } => result > 0,
            Step::Writable { .. } => false,
            _ => true,
        }
    }

    /// The body goes out by sendfile after the output rendered so far: a send of that
    /// output may say more follows (MSG_MORE).
    pub fn sends_body_next(&self) -> bool {
        matches!(self.step, Step::Sendfile { .. } | Step::Writable { .. })
    }

    /// OPENAT's operands: the root and the NUL-terminated name.
    pub fn open_args(&self) -> (RawFd, &CStr) {
        (self.root.fd, self.scratch.name())
    }

    /// STATX's operands: the opened descriptor and the buffer the kernel fills.
    pub fn stat_args(&mut self) -> (Option<&OwnedFd>, &mut libc::statx) {
        (self.fd.as_ref(), &mut self.scratch.statx)
    }

    /// READ's operands: the descriptor, the room to fill and the file offset.
    pub fn read_args(&mut self) -> (Option<&OwnedFd>, &mut [u8], u64) {
        let Step::Stream { len, read } = self.step else {
            unreachable!("a read is asked for only while streaming");
        };
        let buffer = self
            .buffer
            .as_mut()
            .expect("a read is asked for with the buffer here");
        let room = (len - read).min(buffer.len() as u64) as usize;
        (self.fd.as_ref(), &mut buffer[..room], read)
    }

    /// sendfile's operands: the file, the offset to send from and the bytes left.
    pub fn sendfile_args(&self) -> (BorrowedFd<'_>, u64, u64) {
        let Step::Sendfile { len, sent } = self.step else {
            unreachable!("a sendfile is asked for only in its step");
        };
        let fd = self.fd.as_ref().expect("a sendfile follows a successful open");
        (fd.as_fd(), sent, len - sent)
    }

    /// The operation in flight completed with `result`.
    pub fn completed(&mut self, result: i32) -> Progress {
        match self.step {
            Step::Open => self.on_opened(result, file_fd::opened(result)),
            Step::Stat => self.on_stat(result),
            Step::Stream { .. } => self.on_read(result),
            Step::Sendfile { len, sent } => self.on_sendfile(result, len, sent),
            Step::Writable { .. } if result < 0 => Progress::Broken,
            Step::Writable { len, sent } => {
                self.step = Step::Sendfile { len, sent };
                Progress::Continue
            }
        }
    }

    /// The operation in flight completed with `result` while the connection ends: the
    /// transfer goes no further (no read buffer, no next step) and is dropped, closing its
    /// descriptor, and one an OPENAT has just returned.
    pub fn abandon(self, result: i32) {
        if self.step == Step::Open {
            drop(file_fd::opened(result));
        }
    }

    /// OPENAT completed; `opened` owns the descriptor it returned, if any.
    fn on_opened(&mut self, result: i32, opened: Option<OwnedFd>) -> Progress {
        match opened {
            Some(fd) => {
                self.fd = Some(fd);
                self.step = Step::Stat;
                Progress::Continue
            }
            None => Progress::Error(FileAnswer::from_errno(-result)),
        }
    }

    /// STATX completed: a regular file's head, else the error answer.
    fn on_stat(&mut self, result: i32) -> Progress {
        if result < 0 {
            return Progress::Error(FileAnswer::from_errno(-result));
        }
        let statx = &self.scratch.statx;
        let is_regular = u32::from(statx.stx_mode) & libc::S_IFMT == libc::S_IFREG;
        match FileAnswer::from_metadata(is_regular, statx.stx_size) {
            FileAnswer::Found { len } => {
                let done = self.request.head_only || len == 0;
                if !done {
                    // A mount not known to read without waiting (NFS, FUSE, a bind mount)
                    // is read on io-wq's threads, never by sendfile on the ring's thread,
                    // where a cached page may still wait on a revalidation.
                    let nowait = self.root.reads_nowait_on(statx.stx_mnt_id);
                    if !nowait && let Err(errno) = self.make_blocking() {
                        return Progress::Error(FileAnswer::from_errno(errno));
                    }
                    let fd = self.fd.as_ref().expect("a stat follows a successful open");
                    if self.sendfile && nowait && len >= SENDFILE_MIN && sendfile::resident(fd.as_fd(), len) {
                        self.step = Step::Sendfile { len, sent: 0 };
                    } else {
                        self.stream_from(len, 0);
                    }
                }
                Progress::Head { len, done }
            }
            answer => Progress::Error(answer),
        }
    }

    /// Reads the rest of the `len`-byte file from offset `read` on, through the ring, into
    /// the read buffer, grown (zeroed) only past what an earlier file left in it.
    fn stream_from(&mut self, len: u64, read: u64) {
        self.step = Step::Stream { len, read };
        let buffer = self.buffer.get_or_insert_with(Vec::new);
        buffer.resize((len - read).min(FILE_CHUNK as u64) as usize, 0);
    }

    /// Clears the descriptor's O_NONBLOCK ([`file_fd::make_blocking`]).
    fn make_blocking(&mut self) -> Result<(), i32> {
        let fd = self.fd.as_ref().expect("an opened file is made blocking");
        file_fd::make_blocking(fd)?;
        self.nonblocking = false;
        Ok(())
    }

    /// READ completed with `result` bytes (or an error).
    fn on_read(&mut self, result: i32) -> Progress {
        let Step::Stream { len, read } = self.step else {
            unreachable!("a read completes only while streaming");
        };
        if result == -libc::EAGAIN {
            // Not expected (io_uring retries a regular file's READ itself), so once only:
            // on a blocking descriptor, the same read again; a second EAGAIN breaks.
            return match self.nonblocking && self.make_blocking().is_ok() {
                true => Progress::Continue,
                false => Progress::Broken,
            };
        }
        if result <= 0 {
            return Progress::Broken;
        }
        let read = read + result as u64;
        self.step = Step::Stream { len, read };
        Progress::Chunk {
            n: result as usize,
            done: read == len,
        }
    }

    /// sendfile returned `result` with `sent` of `len` bytes sent before it: the socket
    /// buffer is full (`-EAGAIN`, or a short count), or the file is sent. No bytes at
    /// all means the file shrank after its head went out. A file sendfile cannot send
    /// (EINVAL: its file system has no page-cache path to a socket; EOPNOTSUPP) is read
    /// from where it stopped, through the ring.
    fn on_sendfile(&mut self, result: i32, len: u64, sent: u64) -> Progress {
        if result == -libc::EAGAIN {
            self.step = Step::Writable { len, sent };
            return Progress::Continue;
        }
        if result == -libc::EINVAL || result == -libc::EOPNOTSUPP {
            self.stream_from(len, sent);
            return Progress::Continue;
        }
        if result <= 0 {
            return Progress::Broken;
        }
        let sent = sent + result as u64;
        if sent == len {
            return Progress::Sent;
        }
        self.step = Step::Writable { len, sent };
        Progress::Continue
    }

    /// The read buffer, to append the chunk just read from it; give it back with
    /// [`FileTransfer::keep_buffer`] if the output copied it, or let the output keep it
    /// (it comes back through [`FileTransfer::is_its_buffer`] once sent).
    pub fn take_buffer(&mut self) -> Vec<u8> {
        let buffer = self.buffer.take().expect("the chunk was read into the buffer");
        self.lent_at = buffer.as_ptr() as usize;
        buffer
    }

    pub fn keep_buffer(&mut self, buffer: Vec<u8>) {
        assert!(self.buffer.is_none(), "the transfer has one read buffer");
        self.buffer = Some(buffer);
    }

    /// `buffer`, handed back by the output once sent, is this transfer's read buffer.
    pub fn is_its_buffer(&self, buffer: &[u8]) -> bool {
        self.buffer.is_none() && buffer.as_ptr() as usize == self.lent_at
    }
}

#[cfg(test)]
#[path = "transfer_tests.rs"]
mod tests;

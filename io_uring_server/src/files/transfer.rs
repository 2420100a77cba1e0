//! One `/files/{name}` answer in progress: its steps (open, stat, then the body: read
//! chunk by chunk, or handed to TCP by `sendfile(2)`) and the memory the kernel writes
//! during them. No ring types: the connection asks
//! [`FileTransfer::wants`] for the next operation, `files/entries.rs` pushes it naming this
//! memory, and the completion comes back through the `on_*` transitions (`files/completion.rs`).
//!
//! Everything the kernel may read or write lives on the heap (the NUL-terminated name and
//! the `statx` buffer in a [`FileScratch`], the read buffer), kept by the connection from
//! file to file, so it stays put while the connection moves, and the
//! transfer is dropped only when no file operation is in flight (`DESIGN.md`, rule 7).
//! The opened descriptor is an `OwnedFd`: it is closed (plain `close(2)`) whenever the
//! transfer ends, however it ends, so a connection that dies mid-file leaks nothing.

use std::ffi::CStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd, RawFd};

use http_core::files::{FileAnswer, FileRequest};

use crate::files::fd as file_fd;
use crate::files::fd::FilesRoot;
use crate::files::spare::{FileScratch, FileSpare};

/// Where the transfer stands; each step names the operation it waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Open the name inside the root (IORING_OP_OPENAT2, RESOLVE_NO_XDEV).
    Open,
    /// Stat the opened descriptor: the `statx(2)` syscall, carried out at once, or
    /// IORING_OP_STATX where the root's file system may wait ([`FileTransfer::stats_inline`]).
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
    /// The `statx(2)` syscall, carried out at once (IORING_OP_STATX always runs on an
    /// io-wq thread), or STATX where the root's file system may wait.
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
    /// The name, NUL-terminated, read by OPENAT2 until its completion, and the `statx` the
    /// stat fills (written by STATX until its completion, where it goes through the ring).
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

    /// OPENAT2's operands: the root and the NUL-terminated name.
    pub fn open_args(&self) -> (RawFd, &CStr) {
        (self.root.fd, self.scratch.name())
    }

    /// Whether the stat is a syscall on the ring thread ([`FileTransfer::stat_now`]): where
    /// the root's file system reads without waiting (`FilesRoot`), as sendfile is. Elsewhere
    /// (NFS, FUSE, CIFS) a stat may wait on a server, and goes through the ring as STATX,
    /// on an io-wq thread.
    pub fn stats_inline(&self) -> bool {
        self.root.nowait_reads
    }

    /// Stats the opened descriptor now, on the ring thread, into the scratch's `statx`
    /// ([`file_fd::stat_into`]); as a completion would carry it: 0 or the negated errno.
    pub fn stat_now(&mut self) -> i32 {
        let fd = self.fd.as_ref().expect("a stat follows a successful open");
        file_fd::stat_into(fd, &mut self.scratch.statx)
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

/// What each completion means: `FileTransfer::completed` and its `on_*` transitions.
#[path = "completion.rs"]
mod completion;

#[cfg(test)]
#[path = "transfer_tests.rs"]
mod tests;

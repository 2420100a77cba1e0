//! What a file operation's completion means for its [`FileTransfer`]: the transitions
//! from one step to the next (open, stat, read or sendfile, waiting for the socket), and
//! what a completion that arrives while the connection ends leaves behind. A child of
//! `files/transfer.rs`, whose state it changes.

use std::os::fd::{AsFd, OwnedFd};

use http_core::files::{FILE_CHUNK, FileAnswer, SENDFILE_MIN};

use super::{FileTransfer, Progress, Step};
use crate::files::{fd as file_fd, sendfile};

impl FileTransfer {
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

    /// The stat returned `result`: a regular file's head, else the error answer.
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
}

//! A connection answering `/files/{name}`: the codec stops at a file request, the
//! connection runs its [`FileTransfer`] (open, stat, then read and send chunk by chunk,
//! or sendfile once the head is sent) and serves the rest of its input only once that
//! answer is complete. A chunk read through the ring is sent from the buffer it was read
//! into when the output holds no other buffer: the output adopts it (`Output::adopt`), as
//! it keeps an echoed body, and hands it back once sent, for the next read; otherwise
//! (the head or an earlier chunk still unsent) the chunk is copied into the output. While
//! the output is backed up (`paused`), no further chunk is read.
//!
//! A connection that ends mid-file cancels the file operation in flight
//! (`Op::CancelFile`) and keeps the transfer, with its memory and its descriptor, until
//! that operation's completion, then drops it unread (`DESIGN.md`, rules 1 and 7).

use http_core::files::{FileAnswer, FileRequest, render_file_error, render_file_head};

use super::{Conn, Phase};
use crate::files::fd::FilesRoot;
use crate::files::spare::FileScratch;
use crate::files::transfer::{FileTransfer, Progress};
use crate::op_state::{Op, Stage};

impl Conn {
    /// Serves `/files/{name}` from the directory `root` (`--files-dir`, opened once);
    /// with `sendfile`, a large file in the page cache by `sendfile(2)`, which needs the
    /// socket's own descriptor (not a direct one).
    pub fn serve_files_from(&mut self, root: FilesRoot, sendfile: bool) {
        self.files_root = Some(root);
        self.sendfile = sendfile && !self.direct;
    }

    /// The transfer whose operation was just submitted, for `files::entries` to name its memory.
    pub fn file_transfer(&mut self) -> &mut FileTransfer {
        self.file
            .as_mut()
            .expect("a file operation belongs to a transfer")
    }

    /// The codec stopped at a file request, with `rest` input bytes after it: start its
    /// transfer, or without a root answer 404 at once.
    pub(super) fn start_file(&mut self, request: FileRequest, rest: usize) {
        match self.files_root {
            Some(root) => {
                let spare = self.file_spare.take();
                let scratch = self.file_scratch.take().unwrap_or_else(FileScratch::new);
                let memory = (scratch, spare);
                self.file = Some(FileTransfer::new(request, root, memory, self.sendfile));
            }
            None => {
                let close = render_file_error(&request, FileAnswer::Missing, &mut self.pending);
                self.end_after_file(close, rest);
            }
        }
    }

    /// The file operation to submit next: the transfer's next step while open, a cancel of
    /// the one in flight once closing.
    pub(super) fn next_file_op(&self) -> Option<Op> {
        let transfer = self.file.as_ref()?;
        match (self.phase, self.ops.file) {
            (Phase::Closing, Stage::InFlight) if self.ops.file_cancel.is_idle() => Some(Op::CancelFile),
            (Phase::Open, Stage::Idle) => {
                let drained = self.backlog() == 0 && self.ops.send.is_idle();
                transfer.wants(self.paused(), drained).map(Op::File)
            }
            _ => None,
        }
    }

    /// The file operation in flight completed with `result` (report it with
    /// [`Conn::completed`] first). Returns the responses rendered after the file's.
    pub fn on_file(&mut self, result: i32, now: u64) -> usize {
        assert!(
            self.ops.file.is_idle(),
            "a file step reported before its completion"
        );
        if self
            .file
            .as_ref()
            .is_some_and(|transfer| transfer.progressed(result))
        {
            self.last_progress = now;
        }
        if self.phase != Phase::Open {
            // Ending (the operation was cancelled or ran its course): nothing names the
            // transfer's memory any more, so drop it, closing any descriptor it opened.
            let transfer = self.file.take().expect("a file operation belongs to a transfer");
            transfer.abandon(result);
            return 0;
        }
        let transfer = self
            .file
            .as_mut()
            .expect("a file operation belongs to a transfer, kept until its completion");
        let request = transfer.request;
        match transfer.completed(result) {
            Progress::Continue => 0,
            Progress::Error(answer) => {
                let close = render_file_error(&request, answer, &mut self.pending);
                self.finish_file(close)
            }
            Progress::Head { len, done } => {
                render_file_head(&request, len, &mut self.pending);
                if done {
                    self.finish_file(request.closes())
                } else {
                    0
                }
            }
            Progress::Sent => self.finish_file(request.closes()),
            Progress::Chunk { n, done } => {
                self.append_chunk(n);
                if done {
                    self.finish_file(request.closes())
                } else {
                    0
                }
            }
            Progress::Broken => {
                // The head promised more bytes than there are: send what went before and
                // end the connection, so the client sees the answer cut short.
                self.end_transfer();
                self.end_after_file(true, 0);
                self.answer()
            }
        }
    }

    /// Appends the `n` bytes just read: kept in the read buffer (which the output then
    /// owns until they are sent), or copied if the output already holds a buffer.
    fn append_chunk(&mut self, n: usize) {
        let transfer = self.file.as_mut().expect("a chunk belongs to a transfer");
        let buffer = transfer.take_buffer();
        let bytes = &buffer[..n];
        let kept = {
            let mut lending = self.pending.lending(bytes);
            http_core::Sink::push_borrowed(&mut lending, bytes);
            lending.kept_any()
        };
        if kept {
            self.pending.adopt(buffer);
        } else {
            transfer.keep_buffer(buffer);
        }
    }

    /// The file's body goes out by sendfile once the output before it is sent.
    pub(super) fn file_body_follows(&self) -> bool {
        self.file.as_ref().is_some_and(FileTransfer::sends_body_next)
    }

    /// A buffer the output held comes back once sent: the read buffer returns to its
    /// transfer, an input buffer to the input (if it still receives into its own).
    pub(super) fn reclaimed(&mut self, buffer: Vec<u8>) {
        let to_file = self
            .file
            .as_ref()
            .is_some_and(|transfer| transfer.is_its_buffer(&buffer));
        if to_file {
            self.file_transfer().keep_buffer(buffer);
        } else if let Some(buffer) = self.file_spare.reclaim(buffer)
            && self.wants_plain_recv()
        {
            self.input.recycle(buffer);
        }
    }

    /// The transfer is over: its descriptor closes (a plain close(2)) and its read buffer
    /// and scratch are kept for the next file.
    fn end_transfer(&mut self) {
        if let Some(transfer) = self.file.take() {
            let (spare, scratch) = transfer.into_spare();
            self.file_spare = spare;
            self.file_scratch = Some(scratch);
        }
    }

    /// The file's answer is complete: its descriptor closes with the transfer (a plain
    /// close(2)); then serve the input after it, unless the connection ends here.
    fn finish_file(&mut self, close: bool) -> usize {
        self.end_transfer();
        self.end_after_file(close, self.input.len());
        self.answer()
    }

    /// After a file's answer: drain and end the connection if it closes, or if the server
    /// is shutting down and no request follows (over TLS, decided once every record the
    /// session holds is answered: [`Conn::end_if_shutting_down`]).
    fn end_after_file(&mut self, close: bool, rest: usize) {
        if close || (self.shutting_down && rest == 0 && !self.encrypted) {
            self.phase = Phase::Draining;
            // A plain recv writing the input discards it at its completion instead, as the
            // connection is no longer open (`Conn::on_recv`).
            if !self.input.is_lent() {
                self.input.clear();
            }
        }
    }
}

//! One thread's completion loop, the `impl` of [`Worker`] (`worker.rs`) that runs it:
//! make one `io_uring_enter`, then drain every completion, report it to the state that
//! owns its operation (a connection's `Conn::on_completion`, the accept or timer state),
//! ask the connection what it wants next (`drive`) and carry that out
//! (`ops::carry_out`); an operation carried out as a syscall has its result reported to
//! `Conn::on_completion` at once, as its completion would be. It also admits accepted connections and runs the tick and the
//! shutdown. The rules it keeps for memory the kernel may touch
//! (when a slot may be freed, when a provided buffer goes back): `DESIGN.md`.

use std::os::fd::{AsRawFd, RawFd};
use std::time::Instant;

use io_uring::{cqueue, types};

use crate::batch::WaitBatcher;
use crate::buf_ring::BufSlice;
use crate::conn::{Completed, Conn};
use crate::op_state::Op;
use crate::ops::{self, Carried};
use crate::ring;
use crate::timer::Timer;
use crate::token::{ConnId, Kind, Token};
use crate::worker::Worker;
use http_core::Codec;

/// The timer's period: timeouts are counted in these ticks.
pub static TICK: types::Timespec = types::Timespec::new().sec(1);

impl Worker {
    /// Runs until shutdown has closed every connection.
    pub fn run(mut self) {
        self.steer_accept();
        ops::tick(&mut self.ring, &TICK);
        self.timer = Timer::Armed;
        let sink: &'static mut [u8; 8] = Box::leak(Box::new([0; 8]));
        ops::wait_wake(&mut self.ring, self.wake.as_raw_fd(), sink);
        while !self.finished() {
            if let Some(buffers) = self.buf_ring.as_mut() {
                buffers.publish();
            }
            let (want, min_wait_us) = match self.batcher.as_mut() {
                Some(batcher) => batcher.next_wait(Instant::now),
                None => (1, 0),
            };
            self.ring.enter(want, min_wait_us);
            let mut completions = std::mem::take(&mut self.completions);
            completions.extend(
                self.ring
                    .uring
                    .completion()
                    .map(|c| (c.user_data(), c.result(), c.flags())),
            );
            if let Some(batcher) = self.batcher.as_mut() {
                batcher.on_woken(Instant::now);
            }
            for &(user_data, result, flags) in &completions {
                self.dispatch(user_data, result, flags);
            }
            completions.clear();
            self.completions = completions;
        }
    }

    /// Shutting down, every connection closed and the accept gone: stop the tick, and
    /// finish once its last completion is in.
    fn finished(&mut self) -> bool {
        if self.shutdown_since.is_none() || self.conns.len() > 0 || self.accept.in_flight() {
            return false;
        }
        if self.timer.stop() {
            ops::cancel_global(&mut self.ring, Kind::Timer);
        }
        self.timer == Timer::Stopped
    }

    fn dispatch(&mut self, user_data: u64, result: i32, flags: u32) {
        let Some(token) = Token::decode(user_data) else {
            return;
        };
        match token.kind {
            Kind::Accept => self.on_accept(result, flags),
            Kind::Timer => self.on_tick(),
            Kind::Wake => self.begin_shutdown(),
            Kind::Control => {}
            Kind::Recv
            | Kind::Send
            | Kind::Shutdown
            | Kind::Cancel
            | Kind::Close
            | Kind::File
            | Kind::FileCancel => self.on_conn(token, result, flags),
        }
    }

    fn on_tick(&mut self) {
        if !self.timer.on_completion() {
            return;
        }
        self.now += 1;
        ops::tick(&mut self.ring, &TICK);
        self.accept.end_backoff();
        self.steer_accept();
        let overdue = self
            .shutdown_since
            .is_some_and(|since| self.now - since >= self.config.grace_ticks);
        for id in self.conns.occupied() {
            let conn = self.conns.get_mut(id).expect("occupied");
            conn.on_tick(self.now, self.config.timeouts);
            if overdue {
                conn.fail();
            }
            self.drive(id);
        }
    }

    fn begin_shutdown(&mut self) {
        self.shutdown_since = Some(self.now);
        self.steer_accept();
        for id in self.conns.occupied() {
            self.conns.get_mut(id).expect("occupied").begin_shutdown();
            self.drive(id);
        }
    }

    fn on_accept(&mut self, result: i32, flags: u32) {
        if let Some(fd) = self.accept.on_completion(result, flags) {
            self.admit(fd);
        }
        self.steer_accept();
    }

    /// A new connection on `fd`: its state, then its first operations.
    fn admit(&mut self, fd: RawFd) {
        let codec = Codec::new(self.config.limits);
        let direct = self.config.features.direct_descriptors;
        let mut conn = Conn::new(fd, direct, self.config.recv, codec, self.now);
        if self.config.zero_copy {
            conn.send_zero_copy();
        }
        if let Some(root) = self.config.files_root {
            conn.serve_files_from(root, !self.config.features.no_sendfile);
        }
        if let Some(config) = &self.config.tls
            && conn.speak_tls(config.clone()).is_err()
        {
            conn.fail();
        }
        if self.shutdown_since.is_some() {
            conn.begin_shutdown();
        }
        let id = self.conns.insert(conn);
        self.drive(id);
    }

    /// Lets the accept follow the number of connections and the shutdown.
    fn steer_accept(&mut self) {
        let (conns, shutting_down) = (self.conns.len(), self.shutdown_since.is_some());
        self.accept.steer(&mut self.ring, conns, shutting_down);
    }

    /// A completion of a connection's operation: the provided buffer it names (if any),
    /// then the connection's own handling ([`Conn::on_completion`]), then what the loop
    /// must do about it (free the slot, tell the batcher), then the next operations.
    fn on_conn(&mut self, token: Token, result: i32, flags: u32) {
        let slice = self.buffer_of(result, flags);
        if token.kind == Kind::Send && cqueue::notif(flags) {
            // The kernel let go of a `'static` body: nothing waits for that.
            return;
        }
        let Some(conn) = self.conns.get_mut(token.conn) else {
            // A completion for an earlier occupant of the slot: only its buffer matters.
            return self.give_back(slice);
        };
        let buffers = self.buf_ring.as_ref();
        let data = slice.zip(buffers).map(|(slice, buffers)| buffers.bytes(slice));
        let completed = conn.on_completion(token.kind, result, cqueue::more(flags), data, self.now);
        self.give_back(slice);
        match completed {
            Completed::Nothing => {}
            Completed::Data { answered } => self.batched(|b| b.on_data(token.conn.slot, answered)),
            Completed::Answered(answered) => self.batched(|b| b.on_answered(answered)),
            Completed::CannotCancel => ring::fatal(
                "this kernel cannot cancel by descriptor (IORING_ASYNC_CANCEL_FD); use Linux 5.19 or later (6.0 with --fixed-files)",
            ),
            Completed::Closed => return self.free(token.conn),
        }
        self.drive(token.conn);
    }

    /// The bytes a completion names in a provided buffer (rule 3): from now on they are
    /// ours until [`Worker::give_back`] within this dispatch.
    fn buffer_of(&mut self, result: i32, flags: u32) -> Option<BufSlice> {
        let id = cqueue::buffer_select(flags)?;
        let buffers = self.buf_ring.as_mut()?;
        Some(buffers.on_completion(id, result.max(0) as usize, cqueue::buffer_more(flags)))
    }

    /// Hands a completion's provided buffer back once its bytes are used (recycled if
    /// the kernel is done with it).
    fn give_back(&mut self, slice: Option<BufSlice>) {
        if let (Some(slice), Some(buffers)) = (slice, self.buf_ring.as_mut()) {
            buffers.release(slice);
        }
    }

    /// The connection's close completed: its slot is freed (rule 1) and the accept may
    /// resume.
    fn free(&mut self, id: ConnId) {
        let conn = self
            .conns
            .get_mut(id)
            .expect("a closed connection is still in its slot");
        assert_eq!(conn.in_flight(), 0, "a slot is freed only when nothing names it");
        self.conns.remove(id);
        self.batched(|b| b.on_close(id.slot));
        self.steer_accept();
    }

    /// Tells the batcher, if waits are batched (`--batch-wait-us`).
    fn batched(&mut self, tell: impl FnOnce(&mut WaitBatcher)) {
        if let Some(batcher) = self.batcher.as_mut() {
            tell(batcher);
        }
    }

    /// Submits whatever the connection's state now calls for.
    fn drive(&mut self, id: ConnId) {
        let Some(conn) = self.conns.get_mut(id) else {
            return;
        };
        loop {
            conn.seal_output();
            let Some(op) = conn.next_op() else {
                break;
            };
            conn.submitted(op, self.now);
            if let Carried::Done(result) = ops::carry_out(&mut self.ring, conn, op, id.token(op.kind())) {
                // A syscall's result, handled as the operation's final completion would be.
                let completed = conn.on_completion(op.kind(), result, false, None, self.now);
                if let (Completed::Answered(answered), Some(batcher)) = (completed, self.batcher.as_mut()) {
                    batcher.on_answered(answered);
                }
            }
            if op == Op::Send
                && let Some(batcher) = self.batcher.as_mut()
            {
                batcher.on_send(id.slot, conn.quiet_after_send());
            }
        }
    }
}

//! One thread's completion loop: drain every completion, let each handler update the
//! connection's pure state, turn that state into new submissions (`drive`), then make one
//! `submit_and_wait`.
//!
//! Invariants that make the kernel's use of our memory safe:
//! - A connection slot is freed only on the completion of its `Close`, which is submitted
//!   only when `in_flight` is zero: no recv, send, shutdown or cancel of it is pending.
//! - `in_flight` counts submissions and drops on each *final* completion (one without
//!   `IORING_CQE_F_MORE`), so a multishot recv counts once however many completions it has.
//! - Output handed to a send is not touched until that send completes (see `conn.rs`).
//! - A provided buffer named by a completion is recycled right after its bytes are copied
//!   or answered, and all recycled buffers are published before the next submit.
//! - The worker ends only when no operation that names memory is in flight.

use std::io::PipeReader;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::time::Instant;

use io_uring::{IoUring, cqueue, types};

use crate::batch::WaitBatcher;
use crate::buf_ring::BufRing;
use crate::config::Features;
use crate::conn::{Conn, Timeouts};
use crate::ops;
use crate::slab::Slab;
use crate::token::{Kind, Token};
use http_core::Limits;

/// The timer's period: timeouts are counted in these ticks.
pub static TICK: types::Timespec = types::Timespec::new().sec(1);

/// Everything one worker thread owns. `ring` is declared first so it is dropped first,
/// before the buffer memory it may name.
pub struct Worker {
    pub ring: IoUring,
    pub buf_ring: Option<BufRing>,
    pub listener: Option<TcpListener>,
    pub wake: PipeReader,
    pub conns: Slab<Conn>,
    pub limits: Limits,
    pub timeouts: Timeouts,
    pub grace_ticks: u64,
    pub features: Features,
    pub buf_size: usize,
    pub now: u64,
    pub accept_armed: bool,
    /// Accept failed for lack of descriptors or memory: retry on the next tick.
    pub accept_backoff: bool,
    /// The armed accept is multishot.
    pub accept_multishot: bool,
    /// A cancel of the multishot accept (paused for lack of room) is under way.
    pub accept_cancel_sent: bool,
    /// Most connections at once: the registered table's size with direct descriptors.
    pub max_conns: usize,
    pub timer_armed: bool,
    pub timer_cancel_sent: bool,
    pub shutdown_since: Option<u64>,
    completions: Vec<(u64, i32, u32)>,
    batcher: WaitBatcher,
}

impl Worker {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ring: IoUring,
        buf_ring: Option<BufRing>,
        listener: TcpListener,
        wake: PipeReader,
        limits: Limits,
        timeouts: Timeouts,
        grace_ticks: u64,
        features: Features,
        buf_size: usize,
        batch_wait_us: u32,
    ) -> Worker {
        Worker {
            ring,
            buf_ring,
            listener: Some(listener),
            wake,
            conns: Slab::new(),
            limits,
            timeouts,
            grace_ticks,
            features,
            buf_size,
            now: 0,
            accept_armed: false,
            accept_backoff: false,
            accept_multishot: false,
            accept_cancel_sent: false,
            max_conns: usize::MAX,
            timer_armed: false,
            timer_cancel_sent: false,
            shutdown_since: None,
            completions: Vec::with_capacity(1024),
            batcher: WaitBatcher::new(batch_wait_us, Instant::now()),
        }
    }

    /// Runs until shutdown has closed every connection.
    pub fn run(mut self) {
        self.arm_accept();
        ops::tick(&mut self.ring, &TICK);
        self.timer_armed = true;
        let sink: &'static mut [u8; 8] = Box::leak(Box::new([0; 8]));
        ops::wait_wake(&mut self.ring, self.wake.as_raw_fd(), sink);
        while !self.finished() {
            if let Some(buffers) = self.buf_ring.as_mut() {
                buffers.publish();
            }
            let (want, min_wait_us) = self.batcher.next_wait(Instant::now);
            let args = types::SubmitArgs::new().min_wait_usec(min_wait_us);
            match self.ring.submitter().submit_with_args(want, &args) {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY | libc::ETIME)) => {}
                Err(e) => panic!("io_uring_enter failed: {e}"),
            }
            let mut completions = std::mem::take(&mut self.completions);
            completions.extend(
                self.ring
                    .completion()
                    .map(|c| (c.user_data(), c.result(), c.flags())),
            );
            for &(user_data, result, flags) in &completions {
                self.dispatch(user_data, result, flags);
            }
            completions.clear();
            self.completions = completions;
        }
    }

    fn finished(&mut self) -> bool {
        if self.shutdown_since.is_none() || self.conns.len() > 0 || self.accept_armed {
            return false;
        }
        if self.timer_armed && !self.timer_cancel_sent {
            ops::cancel_global(&mut self.ring, Kind::Timer);
            self.timer_cancel_sent = true;
        }
        !self.timer_armed
    }

    fn dispatch(&mut self, user_data: u64, result: i32, flags: u32) {
        let Some(token) = Token::decode(user_data) else {
            return;
        };
        match token.kind {
            Kind::Accept => self.on_accept(result, flags),
            Kind::Timer => self.on_tick(result),
            Kind::Wake => self.begin_shutdown(),
            Kind::Control => {}
            Kind::Recv | Kind::Send | Kind::Shutdown | Kind::Cancel | Kind::Close => {
                self.on_conn(token, result, flags)
            }
        }
    }

    fn on_tick(&mut self, result: i32) {
        if result == -libc::ECANCELED {
            self.timer_armed = false;
            return;
        }
        self.now += 1;
        ops::tick(&mut self.ring, &TICK);
        if self.accept_backoff {
            self.accept_backoff = false;
            self.steer_accept();
        }
        let overdue = self
            .shutdown_since
            .is_some_and(|since| self.now - since >= self.grace_ticks);
        for (slot, generation) in self.conns.occupied() {
            let conn = self.conns.get_mut(slot, generation).expect("occupied");
            conn.on_tick(self.now, self.timeouts);
            if overdue {
                conn.fail();
            }
            self.drive(slot, generation);
        }
    }

    fn begin_shutdown(&mut self) {
        self.shutdown_since = Some(self.now);
        if self.accept_armed {
            ops::cancel_global(&mut self.ring, Kind::Accept);
        } else {
            self.listener = None;
        }
        for (slot, generation) in self.conns.occupied() {
            self.conns
                .get_mut(slot, generation)
                .expect("occupied")
                .begin_shutdown();
            self.drive(slot, generation);
        }
    }

    fn on_conn(&mut self, token: Token, result: i32, flags: u32) {
        let buffer = cqueue::buffer_select(flags);
        let Some(conn) = self.conns.get_mut(token.slot, token.generation) else {
            if let (Some(id), Some(buffers)) = (buffer, self.buf_ring.as_mut()) {
                buffers.recycle(id);
            }
            return;
        };
        let last = !cqueue::more(flags);
        if last {
            conn.in_flight -= 1;
        }
        match token.kind {
            Kind::Recv => {
                if last {
                    conn.recv_armed = false;
                    conn.recv_cancel_sent = false;
                }
                match (result, buffer, self.buf_ring.as_mut()) {
                    (1.., Some(id), Some(buffers)) => {
                        self.batcher.on_request();
                        conn.on_data(buffers.filled(id, result as usize), self.now);
                        buffers.recycle(id);
                    }
                    (1.., None, _) => {
                        self.batcher.on_request();
                        conn.on_own_recv(result as usize, self.now)
                    }
                    (0, _, _) => conn.on_eof(),
                    (_, Some(id), Some(buffers)) => buffers.recycle(id),
                    _ if matches!(-result, libc::ENOBUFS | libc::ECANCELED) => {}
                    _ => conn.fail(),
                }
            }
            Kind::Send if result >= 0 => conn.on_sent(result as usize, self.now),
            Kind::Send | Kind::Shutdown if result < 0 => {
                conn.send_in_flight = false;
                conn.fail();
            }
            Kind::Close => {
                self.conns.remove(token.slot);
                self.steer_accept();
                return;
            }
            _ => {}
        }
        self.drive(token.slot, token.generation);
    }

    /// Submits whatever the connection's state now calls for.
    pub(crate) fn drive(&mut self, slot: u32, generation: u32) {
        let Some(conn) = self.conns.get_mut(slot, generation) else {
            return;
        };
        let token = |kind| Token::new(kind, slot, generation);
        let ring = &mut self.ring;
        if conn.wants_recv_cancel() {
            ops::cancel(ring, conn, token(Kind::Recv), token(Kind::Cancel));
            conn.recv_cancel_sent = true;
        }
        if ops::send(ring, conn, token(Kind::Send)) {
            self.batcher.on_send();
        }
        if conn.wants_shutdown() {
            ops::shutdown_write(ring, conn, token(Kind::Shutdown));
            conn.start_linger(self.now);
        }
        if conn.wants_recv() {
            match self.buf_ring.as_ref() {
                Some(buffers) => ops::recv_multishot(ring, conn, buffers.group, token(Kind::Recv)),
                None => ops::recv_into_own_buffer(ring, conn, self.buf_size, token(Kind::Recv)),
            }
        }
        if conn.wants_close() {
            ops::close(ring, conn, token(Kind::Close));
        }
    }
}

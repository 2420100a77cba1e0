//! One thread's completion loop: drain every completion, report it to the state that owns
//! its operation (a connection's `OpStates`, the accept or timer state), let the connection
//! react (`on_recv`, `on_sent`, ...), ask it what it wants next (`drive`), push those
//! submissions, then make one `io_uring_enter`. It also admits accepted connections and
//! runs the tick and the shutdown. The rules it keeps for memory the kernel may touch
//! (when a slot may be freed, when a provided buffer goes back): `DESIGN.md`.

use std::io::PipeReader;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, RawFd};

use crate::files::fd::FilesRoot;
use std::sync::Arc;
use std::time::Instant;

use io_uring::{cqueue, types};

use crate::accepting::Acceptor;
use crate::batch::WaitBatcher;
use crate::buf_ring::BufRing;
use crate::config::Features;
use crate::conn::{Conn, Receiving, Timeouts};
use crate::op_state::Op;
use crate::ops::{self, RecvMode};
use crate::ring::{self, Ring};
use crate::slab::Slab;
use crate::timer::Timer;
use crate::token::{ConnId, Kind, Token};
use http_core::{Codec, Limits};
use rustls::ServerConfig;

/// The timer's period: timeouts are counted in these ticks.
pub static TICK: types::Timespec = types::Timespec::new().sec(1);

/// What a worker is told at start.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub limits: Limits,
    pub timeouts: Timeouts,
    /// Ticks a shutdown waits for busy connections before closing them anyway.
    pub grace_ticks: u64,
    pub features: Features,
    pub recv: RecvMode,
    /// See `--batch-wait-us`; 0 when off or unsupported.
    pub batch_wait_us: u32,
    /// Most connections at once: the registered table's size with direct descriptors.
    pub max_conns: usize,
    /// Send large static bodies with SEND_ZC (`--zero-copy-send`, where supported).
    pub zero_copy: bool,
    /// `--files-dir`, opened once by `main` (O_PATH) and open for the process's lifetime.
    pub files_root: Option<FilesRoot>,
    /// `--tls-cert`: every connection speaks TLS with this configuration.
    pub tls: Option<Arc<ServerConfig>>,
}

/// Everything one worker thread owns. `ring` is declared first so it is dropped first,
/// before the buffer memory it may name.
pub struct Worker {
    ring: Ring,
    buf_ring: Option<BufRing>,
    wake: PipeReader,
    conns: Slab<Conn>,
    config: WorkerConfig,
    now: u64,
    accept: Acceptor,
    timer: Timer,
    shutdown_since: Option<u64>,
    completions: Vec<(u64, i32, u32)>,
    batcher: WaitBatcher,
}

impl Worker {
    pub fn new(
        ring: Ring,
        buf_ring: Option<BufRing>,
        listener: TcpListener,
        wake: PipeReader,
        config: WorkerConfig,
    ) -> Worker {
        Worker {
            ring,
            buf_ring,
            wake,
            conns: Slab::new(),
            now: 0,
            accept: Acceptor::new(listener, config.features, config.max_conns),
            timer: Timer::Stopped,
            shutdown_since: None,
            completions: Vec::with_capacity(1024),
            batcher: WaitBatcher::new(config.batch_wait_us, Instant::now()),
            config,
        }
    }

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
            let (want, min_wait_us) = self.batcher.next_wait(Instant::now);
            self.ring.enter(want, min_wait_us);
            let mut completions = std::mem::take(&mut self.completions);
            completions.extend(
                self.ring
                    .uring
                    .completion()
                    .map(|c| (c.user_data(), c.result(), c.flags())),
            );
            self.batcher.on_woken(Instant::now);
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
        let receiving = match self.config.recv {
            RecvMode::OwnBuffer { size } => Receiving::Plain { size },
            RecvMode::Multishot { .. } => Receiving::Ring {
                large_bodies_plain: !self.config.features.no_plain_body_recv,
            },
        };
        let codec = Codec::new(self.config.limits);
        let direct = self.config.features.fixed_files;
        let mut conn = Conn::new(fd, direct, receiving, codec, self.now);
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

    /// A completion of a connection's operation: first its op state, then what it carries.
    fn on_conn(&mut self, token: Token, result: i32, flags: u32) {
        let received = match (cqueue::buffer_select(flags), self.buf_ring.as_mut()) {
            (Some(id), Some(buffers)) => {
                Some(buffers.on_completion(id, result.max(0) as usize, cqueue::buffer_more(flags)))
            }
            _ => None,
        };
        if token.kind == Kind::Send && cqueue::notif(flags) {
            // The kernel let go of a `'static` body: nothing waits for that.
            return;
        }
        let Some(conn) = self.conns.get_mut(token.conn) else {
            if let (Some(received), Some(buffers)) = (received, self.buf_ring.as_mut()) {
                buffers.release(received);
            }
            return;
        };
        conn.completed(token.kind, cqueue::more(flags));
        let now = self.now;
        match token.kind {
            Kind::Recv => {
                let data = match (received, self.buf_ring.as_ref()) {
                    (Some(received), Some(buffers)) => Some(buffers.bytes(received)),
                    _ => None,
                };
                let answered = conn.on_recv(result, data, now);
                if let (Some(received), Some(buffers)) = (received, self.buf_ring.as_mut()) {
                    buffers.release(received);
                }
                if result > 0 {
                    self.batcher.on_data(token.conn.slot, answered);
                }
            }
            Kind::Send if result == -libc::ENOMEM || result == -libc::EOPNOTSUPP => conn.send_refused(),
            Kind::Send if result >= 0 => {
                let answered = conn.on_sent(result as usize, now);
                self.batcher.on_answered(answered);
            }
            Kind::Send | Kind::Shutdown if result < 0 => conn.fail(),
            Kind::File => self.batcher.on_answered(conn.on_file(result, now)),
            Kind::Cancel if result == -libc::EINVAL => ring::fatal(
                "this kernel cannot cancel by descriptor (IORING_ASYNC_CANCEL_FD); use Linux 6.1 or later",
            ),
            Kind::Close => {
                assert_eq!(conn.in_flight(), 0, "a slot is freed only when nothing names it");
                self.conns.remove(token.conn);
                self.batcher.on_close(token.conn.slot);
                self.steer_accept();
                return;
            }
            _ => {}
        }
        self.drive(token.conn);
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
            let carried = ops::submit(&mut self.ring, conn, op, id.token(op.kind()), self.config.recv);
            if let ops::Carried::Done(result) = carried {
                conn.completed(op.kind(), false);
                if op.kind() == Kind::File {
                    self.batcher.on_answered(conn.on_file(result, self.now));
                } else if result < 0 {
                    conn.fail();
                }
            }
            if op == Op::Send {
                self.batcher.on_send(id.slot, conn.quiet_after_send());
            }
        }
    }
}

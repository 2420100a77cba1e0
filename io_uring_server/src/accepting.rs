//! Accepting connections: one multishot (or single) accept per worker, steered by the
//! worker's state: paused while descriptors run out or the registered table is nearly
//! full, resumed on the next tick or when a connection closes, dropped at shutdown.

use std::os::fd::AsRawFd;

use io_uring::cqueue;

use crate::conn::{Conn, Receiving};
use crate::event_loop::Worker;
use crate::ops::{self, RecvMode};
use crate::token::Kind;
use http_core::Codec;
use server_kit::listener::LISTEN_BACKLOG;

/// Table slots kept free for accepts already under way when accepting pauses.
const ACCEPT_MARGIN: usize = 8;

/// Where the worker's accept operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcceptState {
    /// No accept in flight.
    Idle,
    /// An accept is in flight (multishot: it keeps delivering connections).
    Armed { multishot: bool },
    /// A cancel of the accept was submitted; its final completion is awaited.
    Cancelling,
    /// Accept failed (out of descriptors or memory, or worse); retried on the next tick.
    BackingOff,
}

impl AcceptState {
    /// An accept operation may still complete.
    pub fn in_flight(self) -> bool {
        matches!(self, AcceptState::Armed { .. } | AcceptState::Cancelling)
    }

    /// The tick ends a back-off: accepting may be tried again.
    pub fn end_backoff(&mut self) {
        if *self == AcceptState::BackingOff {
            *self = AcceptState::Idle;
        }
    }
}

impl Worker {
    pub(crate) fn on_accept(&mut self, result: i32, flags: u32) {
        // Errors that concern one connection (it went away before we took it) just mean
        // "accept again"; any other failure pauses accepting until the next tick, so a
        // persistent error cannot turn into a busy loop.
        let transient = result >= 0
            || matches!(
                -result,
                libc::ECANCELED | libc::ECONNABORTED | libc::EINTR | libc::EAGAIN
            );
        if !cqueue::more(flags) {
            self.accept = if transient {
                AcceptState::Idle
            } else {
                AcceptState::BackingOff
            };
        }
        if result >= 0 {
            let direct = self.config.features.fixed_files;
            let receiving = match self.config.recv {
                RecvMode::OwnBuffer { size } => Receiving::Plain { size },
                RecvMode::Multishot { .. } => Receiving::Ring {
                    large_bodies_plain: !self.config.features.no_plain_body_recv,
                },
            };
            let mut conn = Conn::new(
                result,
                direct,
                receiving,
                Codec::new(self.config.limits),
                self.now,
            );
            if self.config.zero_copy {
                conn.send_zero_copy();
            }
            if self.shutdown_since.is_some() {
                conn.begin_shutdown();
            }
            let id = self.conns.insert(conn);
            self.drive(id);
        } else if !transient {
            server_kit::log!(
                "accept: {}; retrying in a second",
                std::io::Error::from_raw_os_error(-result)
            );
        }
        self.steer_accept();
    }

    /// Arms, pauses or drops the accept to match the worker's state: dropped once shutting
    /// down, paused while out of descriptors (until the next tick) or out of room (until a
    /// connection closes).
    pub(crate) fn steer_accept(&mut self) {
        let shutting_down = self.shutdown_since.is_some();
        match self.accept {
            AcceptState::Armed { multishot } => {
                let too_full = !self.has_room() || (multishot && !self.multishot_accept_allowed());
                if shutting_down || too_full {
                    ops::cancel_global(&mut self.ring, Kind::Accept);
                    self.accept = AcceptState::Cancelling;
                }
            }
            AcceptState::Idle | AcceptState::BackingOff if shutting_down => self.listener = None,
            AcceptState::Idle if self.has_room() => self.arm_accept(),
            AcceptState::Idle | AcceptState::BackingOff | AcceptState::Cancelling => {}
        }
    }

    /// Arms an accept if the listener is still open: multishot when allowed and there is
    /// room for a burst, else a single accept.
    fn arm_accept(&mut self) {
        if let Some(listener) = &self.listener {
            let multishot = self.multishot_accept_allowed();
            let direct = self.config.features.fixed_files;
            ops::accept(&mut self.ring, listener.as_raw_fd(), multishot, direct);
            self.accept = AcceptState::Armed { multishot };
        }
    }

    /// Room for another connection. With ordinary fds there always is: the kernel keeps
    /// what we cannot accept queued. With direct descriptors an accept that finds the table
    /// full has already taken the connection off the queue and can only reset it, so
    /// accepting pauses a margin before the table fills.
    fn has_room(&self) -> bool {
        self.conns.len() + ACCEPT_MARGIN < self.config.max_conns
    }

    /// A multishot accept takes every queued connection in one go (up to the listen
    /// backlog), so with direct descriptors it is used only while a full backlog still
    /// fits in the table; closer to full, accepts are single and exactly one each.
    fn multishot_accept_allowed(&self) -> bool {
        let burst = LISTEN_BACKLOG as usize + ACCEPT_MARGIN;
        !self.config.features.no_multishot_accept
            && self.conns.len().saturating_add(burst) < self.config.max_conns
    }
}

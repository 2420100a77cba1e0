//! Accepting connections: the worker's one accept operation (multishot or single) and the
//! listener it runs on, steered by how full the worker is: paused while descriptors run
//! out or the registered table is nearly full, resumed on the next tick or when a
//! connection closes, dropped at shutdown. It knows nothing of the worker: the event loop
//! reports each accept completion ([`Acceptor::on_completion`]) and asks it to steer
//! ([`Acceptor::steer`]) whenever the number of connections or the shutdown changes.

use std::net::TcpListener;
use std::os::fd::{AsRawFd, RawFd};

use io_uring::cqueue;

use crate::config::Features;
use crate::ops;
use crate::ring::Ring;
use crate::token::Kind;
use server_kit::listener::LISTEN_BACKLOG;

/// Table slots kept free for accepts already under way when accepting pauses.
const ACCEPT_MARGIN: usize = 8;

/// Where the worker's accept operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AcceptState {
    /// No accept in flight.
    Idle,
    /// An accept is in flight (multishot: it keeps delivering connections).
    Armed { multishot: bool },
    /// A cancel of the accept was submitted; its final completion is awaited.
    Cancelling,
    /// Accept failed (out of descriptors or memory, or worse); retried on the next tick.
    BackingOff,
}

/// The worker's accept operation and its listener.
#[derive(Debug)]
pub struct Acceptor {
    state: AcceptState,
    /// Dropped (closed) once shutting down with no accept in flight.
    listener: Option<TcpListener>,
    /// Accept into registered (direct) descriptors (`--fixed-files`).
    direct: bool,
    /// Multishot accept is switched off (`--no-multishot-accept`).
    single_only: bool,
    /// Most connections at once (the registered table's size with direct descriptors).
    max_conns: usize,
}

impl Acceptor {
    pub fn new(listener: TcpListener, features: Features, max_conns: usize) -> Acceptor {
        Acceptor {
            state: AcceptState::Idle,
            listener: Some(listener),
            direct: features.direct_descriptors,
            single_only: features.no_multishot_accept,
            max_conns,
        }
    }

    /// An accept operation may still complete.
    pub fn in_flight(&self) -> bool {
        matches!(self.state, AcceptState::Armed { .. } | AcceptState::Cancelling)
    }

    /// The tick ends a back-off: accepting may be tried again.
    pub fn end_backoff(&mut self) {
        if self.state == AcceptState::BackingOff {
            self.state = AcceptState::Idle;
        }
    }

    /// An accept completed with `result`; returns the new connection's descriptor (a slot
    /// of the registered table with direct descriptors), if any. Call [`Acceptor::steer`]
    /// after it.
    pub fn on_completion(&mut self, result: i32, flags: u32) -> Option<RawFd> {
        // Errors that concern one connection (it went away before we took it) just mean
        // "accept again"; any other failure pauses accepting until the next tick, so a
        // persistent error cannot turn into a busy loop.
        let transient = result >= 0
            || matches!(
                -result,
                libc::ECANCELED | libc::ECONNABORTED | libc::EINTR | libc::EAGAIN
            );
        if !cqueue::more(flags) {
            self.state = if transient {
                AcceptState::Idle
            } else {
                AcceptState::BackingOff
            };
        }
        if result >= 0 {
            return Some(result);
        }
        if !transient {
            server_kit::log!(
                "accept: {}; retrying in a second",
                std::io::Error::from_raw_os_error(-result)
            );
        }
        None
    }

    /// Arms, pauses or drops the accept to match the worker, which holds `conns`
    /// connections: dropped once shutting down, paused while out of descriptors (until the
    /// next tick) or out of room (until a connection closes).
    pub fn steer(&mut self, ring: &mut Ring, conns: usize, shutting_down: bool) {
        match self.state {
            AcceptState::Armed { multishot } => {
                let too_full = !self.has_room(conns) || (multishot && !self.multishot_allowed(conns));
                if shutting_down || too_full {
                    ops::cancel_global(ring, Kind::Accept);
                    self.state = AcceptState::Cancelling;
                }
            }
            AcceptState::Idle | AcceptState::BackingOff if shutting_down => self.listener = None,
            AcceptState::Idle if self.has_room(conns) => self.arm(ring, conns),
            AcceptState::Idle | AcceptState::BackingOff | AcceptState::Cancelling => {}
        }
    }

    /// Arms an accept if the listener is still open: multishot when allowed and there is
    /// room for a burst, else a single accept.
    fn arm(&mut self, ring: &mut Ring, conns: usize) {
        if let Some(listener) = &self.listener {
            let multishot = self.multishot_allowed(conns);
            ops::accept(ring, listener.as_raw_fd(), multishot, self.direct);
            self.state = AcceptState::Armed { multishot };
        }
    }

    /// Room for another connection. With ordinary fds there always is: the kernel keeps
    /// what we cannot accept queued. With direct descriptors an accept that finds the table
    /// full has already taken the connection off the queue and can only reset it, so
    /// accepting pauses a margin before the table fills.
    fn has_room(&self, conns: usize) -> bool {
        conns + ACCEPT_MARGIN < self.max_conns
    }

    /// A multishot accept takes every queued connection in one go (up to the listen
    /// backlog), so with direct descriptors it is used only while a full backlog still
    /// fits in the table; closer to full, accepts are single and exactly one each.
    fn multishot_allowed(&self, conns: usize) -> bool {
        let burst = LISTEN_BACKLOG as usize + ACCEPT_MARGIN;
        !self.single_only && conns.saturating_add(burst) < self.max_conns
    }
}

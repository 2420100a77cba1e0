//! Accepting connections: one multishot (or single) accept per worker, steered by the
//! worker's state: paused while descriptors run out or the registered table is nearly
//! full, resumed on the next tick or when a connection closes, dropped at shutdown.

use std::os::fd::AsRawFd;

use io_uring::cqueue;

use crate::conn::Conn;
use crate::event_loop::Worker;
use crate::ops;
use crate::token::Kind;
use http_core::Codec;
use http_core::listener::LISTEN_BACKLOG;

/// Table slots kept free for accepts already under way when accepting pauses.
const ACCEPT_MARGIN: usize = 8;

impl Worker {
    /// Arms an accept if the listener is still open: multishot when allowed and there is
    /// room for a burst, else a single accept.
    pub(crate) fn arm_accept(&mut self) {
        if let Some(listener) = &self.listener {
            let multishot = self.multishot_accept_allowed();
            ops::accept(
                &mut self.ring,
                listener.as_raw_fd(),
                multishot,
                self.features.fixed_files,
            );
            self.accept_armed = true;
            self.accept_multishot = multishot;
        }
    }

    pub(crate) fn on_accept(&mut self, result: i32, flags: u32) {
        if !cqueue::more(flags) {
            self.accept_armed = false;
            self.accept_cancel_sent = false;
        }
        match -result {
            _ if result >= 0 => {
                let mut conn = Conn::new(result, Codec::new(self.limits), self.now);
                conn.direct = self.features.fixed_files;
                let (slot, generation) = self.conns.insert(conn);
                if self.shutdown_since.is_some() {
                    self.conns
                        .get_mut(slot, generation)
                        .expect("just inserted")
                        .begin_shutdown();
                }
                self.drive(slot, generation);
            }
            libc::ECANCELED => {}
            libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM => {
                if !self.accept_backoff {
                    eprintln!(
                        "io_uring_server: accept: {}; retrying in a second",
                        std::io::Error::from_raw_os_error(-result)
                    );
                }
                self.accept_backoff = true;
            }
            errno => eprintln!(
                "io_uring_server: accept: {}",
                std::io::Error::from_raw_os_error(errno)
            ),
        }
        self.steer_accept();
    }

    /// Arms, pauses or drops the accept to match the worker's state: dropped once shutting
    /// down, paused while out of descriptors (until the next tick) or out of room (until a
    /// connection closes).
    pub(crate) fn steer_accept(&mut self) {
        if self.shutdown_since.is_some() {
            if !self.accept_armed {
                self.listener = None;
            }
        } else if self.accept_armed
            && !self.accept_cancel_sent
            && (!self.has_room() || (self.accept_multishot && !self.multishot_accept_allowed()))
        {
            ops::cancel_global(&mut self.ring, Kind::Accept);
            self.accept_cancel_sent = true;
        } else if !self.accept_armed && !self.accept_backoff && self.has_room() {
            self.arm_accept();
        }
    }

    /// Room for another connection. With ordinary fds there always is: the kernel keeps
    /// what we cannot accept queued. With direct descriptors an accept that finds the table
    /// full has already taken the connection off the queue and can only reset it, so
    /// accepting pauses a margin before the table fills.
    fn has_room(&self) -> bool {
        self.conns.len() + ACCEPT_MARGIN < self.max_conns
    }

    /// A multishot accept takes every queued connection in one go (up to the listen
    /// backlog), so with direct descriptors it is used only while a full backlog still
    /// fits in the table; closer to full, accepts are single and exactly one each.
    fn multishot_accept_allowed(&self) -> bool {
        let burst = LISTEN_BACKLOG as usize + ACCEPT_MARGIN;
        !self.features.no_multishot_accept && self.conns.len().saturating_add(burst) < self.max_conns
    }
}

//! A connection over TLS (`--tls-cert`): the same receive, answer and send transitions,
//! with its [`TlsSession`] between the ring and the codec. What arrives in a provided
//! buffer is ciphertext: the session decrypts it and the plaintext is answered as
//! [`Conn::on_data`] answers bytes over plain TCP. What the codec renders stays plaintext
//! in `pending` until the event loop asks for the next operation: then it is sealed (with
//! a `close_notify` once the last response is rendered) into the ciphertext the next send
//! names, at most [`SEAL_AHEAD`] bytes of it unsent at a time. A peer that stops reading
//! pins that much ciphertext, not a copy of everything rendered (which stays plaintext,
//! its bodies held by reference as over plain TCP). Over TLS a
//! connection always receives through the buffer ring, never sends a file by sendfile
//! (the page cache holds plaintext) nor a body by zero-copy send.

use std::sync::Arc;

use rustls::ServerConfig;

use super::{Conn, Phase, Receiving};
use crate::tls_session::{MAX_FRAGMENT, TlsFailed, TlsInput, TlsSession};

/// Ciphertext sealed ahead of the socket: sealing stops while this much is sealed and not
/// yet sent, and goes on as sends complete. Two full records, about one send's worth.
/// Default is 32 KiB.
pub const SEAL_AHEAD: usize = 32 * 1024;

impl Conn {
    /// Speak TLS with `config` from the first byte on.
    pub fn speak_tls(&mut self, config: Arc<ServerConfig>) -> Result<(), TlsFailed> {
        self.tls = Some(Box::new(TlsSession::new(config)?));
        self.encrypted = true;
        match &mut self.receiving {
            Receiving::Ring {
                large_bodies_plain, ..
            } => *large_bodies_plain = false,
            Receiving::Plain { .. } => unreachable!("--no-multishot-recv refuses --tls-cert"),
        }
        self.sendfile = false;
        self.zero_copy = false;
        Ok(())
    }

    /// Ciphertext arrived: each record's plaintext (copied out by rustls) is answered as
    /// it is handed over; the peer's `close_notify` is its end of input; a record that
    /// breaks the protocol ends the connection at once. At shutdown the connection ends
    /// once every whole record is answered, whatever they carried. Returns the responses
    /// rendered.
    ///
    /// After the peer's `close_notify` nothing it sends is read (rustls would take no more
    /// of it, so it would only pile up) nor counts as progress.
    pub(super) fn on_ciphertext(&mut self, data: &[u8], now: u64) -> usize {
        if self.phase != Phase::Open || self.read_closed {
            return 0;
        }
        self.last_progress = now;
        self.request_bytes(now, data.len());
        let mut tls = self.tls.take().expect("an encrypted connection has its session");
        self.tls_outgoing_lent = tls.outgoing_len();
        let mut answered = 0;
        let received = tls.receive(data, &mut |plaintext| answered += self.answer_data(plaintext));
        self.tls = Some(tls);
        self.tls_outgoing_lent = 0;
        match received {
            Ok(TlsInput::Open) => self.end_if_shutting_down(),
            Ok(TlsInput::PeerClosed) => {
                if let Some(tls) = &mut self.tls {
                    tls.forget_incoming();
                }
                self.on_eof();
            }
            Err(_) => self.fail(),
        }
        self.request_timed(now, answered);
        answered
    }

    /// Ciphertext waiting to be sealed or sent: the session's outgoing bytes, and a
    /// `close_notify` still owed once the last response is rendered (counted as one byte;
    /// owed only once the handshake is done: one cut short just closes).
    pub(super) fn tls_backlog(&self) -> usize {
        let Some(tls) = &self.tls else {
            return self.tls_outgoing_lent;
        };
        let owed = self.phase == Phase::Draining && tls.established() && !tls.close_notify_sealed();
        tls.outgoing_len() + usize::from(owed)
    }

    /// Over TLS, the handshake is not done yet.
    pub(super) fn tls_handshaking(&self) -> bool {
        self.tls.as_ref().is_some_and(|tls| !tls.established())
    }

    /// A handshake or a record is partly received: a request is under way.
    pub(super) fn tls_busy(&self) -> bool {
        self.tls.as_ref().is_some_and(|tls| tls.awaits_more())
    }

    /// Part of a record (or of a handshake message) has arrived and waits for its rest:
    /// at shutdown, a request under way.
    pub(super) fn tls_holds_partial_record(&self) -> bool {
        self.tls.as_ref().is_some_and(|tls| tls.holds_partial_record())
    }

    /// Over TLS, encrypts what is rendered and not yet sealed (and the `close_notify` once
    /// the last response is) into the ciphertext the next send names, until
    /// [`SEAL_AHEAD`] bytes are sealed and unsent; nothing over plain TCP. The event loop
    /// calls it before each [`Conn::next_op`], so a send never waits while plaintext could
    /// be sealed, and sealing goes on as sends complete. It never touches `sending`, so it
    /// may run while a send is in flight. A session that cannot seal ends the connection.
    pub fn seal_output(&mut self) {
        if !self.encrypted || !matches!(self.phase, Phase::Open | Phase::Draining) {
            return;
        }
        while self.seal_some() {}
    }

    /// Seals what room there is of `sealing` (taking `pending` as `sealing` first if that
    /// is empty); once all of `sealing` is, a buffer it kept (an echo's input, a file's
    /// chunk) comes back, since the ciphertext is a copy. Returns whether to go on: all of
    /// `sealing` was sealed and `pending` has more. Rather than seal a record shorter
    /// than a full one while ciphertext still waits to leave, it waits for more room.
    fn seal_some(&mut self) -> bool {
        if self.sealing.is_empty() {
            std::mem::swap(&mut self.sealing, &mut self.pending);
        }
        let waiting = self.sending.len() - self.sent;
        let tls = self
            .tls
            .as_mut()
            .expect("an encrypted connection has its session");
        let waiting = waiting + tls.outgoing_len();
        let unsealed = self.sealing.len() - self.sealed;
        let budget = unsealed.min(SEAL_AHEAD.saturating_sub(waiting));
        let short = budget < unsealed.min(MAX_FRAGMENT) && waiting > 0;
        let all = budget == unsealed && self.pending.is_empty();
        let close = all && self.phase == Phase::Draining && tls.established() && !tls.close_notify_sealed();
        if (budget == 0 || short) && !close {
            return false;
        }
        let plaintext = self.sealing.slices_from(self.sealed).map(|(slice, _)| slice);
        if let Err(why) = tls.seal(first_bytes(plaintext, budget), close) {
            // Not the peer's doing: rustls refused to encrypt what it was given.
            server_kit::log!("a connection's TLS could not seal its output ({why}); closing it");
            self.fail();
            return false;
        }
        self.sealed += budget;
        if self.sealed < self.sealing.len() {
            return false;
        }
        self.sealed = 0;
        if let Some(buffer) = self.sealing.reclaim() {
            self.reclaimed(buffer);
        }
        !self.pending.is_empty()
    }

    /// A send is being submitted and the last is all sent: the sealed ciphertext becomes
    /// the output it names; the spent output's buffer is the session's next.
    pub(super) fn send_sealed(&mut self) {
        let tls = self
            .tls
            .as_mut()
            .expect("an encrypted connection has its session");
        let spent = std::mem::replace(self.sending.owned_mut(), tls.take_outgoing());
        tls.recycle(spent);
    }

    /// Bytes of buffer the session holds.
    #[cfg(test)]
    pub(super) fn tls_allocated(&self) -> usize {
        self.tls.as_ref().map_or(0, |tls| tls.allocated())
    }

    /// The connection fell silent: its session holds no empty buffer.
    pub(super) fn tls_release(&mut self) {
        if let Some(tls) = &mut self.tls {
            tls.release_if_empty();
        }
    }
}

/// The first `budget` bytes of `slices`, the last slice cut short where they end.
fn first_bytes<'a>(
    slices: impl Iterator<Item = &'a [u8]>,
    mut budget: usize,
) -> impl Iterator<Item = &'a [u8]> {
    slices.map_while(move |slice| {
        let take = slice.len().min(budget);
        budget -= take;
        (take > 0).then(|| &slice[..take])
    })
}

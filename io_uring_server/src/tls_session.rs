//! One connection's TLS, between the ring and the codec: rustls's unbuffered server
//! connection over two byte buffers of the connection's own, no ring types, no `unsafe`.
//! Ciphertext that arrived (copied out of its provided buffer, which goes back to the
//! kernel at once) waits in `incoming`, where rustls decrypts each record in place and
//! (rustls 0.23) copies its plaintext into a `Vec` it hands over to the codec. What the codec renders is
//! encrypted straight into `outgoing`, which becomes the output the next send names.
//! The kernel never touches either buffer (`DESIGN.md`, "TLS").
//!
//! Input costs time linear in its bytes whatever its records' sizes: the records taken are
//! dropped from `incoming` once per receive, not one by one (each would move the rest),
//! and small records' plaintext is gathered and handed to the codec together, so a
//! request head sent a byte a record is not parsed again for every byte.

use std::sync::Arc;

use rustls::ServerConfig;
use rustls::server::{ServerConnectionData, UnbufferedServerConnection};
use rustls::unbuffered::{ConnectionState, EncodeError, EncryptError, UnbufferedStatus, WriteTraffic};

/// The bytes TLS 1.3 adds to each record with an AEAD cipher: the 5-byte header, the
/// inner content type and the 16-byte tag.
const RECORD_OVERHEAD: usize = 5 + 1 + 16;

/// The most plaintext one record carries.
pub const MAX_FRAGMENT: usize = 16 * 1024;

/// A record with less plaintext than this, after another in the same receive, is gathered
/// with its neighbours rather than handed to the codec alone. Default is 1 KiB.
const SMALL_RECORD: usize = 1024;

/// Gathered plaintext is handed over before it would pass this many bytes, so gathering
/// holds at most this much. Default is 16 KiB.
const GATHER_MAX: usize = 16 * 1024;

/// The most ciphertext a handshake message (a ClientHello, or after the handshake a
/// KeyUpdate) may leave waiting for its rest: its largest size (64 KiB) and a record. A
/// peer announcing more, then trickling it in small or padded records, is refused rather
/// than held. Default is 64 KiB + 17 KiB.
const HANDSHAKE_INCOMING_MAX: usize = 0xffff + 5 + MAX_FRAGMENT + 256;

/// An emptied `incoming` larger than this (a large handshake message, a burst of
/// records) is given up at once rather than at the next silent tick. Default is 32 KiB.
const INCOMING_KEPT: usize = 32 * 1024;

/// Why a connection's TLS cannot go on: the peer broke the protocol (a record that does
/// not decrypt, a bad handshake), or rustls refused what it was asked.
#[derive(Debug)]
pub struct TlsFailed(String);

impl std::fmt::Display for TlsFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<rustls::Error> for TlsFailed {
    fn from(error: rustls::Error) -> TlsFailed {
        TlsFailed(error.to_string())
    }
}

/// What the records received so far meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsInput {
    /// More may come.
    Open,
    /// The peer said `close_notify`: nothing more will come.
    PeerClosed,
}

pub struct TlsSession {
    conn: UnbufferedServerConnection,
    /// Ciphertext received and not yet taken by rustls: between calls, the start of a
    /// record, or during the handshake the records of a message not yet whole (at most
    /// [`HANDSHAKE_INCOMING_MAX`]).
    incoming: Vec<u8>,
    /// Ciphertext to send, in order: handshake records, tickets, sealed responses, the
    /// `close_notify`.
    outgoing: Vec<u8>,
    /// Small records' plaintext gathered during a receive; empty between receives.
    gathered: Vec<u8>,
    /// The handshake is done: responses may be sealed.
    established: bool,
    close_notify_sealed: bool,
}

impl std::fmt::Debug for TlsSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsSession")
            .field("incoming", &self.incoming.len())
            .field("outgoing", &self.outgoing.len())
            .field("established", &self.established)
            .finish()
    }
}

impl TlsSession {
    pub fn new(config: Arc<ServerConfig>) -> Result<TlsSession, TlsFailed> {
        Ok(TlsSession {
            conn: UnbufferedServerConnection::new(config)?,
            incoming: Vec::new(),
            outgoing: Vec::new(),
            gathered: Vec::new(),
            established: false,
            close_notify_sealed: false,
        })
    }

    /// Takes `ciphertext` in and processes every whole record: the application data goes
    /// to `deliver`, in order; handshake replies and tickets wait in the outgoing
    /// ciphertext. The first record, and any of at least [`SMALL_RECORD`] bytes, is
    /// handed over as rustls hands it (a copy of its own); later small ones are gathered
    /// first (up to [`GATHER_MAX`]), so `deliver` is called about once per receive or per
    /// large record, however small the records.
    pub fn receive(
        &mut self,
        ciphertext: &[u8],
        deliver: &mut dyn FnMut(&[u8]),
    ) -> Result<TlsInput, TlsFailed> {
        self.incoming.extend_from_slice(ciphertext);
        let mut gathered = std::mem::take(&mut self.gathered);
        let mut first = true;
        let mut gather = |plaintext: &[u8]| {
            let alone = std::mem::replace(&mut first, false) || plaintext.len() >= SMALL_RECORD;
            if alone || gathered.len() + plaintext.len() > GATHER_MAX {
                hand_over(&mut gathered, deliver);
            }
            if alone {
                deliver(plaintext);
            } else {
                if gathered.capacity() == 0 {
                    // Never grown past: it is handed over before it would be.
                    gathered.reserve_exact(GATHER_MAX);
                }
                gathered.extend_from_slice(plaintext);
            }
        };
        let received = self.process(&mut gather, None);
        hand_over(&mut gathered, deliver);
        self.gathered = gathered;
        // Whole records are taken at once, except a handshake message's (during the
        // handshake or after it, a KeyUpdate say), which rustls keeps here until whole.
        if self.incoming.len() > HANDSHAKE_INCOMING_MAX {
            return Err(TlsFailed("a handshake message larger than any TLS allows".into()));
        }
        if self.incoming.is_empty() && self.incoming.capacity() > INCOMING_KEPT {
            self.incoming = Vec::new();
        }
        received
    }

    /// Encrypts `plaintext`, slice by slice, and after it a `close_notify` when `close`,
    /// into the outgoing ciphertext. Only once the handshake is done.
    pub fn seal<'a>(
        &mut self,
        plaintext: impl Iterator<Item = &'a [u8]>,
        close: bool,
    ) -> Result<(), TlsFailed> {
        let mut plaintext = Some(plaintext);
        let mut write = |traffic: &mut WriteTraffic<'_, ServerConnectionData>, outgoing: &mut Vec<u8>| {
            for slice in plaintext
                .take()
                .into_iter()
                .flatten()
                .filter(|slice| !slice.is_empty())
            {
                append(outgoing, sealed_len(slice.len()), |room| {
                    traffic.encrypt(slice, room).map_err(encrypt_room)
                })?;
            }
            if close {
                append(outgoing, RECORD_OVERHEAD + 2, |room| {
                    traffic.queue_close_notify(room).map_err(encrypt_room)
                })?;
            }
            Ok(())
        };
        let mut nothing_arrives = |_: &[u8]| {};
        let write: &mut Writer<'_> = &mut write;
        self.process(&mut nothing_arrives, Some(write))?;
        if close {
            self.close_notify_sealed = true;
        }
        Ok(())
    }

    /// The ciphertext to send next, handed over whole (the session starts a new buffer).
    pub fn take_outgoing(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.outgoing)
    }

    /// A sent output's buffer, emptied, to seal the next ciphertext into (kept only if the
    /// session has started none).
    pub fn recycle(&mut self, mut spent: Vec<u8>) {
        if self.outgoing.capacity() == 0 {
            spent.clear();
            self.outgoing = spent;
        }
    }

    pub fn outgoing_len(&self) -> usize {
        self.outgoing.len()
    }

    pub fn established(&self) -> bool {
        self.established
    }

    pub fn close_notify_sealed(&self) -> bool {
        self.close_notify_sealed
    }

    /// Part of a record (or of the handshake) is still to come.
    pub fn awaits_more(&self) -> bool {
        !self.established || !self.incoming.is_empty()
    }

    /// Ciphertext has arrived that rustls has not taken yet.
    pub fn holds_partial_record(&self) -> bool {
        !self.incoming.is_empty()
    }

    /// The peer said `close_notify`: whatever followed it is never read.
    pub fn forget_incoming(&mut self) {
        self.incoming = Vec::new();
    }

    /// Gives up empty buffers' memory, so an idle connection holds none.
    pub fn release_if_empty(&mut self) {
        self.gathered = Vec::new();
        if self.incoming.is_empty() {
            self.incoming = Vec::new();
        }
        if self.outgoing.is_empty() {
            self.outgoing = Vec::new();
        }
    }

    /// Bytes of buffer held.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.incoming.capacity() + self.outgoing.capacity() + self.gathered.capacity()
    }

    /// Steps rustls through the records in `incoming` until it needs more bytes (or, when
    /// `write` is given, until it may encrypt, and then lets `write` encrypt). Plaintext
    /// goes to `deliver`; handshake records to `outgoing`, which is sent in order, so each
    /// encoded flight is done with once it is there. The records taken are dropped from
    /// `incoming` once, at the end (each record's own drop would move all the rest).
    fn process(
        &mut self,
        deliver: &mut dyn FnMut(&[u8]),
        write: Option<&mut Writer<'_>>,
    ) -> Result<TlsInput, TlsFailed> {
        let mut taken = 0;
        let result = self.step(&mut taken, deliver, write);
        self.incoming.drain(..taken);
        result
    }

    /// [`TlsSession::process`]'s steps, over `incoming` from `taken` on; `taken` grows by
    /// each record rustls is done with.
    fn step(
        &mut self,
        taken: &mut usize,
        deliver: &mut dyn FnMut(&[u8]),
        mut write: Option<&mut Writer<'_>>,
    ) -> Result<TlsInput, TlsFailed> {
        let mut received = TlsInput::Open;
        loop {
            let UnbufferedStatus { mut discard, state } =
                self.conn.process_tls_records(&mut self.incoming[*taken..]);
            let wait = match state? {
                ConnectionState::ReadTraffic(mut traffic) => {
                    if write.is_some() {
                        return Err(TlsFailed("a record arrived unprocessed before sealing".into()));
                    }
                    while let Some(record) = traffic.next_record() {
                        let record = record?;
                        discard += record.discard;
                        deliver(record.payload);
                    }
                    false
                }
                ConnectionState::EncodeTlsData(mut encode) => {
                    append(&mut self.outgoing, 4096, |room| {
                        encode.encode(room).map_err(encode_room)
                    })?;
                    false
                }
                ConnectionState::TransmitTlsData(transmit) => {
                    transmit.done();
                    false
                }
                ConnectionState::WriteTraffic(mut traffic) => {
                    self.established = true;
                    if let Some(write) = write.take() {
                        write(&mut traffic, &mut self.outgoing)?;
                    }
                    true
                }
                ConnectionState::PeerClosed => {
                    received = TlsInput::PeerClosed;
                    false
                }
                ConnectionState::Closed => {
                    received = TlsInput::PeerClosed;
                    true
                }
                ConnectionState::BlockedHandshake => true,
                _ => return Err(TlsFailed("an unexpected TLS state (early data?)".into())),
            };
            *taken += discard;
            if wait {
                break;
            }
        }
        match write {
            Some(_) => Err(TlsFailed("sealing before the handshake is done".into())),
            None => Ok(received),
        }
    }
}

/// Hands what `gathered` holds (if anything) to `deliver`, and empties it.
fn hand_over(gathered: &mut Vec<u8>, deliver: &mut dyn FnMut(&[u8])) {
    if !gathered.is_empty() {
        deliver(gathered);
        gathered.clear();
    }
}

/// What [`TlsSession::seal`] does once rustls may encrypt.
type Writer<'a> =
    dyn FnMut(&mut WriteTraffic<'_, ServerConnectionData>, &mut Vec<u8>) -> Result<(), TlsFailed> + 'a;

/// The ciphertext `len` bytes of plaintext become.
fn sealed_len(len: usize) -> usize {
    len + len.div_ceil(MAX_FRAGMENT).max(1) * RECORD_OVERHEAD
}

/// Appends what `write` puts into room at the end of `buffer`: `guess` bytes of room at
/// first, as much as `write` says it needs (`Err(Some(needed))`) when that is too little.
fn append(
    buffer: &mut Vec<u8>,
    guess: usize,
    mut write: impl FnMut(&mut [u8]) -> Result<usize, Option<usize>>,
) -> Result<(), TlsFailed> {
    let start = buffer.len();
    let mut room = guess;
    loop {
        buffer.resize(start + room, 0);
        match write(&mut buffer[start..]) {
            Ok(written) => {
                buffer.truncate(start + written);
                return Ok(());
            }
            Err(Some(needed)) if needed > room => room = needed,
            Err(_) => {
                buffer.truncate(start);
                return Err(TlsFailed(
                    "rustls could not encode into the room it asked for".into(),
                ));
            }
        }
    }
}

fn encode_room(error: EncodeError) -> Option<usize> {
    match error {
        EncodeError::InsufficientSize(short) => Some(short.required_size),
        _ => None,
    }
}

fn encrypt_room(error: EncryptError) -> Option<usize> {
    match error {
        EncryptError::InsufficientSize(short) => Some(short.required_size),
        _ => None,
    }
}

#[cfg(test)]
#[path = "tls_session_tests.rs"]
pub(crate) mod tests;

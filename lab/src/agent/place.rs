//! The agent's one session's place: taken by a connection whose first request carried the
//! token ([`Place::take`]), unless another session holds it or the agent is stopping;
//! freed when that session's thread ends, however it ends ([`Held`]). [`Place::close`]
//! (on a signal) refuses sessions from then on, ends the open one and waits until it has
//! stopped its servers.

use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use harness::remote::protocol::BUSY;

/// The open session, if any, and a signal for when it has ended.
#[derive(Default)]
pub struct Place {
    slot: Mutex<Slot>,
    ended: Condvar,
}

#[derive(Default)]
struct Slot {
    /// The open session's connection (a second handle to it, to end it from outside).
    open: Option<TcpStream>,
    stopping: bool,
}

/// The place held by one session, until this is dropped.
pub struct Held(Arc<Place>);

impl Place {
    /// Takes the place for the session on `stream`; the refusal when another session
    /// holds it or the agent is stopping.
    pub fn take(self: &Arc<Self>, stream: &TcpStream) -> Result<Held, String> {
        let mut slot = self.lock();
        if slot.stopping {
            return Err("refused: the agent is stopping".into());
        }
        if slot.open.is_some() {
            return Err(BUSY.into());
        }
        let handle = stream.try_clone().map_err(|e| format!("refused: {e}"))?;
        slot.open = Some(handle);
        Ok(Held(self.clone()))
    }

    /// Refuses sessions from now on, ends the open one (its next read sees the end of the
    /// connection, so it stops its servers) and waits until it has.
    pub fn close(&self) {
        let mut slot = self.lock();
        slot.stopping = true;
        if let Some(stream) = &slot.open {
            let _ = stream.shutdown(Shutdown::Both);
        }
        while slot.open.is_some() {
            slot = self.ended.wait(slot).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The slot, also after a thread panicked while holding it.
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Held {
    /// Frees the place (also while a panic unwinds) and says so to a waiting
    /// [`Place::close`].
    fn drop(&mut self) {
        self.0.lock().open = None;
        self.0.ended.notify_all();
    }
}

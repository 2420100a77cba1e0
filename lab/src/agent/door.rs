//! The agent's door: connections taken on its one address from its one client IP, one
//! session at a time, each on a thread of its own ([`super::session`]); any other is
//! answered with one refusal line and closed. The [`Shutter`] (SIGTERM or SIGINT) refuses
//! new sessions, ends the open one and waits until it has stopped its servers.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use harness::remote::line::write_line;
use harness::remote::protocol::Reply;

use super::Agent;
use super::session;

/// How long a refusal may take to be written before the connection is closed anyway.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The refusal of a second session while one is open.
const BUSY: &str = "refused: busy: another study's session is open (one at a time)";

/// How long to wait after a failed accept (out of descriptors, say) before the next.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// Accepts sessions for the agent.
pub struct Door {
    agent: Arc<Agent>,
    sessions: Arc<Sessions>,
}

/// The open session, if any, and a signal for when it has ended.
#[derive(Default)]
struct Sessions {
    slot: Mutex<Slot>,
    ended: Condvar,
}

#[derive(Default)]
struct Slot {
    /// The open session's connection (a second handle to it, to end it from outside).
    open: Option<TcpStream>,
    stopping: bool,
}

/// Ends the agent's sessions: [`Shutter::close`].
pub struct Shutter(Arc<Sessions>);

impl Door {
    pub fn new(agent: Arc<Agent>) -> Door {
        Door {
            agent,
            sessions: Arc::default(),
        }
    }

    pub fn shutter(&self) -> Shutter {
        Shutter(self.sessions.clone())
    }

    /// Takes connections on `listener` for as long as the agent runs.
    pub fn serve(self, listener: TcpListener) {
        for incoming in listener.incoming() {
            match incoming {
                Ok(stream) => self.welcome(stream),
                Err(e) => {
                    eprintln!("agent: accept: {e}");
                    std::thread::sleep(ACCEPT_RETRY);
                }
            }
        }
    }

    /// Starts a session on `stream` when it comes from the client and none is open;
    /// otherwise refuses it.
    fn welcome(&self, stream: TcpStream) {
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        if peer.ip().to_canonical() != self.agent.client {
            let refusal = format!("refused: no connection is taken from {}", peer.ip());
            refuse(stream, &refusal);
            return;
        }
        if let Err(refusal) = self.open(&stream) {
            refuse(stream, &refusal);
            return;
        }
        eprintln!("agent: session from {peer}");
        let (agent, sessions) = (self.agent.clone(), self.sessions.clone());
        std::thread::spawn(move || {
            let _vacate = Vacate(sessions);
            let ended = session::serve(stream, &agent);
            eprintln!("agent: session from {peer} ended: {ended}");
        });
    }

    /// Takes the one session's place for `stream`, unless another session holds it or the
    /// agent is stopping.
    fn open(&self, stream: &TcpStream) -> Result<(), String> {
        let mut slot = lock(&self.sessions);
        if slot.stopping {
            return Err("refused: the agent is stopping".into());
        }
        if slot.open.is_some() {
            return Err(BUSY.into());
        }
        let handle = stream.try_clone().map_err(|e| format!("refused: {e}"))?;
        slot.open = Some(handle);
        Ok(())
    }
}

/// Frees the session's place when its thread ends (by a panic too), and says so to a
/// waiting [`Shutter`].
struct Vacate(Arc<Sessions>);

impl Drop for Vacate {
    fn drop(&mut self) {
        lock(&self.0).open = None;
        self.0.ended.notify_all();
    }
}

impl Shutter {
    /// Refuses sessions from now on, ends the open one (its next read sees the end of the
    /// connection, so it stops its servers) and waits until it has.
    pub fn close(&self) {
        let mut slot = lock(&self.0);
        slot.stopping = true;
        if let Some(stream) = &slot.open {
            let _ = stream.shutdown(Shutdown::Both);
        }
        while slot.open.is_some() {
            slot = self.0.ended.wait(slot).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

fn lock(sessions: &Sessions) -> MutexGuard<'_, Slot> {
    sessions.slot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Answers `stream` with `refusal`, logs it, and closes the connection.
fn refuse(mut stream: TcpStream, refusal: &str) {
    eprintln!("agent: {refusal}");
    let _ = stream.set_write_timeout(Some(REFUSAL_WRITE_TIMEOUT));
    let _ = write_line(&mut stream, &Reply::<()>::Error(refusal.to_string()));
}

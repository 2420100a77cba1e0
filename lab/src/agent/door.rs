//! The agent's door: connections taken on its one address. One from any IP but the
//! client's is answered with one refusal line and closed at once. One from the client
//! waits on a thread of its own for its first request ([`session::admit`]): at most
//! [`MAX_WAITING`] wait at once, and any more are refused. Only a first request that came
//! whole in time with the token takes the session's place ([`Place::take`]), and only
//! while no other session holds it; that thread then serves the session. Every refusal is
//! logged, one a second at most ([`RefusalLog`]).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::place::Place;
use super::refusals::RefusalLog;
use super::session;
use super::{Agent, note};

/// The most connections waiting for their first request at once; one more is refused.
/// Default is 4.
pub const MAX_WAITING: usize = 4;

/// How long to wait after a failed accept (out of descriptors, say) before the next.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// The refusal of a connection while [`MAX_WAITING`] others wait for their first request.
const TOO_MANY_WAITING: &str = "refused: too many connections are waiting to send their first request";

/// Accepts sessions for the agent.
pub struct Door {
    agent: Arc<Agent>,
    place: Arc<Place>,
    waiting: Arc<AtomicUsize>,
    refusals: Arc<RefusalLog>,
}

impl Door {
    pub fn new(agent: Arc<Agent>) -> Door {
        Door {
            agent,
            place: Arc::default(),
            waiting: Arc::default(),
            refusals: Arc::default(),
        }
    }

    /// The session's place, to close it when the agent stops ([`Place::close`]).
    pub fn place(&self) -> Arc<Place> {
        self.place.clone()
    }

    /// Takes connections on `listener` for as long as the agent runs.
    pub fn serve(self, listener: TcpListener) {
        for incoming in listener.incoming() {
            match incoming {
                Ok(stream) => self.welcome(stream),
                Err(e) => {
                    self.refusals.log(&format!("accept: {e}"));
                    std::thread::sleep(ACCEPT_RETRY);
                }
            }
        }
    }

    /// Refuses `stream` unless it comes from the client and fewer than [`MAX_WAITING`]
    /// others wait for their first request; otherwise hands it to a thread of its own.
    fn welcome(&self, stream: TcpStream) {
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        if peer.ip().to_canonical() != self.agent.client {
            let refusal = format!("refused: no connection is taken from {}", peer.ip());
            return self.refusals.refuse(stream, &refusal);
        }
        let Some(waiting) = Waiting::enter(&self.waiting) else {
            return self.refusals.refuse(stream, TOO_MANY_WAITING);
        };
        // A second handle, to refuse the connection should its thread not start.
        let Ok(spare) = stream.try_clone() else {
            return;
        };
        let (agent, place, refusals) = (self.agent.clone(), self.place.clone(), self.refusals.clone());
        let spawned = std::thread::Builder::new()
            .name("session".into())
            .spawn(move || admit_and_serve(stream, peer, waiting, &agent, &place, &refusals));
        // On an error the thread's closure was dropped: its place among the waiting is
        // freed, and the session's place was never taken.
        match spawned {
            Ok(_) => drop(spare),
            Err(e) => self
                .refusals
                .refuse(spare, &format!("refused: cannot start a thread: {e}")),
        }
    }
}

/// On the connection's own thread: reads its first request, and if that carries the
/// token, takes the session's place and serves the session; otherwise refuses it.
fn admit_and_serve(
    stream: TcpStream,
    peer: SocketAddr,
    waiting: Waiting,
    agent: &Agent,
    place: &Arc<Place>,
    refusals: &RefusalLog,
) {
    let admitted = session::admit(stream, agent);
    drop(waiting);
    let admitted = match admitted {
        Ok(admitted) => admitted,
        Err((stream, refusal)) => return refusals.refuse(stream, &refusal),
    };
    let _held = match place.take(admitted.stream()) {
        Ok(held) => held,
        Err(refusal) => return refusals.refuse(admitted.into_stream(), &refusal),
    };
    note(format_args!("session from {peer}"));
    let ended = session::serve(admitted, agent);
    note(format_args!("session from {peer} ended: {ended}"));
}

/// A connection's place among those waiting for their first request, freed when dropped.
struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    /// A place among the waiting, unless [`MAX_WAITING`] are taken.
    fn enter(count: &Arc<AtomicUsize>) -> Option<Waiting> {
        let below_max = |n: usize| (n < MAX_WAITING).then_some(n + 1);
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, below_max)
            .ok()?;
        Some(Waiting(count.clone()))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_max_waiting_wait_and_a_place_is_freed_when_dropped() {
        let count = Arc::new(AtomicUsize::new(0));
        let places: Vec<Waiting> = (0..MAX_WAITING).filter_map(|_| Waiting::enter(&count)).collect();
        assert_eq!(places.len(), MAX_WAITING);
        assert!(Waiting::enter(&count).is_none());
        drop(places);
        assert_eq!(count.load(Ordering::Acquire), 0);
        assert!(Waiting::enter(&count).is_some());
    }
}

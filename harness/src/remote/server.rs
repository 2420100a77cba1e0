//! A server the agent started for this study: where it listens on the server host, what it
//! has consumed (read through the agent), and stopped through the agent when dropped, as
//! a local [`crate::servers::Server`] is. The servers of one study share one session
//! ([`SharedAgent`]); should a stop fail (the agent gone), the agent stops the server
//! anyway when the session ends.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::client::AgentClient;
use super::protocol::{ProcessUsage, Started};

/// One study's session with the agent, shared by the servers it started.
pub type SharedAgent = Arc<Mutex<AgentClient>>;

/// A server running on the agent's host, stopped when dropped.
pub struct RemoteServer {
    agent: SharedAgent,
    started: Started,
}

impl RemoteServer {
    /// Starts the server the agent offers as `contender`, on a free port, with `threads`
    /// threads (`None`: one per CPU the agent pins servers to), serving HTTPS and the
    /// agent's file corpus as `serving` says ([`AgentClient::start_serving`]).
    pub fn start(
        agent: &SharedAgent,
        contender: &str,
        threads: Option<usize>,
        serving: (bool, bool),
    ) -> Result<RemoteServer, String> {
        let started = lock_agent(agent).start_serving(contender, threads, serving)?;
        Ok(RemoteServer {
            agent: agent.clone(),
            started,
        })
    }

    /// Where it listens, on the agent's host.
    pub fn addr(&self) -> SocketAddr {
        self.started.addr
    }

    /// Its pid on the agent's host (not a process of this one).
    pub fn pid(&self) -> u32 {
        self.started.pid
    }

    /// The certificate (PEM) the agent's HTTPS servers present.
    pub fn cert_pem(&self) -> String {
        lock_agent(&self.agent).hello().cert_pem.clone()
    }

    /// What it has consumed so far ([`AgentClient::usage`]).
    pub fn usage(&self, reset_peak: bool) -> Result<ProcessUsage, String> {
        lock_agent(&self.agent).usage(self.started.pid, reset_peak)
    }
}

impl Drop for RemoteServer {
    fn drop(&mut self) {
        let _ = lock_agent(&self.agent).stop(self.started.pid);
    }
}

/// The session, also after a thread panicked while holding it.
pub fn lock_agent(agent: &SharedAgent) -> MutexGuard<'_, AgentClient> {
    agent.lock().unwrap_or_else(PoisonError::into_inner)
}

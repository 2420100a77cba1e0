//! The signals that stop the agent: SIGTERM, SIGINT and SIGHUP (its terminal gone), each
//! alike. The first stops the open session's servers, waits for them to exit, and then
//! the agent; a second, while that takes, exits at once (status 1), leaving each server
//! to the kernel's SIGTERM (`PR_SET_PDEATHSIG`).

use tokio::signal::unix::{Signal, SignalKind, signal};

use super::note;

/// The agent's stopping signals, listened for.
pub struct Signals {
    terminate: Signal,
    interrupt: Signal,
    hangup: Signal,
}

impl Signals {
    /// Listens from now on: their default action, ending the process at once, is replaced
    /// for as long as the agent runs.
    pub fn listen() -> Result<Signals, String> {
        let on = |kind: SignalKind| signal(kind).map_err(|e| format!("cannot wait for signals: {e}"));
        Ok(Signals {
            terminate: on(SignalKind::terminate())?,
            interrupt: on(SignalKind::interrupt())?,
            hangup: on(SignalKind::hangup())?,
        })
    }

    /// The name of the next signal to come.
    pub async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.hangup.recv() => "SIGHUP",
        }
    }

    /// Runs `stopping` (which blocks) to its end, unless another signal comes first: then
    /// the agent exits at once, with status 1.
    pub async fn unless_another(&mut self, stopping: impl FnOnce() + Send + 'static) {
        let stopping = tokio::task::spawn_blocking(stopping);
        tokio::select! {
            _ = stopping => {}
            second = self.next() => {
                note(format_args!("{second} while stopping: exiting at once"));
                std::process::exit(1);
            }
        }
    }
}

//! The agent on the server host (the `agent` binary; how to run it: `docs/two_hosts.md`).
//! A study on another host asks it, over one TCP connection, to start servers pinned to
//! the CPUs the agent was given, to say what they consumed, and to stop them; the
//! protocol is [`harness::remote::protocol`].
//!
//! It is not a remote shell:
//! - it starts only the catalogue's contenders it offers (`--contenders`) and the
//!   commands its operator listed (`--allow`), by name ([`offers`]), each on a port it
//!   picks itself;
//! - it listens on the one address it is given (not all of them) and talks to one client
//!   IP only ([`door`]);
//! - a connection's first request, whole, must come within 10 s and carry the token of
//!   its token file, or the connection is refused and closed; only then may it take the
//!   agent's one session ([`place`]), and at most [`door::MAX_WAITING`] connections wait
//!   for their first request at once ([`session`]);
//! - every later request carries the token too; a request without the right one is
//!   refused and ends the session;
//! - request lines of 64 KiB at most, [`running::MAX_SERVERS`] servers per session and
//!   [`running::THREADS_PER_CPU`] threads per CPU across them, so a peer cannot make it
//!   grow; refusals are logged at most once a second ([`refusals`]).
//!
//! No server outlives its session. When the study stops one, when the connection ends
//! (the study closed it, or died and its kernel closed it, or its host vanished and TCP
//! keepalive found out, within about a minute), when no request comes for `--idle-secs`,
//! or when the agent gets SIGTERM, SIGINT or SIGHUP ([`signals`]), the agent stops each
//! server the session started and waits for it to exit ([`running`]). Should the agent
//! itself be killed (SIGKILL, or a second signal while it stops), the kernel sends each
//! server SIGTERM (`PR_SET_PDEATHSIG`, as for every server the harness starts), the
//! server alone: a process a server started in its group is left to that server.

pub mod deadline;
pub mod door;
pub mod offers;
pub mod place;
pub mod refusals;
pub mod running;
pub mod session;
pub mod settings;
pub mod signals;

use std::io::Write;
use std::sync::Arc;

pub use settings::{Agent, Settings};

use door::Door;
use signals::Signals;

/// Checks `settings`, builds the catalogue's servers it offers, listens, prints one line
/// on stdout (`agent: listening on ADDR ...`, its last line there), then serves until a
/// signal stops it: it stops the open session's servers and returns. An error is a startup
/// failure. Should the door stop taking connections (its thread ended), the agent stops
/// the session's servers and exits with status 1.
pub fn run(settings: Settings) -> Result<(), String> {
    let (agent, listener) = settings::prepare(settings)?;
    let listening = listener.local_addr().map_err(|e| e.to_string())?;
    let ready = format!(
        "agent: listening on {listening} (client {}; servers on CPUs {}; offers {})",
        agent.client,
        agent.cpus,
        agent.offers.names()
    );
    let door = Door::new(Arc::new(agent));
    let place = door.place();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot wait for signals: {e}"))?;
    runtime.block_on(async move {
        let mut signals = Signals::listen()?;
        // Only now: a signal from here on stops the agent cleanly. The sender is dropped
        // when the door's thread ends, however it ends.
        let (door_open, door_closed) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("door".into())
            .spawn(move || {
                let _open = door_open;
                door.serve(listener);
            })
            .map_err(|e| format!("cannot start the door's thread: {e}"))?;
        println!("{ready}");
        let door_ended = tokio::select! {
            signal = signals.next() => {
                note(format_args!("{signal}: stopping the servers it started"));
                false
            }
            _ = door_closed => {
                note("the door's thread ended: stopping the servers it started");
                true
            }
        };
        signals.unless_another(move || place.close()).await;
        if door_ended {
            std::process::exit(1);
        }
        Ok::<(), String>(())
    })
}

/// Writes `agent: {line}` on stderr. A failed write (stderr closed) is ignored, never a
/// panic: it is safe on a drop path.
pub fn note(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "agent: {line}");
}

//! The agent on the server host (the `agent` binary; how to run it: `docs/two_hosts.md`).
//! A study on another host asks it, over one TCP connection, to start servers pinned to
//! the CPUs the agent was given, to say what they consumed, and to stop them; the
//! protocol is [`harness::remote::protocol`].
//!
//! It is not a remote shell:
//! - it starts only the catalogue's contenders it offers (`--contenders`) and the
//!   commands its operator listed (`--allow`), by name ([`offers`]);
//! - it listens on the one address it is given (not all of them) and talks to one client
//!   IP only ([`door`]);
//! - every request carries the token of its token file; a request without the right one
//!   is refused and ends the connection ([`session`]);
//! - one session at a time, request lines of 64 KiB at most and
//!   [`running::MAX_SERVERS`] servers per session, so a peer cannot make it grow.
//!
//! No server outlives its session. When the study stops one, when the connection ends
//! (the study closed it, or died and its kernel closed it), when no request comes for
//! `--idle-secs`, or when the agent gets SIGTERM or SIGINT, the agent stops each server
//! the session started and waits for it to exit ([`running`]). Should the agent itself be
//! killed, the kernel sends each server SIGTERM (`PR_SET_PDEATHSIG`, as for every server
//! the harness starts).

pub mod door;
pub mod offers;
pub mod running;
pub mod session;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use harness::affinity::CpuSet;
use harness::remote::Token;
use harness::servers::{binaries_of, workspace_root};
use tokio::signal::unix::{SignalKind, signal};

use door::Door;
use offers::Offers;

/// Starts, measures and stops servers for a study on another host; refuses anything else.
#[derive(clap::Parser, Debug)]
#[command(name = "agent", version)]
pub struct Settings {
    /// The address to listen on, e.g. `10.77.0.1:7070`: one interface's IP (the one the
    /// study's host reaches), never 0.0.0.0. The servers listen on the same IP.
    #[arg(long)]
    pub listen: SocketAddr,
    /// The study's host: the only peer IP whose connections are taken.
    #[arg(long)]
    pub client: IpAddr,
    /// The file holding the token every request must carry (16 characters or more,
    /// readable by its owner alone); the study's host has the same file.
    #[arg(long)]
    pub token_file: PathBuf,
    /// CPUs the servers are pinned to, e.g. `0` or `0-7`; each server runs one thread per
    /// CPU unless the study asks otherwise. Default is every CPU the agent may run on.
    #[arg(long, value_parser = CpuSet::parse)]
    pub cpus: Option<CpuSet>,
    /// A command the agent may start, by NAME, with `{port}` where it takes the port to
    /// listen on (and `{threads}`); it must listen on the `--listen` IP. Repeat for more.
    #[arg(long = "allow", value_name = "NAME=COMMAND {port}")]
    pub allow: Vec<String>,
    /// The catalogue's contenders the agent offers, built at startup: `all`, `none`, or
    /// their ids, comma-separated.
    #[arg(long, default_value = "all")]
    pub contenders: String,
    /// Seconds without a request after which a session is ended (and its servers stopped).
    #[arg(long, default_value_t = 600)]
    pub idle_secs: u64,
}

/// What every session reads: the agent's settings, checked, and the binaries it built.
pub struct Agent {
    pub token: Token,
    /// The only peer IP taken.
    pub client: IpAddr,
    /// Where servers listen (the port is each start's).
    pub host: IpAddr,
    pub cpus: CpuSet,
    pub offers: Offers,
    /// [`harness::servers::Contender::binary_key`] -> executable, for the catalogue's.
    pub binaries: HashMap<String, PathBuf>,
    /// How long a session may stay silent.
    pub idle: Duration,
}

/// Checks `settings`, builds the catalogue's servers it offers, listens, prints one line
/// on stdout (`agent: listening on ADDR ...`, its last line there), then serves until
/// SIGTERM or SIGINT, when it stops the open session's servers and returns. An error is a
/// startup failure.
pub fn run(settings: Settings) -> Result<(), String> {
    let listen = settings.listen;
    if listen.ip().is_unspecified() {
        return Err(format!(
            "--listen {listen}: give the IP of the one interface the study's host reaches"
        ));
    }
    let token = Token::read(&settings.token_file)?;
    let offers = Offers::new(&settings.contenders, &settings.allow)?;
    let listener = TcpListener::bind(listen).map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let listening = listener.local_addr().map_err(|e| format!("{listen}: {e}"))?;
    let catalogue = offers.catalogue();
    if !catalogue.is_empty() {
        eprintln!("agent: building the catalogue's servers it offers (cargo build)");
    }
    let binaries = binaries_of(&workspace_root(), &catalogue)?;
    let agent = Agent {
        token,
        client: settings.client.to_canonical(),
        host: listening.ip(),
        cpus: settings.cpus.unwrap_or_else(CpuSet::current),
        offers,
        binaries,
        idle: Duration::from_secs(settings.idle_secs.max(1)),
    };
    let ready = format!(
        "agent: listening on {listening} (client {}; servers on CPUs {}; offers {})",
        agent.client,
        agent.cpus,
        agent.offers.names()
    );
    let door = Door::new(Arc::new(agent));
    let shutter = door.shutter();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot wait for signals: {e}"))?;
    let stopped_by = runtime.block_on(async move {
        let cannot = |e: std::io::Error| format!("cannot wait for signals: {e}");
        let mut terminate = signal(SignalKind::terminate()).map_err(cannot)?;
        let mut interrupt = signal(SignalKind::interrupt()).map_err(cannot)?;
        // Only now: a signal from here on stops the agent cleanly.
        std::thread::spawn(move || door.serve(listener));
        println!("{ready}");
        Ok::<_, String>(tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        })
    })?;
    eprintln!("agent: {stopped_by}: stopping the servers it started");
    shutter.close();
    Ok(())
}

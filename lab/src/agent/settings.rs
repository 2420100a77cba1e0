//! The agent's flags ([`Settings`]) and what they become once checked ([`Agent`]). A check
//! that fails is one line saying what is wrong: a startup failure (exit status 2).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use harness::affinity::CpuSet;
use harness::remote::Token;
use harness::servers::{binaries_of, workspace_root};

use super::note;
use super::offers::Offers;

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
    /// CPUs the servers are pinned to, e.g. `0` or `0-7`, each one the agent may run on;
    /// each server runs one thread per CPU unless the study asks otherwise. Default is
    /// every CPU the agent may run on.
    #[arg(long)]
    pub cpus: Option<String>,
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
    /// Milliseconds a connection has to send its whole first request (with the token)
    /// before it is closed: for tests. Default is 10000.
    #[arg(long, default_value_t = 10_000, hide = true)]
    pub first_request_ms: u64,
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
    /// How long a connection may take to send its first request, whole.
    pub first_request: Duration,
    /// The file corpus, once a start asked for it ([`Agent::files_dir`]).
    pub files: OnceLock<Result<PathBuf, String>>,
}

impl Agent {
    /// The directory its servers serve `/files/` from: the workspace's file corpus
    /// ([`harness::corpus::hot`]), written and its file workloads' sets cached on the
    /// first start that asks for it.
    pub fn files_dir(&self) -> Result<&Path, String> {
        let dir = self.files.get_or_init(|| harness::corpus::hot("agent"));
        dir.as_deref().map_err(Clone::clone)
    }
}

/// The numbers a CPU set can hold (`CPU_SETSIZE`): every CPU is numbered below it.
const CPU_SETSIZE: usize = 1024;

/// Checks `settings`, reads the token file, listens, and builds the catalogue's servers it
/// offers: the agent, and the listener its door takes connections on.
pub fn prepare(settings: Settings) -> Result<(Agent, TcpListener), String> {
    let listen = settings.listen;
    if listen.ip().is_unspecified() {
        return Err(format!(
            "--listen {listen}: give the IP of the one interface the study's host reaches"
        ));
    }
    let cpus = server_cpus(settings.cpus.as_deref())?;
    let token = Token::read(&settings.token_file)?;
    let offers = Offers::new(&settings.contenders, &settings.allow)?;
    let listener = TcpListener::bind(listen).map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let listening = listener.local_addr().map_err(|e| format!("{listen}: {e}"))?;
    // The certificate its HTTPS servers present names the IP the study reaches them at.
    harness::servers::tls::name_also(listening.ip())?;
    let catalogue = offers.catalogue();
    if !catalogue.is_empty() {
        note(format_args!(
            "building the catalogue's servers it offers (cargo build)"
        ));
    }
    let binaries = binaries_of(&workspace_root(), &catalogue)?;
    let agent = Agent {
        token,
        client: settings.client.to_canonical(),
        host: listening.ip(),
        cpus,
        offers,
        binaries,
        idle: Duration::from_secs(settings.idle_secs.max(1)),
        first_request: Duration::from_millis(settings.first_request_ms.max(1)),
        files: OnceLock::new(),
    };
    Ok((agent, listener))
}

/// The CPUs `--cpus` names (`asked`), each one this process may run on (so each below
/// [`CPU_SETSIZE`]); without it, all of those.
fn server_cpus(asked: Option<&str>) -> Result<CpuSet, String> {
    let allowed = CpuSet::current();
    let Some(text) = asked else {
        return Ok(allowed);
    };
    // A number checked before the list is expanded: `0-4000000000` is refused, not listed.
    let mut numbers = text
        .split([',', '-'])
        .filter_map(|n| n.trim().parse::<usize>().ok());
    if let Some(cpu) = numbers.find(|&cpu| cpu >= CPU_SETSIZE) {
        return Err(format!(
            "--cpus {text}: CPU {cpu}: CPUs are numbered below {CPU_SETSIZE}"
        ));
    }
    let asked = CpuSet::parse(text).map_err(|e| format!("--cpus: {e}"))?;
    match asked.0.iter().find(|cpu| !allowed.0.contains(cpu)) {
        Some(cpu) => Err(format!(
            "--cpus {text}: CPU {cpu} is not one the agent may run on ({allowed})"
        )),
        None => Ok(asked),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_are_those_the_agent_may_run_on() {
        let allowed = CpuSet::current();
        assert_eq!(server_cpus(None).unwrap(), allowed);
        let first = allowed.0[0].to_string();
        assert_eq!(
            server_cpus(Some(first.as_str())).unwrap(),
            CpuSet(vec![allowed.0[0]])
        );
        for (bad, says) in [
            ("1023", "not one the agent may run on"),
            ("1024", "numbered below 1024"),
            ("0-4000000000", "CPU 4000000000"),
            ("x", "bad CPU list"),
        ] {
            if bad == "1023" && allowed.0.contains(&1023) {
                continue;
            }
            let error = server_cpus(Some(bad)).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}

//! Servers on another host (`--server-host IP:PORT --token-file FILE`, the workloads
//! study's flags): every server starts there, through the agent on that host
//! (`lab/src/agent/`, `docs/two_hosts.md`), pinned to the agent's CPUs and measured from
//! that host's `/proc`; the load runs here against the agent's IP, and the rest of the
//! method is unchanged (rounds, slices, fixed rates, the verdict's rule).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use harness::remote::server::SharedAgent;
use harness::remote::{AgentClient, Token};

/// Where the servers run, when not on this host.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Across {
    /// The agent on the server host (its `--listen`): every server starts there through
    /// it, and the load runs here against that IP. Needs `--token-file`.
    #[arg(long, value_name = "IP:PORT", requires = "token_file")]
    pub server_host: Option<SocketAddr>,
    /// The file holding the agent's token (readable by its owner alone).
    #[arg(long, value_name = "FILE", requires = "server_host")]
    pub token_file: Option<PathBuf>,
}

impl Across {
    /// The session with the agent `--server-host` names (its token checked, its CPUs
    /// known); `None` without the flag.
    pub fn agent(&self) -> Result<Option<SharedAgent>, String> {
        let (Some(addr), Some(file)) = (self.server_host, &self.token_file) else {
            return Ok(None);
        };
        let client = AgentClient::connect(addr, Token::read(file)?)?;
        Ok(Some(Arc::new(Mutex::new(client))))
    }
}

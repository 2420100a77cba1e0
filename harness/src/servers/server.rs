//! One server under test: started from its binary (one of ours), as nginx or by a command
//! of the user's, or named by a URL when the user started it; stopped when dropped.
//! A study on one host starts it on a free loopback port ([`Server::start`]). The agent on
//! a server host starts it on a free port of the IP the study's host reaches
//! ([`Server::start_at`]); one of our binaries then runs as a listed command does
//! (`outside.rs`): its command line through `sh -c 'exec ...'`, in a process group of its
//! own, ready once it accepts connections there. A study whose servers are on the agent's
//! host has the agent start each ([`Server::remote`]); what any server consumed is read in
//! `meter.rs`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use server_kit::ServerProcess;

use super::nginx::{self, Nginx};
use super::outside::Outside;
use super::tls;
use super::{Contender, Launch, pinned_command};
use crate::affinity::CpuSet;
use crate::remote::RemoteServer;

/// A server being benchmarked: started by us (with a pid to measure), by the agent on
/// another host (measured through it), or external.
pub struct Server {
    pub contender: Contender,
    pub base_url: String,
    pub(super) process: Option<Process>,
}

/// A server we started, here or through the agent, stopped when dropped.
pub(super) enum Process {
    Cargo(ServerProcess),
    Nginx(Nginx),
    Outside(Outside),
    Remote(RemoteServer),
}

impl Server {
    /// The pid, on this host, of the process that serves (for nginx, its worker) when we
    /// started it here; `None` for an external server or one on the agent's host (whose
    /// pid names no process here: it is measured through the agent, `meter.rs`).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|process| match process {
            Process::Cargo(server) => Some(server.pid()),
            Process::Nginx(nginx) => Some(nginx.worker_pid()),
            Process::Outside(server) => Some(server.pid()),
            Process::Remote(_) => None,
        })
    }

    /// The address it listens on when we started it; `None` for an external server.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.process.as_ref().map(|process| match process {
            Process::Cargo(server) => server.addr(),
            Process::Nginx(nginx) => nginx.addr(),
            Process::Outside(server) => server.addr(),
            Process::Remote(server) => server.addr(),
        })
    }

    /// `contender` started by the agent (`remote`), serving HTTPS when `https`.
    pub fn remote(contender: Contender, remote: RemoteServer, https: bool) -> Server {
        Server::serving(contender, (remote.addr(), https), Process::Remote(remote))
    }

    /// Starts `contender` from its binary, pinned to `cpus` with `threads` server threads,
    /// serving `GET /files/{name}` from `files_dir` when given and HTTPS (with the
    /// harness's [`tls::identity`]) when `https`, unless the user pointed the bench at their
    /// own server.
    pub fn start(
        contender: Contender,
        binaries: &HashMap<String, PathBuf>,
        cpus: Option<&CpuSet>,
        (threads, files_dir, https): (usize, Option<&Path>, bool),
    ) -> Result<Server, String> {
        refuse_https(&contender, https)?;
        if let Some(url) = contender.url_env.and_then(|name| std::env::var(name).ok()) {
            let base_url = url.trim_end_matches('/').to_string();
            return Ok(Server {
                contender,
                base_url,
                process: None,
            });
        }
        let (addr, process) = match contender.launch {
            Launch::Cargo | Launch::CargoTokioIoUringFs => {
                let mut command = pinned_command(binary_of(&contender, binaries)?, cpus);
                command.args(server_args(&contender, (threads, files_dir, https))?);
                let process = ServerProcess::spawn(command, contender.label.to_string())?;
                (process.addr(), Process::Cargo(process))
            }
            Launch::Nginx => {
                let binary = nginx::binary().ok_or(nginx::NOT_INSTALLED)?;
                let nginx = Nginx::start(&binary, cpus, files_dir)?;
                (nginx.addr(), Process::Nginx(nginx))
            }
            Launch::Command(command) => {
                let server = Outside::start(command, cpus, (files_dir, threads))?;
                (server.addr(), Process::Outside(server))
            }
        };
        Ok(Server::serving(contender, (addr, https), process))
    }

    /// As [`Server::start`], listening on `ip` at a port free there (chosen here, never by
    /// whoever asked) and always started here, whatever its `url_env` says: for the agent
    /// on a server host. nginx is refused (`nginx/nginx.conf` listens on loopback).
    pub fn start_at(
        ip: IpAddr,
        contender: Contender,
        binaries: &HashMap<String, PathBuf>,
        cpus: Option<&CpuSet>,
        settings: (usize, Option<&Path>, bool),
    ) -> Result<Server, String> {
        let (threads, files_dir, https) = settings;
        refuse_https(&contender, https)?;
        let command = match contender.launch {
            Launch::Cargo | Launch::CargoTokioIoUringFs => {
                let mut words = vec![binary_of(&contender, binaries)?.clone().into_os_string()];
                words.extend(server_args(&contender, settings)?);
                words.push("--addr".into());
                words.push(port_left_open(ip).into());
                shell_line(&words)
            }
            Launch::Nginx => {
                let refusal = format!("{} starts on loopback only", contender.label);
                return Err(refusal);
            }
            Launch::Command(command) => command.to_string(),
        };
        let server = Outside::start_at(ip, &command, cpus, (files_dir, threads))?;
        let serving = (server.addr(), https);
        Ok(Server::serving(contender, serving, Process::Outside(server)))
    }

    /// Asks a server started by a command (as [`Server::start_at`] always starts one) to
    /// stop, SIGTERM to its process group, without waiting: dropping it then waits only
    /// what is left of its grace period, so servers told one after another stop together.
    /// Any other stops when dropped.
    pub fn terminate(&mut self) {
        if let Some(Process::Outside(server)) = &mut self.process {
            server.terminate();
        }
    }

    /// `contender`, served by `process` on `addr` (over HTTPS when `https`).
    fn serving(contender: Contender, (addr, https): (SocketAddr, bool), process: Process) -> Server {
        let scheme = if https { "https" } else { "http" };
        Server {
            contender,
            base_url: format!("{scheme}://{addr}"),
            process: Some(process),
        }
    }
}

/// An error when `https` is asked of a server that does not serve it.
fn refuse_https(contender: &Contender, https: bool) -> Result<(), String> {
    if https && !contender.speaks_tls() {
        return Err(format!("{} does not serve HTTPS here", contender.label));
    }
    Ok(())
}

/// The built executable of `contender`, one of ours.
fn binary_of<'a>(
    contender: &Contender,
    binaries: &'a HashMap<String, PathBuf>,
) -> Result<&'a PathBuf, String> {
    let key = contender.binary_key();
    binaries
        .get(&key)
        .ok_or_else(|| format!("no binary {key} was built"))
}

/// The flags one of our binaries starts with, `--addr` aside: the contender's own, its
/// threads, the directory it serves `/files/` from, and the harness's TLS identity.
fn server_args(
    contender: &Contender,
    (threads, files_dir, https): (usize, Option<&Path>, bool),
) -> Result<Vec<OsString>, String> {
    let mut args: Vec<OsString> = contender.args.iter().map(|&arg| OsString::from(arg)).collect();
    args.push("--threads".into());
    args.push(threads.to_string().into());
    if let Some(dir) = files_dir {
        args.push("--files-dir".into());
        args.push(dir.as_os_str().to_owned());
    }
    if https {
        let identity = tls::identity()?;
        args.push("--tls-cert".into());
        args.push(identity.cert.clone().into_os_string());
        args.push("--tls-key".into());
        args.push(identity.key.clone().into_os_string());
    }
    Ok(args)
}

/// `--addr`'s value on `ip`, with `{port}` for [`Outside`] to fill in.
fn port_left_open(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(ip) => format!("{ip}:{{port}}"),
        IpAddr::V6(ip) => format!("[{ip}]:{{port}}"),
    }
}

/// `words` as one shell command line, each word in single quotes.
fn shell_line(words: &[OsString]) -> String {
    let quote = |word: &OsString| format!("'{}'", word.to_string_lossy().replace('\'', r"'\''"));
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::{IO_URING, NGINX};

    #[test]
    fn a_binary_of_ours_elsewhere_is_its_command_line_quoted_with_the_port_left_open() {
        let words: Vec<OsString> = ["/t/io_uring_server", "it's", "a b"].map(OsString::from).into();
        assert_eq!(shell_line(&words), r"'/t/io_uring_server' 'it'\''s' 'a b'");
        let v4 = port_left_open("10.77.0.1".parse().unwrap());
        let v6 = port_left_open("::1".parse().unwrap());
        assert_eq!(v4, "10.77.0.1:{port}");
        assert_eq!(v6, "[::1]:{port}");
        let settings = (2, Some(Path::new("/srv")), false);
        let args = server_args(&IO_URING, settings).unwrap();
        assert_eq!(
            args,
            ["--threads", "2", "--files-dir", "/srv"].map(OsString::from)
        );
    }

    #[test]
    fn elsewhere_nginx_and_a_missing_binary_are_refused() {
        let ip: IpAddr = "10.77.0.1".parse().unwrap();
        let binaries = HashMap::new();
        let nginx = Server::start_at(ip, NGINX, &binaries, None, (1, None, false));
        assert!(nginx.err().unwrap().contains("loopback only"));
        let unbuilt = Server::start_at(ip, IO_URING, &binaries, None, (1, None, false));
        let unbuilt = unbuilt.err().unwrap();
        assert!(
            unbuilt.contains("no binary io_uring_server was built"),
            "{unbuilt}"
        );
    }
}

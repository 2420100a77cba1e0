//! The study's end of the agent: one connection (the agent's session), one request at a
//! time with the token, each reply read back as the kind asked for. The first is `hello`,
//! so a wrong token or a busy agent is an error of [`AgentClient::connect`]. Every error
//! names the agent and says what went wrong or what the agent refused; closing the
//! connection (or this process dying) stops every server the session started.

use std::io::{BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::line::read_line;
use super::protocol::{
    BUSY, Counting, Hello, MAX_REPLY_LINE, ProcessUsage, Reply, Request, Started, Stopped, SyscallCount,
    request_line,
};
use super::token::Token;

/// How long connecting to the agent may take. Default is 10 s.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a reply may take: a start waits for the server to accept connections, 30 s at
/// most. Default is 60 s.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// How many times a connection the agent refused as busy is tried again, [`BUSY_RETRY`]
/// apart: the study's previous session may still be stopping its servers. Default is 10.
pub const BUSY_RETRIES: u32 = 10;

/// How long to wait before trying a busy agent again. Default is 200 ms.
pub const BUSY_RETRY: Duration = Duration::from_millis(200);

/// A session with the agent.
pub struct AgentClient {
    addr: SocketAddr,
    token: Token,
    hello: Hello,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl AgentClient {
    /// Connects to the agent at `addr` and says hello with `token`: an error when the
    /// agent refuses it (a wrong token, say), or is still busy with another session after
    /// [`BUSY_RETRIES`] tries.
    pub fn connect(addr: SocketAddr, mut token: Token) -> Result<AgentClient, String> {
        let mut retries = 0;
        loop {
            let failed = |e: std::io::Error| format!("agent at {addr}: {e}");
            let writer = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).map_err(failed)?;
            writer.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(failed)?;
            writer.set_nodelay(true).map_err(failed)?;
            let reader = BufReader::new(writer.try_clone().map_err(failed)?);
            let mut client = AgentClient {
                addr,
                token,
                hello: Hello::default(),
                reader,
                writer,
            };
            match client.ask::<Hello>(Request::Hello) {
                Ok(hello) => {
                    client.hello = hello;
                    return Ok(client);
                }
                Err(busy) if busy.contains(BUSY) && retries < BUSY_RETRIES => {
                    retries += 1;
                    token = client.token;
                    std::thread::sleep(BUSY_RETRY);
                }
                Err(refused) => return Err(refused),
            }
        }
    }

    /// The agent's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The agent's answer to hello: the CPUs it pins servers to, its version.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// Starts the server the agent offers as `contender`, on a port the agent picks, with
    /// `threads` threads (`None`: one per CPU the agent pins servers to).
    pub fn start(&mut self, contender: &str, threads: Option<usize>) -> Result<Started, String> {
        self.start_serving(contender, threads, (false, false))
    }

    /// As [`AgentClient::start`], serving HTTPS (with the agent's certificate) when
    /// `https`, and `/files/` from the agent's file corpus when `files`.
    pub fn start_serving(
        &mut self,
        contender: &str,
        threads: Option<usize>,
        (https, files): (bool, bool),
    ) -> Result<Started, String> {
        self.ask(Request::Start {
            contender: contender.to_string(),
            port: 0,
            threads,
            https,
            files,
        })
    }

    /// What server `pid` has consumed so far; with `reset_peak`, its peak memory starts
    /// again from now.
    pub fn usage(&mut self, pid: u32, reset_peak: bool) -> Result<ProcessUsage, String> {
        self.ask(Request::Usage { pid, reset_peak })
    }

    /// Starts counting the syscalls of server `pid`; false when the agent's host cannot
    /// (no perf).
    pub fn count_syscalls(&mut self, pid: u32) -> Result<bool, String> {
        let counting: Counting = self.ask(Request::CountSyscalls { pid })?;
        Ok(counting.counting)
    }

    /// The syscalls of server `pid` since [`AgentClient::count_syscalls`].
    pub fn syscalls(&mut self, pid: u32) -> Result<Option<u64>, String> {
        let count: SyscallCount = self.ask(Request::Syscalls { pid })?;
        Ok(count.syscalls)
    }

    /// Stops server `pid`; the agent answers once it has exited.
    pub fn stop(&mut self, pid: u32) -> Result<(), String> {
        let _: Stopped = self.ask(Request::Stop { pid })?;
        Ok(())
    }

    /// Sends `request` and reads its reply as a `T`. Should the exchange itself fail (the
    /// connection, or a reply that does not come or cannot be read), the session is over:
    /// the connection is shut, so the agent stops its servers and no later reply is
    /// mistaken for the answer to a later request.
    fn ask<T: DeserializeOwned>(&mut self, request: Request) -> Result<T, String> {
        let addr = self.addr;
        let reply = self.exchange(&request).inspect_err(|_| {
            let _ = self.writer.shutdown(Shutdown::Both);
        });
        let reply: Reply<T> = reply.map_err(|e| format!("agent at {addr}: {e}"))?;
        reply.into_result().map_err(|e| format!("agent at {addr}: {e}"))
    }

    /// Sends `request` and reads one reply line as a `T`.
    fn exchange<T: DeserializeOwned>(&mut self, request: &Request) -> Result<Reply<T>, String> {
        let line = request_line(self.token.as_str(), request);
        let sent = self.writer.write_all(line.as_bytes());
        sent.map_err(|e| format!("cannot send: {e}"))?;
        match read_line(&mut self.reader, MAX_REPLY_LINE) {
            Ok(Some(reply)) => serde_json::from_slice(&reply).map_err(|e| format!("unreadable reply: {e}")),
            Ok(None) => Err("it closed the connection".into()),
            Err(e) => Err(e.to_string()),
        }
    }
}

//! Command-line flags of `tokio_server`.

use std::net::SocketAddr;

use clap::{Parser, ValueEnum};
use server_kit::CommonArgs;

/// Serve the uring-vs-tokio HTTP contract on tokio (epoll).
#[derive(Parser, Debug)]
#[command(version)]
pub struct Cli {
    /// Address to listen on; loopback by default, `0.0.0.0:8080` exposes it.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Which HTTP implementation answers.
    #[arg(long, value_enum, default_value_t = Engine::Hyper)]
    pub engine: Engine,

    #[command(flatten)]
    pub common: CommonArgs,

    /// tokio's multi-thread, work-stealing scheduler even on one thread: what
    /// `#[tokio::main]` gives (with --threads workers). Without it, one thread runs the
    /// current-thread scheduler, the fastest tokio setup on one core; more threads always
    /// run the multi-thread one.
    #[arg(long)]
    pub multi_thread: bool,

    /// Send a file of 64 KiB or more with sendfile(2) when the socket is writable,
    /// instead of reading it into memory and writing that (codec engines only).
    #[arg(long)]
    pub sendfile: bool,
}

impl Cli {
    pub fn validate(&self) -> Result<(), String> {
        self.common.validate()?;
        if self.sendfile && self.engine == Engine::Hyper {
            return Err("--sendfile needs --engine codec or codec-shared".into());
        }
        if self.common.tls_cert.is_some() && self.sendfile {
            return Err("--sendfile hands file pages to the socket unencrypted: not with --tls-cert".into());
        }
        if self.common.tls_cert.is_some() && self.engine == Engine::CodecShared {
            return Err(
                "--engine codec-shared reads the socket on readiness into a buffer every connection shares, which TLS cannot: use --engine codec or hyper with --tls-cert"
                    .into(),
            );
        }
        Ok(())
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// hyper 1.x, HTTP/1 only.
    Hyper,
    /// http_core's codec over tokio's TcpStream.
    Codec,
    /// http_core's codec, reading on readiness into a buffer shared per thread.
    CodecShared,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Hyper => "hyper",
            Engine::Codec => "codec",
            Engine::CodecShared => "codec-shared",
        })
    }
}

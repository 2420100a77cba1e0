//! The flags of every floor: the harness's `--addr` and server_kit's common flags.

use std::net::SocketAddr;

use clap::Parser;
use server_kit::CommonArgs;

/// A floor: the cheapest `GET /` answer of one stack, for comparison only.
#[derive(Parser, Debug)]
#[command(version)]
pub struct Cli {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub addr: SocketAddr,

    /// Only `--threads` is used; the limits and timeouts are accepted and ignored.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl Cli {
    /// Parses the flags as every server does (descriptor limit raised, status 2 on a bad
    /// flag), naming `program` on log lines.
    pub fn parse_for(program: &'static str) -> Cli {
        server_kit::args::parse(program, |cli: &Cli| cli.common.validate())
    }
}

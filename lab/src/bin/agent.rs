//! `agent`: runs on the server host of a study across two hosts (`docs/two_hosts.md`),
//! starting, measuring and stopping the servers that study asks for, and refusing
//! anything else ([`lab::agent`] says what and why). A startup error (a bad flag, an
//! unreadable or open token file, an address it cannot listen on, a failed build) prints
//! one line and exits with status 2; SIGTERM or SIGINT stops every server it started,
//! then exits 0.

use clap::Parser;
use lab::agent::{Settings, run};

fn main() {
    if let Err(message) = run(Settings::parse()) {
        eprintln!("agent: error: {message}");
        std::process::exit(2);
    }
}

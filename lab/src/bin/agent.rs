//! `agent`: runs on the server host of a study across two hosts (`docs/two_hosts.md`),
//! starting, measuring and stopping the servers that study asks for, and refusing
//! anything else ([`lab::agent`] says what and why). A startup error (a bad flag, an
//! unreadable or open token file, CPUs it may not run on, an address it cannot listen
//! on, a failed build) prints one line and exits with status 2; SIGTERM, SIGINT or SIGHUP
//! stops every server it started, then exits 0 (a second signal while it stops: at once,
//! status 1).

use clap::Parser;
use lab::agent::{Settings, run};

fn main() {
    if let Err(message) = run(Settings::parse()) {
        eprintln!("agent: error: {message}");
        std::process::exit(2);
    }
}

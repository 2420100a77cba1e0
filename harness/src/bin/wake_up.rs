//! `cargo run --release -p harness --bin wake_up`: what a wake-up costs on this machine,
//! as every run's machine record keeps it ([`harness::wake_up`]): a ping-pong between two
//! pinned threads, asleep and busy-polling, and the idle settings `/sys` shows. Takes
//! about a second.

use clap::Parser;
use harness::ping_pong::{DEFAULT_LENGTH, RoundTrips};
use harness::wake_up::WakeUp;

/// Prints the round trip and CPU per round trip between two pinned threads, asleep and
/// busy-polling, and the cpuidle driver, governor and halt-polling settings.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {}

fn main() {
    harness::tool::main("wake_up", run);
}

fn run(_: Cli) -> Result<(), String> {
    let wake_up = WakeUp::measure(DEFAULT_LENGTH)?;
    let [server, client] = wake_up.cpus;
    println!("wake-up: {}", wake_up.describe());
    println!("between CPU {server} (echoing) and CPU {client} (pinging), one byte over a Unix socket pair:");
    println!("  asleep (blocking reads):       {}", figures(&wake_up.asleep));
    println!(
        "  busy-polling (non-blocking):   {}",
        figures(&wake_up.busy_polling)
    );
    let idle = &wake_up.idle;
    let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "not shown".into());
    println!(
        "cpuidle driver {}, governor {}",
        shown(&idle.driver),
        shown(&idle.governor)
    );
    for (parameter, value) in &idle.halt_poll {
        println!("  {parameter} = {value}");
    }
    Ok(())
}

/// "17.3 µs round trip (median of 20000), 9.1 µs CPU per round trip".
fn figures(probe: &RoundTrips) -> String {
    format!(
        "{:.1} µs round trip (median of {}), {:.1} µs CPU per round trip",
        probe.round_trip_us, probe.measured, probe.cpu_per_round_trip_us
    )
}

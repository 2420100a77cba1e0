//! Conformance kit: starts a server binary on port 0 and checks the whole http_core
//! contract over raw TCP. A server joins with one test that calls [`check_server`].

pub mod behaviour;
pub mod cases;
pub mod server;
pub mod suite;
pub mod wire;

pub use server::ServerProcess;
pub use suite::Deviation;

/// Runs every case and behaviour against `binary args`, then its graceful shutdown, and
/// panics with the list of failures, if any.
pub fn check_server(binary: &str, args: &[&str], deviations: &[Deviation]) {
    let request = behaviour::REQUEST_TIMEOUT_SECS.to_string();
    let idle = behaviour::IDLE_TIMEOUT_SECS.to_string();
    let mut all_args = args.to_vec();
    all_args.extend(["--request-timeout-secs", &request, "--idle-timeout-secs", &idle]);
    let mut server = ServerProcess::start(binary, &all_args);
    let addr = server.addr();

    let mut failures = suite::run_cases(addr, deviations);
    failures.extend(behaviour::expect_continue(addr).err());
    failures.extend(behaviour::byte_by_byte(addr).err());
    failures.extend(behaviour::timeouts(addr));
    failures.extend(behaviour::graceful_shutdown(&mut server).err());
    report(server.label(), failures);
}

/// Flags and startup errors: limits set by flags apply; a taken port and a bad flag exit 2.
pub fn check_flags(binary: &str, args: &[&str]) {
    let mut failures = behaviour::limit_flags(binary, args);
    failures.extend(behaviour::startup_errors(binary, args));
    report(&format!("{binary} {}", args.join(" ")), failures);
}

fn report(label: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{label}: {} conformance failures:\n- {}",
        failures.len(),
        failures.join("\n- ")
    );
}

//! Conformance kit: starts a server binary on port 0 (a `server_kit::ServerProcess`) and
//! checks the whole http_core contract over raw TCP (and, for a server that serves HTTPS,
//! over TLS 1.3: [`check_tls`]), then stresses and attacks it. A server joins with one
//! test that calls [`check_server`].

pub mod behaviour;
pub mod case;
pub mod cases;
pub mod churn;
pub mod endpoint;
pub mod file_tree;
pub mod file_upload;
pub mod files;
pub mod flood;
pub mod large_bodies;
pub mod robust;
pub mod stress;
pub mod stuck_reader;
pub mod suite;
pub mod tcp_table;
pub mod tls_fairness;
pub mod tls_hostile;
pub mod tls_input;
pub mod tls_stalled;
pub mod trickle;
pub mod upload_cases;
pub mod upload_limits;
pub mod upload_memory;
pub mod uploads;
pub mod wire;

pub use endpoint::Endpoint;
pub use files::check_files;
pub use loadgen::tls::TestIdentity;
pub use server_kit::ServerProcess;
pub use suite::Deviation;

/// Runs every case and behaviour against `binary args`, then its graceful shutdown, and
/// panics with the list of failures, if any. The upload memory check starts its own
/// server, `binary args --threads 1` ([`upload_memory`]).
pub fn check_server(binary: &str, args: &[&str], deviations: &[Deviation]) {
    let request = behaviour::REQUEST_TIMEOUT_SECS.to_string();
    let idle = behaviour::IDLE_TIMEOUT_SECS.to_string();
    let mut all_args = args.to_vec();
    all_args.extend(["--request-timeout-secs", &request, "--idle-timeout-secs", &idle]);
    let mut server = ServerProcess::start(binary, &all_args);
    let addr = server.addr();
    let to = addr.into();

    let mut failures = suite::run_cases(&to, deviations);
    failures.extend(behaviour::expect_continue(&to).err());
    failures.extend(behaviour::byte_by_byte(&to).err());
    failures.extend(large_bodies::large_bodies_keep_alive(&to).err());
    failures.extend(behaviour::timeouts(&to));
    failures.extend(uploads::conversations(&to));
    failures.extend(upload_memory::flat_memory(binary, args).err());
    failures.extend(behaviour::stuck_reader_released(addr).err());
    failures.extend(behaviour::graceful_shutdown(&mut server).err());
    failures.extend(trickle_checks(binary, args, None));
    report(server.label(), failures);
}

/// The [`trickle`] checks against a server of their own: `binary args` with a short
/// grace, over TLS with `identity`.
fn trickle_checks(binary: &str, args: &[&str], identity: Option<&TestIdentity>) -> Vec<String> {
    let pace = trickle::pace_args();
    let mut all_args = args.to_vec();
    all_args.extend(pace.iter().map(String::as_str));
    let server = ServerProcess::start(binary, &all_args);
    let to = match identity {
        Some(identity) => Endpoint::https(server.addr(), identity),
        None => server.addr().into(),
    };
    trickle::trickles(&to)
}

/// Clients that pipeline requests for static bodies and never read ([`flood`]), against
/// `binary args --threads 1`, over plain TCP and then, `over_tls`, over TLS; panics with
/// the list of failures, if any.
pub fn check_floods(binary: &str, args: &[&str], over_tls: bool) {
    let plain = || {
        let (server, _) = start_single_threaded(binary, args);
        let to = server.addr().into();
        (server, to)
    };
    let mut failures = flood::floods(plain);
    over_tls.then(|| {
        with_identity(|identity, tls_args| {
            let mut all_args = args.to_vec();
            all_args.extend(tls_args);
            let tls = || {
                let (server, _) = start_single_threaded(binary, &all_args);
                let to = Endpoint::https(server.addr(), identity);
                (server, to)
            };
            failures.extend(flood::floods(tls).into_iter().map(|e| format!("over TLS: {e}")));
        })
    });
    report(&format!("{binary} {}", args.join(" ")), failures);
}

/// Calls `check` with a fresh [`TestIdentity`] and the flags that serve it
/// (`--tls-cert`, `--tls-key`), its files removed afterwards.
fn with_identity<R>(check: impl FnOnce(&TestIdentity, [&str; 4]) -> R) -> R {
    let identity = TestIdentity::generate();
    // One directory per check: a test binary runs several at once.
    static CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let check_number = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("conformance-tls-{}-{check_number}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for the test identity");
    let (cert, key) = identity.write(&dir).expect("the test identity's files");
    let (cert, key) = (cert.to_string_lossy(), key.to_string_lossy());
    let result = check(&identity, ["--tls-cert", &cert, "--tls-key", &key]);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The contract over HTTPS: `binary args` started with a fresh [`TestIdentity`]
/// (`--tls-cert`, `--tls-key`), every case and behaviour of [`check_server`] but graceful
/// shutdown and the stuck reader checked over TLS 1.3, after what every server must
/// negotiate ([`tls_fairness`]), then bad TLS input and the leak check after it
/// ([`tls_input`]), then hostile clients that keep to the protocol: one-byte records,
/// readers that never read, a dribbled handshake ([`tls_hostile`]), and trickled
/// requests ([`trickle`]); panics with the list of failures, if any.
pub fn check_tls(binary: &str, args: &[&str], deviations: &[Deviation]) {
    with_identity(|identity, tls_args| {
        let (request, idle) = (
            behaviour::REQUEST_TIMEOUT_SECS.to_string(),
            behaviour::IDLE_TIMEOUT_SECS.to_string(),
        );
        let mut served_args = args.to_vec();
        served_args.extend(tls_args);
        let mut all_args = served_args.clone();
        all_args.extend(["--request-timeout-secs", &request, "--idle-timeout-secs", &idle]);
        let server = ServerProcess::start(binary, &all_args);
        let to = Endpoint::https(server.addr(), identity);
        let mut failures = tls_fairness::negotiates_the_shared_configuration(&to, identity);
        failures.extend(tls_cases(&to, deviations));
        failures.extend(tls_input::bad_tls_input(&server, &to));
        failures.extend(tls_hostile::hostile_clients(&server, &to));
        failures.extend(trickle_checks(binary, &served_args, Some(identity)));
        report(server.label(), failures);
    })
}

/// Every case and behaviour of [`check_server`] that runs over any connection, against
/// `to`; one line per failure.
pub fn tls_cases(to: &Endpoint, deviations: &[Deviation]) -> Vec<String> {
    let mut failures = suite::run_cases(to, deviations);
    failures.extend(behaviour::expect_continue(to).err());
    failures.extend(behaviour::byte_by_byte(to).err());
    failures.extend(large_bodies::large_bodies_keep_alive(to).err());
    failures.extend(behaviour::timeouts(to));
    failures.extend(uploads::conversations(to));
    failures
}

/// Flags and startup errors: limits set by flags apply (`--max-upload-bytes` too:
/// [`upload_limits`]); a taken port and a bad flag exit 2.
pub fn check_flags(binary: &str, args: &[&str]) {
    let mut failures = behaviour::limit_flags(binary, args);
    failures.extend(upload_limits::limit_flag(binary, args));
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

/// The load-shaped checks of [`stress`] and [`churn`] against `binary args` (one thread, so that the
/// memory bound is per server, not per core): panics with the list of failures.
pub fn check_stress(binary: &str, args: &[&str]) {
    let (server, _) = start_single_threaded(binary, args);
    let addr = server.addr();
    let mut failures: Vec<String> = Vec::new();
    failures.extend(stress::simultaneous_connections(addr, 2000).err());
    failures.extend(stress::idle_connections(addr, 2000).err());
    failures.extend(stress::churn_without_fd_leak(&server, 20_000).err());
    failures.extend(churn::loadgen_churn(&server, 2000).err());
    failures.extend(stress::large_echo_to_slow_reader(addr, 1 << 20).err());
    failures.extend(stress::never_reading_client(&server, 32 * 1024).err());
    failures.extend(stress::reset_mid_request(addr).err());
    failures.extend(wire::probe(addr).err());
    report(server.label(), failures);
}

/// The robustness suite of [`robust`] against `binary args`: oversized heads, a truncated
/// body, slowloris, 5,000 simultaneous connections, descriptor exhaustion and a soak of
/// 200,000 requests; panics with the list of failures, if any.
pub fn check_robustness(binary: &str, args: &[&str]) {
    let (server, all_args) = start_single_threaded(binary, args);
    let addr = server.addr();
    let mut failures = robust::oversized_requests(addr);
    failures.extend(robust::truncated_body_then_fin(addr).err());
    failures.extend(robust::slowloris(addr, 64, 4).err());
    failures.extend(stress::simultaneous_connections(addr, 5000).err());
    failures.extend(robust::soak(&server, 200_000, 32 * 1024).err());
    failures.extend(
        robust::descriptor_exhaustion(binary, &all_args, 64)
            .err()
            .map(|e| format!("exhaustion: {e}")),
    );
    report(server.label(), failures);
}

/// Starts `binary args --threads 1` after raising this process's descriptor limit (the
/// server inherits it); returns the server and the full argument list.
fn start_single_threaded<'a>(binary: &str, args: &[&'a str]) -> (ServerProcess, Vec<&'a str>) {
    stress::raise_fd_limit();
    let mut all_args = args.to_vec();
    all_args.extend(["--threads", "1"]);
    (ServerProcess::start(binary, &all_args), all_args)
}

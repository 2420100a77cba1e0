//! io_uring-specific load checks: connection count, idle connections, descriptor leaks under churn, short
//! sends, backpressure against a client that never reads, and resets mid-request.

use std::process::Command;

use conformance::{ServerProcess, stress, wire};

mod flags;

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

fn server(args: &[&str]) -> ServerProcess {
    stress::raise_fd_limit();
    ServerProcess::start(BIN, args)
}

#[test]
fn two_thousand_simultaneous_connections_are_all_answered() {
    let server = server(&[]);
    stress::simultaneous_connections(server.addr(), 2000).unwrap();
}

#[test]
fn two_thousand_idle_connections_stay_open_while_others_are_served() {
    let server = server(&[]);
    stress::idle_connections(server.addr(), 2000).unwrap();
}

#[test]
fn fifty_thousand_requests_with_churn_leak_no_descriptors() {
    let server = server(&[]);
    stress::churn_without_fd_leak(&server, 50_000).unwrap();
    wire::probe(server.addr()).unwrap();
}

#[test]
fn plain_recv_churn_leaks_no_descriptors() {
    let server = server(&["--no-multishot-recv", "--no-multishot-accept"]);
    stress::churn_without_fd_leak(&server, 20_000).unwrap();
}

/// 2,000 connections through a table of 128 direct descriptors (the kernel caps the table
/// at RLIMIT_NOFILE, which `prlimit` lowers): a slot leaked per connection would make
/// accepts fail after 128, and the churn would see refused or unanswered connections.
#[test]
fn fixed_file_churn_reuses_a_small_table() {
    stress::raise_fd_limit();
    let mut command = Command::new("prlimit");
    command.args(["--nofile=128:128", BIN, "--fixed-files", "--threads", "1"]);
    let server = ServerProcess::spawn(command, "io_uring_server --fixed-files (128 slots)".into()).unwrap();
    stress::churn_without_fd_leak(&server, 20_000).unwrap();
    wire::probe(server.addr()).unwrap();
}

#[test]
fn a_one_mib_echo_survives_a_slow_reader() {
    let server = server(&[]);
    stress::large_echo_to_slow_reader(server.addr(), 1 << 20).unwrap();
    let small_buffers = server_with_small_buffers();
    stress::large_echo_to_slow_reader(small_buffers.addr(), 1 << 20).unwrap();
}

fn server_with_small_buffers() -> ServerProcess {
    server(&["--buf-size", "512", "--buf-count", "8"])
}

#[test]
fn a_client_that_never_reads_cannot_grow_server_memory() {
    let server = server(&["--threads", "1"]);
    let growth = stress::never_reading_client(&server, 32 * 1024).unwrap();
    eprintln!("RSS growth with a never-reading client: {growth} KiB");
}

#[test]
fn resets_mid_request_leave_the_server_serving() {
    let server = server(&[]);
    stress::reset_mid_request(server.addr()).unwrap();
}

#[test]
fn every_feature_off_under_stress() {
    conformance::check_stress(BIN, &flags::EVERY_FEATURE_OFF);
}

#[test]
fn fixed_files_under_stress() {
    conformance::check_stress(BIN, &["--fixed-files"]);
}

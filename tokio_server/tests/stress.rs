//! The load-shaped checks every server gets from `conformance::check_stress` (one thread:
//! simultaneous connections, churn, a slow reader, a client that never reads, resets),
//! for the three tokio engines; io_uring_server's own stress tests add more.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_engine_under_stress() {
    conformance::check_stress(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_under_stress() {
    conformance::check_stress(BIN, &["--engine", "hyper"]);
}

#[test]
fn shared_buffer_codec_engine_under_stress() {
    conformance::check_stress(BIN, &["--engine", "codec-shared"]);
}

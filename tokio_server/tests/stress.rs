//! The same load checks as io_uring_server's, for both tokio engines.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_engine_under_stress() {
    conformance::check_stress(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_under_stress() {
    conformance::check_stress(BIN, &["--engine", "hyper"]);
}

//! The robustness suite (hostile clients, exhaustion, soak) for the three tokio engines.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "hyper"]);
}

#[test]
fn shared_buffer_codec_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "codec-shared"]);
}

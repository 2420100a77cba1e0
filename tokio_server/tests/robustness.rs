//! The robustness suite (hostile clients, exhaustion, soak) for both tokio engines.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "hyper"]);
}

//! The robustness suite (hostile clients, exhaustion, soak) for monoio_server.

const BIN: &str = env!("CARGO_BIN_EXE_monoio_server");

#[test]
fn is_robust() {
    conformance::check_robustness(BIN, &[]);
}

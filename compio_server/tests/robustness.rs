//! The robustness suite (hostile clients, exhaustion, soak) for compio_server.

const BIN: &str = env!("CARGO_BIN_EXE_compio_server");

#[test]
fn is_robust() {
    conformance::check_robustness(BIN, &[]);
}

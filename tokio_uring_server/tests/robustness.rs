//! The robustness suite (hostile clients, exhaustion, soak) for tokio_uring_server.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_uring_server");

#[test]
fn is_robust() {
    conformance::check_robustness(BIN, &[]);
}

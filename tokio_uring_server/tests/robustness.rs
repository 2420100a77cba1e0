//! The robustness suite (hostile clients, exhaustion, soak, pipelined floods that never read) for tokio_uring_server.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_uring_server");

#[test]
fn is_robust() {
    conformance::check_robustness(BIN, &[]);
}

#[test]
fn pipelined_floods_that_never_read_stay_bounded() {
    // tokio_uring_server serves plain HTTP only.
    conformance::check_floods(BIN, &[], false);
}

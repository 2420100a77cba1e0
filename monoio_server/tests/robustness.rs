//! The robustness suite (hostile clients, exhaustion, soak, pipelined floods that never read) for monoio_server.

const BIN: &str = env!("CARGO_BIN_EXE_monoio_server");

#[test]
fn is_robust() {
    conformance::check_robustness(BIN, &[]);
}

#[test]
fn pipelined_floods_that_never_read_stay_bounded() {
    conformance::check_floods(BIN, &[], true);
}

//! The conformance suite and the stress checks against monoio_server.

const BIN: &str = env!("CARGO_BIN_EXE_monoio_server");

#[test]
fn conforms() {
    conformance::check_server(BIN, &[], &[]);
}

#[test]
fn flags_and_startup_errors() {
    conformance::check_flags(BIN, &[]);
}

#[test]
fn under_stress() {
    conformance::check_stress(BIN, &[]);
}

#[test]
fn conforms_over_tls() {
    conformance::check_tls(BIN, &[], &[]);
}

//! The robustness suite (hostile clients, exhaustion, soak, pipelined floods that never read) for io_uring_server, with its
//! default features and with every feature switched off.

mod flags;

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

#[test]
fn default_features_are_robust() {
    conformance::check_robustness(BIN, &[]);
}

#[test]
fn every_feature_off_is_robust() {
    conformance::check_robustness(BIN, &flags::EVERY_FEATURE_OFF);
}

#[test]
fn fixed_files_are_robust() {
    conformance::check_robustness(BIN, &["--fixed-files"]);
}

#[test]
fn uploads_by_plain_recvs_are_robust() {
    conformance::check_robustness(BIN, &["--bulk-recv", "direct"]);
}

#[test]
fn pipelined_floods_that_never_read_stay_bounded() {
    conformance::check_floods(BIN, &[], true);
}

//! The robustness suite (hostile clients, exhaustion, soak) for io_uring_server, with its
//! default features and with every feature switched off.

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

#[test]
fn default_features_are_robust() {
    conformance::check_robustness(BIN, &[]);
}

#[test]
fn every_feature_off_is_robust() {
    conformance::check_robustness(
        BIN,
        &[
            "--no-multishot-accept",
            "--no-multishot-recv",
            "--no-defer-taskrun",
            "--batch-wait-us",
            "0",
        ],
    );
}

#[test]
fn fixed_files_are_robust() {
    conformance::check_robustness(BIN, &["--fixed-files"]);
}

//! The conformance suite against io_uring_server, with default flags and with each
//! ablation flag, since every feature combination must serve the same contract.

mod flags;

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

#[test]
fn default_features_conform() {
    conformance::check_server(BIN, &[], &[]);
}

#[test]
fn single_shot_accept_conforms() {
    conformance::check_server(BIN, &["--no-multishot-accept"], &[]);
}

#[test]
fn plain_recv_conforms() {
    conformance::check_server(BIN, &["--no-multishot-recv"], &[]);
}

#[test]
fn without_defer_taskrun_conforms() {
    conformance::check_server(BIN, &["--no-defer-taskrun"], &[]);
}

#[test]
fn sqpoll_conforms() {
    conformance::check_server(BIN, &["--sqpoll"], &[]);
}

#[test]
fn every_feature_off_conforms() {
    conformance::check_server(BIN, &flags::EVERY_FEATURE_OFF, &[]);
}

#[test]
fn fixed_files_conform() {
    conformance::check_server(BIN, &["--fixed-files"], &[]);
}

#[test]
fn fixed_files_with_single_shot_operations_conform() {
    let args = ["--fixed-files", "--no-multishot-accept", "--no-multishot-recv"];
    conformance::check_server(BIN, &args, &[]);
}

#[test]
fn whole_buffers_conform() {
    conformance::check_server(BIN, &["--no-incremental-buffers"], &[]);
}

#[test]
fn large_bodies_through_the_ring_conform() {
    conformance::check_server(BIN, &["--no-plain-body-recv"], &[]);
}

#[test]
fn uploads_by_plain_recvs_conform() {
    conformance::check_server(BIN, &["--bulk-recv", "direct"], &[]);
}

#[test]
fn uploads_by_plain_recvs_keep_the_upload_limit() {
    let failures = conformance::upload_limits::limit_flag(BIN, &["--bulk-recv", "direct"]);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn zero_copy_send_conforms() {
    conformance::check_server(BIN, &["--zero-copy-send"], &[]);
}

#[test]
fn zero_copy_send_with_fixed_files_conforms() {
    conformance::check_server(BIN, &["--zero-copy-send", "--fixed-files"], &[]);
}

#[test]
fn small_buffers_conform() {
    conformance::check_server(BIN, &["--buf-size", "512", "--buf-count", "16"], &[]);
}

#[test]
fn small_whole_buffers_conform() {
    let args = [
        "--no-incremental-buffers",
        "--buf-size",
        "512",
        "--buf-count",
        "16",
    ];
    conformance::check_server(BIN, &args, &[]);
}

#[test]
fn flags_and_startup_errors() {
    conformance::check_flags(BIN, &[]);
}

#[test]
fn conforms_over_tls() {
    conformance::check_tls(BIN, &[], &[]);
}

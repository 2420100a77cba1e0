//! `/files/{name}` on tokio_uring_server: the conformance kit's file checks.

#[test]
fn serves_files() {
    conformance::check_files(env!("CARGO_BIN_EXE_tokio_uring_server"), &[]);
}

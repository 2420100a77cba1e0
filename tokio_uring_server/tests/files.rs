//! `/files/{name}` on tokio_uring_server (the shared checks in server_kit/tests/support).

#[path = "../../server_kit/tests/support/file_serving.rs"]
mod file_serving;

const BIN: &str = env!("CARGO_BIN_EXE_tokio_uring_server");

#[test]
fn serves_files() {
    file_serving::check_files(BIN, &[]);
}

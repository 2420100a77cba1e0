//! `/files/{name}` on compio_server: the conformance kit's file checks.

#[test]
fn serves_files() {
    conformance::check_files(env!("CARGO_BIN_EXE_compio_server"), &[]);
}

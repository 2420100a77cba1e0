//! `/files/{name}` on tokio_server's three engines (the conformance kit's file checks),
//! and which path `tokio::fs` really takes in each build: the blocking pool in the epoll
//! build, tokio's io_uring in the `io-uring-fs` one.

use std::path::Path;
use std::process::Command;

use conformance::check_files;
use conformance::files::{Tree, fetch_small, io_uring_instances, threads};

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_serves_files() {
    check_files(BIN, &["--engine", "codec"]);
}

#[test]
fn codec_shared_serves_files() {
    check_files(BIN, &["--engine", "codec-shared"]);
}

#[test]
fn codec_serves_files_by_sendfile() {
    check_files(BIN, &["--engine", "codec", "--sendfile"]);
}

#[test]
fn codec_shared_serves_files_by_sendfile() {
    check_files(BIN, &["--engine", "codec-shared", "--sendfile"]);
}

/// `--sendfile` is the codec engines' option: hyper refuses it at startup.
#[test]
fn hyper_refuses_sendfile() {
    let out = Command::new(BIN)
        .args(["--engine", "hyper", "--sendfile"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--sendfile needs --engine codec"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn hyper_serves_files() {
    check_files(BIN, &["--engine", "hyper"]);
}

/// Serves one file with `binary --engine engine` on one thread; returns the process's
/// threads before and after, and its io_uring instances after.
fn serve_one_file(binary: &str, engine: &str) -> (usize, usize, usize) {
    let tree = Tree::create(&format!("path-{engine}"));
    let server = tree.serve(binary, &["--engine", engine, "--threads", "1"]);
    let before = threads(server.pid());
    fetch_small(server.addr()).unwrap();
    (before, threads(server.pid()), io_uring_instances(server.pid()))
}

/// The epoll build (every baseline) opens and reads files on tokio's blocking pool: the
/// first file starts a pool thread, and the process has no io_uring at all.
#[test]
fn the_epoll_build_reads_files_on_the_blocking_pool() {
    for engine in ["codec", "hyper"] {
        let (before, after, rings) = serve_one_file(BIN, engine);
        assert!(
            after > before,
            "{engine}: no blocking-pool thread ({before} -> {after} threads)"
        );
        assert_eq!(rings, 0, "{engine}: the epoll build has an io_uring");
    }
}

/// The `io-uring-fs` build opens and reads files on tokio's io_uring: after a file the
/// process holds a ring (its stat still runs on the blocking pool in tokio 1.54). It
/// builds that binary first, exactly as the harness does (release, `--cfg tokio_unstable`,
/// its own target directory): minutes the first time, so it runs only when asked:
/// `cargo test -p tokio_server --test files -- --ignored`.
#[test]
#[ignore = "builds the io-uring-fs binary in release (minutes the first time)"]
fn the_io_uring_fs_build_reads_files_on_a_ring() {
    let binary = build_io_uring_fs();
    for engine in ["codec", "hyper"] {
        check_files(&binary, &["--engine", engine]);
        let (_, _, rings) = serve_one_file(&binary, engine);
        assert!(rings > 0, "{engine}: no io_uring after serving a file");
    }
}

/// `RUSTFLAGS="--cfg tokio_unstable" cargo build --release -p tokio_server --features
/// io-uring-fs --target-dir target/tokio-io-uring`; returns the binary.
fn build_io_uring_fs() -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let target = workspace.join("target/tokio-io-uring");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace)
        .env("RUSTFLAGS", "--cfg tokio_unstable")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .args([
            "build",
            "--release",
            "-p",
            "tokio_server",
            "--features",
            "io-uring-fs",
        ])
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the io-uring-fs build failed");
    target.join("release/tokio_server").to_str().unwrap().to_string()
}

//! nginx started as the studies start it answers the contract where the studies ask it
//! to: `GET /` and `GET /bytes/{n}` byte for byte, kept-alive, pipelined and with
//! `Connection: close`; files of a corpus set under `/files/`, each body checked byte for
//! byte by loadgen's file mode; and stopping it leaves no process behind. Skipped (with
//! one line) where nginx is not installed.

use std::time::Duration;

use harness::corpus;
use harness::servers::nginx;
use harness::servers::{NGINX, Server};
use http_core::files::CorpusSet;
use loadgen::churn::Churn;
use loadgen::files::Files;
use loadgen::run::Config;

/// `max_requests` requests to `path` of `server` as `config` says; every answer checked
/// against the contract's body.
fn load(server: &Server, path: &str, shape: impl FnOnce(Config) -> Config) -> u64 {
    let target = loadgen::target::parse(&format!("{}{path}", server.base_url)).unwrap();
    let config = Config {
        max_requests: Some(200),
        duration: Duration::from_secs(10),
        expect_body_len: Some(target.contract_body.len()),
        expect_body: Some(target.contract_body.clone()),
        ..Config::new(target.addr, target.request)
    };
    let summary = loadgen::run::run(shape(config)).unwrap();
    assert_eq!(summary.first_error, None, "{path}");
    summary.requests
}

#[test]
fn nginx_serves_the_contract_where_the_studies_ask_it_to() {
    if nginx::binary().is_none() {
        eprintln!("{}", nginx::NOT_INSTALLED);
        return;
    }
    // A small set of the corpus's shape: 3 files of 5000 bytes, `t-00000` to `t-00002`.
    let set = CorpusSet {
        label: "t",
        size: 5000,
        count: 3,
    };
    let files_dir = std::env::temp_dir().join(format!("nginx-anchor-files-{}", std::process::id()));
    corpus::write(&files_dir, &[set]).unwrap();
    let server = Server::start(NGINX, &Default::default(), None, (1, Some(&files_dir), false)).unwrap();
    let worker = server.pid().expect("nginx was started here");
    let sizes = http_core::routes::STUDIED_BODY_SIZES;
    assert!(!sizes.is_empty());
    assert!(load(&server, "/", |c| c) >= 200);
    for size in sizes {
        assert!(load(&server, &format!("/bytes/{size}"), |c| c) >= 200);
    }
    let pipelined = |c| Config {
        connections: 4,
        depth: 16,
        ..c
    };
    assert!(load(&server, "/", pipelined) >= 200);
    for closes in [Churn::ServerCloses, Churn::ClientCloses] {
        let churn = |c| Config {
            connections: 4,
            churn: Some(closes),
            ..c
        };
        assert!(load(&server, "/", churn) >= 200);
    }
    let random_files = |c| Config {
        connections: 4,
        files: Some(Files::new(set, 7)),
        expect_body: None,
        ..c
    };
    assert!(load(&server, "/files/", random_files) >= 200);
    drop(server);
    std::fs::remove_dir_all(&files_dir).unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{worker}")).exists(),
        "the worker outlived the guard"
    );
}

//! The loads the workloads study's shapes give loadgen: busy-polling, the driver, the ring.

use super::*;
use crate::load::client_config;
use crate::workload::catalogue::{BUSY_POLLED, by_name};
use loadgen::run::{Config, Driver};

/// A config for a server that is never started.
fn config() -> Config {
    Config::new("127.0.0.1:1".parse().unwrap(), b"GET / HTTP/1.1\r\n\r\n".to_vec())
}

/// No CPUs named: what a test's loads need of a pinning.
fn unpinned() -> Pinning {
    Pinning {
        server: None,
        client: None,
        warning: None,
        remote: None,
    }
}

#[test]
fn the_busy_polled_workload_asks_loadgen_to_busy_poll_and_the_default_does_not() {
    let pinning = unpinned();
    let config_of = |name: &str| {
        let workload = by_name(name).unwrap();
        client_config(
            &load_of(workload.shape, Duration::from_secs(1), &pinning),
            config(),
        )
    };
    let awake = config_of(BUSY_POLLED);
    assert!(awake.busy_poll);
    assert_eq!((awake.connections, awake.depth, awake.rate), (1, 1, None));
    assert!(!config_of("one connection").busy_poll);
}

#[test]
fn the_ring_drives_kept_alive_plain_rows_and_tokio_tls_churn_files_and_busy_polling() {
    let pinning = unpinned();
    let fixed = |name: &str| {
        let load = fixed_rate_load(&by_name(name).unwrap(), 1000.0, Duration::from_secs(1), &pinning);
        let load = load.unwrap();
        assert_eq!(load.rate, Some(1000.0), "{name}");
        load.on_ring()
    };
    for name in [
        "keep-alive, small requests at a fixed rate",
        "64 KiB echo at a fixed rate",
        "20 MiB uploads at a fixed rate",
        "1 MiB responses at a fixed rate",
        "keep-alive, 10 µs handler at a fixed rate",
    ] {
        assert!(fixed(name), "{name} should run on the ring");
    }
    for name in [
        "keep-alive over TLS at a fixed rate",
        "churn, server closes at a fixed rate",
        "10 requests per connection at a fixed rate",
        "4 KiB files, 16 connections at a fixed rate",
    ] {
        assert!(!fixed(name), "{name} should run on tokio");
    }
    let busy = load_of(
        by_name(BUSY_POLLED).unwrap().shape,
        Duration::from_secs(1),
        &pinning,
    );
    assert!(!busy.on_ring());
    assert!(
        fixed_rate_load(
            &by_name("one connection").unwrap(),
            1.0,
            Duration::from_secs(1),
            &pinning
        )
        .is_none()
    );
}

#[test]
fn the_load_names_loadgens_driver_auto_unless_told_otherwise() {
    let pinning = unpinned();
    let load = load_of(
        by_name("keep-alive, small requests").unwrap().shape,
        Duration::from_secs(1),
        &pinning,
    );
    assert_eq!(client_config(&load, config()).driver, Driver::Auto);
    let tokio = Load {
        driver: Driver::Tokio,
        ..load
    };
    assert_eq!(client_config(&tokio, config()).driver, Driver::Tokio);
}

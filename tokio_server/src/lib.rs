//! Pieces of tokio_server that tokio_uring_server shares: the per-connection timeout
//! watchdog and the connection settings. The servers themselves are binaries.

pub mod activity;
pub mod settings;

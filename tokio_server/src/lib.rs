//! Pieces of tokio_server that tokio_uring_server shares: the per-connection timeout
//! watchdog, the connection settings and the accept back-off. The servers themselves are
//! binaries.

pub mod accept;
pub mod activity;
pub mod settings;

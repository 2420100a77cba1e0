//! What every server in this workspace shares at startup and at its edges, so that no
//! server leans on another: the common flags, the ready line (and [`ServerProcess`], the
//! harness that reads it), startup errors that name their fix, the SO_REUSEPORT listener
//! group, one worker thread per listener with signal handling, the program name on
//! every log line, the descriptor limit raised at startup, and HTTPS's one rustls
//! configuration ([`tls`]).
//!
//! Every reader of the per-connection loops below sizes its reads with [`read_size`]:
//! they grow while reads fill them, as hyper's do.
//!
//! With the `tokio` feature, what the tokio-based servers share per connection: the
//! [`Settings`], the [`Activity`] watchdog, the [`AcceptBackoff`] and the one read →
//! codec → write loop with lingering close ([`exchange`]), and its variant that reads on
//! readiness into a buffer shared by each thread's connections ([`shared_buffer`]); both
//! answer `/files/{name}` through [`file_reply`].

pub mod args;
pub mod fd_limit;
pub mod listener;
pub mod log;
pub mod process;
pub mod read_size;
pub mod ready;
pub mod startup;
pub mod tls;
pub mod workers;

#[cfg(feature = "tokio")]
pub mod accept;
#[cfg(feature = "tokio")]
pub mod activity;
#[cfg(feature = "tokio")]
pub mod exchange;
#[cfg(feature = "tokio")]
pub mod file_reply;
#[cfg(feature = "tokio")]
pub mod settings;
#[cfg(feature = "tokio")]
pub mod shared_buffer;
#[cfg(feature = "tokio")]
pub mod tokio_files;
#[cfg(feature = "tokio")]
mod tokio_transport;
#[cfg(feature = "tokio")]
pub mod transport;

pub use args::CommonArgs;
pub use process::ServerProcess;
pub use startup::StartupError;
pub use workers::Workers;

#[cfg(feature = "tokio")]
pub use accept::AcceptBackoff;
#[cfg(feature = "tokio")]
pub use activity::{Activity, Deadlines};
#[cfg(feature = "tokio")]
pub use settings::Settings;

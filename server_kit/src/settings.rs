//! What every connection of the tokio-based servers needs to know: limits, timeouts, and
//! the shutdown signal.

use std::time::Duration;

use http_core::Limits;
use tokio_util::sync::CancellationToken;

use crate::CommonArgs;

/// What every connection needs to know.
#[derive(Debug, Clone)]
pub struct Settings {
    pub limits: Limits,
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
    /// Cancelled when the server begins to shut down.
    pub shutdown: CancellationToken,
}

impl From<&CommonArgs> for Settings {
    fn from(args: &CommonArgs) -> Self {
        Settings {
            limits: args.limits(),
            request_timeout: args.request_timeout(),
            idle_timeout: args.idle_timeout(),
            shutdown: CancellationToken::new(),
        }
    }
}

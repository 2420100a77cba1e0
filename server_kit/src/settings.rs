//! What every connection of the tokio-based servers needs to know: limits, timeouts, the
//! files root and the shutdown signal.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use http_core::Limits;
use http_core::pace::Pace;
use tokio_util::sync::CancellationToken;

use crate::CommonArgs;
use crate::activity::Deadlines;

/// What every connection needs to know.
#[derive(Debug, Clone)]
pub struct Settings {
    pub limits: Limits,
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
    /// A request's grace and minimum byte rate (`--request-grace-secs`,
    /// `--min-request-rate`).
    pub pace: Pace,
    /// The directory `GET /files/{name}` serves from (`--files-dir`); none: every file is
    /// 404. Shared, as every connection gets a clone of the settings.
    pub files_dir: Option<Arc<Path>>,
    /// Send a file's body with `sendfile(2)` where the transport can
    /// ([`crate::transport::Transport::SENDFILE`]); set by tokio_server's `--sendfile`.
    pub sendfile: bool,
    /// Cancelled when the server begins to shut down.
    pub shutdown: CancellationToken,
}

impl Settings {
    /// What a connection's watchdog enforces ([`crate::Activity::expired`]).
    pub fn deadlines(&self) -> Deadlines {
        Deadlines {
            request_timeout: self.request_timeout,
            idle_timeout: self.idle_timeout,
            pace: self.pace,
        }
    }
}

impl From<&CommonArgs> for Settings {
    fn from(args: &CommonArgs) -> Self {
        Settings {
            limits: args.limits(),
            request_timeout: args.request_timeout(),
            idle_timeout: args.idle_timeout(),
            pace: args.pace(),
            files_dir: args.files_dir.as_deref().map(Arc::from),
            sendfile: false,
            shutdown: CancellationToken::new(),
        }
    }
}

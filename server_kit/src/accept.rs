//! What the runtime-based servers do when accept fails (e.g. EMFILE, ENFILE): keep serving
//! the connections they have, wait, try again. One line is logged per streak of
//! failures, so running out of descriptors is neither a busy loop nor a flood of logs.

use std::time::Duration;

/// Wait between accept attempts while they fail. Default is 50 ms.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Whether accepting is in a streak of failures, to log each streak once.
#[derive(Debug, Default)]
pub struct AcceptBackoff {
    failing: bool,
}

impl AcceptBackoff {
    pub fn succeeded(&mut self) {
        if self.failing {
            crate::log!("accepting again");
            self.failing = false;
        }
    }

    /// Logs the first failure of a streak, then waits [`ACCEPT_RETRY`] on tokio's timer.
    pub async fn failed(&mut self, error: std::io::Error) {
        self.failed_on(error, tokio::time::sleep).await;
    }

    /// As [`Self::failed`], waiting with `sleep` (another runtime's timer).
    pub async fn failed_on<F: Future<Output = ()>>(
        &mut self,
        error: std::io::Error,
        sleep: impl Fn(Duration) -> F,
    ) {
        if !self.failing {
            crate::log!("accept failed: {error}; retrying every {ACCEPT_RETRY:?}");
            self.failing = true;
        }
        sleep(ACCEPT_RETRY).await;
    }
}

//! What the tokio-based servers do when accept fails (e.g. EMFILE, ENFILE): keep serving
//! the connections they have, wait, try again. One line is logged per streak of
//! failures, so running out of descriptors is neither a busy loop nor a flood of logs.

use std::time::Duration;

/// Wait between accept attempts while they fail. Default is 50 ms.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(50);

pub struct AcceptBackoff {
    program: &'static str,
    failing: bool,
}

impl AcceptBackoff {
    pub fn new(program: &'static str) -> AcceptBackoff {
        AcceptBackoff {
            program,
            failing: false,
        }
    }

    pub fn succeeded(&mut self) {
        if self.failing {
            eprintln!("{}: accepting again", self.program);
            self.failing = false;
        }
    }

    pub async fn failed(&mut self, error: std::io::Error) {
        if !self.failing {
            eprintln!(
                "{}: accept failed: {error}; retrying every {ACCEPT_RETRY:?}",
                self.program
            );
            self.failing = true;
        }
        tokio::time::sleep(ACCEPT_RETRY).await;
    }
}

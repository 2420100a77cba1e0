//! One worker thread per listener, for the thread-per-core servers: start them, wait until
//! each says it is ready (or why it cannot be), then, once the server has printed its
//! ready line, wait for SIGINT or SIGTERM, have the workers stop and join them.

use std::net::TcpListener;
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::StartupError;

/// What a worker sends once, before it serves: what it set up, or why it could not.
pub type Ready<T, E> = Sender<Result<T, E>>;

/// The running workers, and the signals that will stop them.
pub struct Workers {
    threads: Vec<JoinHandle<()>>,
    signals: Signals,
}

impl Workers {
    /// Runs one worker per listener on a thread named `{name}-{index}`: `prepare` is given
    /// the listener and the [`Ready`] sender and returns what the thread runs. Returns once
    /// every worker has reported ready, with their reports in the order they arrived; the
    /// first failure is returned instead. SIGINT and SIGTERM are caught from here on.
    pub fn start<T, E, W>(
        name: &str,
        listeners: Vec<TcpListener>,
        mut prepare: impl FnMut(TcpListener, Ready<T, E>) -> W,
    ) -> Result<(Workers, Vec<T>), StartupError>
    where
        T: Send + 'static,
        E: Into<StartupError> + Send + 'static,
        W: FnOnce() + Send + 'static,
    {
        let signals = Signals::new([SIGINT, SIGTERM]).map_err(|e| format!("cannot handle signals: {e}"))?;
        let count = listeners.len();
        let (ready_sender, ready) = mpsc::channel();
        let mut threads = Vec::with_capacity(count);
        for (index, listener) in listeners.into_iter().enumerate() {
            let work = prepare(listener, ready_sender.clone());
            let thread = std::thread::Builder::new()
                .name(format!("{name}-{index}"))
                .spawn(work)
                .map_err(|e| format!("cannot start a worker thread: {e}"))?;
            threads.push(thread);
        }
        drop(ready_sender);
        let mut reports = Vec::with_capacity(count);
        for _ in 0..count {
            match ready.recv() {
                Ok(Ok(report)) => reports.push(report),
                Ok(Err(error)) => return Err(error.into()),
                Err(_) => return Err("a worker thread stopped during startup".into()),
            }
        }
        Ok((Workers { threads, signals }, reports))
    }

    /// Blocks until SIGINT or SIGTERM, runs `stop` (which must make every worker return
    /// within the shutdown grace), then joins the workers.
    pub fn serve_until_signal(mut self, stop: impl FnOnce()) {
        self.signals.forever().next();
        stop();
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

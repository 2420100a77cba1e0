//! What went wrong on a connection, by kind, and the per-kind counts a summary reports.

use serde::Serialize;

/// The kinds of failure a run counts separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The connection could not be made (or its source address not bound).
    Connect,
    /// Sending the request failed.
    Write,
    /// Reading the answer failed, or the server closed before answering in full.
    Read,
    /// No answer within 5 s after the run's end.
    Timeout,
    /// An answer with another status than expected.
    Status,
    /// An answer with a wrong body length, bytes after it, or framing loadgen cannot read.
    Body,
}

/// One failure: its kind and a message for the summary's `first_error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

/// Failures counted by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ErrorsByKind {
    pub connect: u64,
    pub write: u64,
    pub read: u64,
    pub timeout: u64,
    pub status: u64,
    pub body: u64,
}

impl ErrorsByKind {
    pub fn count(&mut self, kind: ErrorKind) {
        *self.slot(kind) += 1;
    }

    pub fn add(&mut self, other: &ErrorsByKind) {
        self.connect += other.connect;
        self.write += other.write;
        self.read += other.read;
        self.timeout += other.timeout;
        self.status += other.status;
        self.body += other.body;
    }

    pub fn total(&self) -> u64 {
        self.connect + self.write + self.read + self.timeout + self.status + self.body
    }

    fn slot(&mut self, kind: ErrorKind) -> &mut u64 {
        match kind {
            ErrorKind::Connect => &mut self.connect,
            ErrorKind::Write => &mut self.write,
            ErrorKind::Read => &mut self.read,
            ErrorKind::Timeout => &mut self.timeout,
            ErrorKind::Status => &mut self.status,
            ErrorKind::Body => &mut self.body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_by_kind() {
        let mut a = ErrorsByKind::default();
        a.count(ErrorKind::Status);
        a.count(ErrorKind::Status);
        a.count(ErrorKind::Connect);
        let mut b = ErrorsByKind::default();
        b.count(ErrorKind::Timeout);
        b.add(&a);
        assert_eq!((b.status, b.connect, b.timeout, b.read), (2, 1, 1, 0));
        assert_eq!(b.total(), 4);
    }
}

//! Why a server could not start, said in one line that names the fix, and the exit that
//! follows: `PROGRAM: error: ...` on stderr and status 2.

use std::fmt;
use std::io;
use std::net::SocketAddr;

/// A failure before the server accepts its first connection.
#[derive(Debug)]
pub enum StartupError {
    /// The listening address could not be bound.
    Bind { addr: SocketAddr, error: io::Error },
    /// The kernel refused io_uring (for the io_uring servers).
    IoUring(io::Error),
    /// Anything else (a flag the server cannot honour, a thread that did not start),
    /// already said as one sentence.
    Other(String),
}

impl StartupError {
    /// Prints this error as one line naming its fix, then exits with status 2.
    pub fn exit(&self) -> ! {
        crate::log!("error: {self}");
        std::process::exit(2)
    }
}

impl fmt::Display for StartupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartupError::Bind { addr, error } => f.write_str(&explain_bind(*addr, error)),
            StartupError::IoUring(error) => f.write_str(&explain_io_uring(error)),
            StartupError::Other(message) => f.write_str(message),
        }
    }
}

impl From<String> for StartupError {
    fn from(message: String) -> Self {
        StartupError::Other(message)
    }
}

impl From<&str> for StartupError {
    fn from(message: &str) -> Self {
        StartupError::Other(message.into())
    }
}

/// A bind error explained for a human: which address, what happened, what to do.
fn explain_bind(addr: SocketAddr, error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::AddrInUse => format!(
            "cannot listen on {addr}: address already in use; stop the other server or pass --addr with a free port"
        ),
        io::ErrorKind::PermissionDenied => {
            format!("cannot listen on {addr}: permission denied; use a port above 1023")
        }
        _ => format!("cannot listen on {addr}: {error}"),
    }
}

/// Why io_uring cannot be used here, and what to do about it.
pub fn explain_io_uring(error: &io::Error) -> String {
    match error.raw_os_error() {
        Some(libc::ENOSYS) => "io_uring is not available: this kernel has no io_uring_setup (ENOSYS); \
             use Linux 6.1 or later built with CONFIG_IO_URING"
            .into(),
        Some(libc::EPERM) | Some(libc::EACCES) => match disabled_sysctl() {
            Some(value) if value != "0" => format!(
                "io_uring is disabled by sysctl kernel.io_uring_disabled={value}; \
                 run `sysctl -w kernel.io_uring_disabled=0` as root"
            ),
            _ => "io_uring_setup was refused (EPERM), typically by a seccomp filter such as Docker's \
                 default profile; run with `--security-opt seccomp=unconfined` or allow io_uring_* syscalls"
                .into(),
        },
        Some(libc::ENOMEM) => "io_uring_setup failed with ENOMEM: the locked-memory limit is too low; \
             raise `ulimit -l` (or, where the server has it, pass a smaller --ring-entries)"
            .into(),
        Some(libc::EINVAL) => "io_uring_setup rejected every flag combination (EINVAL); \
             use Linux 6.1 or later"
            .into(),
        _ => format!("io_uring setup failed: {error}"),
    }
}

fn disabled_sysctl() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .ok()
        .map(|v| v.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_io_uring_refusal_names_a_fix() {
        for errno in [libc::ENOSYS, libc::EPERM, libc::ENOMEM, libc::EINVAL] {
            let error = StartupError::IoUring(io::Error::from_raw_os_error(errno));
            let text = error.to_string();
            assert!(text.contains("io_uring"), "{text}");
            assert!(text.contains(';'), "no fix named: {text}");
        }
    }

    #[test]
    fn address_in_use_names_the_fix() {
        let error = StartupError::Bind {
            addr: "127.0.0.1:80".parse().unwrap(),
            error: io::Error::from(io::ErrorKind::AddrInUse),
        };
        let text = error.to_string();
        assert!(
            text.contains("already in use") && text.contains("--addr"),
            "{text}"
        );
    }
}

//! Command-line flags every server shares (threads, limits, timeouts), and the way every
//! server reports that it is ready or that it could not start.

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::time::Duration;

use crate::limits::{self, Limits};

/// Flags common to all servers; each server flattens this into its own parser.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Worker threads. Default is the number of CPUs this process may run on
    /// (its affinity mask, so `taskset -c 0` gives 1).
    #[arg(long)]
    pub threads: Option<NonZeroUsize>,

    /// Largest request head in bytes (431 or 414 above it).
    #[arg(long, default_value_t = limits::MAX_HEAD_BYTES)]
    pub max_head_bytes: usize,

    /// Most header fields in one request (431 above it).
    #[arg(long, default_value_t = limits::MAX_HEADERS)]
    pub max_headers: usize,

    /// Largest request body in bytes (413 above it).
    #[arg(long, default_value_t = limits::MAX_BODY_BYTES)]
    pub max_body_bytes: usize,

    /// Seconds a partly sent request may stay silent before the connection is closed.
    #[arg(long, default_value_t = limits::REQUEST_TIMEOUT.as_secs())]
    pub request_timeout_secs: u64,

    /// Seconds an idle keep-alive connection is kept open.
    #[arg(long, default_value_t = limits::IDLE_TIMEOUT.as_secs())]
    pub idle_timeout_secs: u64,
}

impl CommonArgs {
    /// The worker count: `--threads`, else the CPUs in this process's affinity mask.
    pub fn threads(&self) -> usize {
        self.threads
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, NonZeroUsize::get)
    }

    pub fn limits(&self) -> Limits {
        Limits {
            max_head_bytes: self.max_head_bytes,
            max_headers: self.max_headers,
            max_body_bytes: self.max_body_bytes,
        }
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_secs)
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_secs)
    }

    /// Rejects limits the servers cannot honour, with the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_head_bytes < 1024 {
            return Err("--max-head-bytes must be at least 1024".into());
        }
        if self.max_headers == 0 {
            return Err("--max-headers must be at least 1".into());
        }
        Ok(())
    }
}

/// The one line a server prints on stdout when it accepts connections; tests and the
/// benchmark read the address from it (so `--addr 127.0.0.1:0` works).
pub fn ready_line(addr: SocketAddr, details: &str) -> String {
    format!("listening on http://{addr} ({details})")
}

/// Parses the address back out of a [`ready_line`].
pub fn parse_ready_line(line: &str) -> Option<SocketAddr> {
    let rest = line.strip_prefix("listening on http://")?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Prints one line naming the cause (and fix) of a startup failure, then exits with 2.
pub fn exit_startup_error(program: &str, message: impl std::fmt::Display) -> ! {
    eprintln!("{program}: error: {message}");
    std::process::exit(2)
}

/// A bind error explained for a human: which address, what happened, what to do.
pub fn explain_bind_error(addr: SocketAddr, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "cannot listen on {addr}: address already in use; stop the other server or pass --addr with a free port"
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("cannot listen on {addr}: permission denied; use a port above 1023")
        }
        _ => format!("cannot listen on {addr}: {error}"),
    }
}

/// Why io_uring cannot be used here, and what to do about it (for the io_uring servers).
pub fn explain_io_uring_error(error: &std::io::Error) -> String {
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
             raise `ulimit -l` or pass a smaller --ring-entries"
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
    fn ready_line_round_trips() {
        let addr: SocketAddr = "127.0.0.1:4321".parse().unwrap();
        let line = ready_line(addr, "engine=hyper, threads=2");
        assert_eq!(
            line,
            "listening on http://127.0.0.1:4321 (engine=hyper, threads=2)"
        );
        assert_eq!(parse_ready_line(&line), Some(addr));
        assert_eq!(parse_ready_line("something else"), None);
    }

    #[test]
    fn every_io_uring_refusal_names_a_fix() {
        for errno in [libc::ENOSYS, libc::EPERM, libc::ENOMEM, libc::EINVAL] {
            let text = explain_io_uring_error(&std::io::Error::from_raw_os_error(errno));
            assert!(text.contains("io_uring"), "{text}");
            assert!(text.contains(';'), "no fix named: {text}");
        }
    }

    #[test]
    fn address_in_use_names_the_fix() {
        let error = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        let text = explain_bind_error("127.0.0.1:80".parse().unwrap(), &error);
        assert!(
            text.contains("already in use") && text.contains("--addr"),
            "{text}"
        );
    }
}

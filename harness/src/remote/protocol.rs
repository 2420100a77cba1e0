//! The agent's protocol: one JSON object per line each way over one TCP connection, each
//! request answered by one reply, in order. Every request carries `"token"` (the text of
//! the agent's token file) and `"request"`, its kind:
//!
//! - `hello`: [`Hello`], the agent's CPUs and version; a client sends it first, so a wrong
//!   token or a busy agent shows when it connects;
//! - `start`, with `contender` (a name the agent offers), `port` (absent or 0: the agent
//!   picks a free port itself and refuses any other), `threads` (absent: one per CPU
//!   the agent pins servers to), `https` (absent: false; the agent's certificate, which
//!   `hello` returns) and `files` (absent: false; the file corpus, on the agent's host):
//!   [`Started`];
//! - `usage`, with `pid` and `reset_peak` (absent: false): [`ProcessUsage`];
//! - `count_syscalls`, with `pid`: [`Counting`]; then `syscalls`, with `pid`:
//!   [`SyscallCount`];
//! - `stop`, with `pid`: [`Stopped`].
//!
//! A reply is `{"ok": ...}` or `{"error": "a sentence"}`. For example,
//! `{"token":"...","request":"start","contender":"io_uring"}` is answered by
//! `{"ok":{"pid":4242,"addr":"10.77.0.1:40001"}}`. A `pid` names a server this session
//! started, never any other process.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use crate::cpu::Snapshot;
use crate::io_workers::IoWorkers;
use crate::process_watch::{io_field, reset_peak_rss, status_number};

/// The longest request line the agent reads, its newline excluded; a longer one is refused
/// and ends the session. Default is 64 KiB.
pub const MAX_REQUEST_LINE: usize = 64 * 1024;

/// The refusal of a session while another is open; a client may try again shortly.
pub const BUSY: &str = "refused: busy: another study's session is open (one at a time)";

/// The longest reply line a client reads (a usage reply lists every thread of the
/// server). Default is 1 MiB.
pub const MAX_REPLY_LINE: usize = 1024 * 1024;

/// What a study asks of the agent (the token travels beside it: [`request_line`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Say who answers: the CPUs servers are pinned to and the agent's version.
    Hello,
    /// Start the server the agent offers under this name, pinned to the agent's CPUs,
    /// listening on the agent's IP.
    Start {
        contender: String,
        /// 0 (or absent): the agent picks a free port itself. Any other is refused: a
        /// port the peer chose might be one another process listens on, which would
        /// pass for the server's readiness.
        #[serde(default)]
        port: u16,
        /// `None`: one per CPU the agent pins servers to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threads: Option<usize>,
        /// Serve HTTPS with the agent's certificate ([`Hello::cert_pem`]).
        #[serde(default, skip_serializing_if = "is_false")]
        https: bool,
        /// Serve `/files/` from the agent's copy of the file corpus (`harness::corpus`,
        /// written and its file workloads' sets cached on the first such start).
        #[serde(default, skip_serializing_if = "is_false")]
        files: bool,
    },
    /// What the server has consumed so far.
    Usage {
        pid: u32,
        /// Restart its peak resident memory (VmHWM) after reading it, so the next reply's
        /// peak is that of the time in between.
        #[serde(default)]
        reset_peak: bool,
    },
    /// Start counting the server's syscalls (perf, when the agent's host has it).
    CountSyscalls { pid: u32 },
    /// Stop counting, and say how many there were.
    Syscalls { pid: u32 },
    /// Stop the server and wait until it has exited.
    Stop { pid: u32 },
}

/// Whether a flag is off, so that a request leaves it out.
fn is_false(flag: &bool) -> bool {
    !*flag
}

/// The line a client sends for `request`: its JSON with `"token"` added, and a newline.
pub fn request_line(token: &str, request: &Request) -> String {
    let mut value = serde_json::to_value(request).expect("a request is a JSON object");
    value["token"] = serde_json::Value::from(token);
    format!("{value}\n")
}

/// A reply: `{"ok": T}` or `{"error": "..."}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply<T> {
    Ok(T),
    Error(String),
}

impl<T> Reply<T> {
    pub fn into_result(self) -> Result<T, String> {
        match self {
            Reply::Ok(value) => Ok(value),
            Reply::Error(message) => Err(message),
        }
    }
}

impl<T> From<Result<T, String>> for Reply<T> {
    fn from(result: Result<T, String>) -> Reply<T> {
        match result {
            Ok(value) => Reply::Ok(value),
            Err(message) => Reply::Error(message),
        }
    }
}

/// Who answered a `hello`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The CPUs the agent pins servers to (`--cpus`).
    pub cpus: Vec<usize>,
    /// The agent's version, e.g. `0.1.0`.
    pub version: String,
    /// The certificate its HTTPS servers present (PEM, self-signed, naming the agent's IP),
    /// for the study's client to trust, that one alone.
    #[serde(default)]
    pub cert_pem: String,
    /// The agent's host, for the study's record beside its own (`None` from older agents).
    #[serde(default)]
    pub machine: Option<crate::machine::Machine>,
}

/// A server started: its pid on the agent's host and the address it listens on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub pid: u32,
    pub addr: SocketAddr,
}

/// What a server had consumed when asked, read from `/proc` on the agent's host as a
/// study on one host reads its own servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessUsage {
    /// CPU time, user and system, of every thread (io_uring's io-wq workers are threads of
    /// the process, so theirs counts) and of the whole process, exited threads included:
    /// `later.cpu.since(&earlier.cpu)` is the CPU spent in between.
    pub cpu: Snapshot,
    /// Resident memory now (`VmRSS`), KiB.
    pub rss_kib: u64,
    /// The most resident memory since it started or since the last `reset_peak`
    /// (`VmHWM`), KiB.
    pub peak_rss_kib: u64,
    /// Threads now.
    pub threads: u64,
    /// Bytes it has read from storage (`read_bytes` of `/proc/PID/io`); `None` where the
    /// kernel does not count them.
    pub disk_read_bytes: Option<u64>,
    /// Its io_uring worker threads now.
    pub io_workers: IoWorkers,
}

impl ProcessUsage {
    /// What process `pid` (on this host) has consumed so far, from `/proc`; with
    /// `reset_peak`, its peak memory restarts after it is read.
    pub fn read(pid: u32, reset_peak: bool) -> Result<ProcessUsage, String> {
        let usage = ProcessUsage {
            cpu: Snapshot::take(pid)?,
            rss_kib: status_number(pid, "VmRSS")?,
            peak_rss_kib: status_number(pid, "VmHWM")?,
            threads: status_number(pid, "Threads")?,
            disk_read_bytes: io_field(pid, "read_bytes").ok(),
            io_workers: IoWorkers::of(pid),
        };
        if reset_peak {
            reset_peak_rss(pid)?;
        }
        Ok(usage)
    }
}

/// Whether the agent counts a server's syscalls now (false: no perf, or not allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counting {
    pub counting: bool,
}

/// The syscalls counted since `count_syscalls`; `None` when perf reported no count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyscallCount {
    pub syscalls: Option<u64>,
}

/// A server stopped and gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    pub pid: u32,
}

/// Whatever the agent answers, written as the one it is (a client reads back the kind it
/// asked for).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Hello(Hello),
    Started(Started),
    Usage(ProcessUsage),
    Counting(Counting),
    Syscalls(SyscallCount),
    Stopped(Stopped),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_carries_the_token_beside_the_request() {
        let start = Request::Start {
            contender: "io_uring".into(),
            port: 0,
            threads: None,
            https: true,
            files: false,
        };
        let line = request_line("secret", &start);
        assert!(line.ends_with('\n'), "{line:?}");
        assert!(!line.trim_end().contains('\n'), "{line:?}");
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["token"], "secret");
        assert_eq!(value["request"], "start");
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), start);
        assert!(!line.contains("files"), "a flag that is off is left out: {line}");
        let plain = r#"{"request":"start","contender":"io_uring"}"#;
        match serde_json::from_str::<Request>(plain).unwrap() {
            Request::Start { https, files, .. } => assert!(!https && !files),
            other => panic!("{other:?}"),
        }
        let bare = r#"{"request":"count_syscalls","pid":7}"#;
        assert_eq!(
            serde_json::from_str::<Request>(bare).unwrap(),
            Request::CountSyscalls { pid: 7 }
        );
        let usage = r#"{"request":"usage","pid":7}"#;
        assert_eq!(
            serde_json::from_str::<Request>(usage).unwrap(),
            Request::Usage {
                pid: 7,
                reset_peak: false,
            }
        );
        let hello = r#"{"request":"hello","token":"secret"}"#;
        assert_eq!(serde_json::from_str::<Request>(hello).unwrap(), Request::Hello);
        let exec = r#"{"request":"exec","command":"id"}"#;
        assert!(serde_json::from_str::<Request>(exec).is_err());
    }

    #[test]
    fn a_reply_is_ok_or_error() {
        let stopped = Reply::from(Ok::<_, String>(Answer::Stopped(Stopped { pid: 3 })));
        assert_eq!(serde_json::to_string(&stopped).unwrap(), r#"{"ok":{"pid":3}}"#);
        let refused = Reply::<Answer>::Error("refused: wrong token".into());
        assert_eq!(
            serde_json::to_string(&refused).unwrap(),
            r#"{"error":"refused: wrong token"}"#
        );
        let read: Reply<Stopped> = serde_json::from_str(r#"{"ok":{"pid":3}}"#).unwrap();
        assert_eq!(read.into_result(), Ok(Stopped { pid: 3 }));
        let read: Reply<Stopped> = serde_json::from_str(r#"{"error":"no"}"#).unwrap();
        assert_eq!(read.into_result(), Err("no".to_string()));
    }
}

//! Syscalls of a process during a run, counted by `perf stat -e raw_syscalls:sys_enter`
//! when perf is installed and allowed; otherwise the figure is reported as n/a.

use std::process::{Child, Command, Stdio};

pub struct SyscallCounter {
    child: Child,
}

impl SyscallCounter {
    /// Starts counting the syscalls of `pid` (all threads); `None` if perf is unavailable.
    pub fn start(pid: u32) -> Option<SyscallCounter> {
        let child = Command::new("perf")
            .args([
                "stat",
                "-x",
                ",",
                "-e",
                "raw_syscalls:sys_enter",
                "-p",
                &pid.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        std::thread::sleep(std::time::Duration::from_millis(200));
        Some(SyscallCounter { child })
    }

    /// Stops counting and returns the count, if perf reported one.
    pub fn stop(self) -> Option<u64> {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let output = self.child.wait_with_output().ok()?;
        parse(&String::from_utf8_lossy(&output.stderr))
    }
}

/// The count from perf's CSV output (`12345,,raw_syscalls:sys_enter,...`).
pub fn parse(csv: &str) -> Option<u64> {
    csv.lines()
        .find(|line| line.contains("raw_syscalls:sys_enter"))
        .and_then(|line| line.split(',').next())
        .and_then(|count| count.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_perf_csv() {
        assert_eq!(
            parse("1234567,,raw_syscalls:sys_enter,2000000,100.00,,\n"),
            Some(1_234_567)
        );
        assert_eq!(parse("<not supported>,,raw_syscalls:sys_enter,0,100.00,,"), None);
        assert_eq!(parse(""), None);
    }
}

//! Whether provided buffers may be consumed incrementally (`IOU_PBUF_RING_INC`) on this
//! kernel: a pure decision from the kernel's version and the flags, made once per worker
//! before its buffer ring is registered. Why it is needed: `DESIGN.md`, "Incremental
//! buffers".
//!
//! With incremental consumption several completions name the same buffer, and `BufRing`
//! takes each one's bytes to start where the previous completion naming that buffer
//! ended. That holds only if the kernel posts a buffer's completions in the order it
//! consumed the buffer. Before upstream commit 687b2bae0eff ("io_uring: ensure deferred
//! completions are flushed for multishot", merged for 6.15-rc6) it did not always: a
//! multishot completion could be posted ahead of an earlier, deferred one, so a later
//! completion's bytes would be looked for at the wrong offset and one connection could be
//! handed another's. The fix reached 6.15, 6.14.7 and 6.12.29; the May 2025 stable queues
//! that took it had none for 6.13, which is therefore refused whatever its patch level
//! (6.12 is where incremental consumption began). A kernel that does not report its
//! upstream version (as some distributions' do not) is judged by the version it reports,
//! so it may be refused although patched: that costs speed, never correctness.

use std::fmt;

/// A kernel release as `uname -r` reports it: `6.12.29`, `6.15.0-rc6`, `6.8.0-45-generic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    /// `N` of a mainline pre-release `-rcN`.
    pub rc: Option<u32>,
}

impl KernelVersion {
    /// Parses the leading `major.minor[.patch]` of a release string, and a `-rcN` right
    /// after it; whatever else follows (a distribution's suffix) is ignored.
    pub fn parse(release: &str) -> Option<KernelVersion> {
        let release = release.trim();
        let end = release
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(release.len());
        let (numbers, rest) = release.split_at(end);
        let mut numbers = numbers.split('.');
        let major = numbers.next()?.parse().ok()?;
        let minor = numbers.next()?.parse().ok()?;
        let patch = match numbers.next() {
            Some(patch) => patch.parse().ok()?,
            None => 0,
        };
        let rc = rest.strip_prefix("-rc").and_then(|rc| {
            let digits = rc.find(|c: char| !c.is_ascii_digit()).unwrap_or(rc.len());
            rc[..digits].parse().ok()
        });
        Some(KernelVersion {
            major,
            minor,
            patch,
            rc,
        })
    }

    /// The running kernel's version (`/proc/sys/kernel/osrelease`), if it can be read.
    pub fn running() -> Option<KernelVersion> {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
        KernelVersion::parse(&release)
    }

    /// Posts the completions naming one provided buffer in the order it consumed the
    /// buffer (see the module docs): 6.12.29 and later 6.12s, 6.14.7 and later 6.14s,
    /// 6.15-rc6 and everything after.
    pub fn posts_buffer_completions_in_order(self) -> bool {
        match (self.major, self.minor) {
            (0..=5, _) | (6, 0..=11) | (6, 13) => false,
            (6, 12) => self.patch >= 29,
            (6, 14) => self.patch >= 7,
            (6, 15) => self.patch > 0 || self.rc.is_none_or(|rc| rc >= 6),
            _ => true,
        }
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        match self.rc {
            Some(rc) => write!(f, "-rc{rc}"),
            None => Ok(()),
        }
    }
}

/// Why provided buffers are not consumed incrementally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `--no-incremental-buffers`.
    SwitchedOff,
    /// `--sqpoll`: kept to whole buffers, as before the version gate (this server has not
    /// checked the order of completions posted by the SQ polling thread).
    SqPoll,
    /// The kernel's version could not be read.
    UnknownKernel,
    /// Before Linux 6.12, which added incremental consumption.
    TooOld(KernelVersion),
    /// A kernel that may post a buffer's completions out of order.
    OutOfOrder(KernelVersion),
}

/// For the ready line, inside parentheses after the buffer ring's description.
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::SwitchedOff => write!(f, "not incremental: --no-incremental-buffers"),
            Refusal::SqPoll => write!(f, "not incremental under SQPOLL"),
            Refusal::UnknownKernel => write!(f, "not incremental: kernel version unknown"),
            Refusal::TooOld(version) => {
                write!(f, "not incremental: Linux {version} lacks it, 6.12 added it")
            }
            Refusal::OutOfOrder(version) => write!(
                f,
                "not incremental: Linux {version} may post a buffer's completions out of order, \
                 fixed in 6.12.29, 6.14.7 and 6.15"
            ),
        }
    }
}

/// Whether to consume provided buffers incrementally, given `--no-incremental-buffers`,
/// `--sqpoll` and the kernel's version (`None` if unknown).
pub fn decide(switched_off: bool, sqpoll: bool, kernel: Option<KernelVersion>) -> Result<(), Refusal> {
    if switched_off {
        return Err(Refusal::SwitchedOff);
    }
    if sqpoll {
        return Err(Refusal::SqPoll);
    }
    let version = kernel.ok_or(Refusal::UnknownKernel)?;
    if (version.major, version.minor) < (6, 12) {
        return Err(Refusal::TooOld(version));
    }
    if !version.posts_buffer_completions_in_order() {
        return Err(Refusal::OutOfOrder(version));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(release: &str) -> KernelVersion {
        KernelVersion::parse(release).expect(release)
    }

    fn on(release: &str) -> Result<(), Refusal> {
        decide(false, false, Some(version(release)))
    }

    #[test]
    fn releases_parse_to_their_upstream_version() {
        let v = |major, minor, patch, rc| KernelVersion {
            major,
            minor,
            patch,
            rc,
        };
        assert_eq!(version("6.18.44-fc-v595\n"), v(6, 18, 44, None));
        assert_eq!(version("6.15.0-rc6"), v(6, 15, 0, Some(6)));
        assert_eq!(version("6.8.0-45-generic"), v(6, 8, 0, None));
        assert_eq!(version("6.12.29+deb13-amd64"), v(6, 12, 29, None));
        assert_eq!(version("5.15.167.4-microsoft-standard-WSL2"), v(5, 15, 167, None));
        assert_eq!(version("6.12"), v(6, 12, 0, None));
        assert_eq!(version("6.15.0-rc5").to_string(), "6.15.0-rc5");
        assert_eq!(KernelVersion::parse("Linux"), None);
        assert_eq!(KernelVersion::parse("6"), None);
    }

    /// Where the kernel may post a buffer's completions out of order, incremental buffers
    /// are refused; 6.13 never got the fix.
    #[test]
    fn incremental_buffers_are_refused_where_completion_order_cannot_be_trusted() {
        for release in ["6.12.0", "6.12.28", "6.13.0", "6.13.12", "6.14.6", "6.15.0-rc5"] {
            assert_eq!(
                on(release),
                Err(Refusal::OutOfOrder(version(release))),
                "{release}"
            );
        }
        for release in ["6.11.11", "6.6.100", "6.1.140", "5.15.0"] {
            assert_eq!(on(release), Err(Refusal::TooOld(version(release))), "{release}");
        }
        assert_eq!(decide(false, false, None), Err(Refusal::UnknownKernel));
        let said = on("6.13.12").unwrap_err().to_string();
        assert!(
            said.contains("6.13.12 may post a buffer's completions out of order"),
            "{said}"
        );
    }

    #[test]
    fn incremental_buffers_are_used_where_completion_order_holds() {
        for release in [
            "6.12.29",
            "6.12.60",
            "6.14.7",
            "6.15.0-rc6",
            "6.15.0",
            "6.16.1",
            "6.18.44",
            "7.0.0",
        ] {
            assert_eq!(on(release), Ok(()), "{release}");
        }
    }

    #[test]
    fn the_flags_come_first() {
        let trusted = Some(version("6.18.44"));
        assert_eq!(decide(true, false, trusted), Err(Refusal::SwitchedOff));
        assert_eq!(decide(false, true, trusted), Err(Refusal::SqPoll));
    }

    #[test]
    fn the_running_kernel_reports_a_version() {
        let running = KernelVersion::running().expect("/proc/sys/kernel/osrelease parses");
        eprintln!("running {running}: {:?}", decide(false, false, Some(running)));
    }
}

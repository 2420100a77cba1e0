//! A server's process group: signalled whole, and its leader (the server, whose pid is
//! the group's id) watched without being reaped, so that id cannot pass to another
//! process while the group may still be signalled.

/// Signal `number` to the process group `group` (the server's pid: it leads its group).
/// Its result is not read: ESRCH (the group is gone already) is what a stop hopes for.
pub(crate) fn signal(group: u32, number: i32) {
    // SAFETY: killpg(2) on the group of a process we started and have not yet reaped;
    // no memory is shared.
    unsafe {
        libc::killpg(group as libc::pid_t, number);
    }
}

/// Whether our child `pid` has exited, without reaping it (`WNOWAIT`); an error (ECHILD:
/// reaped already) counts as exited, an interrupted call does not.
pub(crate) fn has_exited(pid: u32) -> bool {
    // SAFETY: waitid(2) writes only into `info`, a zeroed siginfo_t on our stack, and
    // leaves the child unreaped; si_pid reads the field waitid filled in (0 when the
    // child has not exited, WNOHANG).
    let (rc, exited_pid) = unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let options = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        let rc = libc::waitid(libc::P_PID, pid, &mut info, options);
        (rc, info.si_pid())
    };
    match rc {
        0 => exited_pid != 0,
        _ => std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    #[test]
    fn a_killed_group_leader_is_seen_gone_and_left_to_be_reaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        assert!(!has_exited(child.id()));
        signal(child.id(), libc::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !has_exited(child.id()) {
            assert!(Instant::now() < deadline, "SIGKILL to its group left it running");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Still ours to reap: waitid did not.
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(has_exited(child.id()), "reaped counts as exited");
    }
}

//! A memory cgroup of its own for one server process, so what an idle connection costs
//! counts the kernel memory charged to the process beside its own pages: the socket's
//! file and inode, the epoll entry, the armed io_uring request. Not the TCP socket itself
//! on cgroup v1 (as here): the kernel allocates it at the handshake, before any process
//! accepts it, and charges it to none; it is the same for every server. Made
//! under this process's memory cgroup (v1's memory controller, whose usage includes
//! kernel memory, or v2's `memory.current`); pages charged before the move stay where
//! they were, so a delta read in the group counts only what came after. Dropping it moves
//! the process back and removes the group.

use std::path::{Path, PathBuf};

/// Where this process's memory cgroup lives and which file holds its charge.
#[derive(Debug, PartialEq, Eq)]
struct Hierarchy {
    dir: PathBuf,
    usage_file: &'static str,
}

/// This process's memory cgroup, from `/proc/self/cgroup`'s text: a v1 `memory`
/// controller's line first, else the v2 unified line (`0::/path`) when that group hands
/// the memory controller down to its children. Under v2 a group other than the root
/// cannot both hold processes and hand controllers down, so there this works only for
/// a harness run in the root group; elsewhere the idle figures fall back to resident
/// pages and say so.
fn hierarchy(proc_self_cgroup: &str, v1_root: &Path, unified_root: &Path) -> Option<Hierarchy> {
    let path_of = |line: &str| {
        line.splitn(3, ':')
            .nth(2)
            .map(|p| p.trim_start_matches('/').to_string())
    };
    let v1 = proc_self_cgroup.lines().find(|line| {
        line.split(':')
            .nth(1)
            .is_some_and(|controllers| controllers.split(',').any(|c| c == "memory"))
    });
    if let Some(path) = v1.and_then(path_of) {
        return Some(Hierarchy {
            dir: v1_root.join(path),
            usage_file: "memory.usage_in_bytes",
        });
    }
    // v2: a child group has the memory controller only where its parent hands it down.
    let unified = proc_self_cgroup.lines().find(|line| line.starts_with("0::"))?;
    let dir = unified_root.join(path_of(unified)?);
    let handed_down = std::fs::read_to_string(dir.join("cgroup.subtree_control")).ok()?;
    handed_down
        .split_whitespace()
        .any(|c| c == "memory")
        .then_some(Hierarchy {
            dir,
            usage_file: "memory.current",
        })
}

/// One process moved into a memory cgroup made for it.
pub struct MemoryGroup {
    pid: u32,
    dir: PathBuf,
    parent: PathBuf,
    usage_file: &'static str,
}

impl MemoryGroup {
    /// Moves `pid` into a new memory cgroup under this process's own; an error where the
    /// machine has no memory controller or will not let this process make one.
    pub fn join(pid: u32) -> Result<MemoryGroup, String> {
        let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
        let Hierarchy {
            dir: parent,
            usage_file,
        } = hierarchy(
            &own,
            Path::new("/sys/fs/cgroup/memory"),
            Path::new("/sys/fs/cgroup"),
        )
        .ok_or("no memory cgroup controller here")?;
        // The group this process is in must be where its path says (not so in a container
        // that sees the host's paths), or a new group would be made beside the wrong one.
        let holds_us = std::fs::read_to_string(parent.join("cgroup.procs"))
            .is_ok_and(|procs| procs.lines().any(|p| p.trim() == std::process::id().to_string()));
        if !holds_us {
            return Err(format!("{} does not hold this process", parent.display()));
        }
        let dir = parent.join(format!("uring-vs-tokio-{pid}"));
        // One left by a run that crashed, its pid now reused: empty, so it can go.
        let _ = std::fs::remove_dir(&dir);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let group = MemoryGroup {
            pid,
            dir,
            parent,
            usage_file,
        };
        write(&group.dir.join("cgroup.procs"), pid)?;
        group.bytes()?;
        Ok(group)
    }

    /// What is charged to the group now, in bytes.
    pub fn bytes(&self) -> Result<u64, String> {
        let path = self.dir.join(self.usage_file);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        text.trim()
            .parse()
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Drop for MemoryGroup {
    fn drop(&mut self) {
        // Back to where it came from (it may have exited), then the empty group goes.
        let _ = write(&self.parent.join("cgroup.procs"), self.pid);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn write(path: &Path, pid: u32) -> Result<(), String> {
    std::fs::write(path, pid.to_string()).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v1_memory_line_is_found_among_the_others() {
        let text = "9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n";
        let found = hierarchy(text, Path::new("/v1"), Path::new("/nonexistent")).unwrap();
        assert_eq!(found.dir, Path::new("/v1/process_api/abc"));
        assert_eq!(found.usage_file, "memory.usage_in_bytes");
        let joint = "5:cpu,memory:/a\n";
        assert_eq!(
            hierarchy(joint, Path::new("/v1"), Path::new("/x")).unwrap().dir,
            Path::new("/v1/a")
        );
    }

    #[test]
    fn v2_needs_the_memory_controller_handed_down() {
        let root = std::env::temp_dir().join(format!("memory-group-{}", std::process::id()));
        let own = root.join("user.slice/session");
        std::fs::create_dir_all(&own).unwrap();
        let text = "0::/user.slice/session\n";
        std::fs::write(own.join("cgroup.subtree_control"), "cpu io pids").unwrap();
        assert_eq!(hierarchy(text, Path::new("/v1"), &root), None);
        std::fs::write(own.join("cgroup.subtree_control"), "cpu memory pids").unwrap();
        let found = hierarchy(text, Path::new("/v1"), &root).unwrap();
        assert_eq!(found.dir, own);
        assert_eq!(found.usage_file, "memory.current");
        std::fs::remove_dir_all(&root).unwrap();
    }
}

//! CPU sets: parsing `0,2-3`, and pinning this process or a child to one.

use std::io;

/// A list of CPU numbers, e.g. parsed from `0` or `1-3,5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSet(pub Vec<usize>);

impl CpuSet {
    pub fn parse(text: &str) -> Result<CpuSet, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let number = |s: &str| {
                s.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("bad CPU list {text:?}"))
            };
            match part.split_once('-') {
                Some((a, b)) => cpus.extend(number(a)?..=number(b)?),
                None => cpus.push(number(part)?),
            }
        }
        if cpus.is_empty() {
            return Err(format!("empty CPU list {text:?}"));
        }
        Ok(CpuSet(cpus))
    }

    /// The CPUs this process may run on now.
    pub fn current() -> CpuSet {
        // SAFETY: sched_getaffinity writes at most size_of::<cpu_set_t>() bytes into `set`.
        let set = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
            set
        };
        // SAFETY: CPU_ISSET only reads the set.
        CpuSet(
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect(),
        )
    }

    /// The CPUs online on this machine, whatever this process's own mask (a study pins
    /// itself to the client's CPU; a thread it starts may still run on any of these).
    pub fn online() -> CpuSet {
        // SAFETY: sysconf reads a system setting and touches no memory of ours.
        let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        CpuSet((0..online.max(1) as usize).collect())
    }

    /// Restricts the calling thread (and threads and processes it starts later) to this set.
    /// Async-signal-safe, so it may run between fork and exec.
    pub fn pin_current_thread(&self) -> io::Result<()> {
        // SAFETY: the set is a plain bitmask on our stack; sched_setaffinity only reads it.
        let rc = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in &self.0 {
                libc::CPU_SET(cpu, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

impl std::fmt::Display for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list: Vec<String> = self.0.iter().map(usize::to_string).collect();
        f.write_str(&list.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ranges() {
        assert_eq!(CpuSet::parse("0").unwrap(), CpuSet(vec![0]));
        assert_eq!(CpuSet::parse("1-3, 5").unwrap(), CpuSet(vec![1, 2, 3, 5]));
        assert!(CpuSet::parse("a").is_err());
        assert!(CpuSet::parse("").is_err());
        assert_eq!(CpuSet(vec![1, 2]).to_string(), "1,2");
    }

    #[test]
    fn this_process_runs_on_some_cpu() {
        assert!(!CpuSet::current().0.is_empty());
    }
}

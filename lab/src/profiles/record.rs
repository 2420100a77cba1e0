//! Recording the server CPUs with `perf record -e cpu-clock -g -C <cpus>` (the CPUs, not
//! a pid, so softirq work done there in any context is sampled), and turning the data into
//! folded stacks with inferno's `perf script` collapser, one [`Stack`] per distinct stack.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use inferno::collapse::Collapse;

use harness::affinity::CpuSet;

/// Nanoseconds of CPU between two samples (`perf record -c`): 4,000 samples a second.
pub const PERIOD_NS: u64 = 250_000;

/// The CPUs online, for a recording of all of them.
fn num_cpus_online() -> usize {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|list| CpuSet::parse(list.trim()).ok())
        .map_or(1, |set| set.0.len())
}

/// Whether perf can record what the study needs on `cpus`; the error is one line saying
/// what is missing. Needs: perf installed, kernel symbol addresses readable
/// (`/proc/kallsyms` shows them to root, or to anyone with `kernel.kptr_restrict` = 0),
/// and leave to sample whole CPUs (root or CAP_PERFMON, or `kernel.perf_event_paranoid`
/// ≤ 0).
pub fn check(cpus: Option<&CpuSet>, scratch: &Path) -> Result<(), String> {
    let installed = Command::new("perf")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        return Err(
            "perf is not installed (apt-get install linux-perf), so no profile can be recorded".into(),
        );
    }
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
            .map_or("?".into(), |v| v.trim().to_string())
    };
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let readable = kallsyms.lines().take(100).any(|line| {
        line.split(' ')
            .next()
            .is_some_and(|addr| !addr.trim_start_matches('0').is_empty())
    });
    if !readable {
        return Err(format!(
            "kernel symbols are unreadable (kernel.kptr_restrict = {}): set it to 0 or run as root",
            sysctl("kptr_restrict")
        ));
    }
    let probe = scratch.join("probe.data");
    let recorded = Command::new("perf")
        .args(["record", "-e", "cpu-clock", "-g", "-o"])
        .arg(&probe)
        .args(cpu_args(cpus))
        .args(["--", "sleep", "0.05"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&probe);
    match recorded {
        true => Ok(()),
        false => Err(format!(
            "perf may not sample whole CPUs (kernel.perf_event_paranoid = {}): set it to 0 or less, or run as root",
            sysctl("perf_event_paranoid")
        )),
    }
}

/// `-C <cpus>`, or `-a` when the servers are not pinned.
fn cpu_args(cpus: Option<&CpuSet>) -> Vec<String> {
    match cpus {
        Some(set) => vec!["-C".into(), set.to_string()],
        None => vec!["-a".into()],
    }
}

/// A `perf record` running until [`Recording::stop`].
pub struct Recording {
    child: Child,
    path: PathBuf,
    cpus: usize,
}

/// What a recording wrote, and on how many CPUs.
pub struct Recorded {
    pub data: PathBuf,
    pub cpus: usize,
}

/// The samples a timer firing every [`PERIOD_NS`] on each of `cpus` takes over `span`.
pub fn expected_samples(span: Duration, cpus: usize) -> f64 {
    (span.as_nanos() as f64 / PERIOD_NS as f64 + 1.0) * cpus as f64
}

impl Recording {
    /// Starts sampling `cpus` into `path`, and gives perf a moment to open its events.
    pub fn start(cpus: Option<&CpuSet>, path: &Path) -> Result<Recording, String> {
        let child = Command::new("perf")
            .args([
                "record",
                "-e",
                "cpu-clock",
                "-c",
                &PERIOD_NS.to_string(),
                "-g",
                "-q",
                "-o",
            ])
            .arg(path)
            .args(cpu_args(cpus))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start perf record: {e}"))?;
        std::thread::sleep(Duration::from_millis(300));
        Ok(Recording {
            child,
            path: path.to_path_buf(),
            cpus: cpus.map_or_else(num_cpus_online, |set| set.0.len()),
        })
    }

    /// Stops perf (SIGINT, as Ctrl-C would) and returns the data file once it is written.
    pub fn stop(mut self) -> Result<Recorded, String> {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let status = self.child.wait().map_err(|e| e.to_string())?;
        // perf writes its data, then ends itself with the signal it was stopped by.
        match status.success() || status.signal() == Some(libc::SIGINT) {
            true => Ok(Recorded {
                data: self.path,
                cpus: self.cpus,
            }),
            false => Err(format!("perf record failed ({status})")),
        }
    }
}

/// The samples in `data` as folded stacks (`comm-pid;root;...;leaf weight`, weights in ns
/// of CPU), via `perf script` and inferno's collapser, and the span they cover
/// ([`sample_span`]).
pub fn fold(data: &Path) -> Result<(String, Option<Duration>), String> {
    let script = Command::new("perf")
        .args([
            "script",
            "--no-inline",
            "-F",
            "comm,pid,tid,cpu,time,period,event,ip,sym,dso",
            "-i",
        ])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run perf script: {e}"))?;
    let mut text = Vec::new();
    script
        .stdout
        .ok_or("perf script gave no output")?
        .read_to_end(&mut text)
        .map_err(|e| format!("perf script: {e}"))?;
    let span = sample_span(&String::from_utf8_lossy(&text));
    Ok((collapse(&text[..])?, span))
}

/// The time from the first sample to the last in `perf script` text (each sample's first
/// line carries `seconds.micros:`), `None` under two samples.
pub fn sample_span(script: &str) -> Option<Duration> {
    let times = script
        .lines()
        .filter(|line| !line.starts_with(char::is_whitespace))
        .filter_map(|line| {
            line.split_whitespace().find_map(|word| {
                word.strip_suffix(':')
                    .filter(|w| w.contains('.'))?
                    .parse::<f64>()
                    .ok()
            })
        });
    let (first, last) = times.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
        (lo.min(t), hi.max(t))
    });
    (last > first).then(|| Duration::from_secs_f64(last - first))
}

/// `perf script` text as folded stacks, the root frame named `comm-pid`.
pub fn collapse(script: impl std::io::BufRead) -> Result<String, String> {
    let mut options = inferno::collapse::perf::Options::default();
    options.include_pid = true;
    let mut out = Vec::new();
    inferno::collapse::perf::Folder::from(options)
        .collapse(script, &mut out)
        .map_err(|e| format!("cannot fold perf script output: {e}"))?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// One distinct stack of one process and how much CPU it was seen on.
#[derive(Debug, Clone, PartialEq)]
pub struct Stack {
    /// The thread's name (`uring-0`, `tokio-runtime-w`, `swapper`).
    pub comm: String,
    pub pid: u32,
    /// Root first; frames perf could not name (`[unknown]`) are left out.
    pub frames: Vec<String>,
    /// Nanoseconds of CPU: samples × [`PERIOD_NS`].
    pub weight: u64,
}

/// Parses folded lines whose root is `comm-pid`; lines that do not parse are skipped.
pub fn parse(folded: &str) -> Vec<Stack> {
    folded.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Stack> {
    let (stack, weight) = line.rsplit_once(' ')?;
    let mut frames = stack.split(';');
    let (comm, pid) = frames.next()?.rsplit_once('-')?;
    Some(Stack {
        comm: comm.to_string(),
        pid: pid.parse().ok()?,
        frames: frames.filter(|f| *f != "[unknown]").map(String::from).collect(),
        weight: weight.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::Breakdown;
    use crate::profiles::classify::Category;

    /// Five samples of CPU 0 recorded here: the idle task, io_uring_server sending,
    /// answering (a user-space leaf over an unreadable frame) and waiting, another process.
    const SCRIPT: &str = include_str!("fixtures/perf_script.txt");

    #[test]
    fn the_span_runs_from_the_first_sample_to_the_last() {
        // 22035.602804 to 22036.017306, in whatever order perf wrote them.
        let span = sample_span(SCRIPT).unwrap();
        assert_eq!(span.as_micros(), 414_502);
        assert_eq!(
            sample_span("uring-0 1/1 [000] 5.000001:  250000 cpu-clock:\n"),
            None
        );
        // 0.25 s at 250 µs a sample: 1,000 periods, 1,001 samples on each CPU.
        assert_eq!(expected_samples(Duration::from_millis(250), 2), 2002.0);
    }

    #[test]
    fn perf_script_folds_into_stacks_by_process() {
        let stacks = parse(&collapse(SCRIPT.as_bytes()).unwrap());
        assert_eq!(stacks.len(), 5, "{stacks:?}");
        let idle = stacks.iter().find(|s| s.comm == "swapper").unwrap();
        assert_eq!((idle.pid, idle.weight), (0, PERIOD_NS));
        let answer = stacks
            .iter()
            .find(|s| s.frames.iter().any(|f| f.starts_with("http_core::")))
            .unwrap();
        assert_eq!((answer.comm.as_str(), answer.pid), ("uring-0", 24738));
        assert_eq!(
            answer.frames,
            ["http_core::codec::Codec::serve_within"],
            "[unknown] is left out"
        );
        let send = stacks
            .iter()
            .find(|s| s.frames.iter().any(|f| f == "tcp_sendmsg"))
            .unwrap();
        assert_eq!(
            send.frames.first().map(String::as_str),
            Some("syscall"),
            "root first"
        );
        assert_eq!(send.frames.last().map(String::as_str), Some("__virt_addr_valid"));
    }

    #[test]
    fn samples_split_into_server_idle_and_others() {
        let stacks = parse(&collapse(SCRIPT.as_bytes()).unwrap());
        let breakdown = Breakdown::of(&stacks, 24738, PERIOD_NS);
        assert_eq!(
            (breakdown.server_samples(), breakdown.idle, breakdown.others),
            (3, 1, 1)
        );
        assert_eq!(breakdown.server[Category::TcpSend.index()], 1);
        assert_eq!(breakdown.server[Category::Http.index()], 1);
        assert_eq!(breakdown.server[Category::Scheduler.index()], 1);
        assert!((breakdown.server_share() - 0.6).abs() < 1e-9);
    }

    #[test]
    fn lines_that_are_not_folded_stacks_are_skipped() {
        assert_eq!(parse("garbage\nuring-0-12;a;b notanumber\n"), []);
        let stack = &parse("tokio-runtime-w-77;[unknown];do_syscall_64 500000\n")[0];
        assert_eq!(
            (stack.comm.as_str(), stack.pid, stack.weight),
            ("tokio-runtime-w", 77, 500_000)
        );
        assert_eq!(stack.frames, ["do_syscall_64"]);
    }
}

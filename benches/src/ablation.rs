//! The io_uring feature ablation: io_uring_server with its features added one at a time,
//! from single-shot accept and plain recv up to SQPOLL, beside tokio's two engines, each
//! row measured over interleaved rounds. `scripts/ablation.sh` runs it; this module holds
//! the rows, the per-row figures and the markdown rendering.

use serde::{Deserialize, Serialize};

use crate::machine::Machine;

/// One configuration: a package and its flags, and what adding it changes in the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub name: &'static str,
    pub package: &'static str,
    pub args: &'static [&'static str],
    /// What this step changes, in one sentence (the measured verdict is appended).
    pub mechanism: &'static str,
}

const NO_BATCH: [&str; 2] = ["--batch-wait-us", "0"];
/// Whole provided buffers, and large bodies through the ring too.
const CLASSIC_RING: [&str; 2] = ["--no-incremental-buffers", "--no-plain-body-recv"];

/// The io_uring steps, each adding one feature to the one before, then the references.
pub const STEPS: [Step; 11] = [
    Step {
        name: "baseline: single accept, plain recv, COOP_TASKRUN",
        package: "io_uring_server",
        args: &[
            "--no-multishot-accept",
            "--no-multishot-recv",
            "--no-defer-taskrun",
            NO_BATCH[0],
            NO_BATCH[1],
        ],
        mechanism: "One accept and one recv SQE per event into per-connection buffers, completions run as task work when the thread next enters the kernel.",
    },
    Step {
        name: "+ multishot accept",
        package: "io_uring_server",
        args: &[
            "--no-multishot-recv",
            "--no-defer-taskrun",
            NO_BATCH[0],
            NO_BATCH[1],
        ],
        mechanism: "One accept SQE serves every connection; it only matters when connections are opened, and these loads keep theirs open.",
    },
    Step {
        name: "+ multishot recv with a buffer ring",
        package: "io_uring_server",
        args: &[
            CLASSIC_RING[0],
            CLASSIC_RING[1],
            "--no-defer-taskrun",
            NO_BATCH[0],
            NO_BATCH[1],
        ],
        mechanism: "One recv SQE per connection for its whole life, data lands in shared provided buffers (1024 x 8 KiB, one per completion) instead of an 8 KiB buffer per connection.",
    },
    Step {
        name: "+ SINGLE_ISSUER and DEFER_TASKRUN",
        package: "io_uring_server",
        args: &[CLASSIC_RING[0], CLASSIC_RING[1], NO_BATCH[0], NO_BATCH[1]],
        mechanism: "Completion work is deferred until the thread waits for it, so it runs in batches and the kernel wakes the thread only when enough of it is ready.",
    },
    Step {
        name: "+ batched waits (min_wait 100 µs)",
        package: "io_uring_server",
        args: &[CLASSIC_RING[0], CLASSIC_RING[1]],
        mechanism: "Under load each io_uring_enter waits up to 100 µs for a batch of completions, trading a bounded delay for fewer wake-ups and syscalls.",
    },
    Step {
        name: "+ incrementally consumed buffers (16 x 256 KiB)",
        package: "io_uring_server",
        args: &[CLASSIC_RING[1]],
        mechanism: "Each completion takes only the bytes it received from a few large buffers, so receives pack into a small, cache-warm pool and a request that arrives whole is answered without a copy.",
    },
    Step {
        name: "+ plain recv for large bodies",
        package: "io_uring_server",
        args: &[],
        mechanism: "A body of 64 KiB or more still to come goes straight into the connection's input; these loads send no bodies, so it should change nothing here (results/bodies.md measures it).",
    },
    Step {
        name: "+ registered files (direct descriptors)",
        package: "io_uring_server",
        args: &["--fixed-files"],
        mechanism: "Sockets live in the ring's file table, which saves a file-table lookup and reference count per operation.",
    },
    Step {
        name: "+ SQPOLL (replaces DEFER_TASKRUN)",
        package: "io_uring_server",
        args: &["--fixed-files", "--sqpoll"],
        mechanism: "A kernel thread polls the submission queue so submitting needs no syscall; its CPU is counted, and here it shares the server's one CPU. Buffers are consumed whole under SQPOLL.",
    },
    Step {
        name: "reference: tokio_server (codec)",
        package: "tokio_server",
        args: &["--engine", "codec"],
        mechanism: "epoll through tokio with the same HTTP code: the fair non-io_uring comparison.",
    },
    Step {
        name: "reference: tokio_server (hyper)",
        package: "tokio_server",
        args: &["--engine", "hyper"],
        mechanism: "What most Rust services run.",
    },
];

/// The package whose features the steps add; other packages' rows are references.
const SUBJECT: &str = "io_uring_server";

/// Whether row `i` adds a feature to the row above it (rather than being a reference).
pub fn adds_a_feature(i: usize) -> bool {
    i > 0 && STEPS.get(i).is_some_and(|s| s.package == SUBJECT)
}

/// The row of io_uring_server without flags: the server as users start it.
pub fn default_step() -> usize {
    STEPS
        .iter()
        .position(|s| s.package == SUBJECT && s.args.is_empty())
        .expect("STEPS has io_uring_server with its default flags")
}

/// One round's figures for one step.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Sample {
    pub closed_rps: f64,
    pub closed_cpu_us: Option<f64>,
    pub syscalls_per_request: Option<f64>,
    pub pipelined_rps: f64,
    pub pipelined_cpu_us: Option<f64>,
    pub p99_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepResult {
    pub name: String,
    pub args: Vec<String>,
    pub samples: Vec<Sample>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AblationReport {
    pub machine: Machine,
    pub pinning: String,
    pub seconds_per_point: f64,
    pub connections: usize,
    pub depth: usize,
    pub open_loop_connections: usize,
    pub open_loop_rate: f64,
    pub steps: Vec<StepResult>,
}

/// Median, minimum and maximum of the values present.
pub fn spread(values: impl Iterator<Item = Option<f64>>) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.flatten().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let median = match v.len() % 2 {
        1 => v[v.len() / 2],
        _ => (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0,
    };
    Some((median, v[0], v[v.len() - 1]))
}

#[path = "ablation_render.rs"]
mod render;
pub use render::render_markdown;

//! The io_uring feature ablation (`scripts/ablation.sh`): io_uring_server with its
//! features added one at a time, from single-shot accept and plain recv up to SQPOLL,
//! beside tokio's two engines and the three floors (the cheapest loop of each stack, not
//! contenders), each row measured over interleaved rounds. This module holds the rows
//! (contenders with flags) and the per-row figures; `render` the markdown.

use serde::{Deserialize, Serialize};

use harness::machine::Machine;
use harness::servers::{Contender, FLOOR_HYPER, FLOOR_TOKIO, FLOOR_URING, NGINX, TOKIO_CODEC, TOKIO_HYPER};

pub mod render;

/// What a row is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// io_uring_server with one more feature than the row above.
    Feature,
    /// The default io_uring_server again, in its own process: the A/A control. How far it
    /// lands from the default row is this run's noise, and no smaller change is claimed.
    Control,
    /// One of tokio's engines, compared with the default io_uring_server.
    Reference,
    /// A floor (`floors` crate): its stack's cheapest answer, no HTTP parsing; each
    /// other row's server CPU is divided by its stack's floor.
    Floor,
}

/// One row: a contender (io_uring_server with flags, or a reference), and what adding it
/// changes in the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub role: Role,
    /// The row's name is its label; the ablation always starts its own servers.
    pub contender: Contender,
    /// What this step changes, in one sentence (the measured verdict is appended).
    pub mechanism: &'static str,
}

const NO_BATCH: [&str; 2] = ["--batch-wait-us", "0"];
const BATCH: [&str; 2] = ["--batch-wait-us", "100"];
/// Whole provided buffers, and large bodies through the ring too.
const CLASSIC_RING: [&str; 2] = ["--no-incremental-buffers", "--no-plain-body-recv"];

/// io_uring_server with `args`, named `label`.
const fn io_uring(label: &'static str, args: &'static [&'static str]) -> Contender {
    harness::servers::io_uring_with(label, args)
}

/// One of [`harness::servers::CONTENDERS`] as a reference row named `label`.
const fn reference(label: &'static str, contender: Contender) -> Contender {
    Contender {
        label,
        url_env: None,
        ..contender
    }
}

/// The io_uring steps, each adding one feature to the one before, then the references.
pub const STEPS: [Step; 16] = [
    Step {
        role: Role::Feature,
        contender: io_uring(
            "baseline: single accept, plain recv, COOP_TASKRUN",
            &[
                "--no-multishot-accept",
                "--no-multishot-recv",
                "--no-defer-taskrun",
                NO_BATCH[0],
                NO_BATCH[1],
            ],
        ),
        mechanism: "One accept and one recv SQE per event into per-connection buffers, completions run as task work when the thread next enters the kernel.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring(
            "+ multishot accept",
            &[
                "--no-multishot-recv",
                "--no-defer-taskrun",
                NO_BATCH[0],
                NO_BATCH[1],
            ],
        ),
        mechanism: "One accept SQE serves every connection; it only matters when connections are opened, and these loads keep theirs open.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring(
            "+ multishot recv with a buffer ring",
            &[
                CLASSIC_RING[0],
                CLASSIC_RING[1],
                "--no-defer-taskrun",
                NO_BATCH[0],
                NO_BATCH[1],
            ],
        ),
        mechanism: "One recv SQE per connection for its whole life, data lands in shared provided buffers (1024 x 8 KiB, one per completion) instead of an 8 KiB buffer per connection.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring(
            "+ SINGLE_ISSUER and DEFER_TASKRUN",
            &[CLASSIC_RING[0], CLASSIC_RING[1], NO_BATCH[0], NO_BATCH[1]],
        ),
        mechanism: "Completion work is deferred until the thread waits for it, so it runs in batches and the kernel wakes the thread only when enough of it is ready.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring(
            "+ incrementally consumed buffers (16 x 256 KiB)",
            &[CLASSIC_RING[1]],
        ),
        mechanism: "Each completion takes only the bytes it received from a few large buffers, so receives pack into a small, cache-warm pool and a request that arrives whole is answered without a copy.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring("+ plain recv for large bodies", &[]),
        mechanism: "A body of 64 KiB or more still to come goes straight into the connection's input; these loads send no bodies, so it should change nothing here (results/bodies.md measures it).",
    },
    Step {
        role: Role::Feature,
        contender: io_uring("+ batched waits (min_wait 100 µs, an option)", &BATCH),
        mechanism: "While requests arrive on their own fast enough, each io_uring_enter waits up to the min-wait for a batch of completions, trading a bounded delay and a timer for fewer wake-ups and syscalls; off by default (results/scan.md measures it at every concurrency).",
    },
    Step {
        role: Role::Feature,
        contender: io_uring("+ registered files (direct descriptors)", &["--fixed-files"]),
        mechanism: "Sockets live in the ring's file table, which saves a file-table lookup and reference count per operation.",
    },
    Step {
        role: Role::Feature,
        contender: io_uring(
            "+ SQPOLL (replaces DEFER_TASKRUN)",
            &["--fixed-files", "--sqpoll"],
        ),
        mechanism: "A kernel thread polls the submission queue so submitting needs no syscall; its CPU is counted, and here it shares the server's one CPU. Buffers are consumed whole under SQPOLL.",
    },
    Step {
        role: Role::Control,
        contender: io_uring(
            "A/A control: io_uring_server (default flags), a second process",
            &[],
        ),
        mechanism: "Changes nothing: the default server started twice.",
    },
    Step {
        role: Role::Reference,
        contender: reference("reference: tokio_server (codec)", TOKIO_CODEC),
        mechanism: "epoll through tokio with the same HTTP code: the fair non-io_uring comparison.",
    },
    Step {
        role: Role::Reference,
        contender: reference("reference: tokio_server (hyper)", TOKIO_HYPER),
        mechanism: "What most Rust services run.",
    },
    Step {
        role: Role::Reference,
        contender: reference("reference: nginx (outside anchor)", NGINX),
        mechanism: "nginx with one worker on epoll (nginx/nginx.conf), the outside anchor; its row is left out when nginx is not installed.",
    },
    Step {
        role: Role::Floor,
        contender: FLOOR_URING,
        mechanism: "A plain io_uring loop (multishot accept, one recv or send in flight per connection, no batched waits) that parses no HTTP, counts request ends and sends canned answers: the floor under every io_uring row, which the rows with batched waits and buffer rings can undercut.",
    },
    Step {
        role: Role::Floor,
        contender: FLOOR_TOKIO,
        mechanism: "A tokio loop that parses no HTTP, counts request ends and writes canned answers: the floor under the codec on tokio.",
    },
    Step {
        role: Role::Floor,
        contender: FLOOR_HYPER,
        mechanism: "hyper's hello world with its defaults (hyper parses each request, the answer is fixed): the floor under the hyper engine.",
    },
];

/// The role of the row named `name` (rows of a recorded run are matched by name).
pub fn role_of(name: &str) -> Option<Role> {
    STEPS.iter().find(|s| s.contender.label == name).map(|s| s.role)
}

/// The name of the floor row under the row named `name`: its stack's floor.
pub fn floor_of(name: &str) -> Option<&'static str> {
    let step = STEPS.iter().find(|s| s.contender.label == name)?;
    Some(step.contender.floor()?.label)
}

/// The feature row of io_uring_server without flags: the server as users start it.
pub fn default_step() -> usize {
    STEPS
        .iter()
        .position(|s| s.role == Role::Feature && s.contender.args.is_empty())
        .expect("STEPS has io_uring_server with its default flags")
}

/// One round's figures for one step.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Sample {
    pub closed_rps: f64,
    pub closed_cpu_us: Option<f64>,
    /// The whole machine's CPU per request in the closed loop ([`harness::machine_cpu`]).
    #[serde(default)]
    pub closed_machine_cpu_us: Option<f64>,
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
    /// Slices each point was cut into, alternated between the servers
    /// ([`harness::slices`]); 0 in reports from before slices (one go).
    #[serde(default)]
    pub slices: usize,
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
    let middle = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[middle]
    } else {
        (v[middle - 1] + v[middle]) / 2.0
    };
    Some((median, v[0], v[v.len() - 1]))
}

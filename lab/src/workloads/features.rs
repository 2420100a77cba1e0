//! The feature ablation where each feature is meant to pay (measured in the one run of
//! `scripts/workloads.sh`): io_uring_server with one feature switched on or off against
//! its default flags, at the workloads that feature exists for: the receive path and the
//! task-run mode at the verdict's fixed-rate keep-alive row, accept features where
//! connections churn (at the churn rows' fixed rates), the provided-buffer ring where
//! connections idle, zero-copy send where responses are large (at their fixed rates), the
//! large-upload receive paths (`--bulk-recv`) at the uploads' fixed rate, the
//! cheaper enter (registered ring, no SQ index array) at one connection and the fixed-rate
//! keep-alive row (not at four connections, whose requests/s the client bounds here),
//! sendfile where files are large (its row reads them through the ring instead), SQPOLL
//! at the one-connection point where the client busy-polls (both sides awake). Measured
//! like the workloads, rounds interleaved; `report` renders it.

use std::fmt::Write as _;

use crate::workloads::{Shape, WORKLOADS, Workload, WorkloadsReport};
use harness::judge::{self, Word};
use harness::output::Doc;
use harness::servers::{AA_CONTROL, Contender, IO_URING, io_uring_with};

/// One feature row: io_uring_server with flags, at the workload named `at` (or, for a
/// saturated load, at those whose name starts with it), and what the flags change.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub at: &'static str,
    pub contender: Contender,
    pub mechanism: &'static str,
}

const ZERO_COPY: Contender = io_uring_with("with zero-copy send", &["--zero-copy-send"]);
const ZERO_COPY_MECHANISM: &str =
    "the body sent with SEND_ZC from its shared buffer, plus a notification completion per send";

/// io_uring_server's busiest wait, at the one-connection point where the client busy-polls.
pub const SQPOLL: Contender = io_uring_with("with SQPOLL (its busiest wait)", &["--sqpoll"]);

/// Where small requests on kept-alive connections cost what the verdict judges: at its
/// fixed offered rate.
const KEEP_ALIVE: &str = "keep-alive, small requests at a fixed rate";

/// Where accept features pay: connections churning, at the verdict's fixed offered rates.
const SERVER_CLOSES: &str = "churn, server closes at a fixed rate";
const CLIENT_CLOSES: &str = "churn, client closes at a fixed rate";
const SINGLE_ACCEPT: Contender = io_uring_with("without multishot accept", &["--no-multishot-accept"]);
const SINGLE_ACCEPT_MECHANISM: &str = "one accept SQE per connection instead of one for all";
const FIXED_FILES: Contender = io_uring_with("with registered files", &["--fixed-files"]);
const FIXED_FILES_MECHANISM: &str = "each connection accepted straight into the ring's file table (a direct descriptor): no file-table lookup per operation, no descriptor to close";

/// io_uring_server reading every file through the ring (`--no-sendfile`): the copy path
/// its sendfile path replaces for large cached files.
const IO_URING_READS: Contender = io_uring_with(
    "io_uring_server reading files (--no-sendfile)",
    &["--no-sendfile"],
);

const UNREGISTERED: Contender = io_uring_with("without the registered ring", &["--no-registered-ring"]);
const UNREGISTERED_MECHANISM: &str = "each io_uring_enter names the ring by its descriptor (a descriptor-table lookup and reference per call) instead of by the index it was registered at, once at startup";
const SQ_ARRAY: Contender = io_uring_with("with the SQ index array", &["--sq-array"]);
const SQ_ARRAY_MECHANISM: &str = "the kernel reads each submission's slot from an index array, where the default (IORING_SETUP_NO_SQARRAY) has it take entries in ring order";

/// Where bulk receive costs what the verdict judges: uploads at their fixed offered rate.
pub const UPLOADS: &str = "20 MiB uploads at a fixed rate";

/// A buffer ring of 4 MiB (16 buffers of 256 KiB) instead of the default 1 MiB: what the
/// ring's cache footprint costs where every byte is copied through it.
const LARGE_RING: Contender = io_uring_with("with a 4 MiB buffer ring (16 buffers)", &["--buf-count", "16"]);
const LARGE_RING_MECHANISM: &str = "the kernel copies each arrival into the next of 16 provided buffers of 256 KiB instead of the default 4, so the buffers it writes and the server then reads cycle through 4 MiB instead of 1 MiB, a larger footprint in the CPU's caches";

pub const VARIANTS: [Variant; 20] = [
    Variant {
        at: KEEP_ALIVE,
        contender: io_uring_with("without the buffer ring (plain recv)", &["--no-multishot-recv"]),
        mechanism: "one recv SQE per request into the connection's own buffer instead of one multishot recv for its life into shared provided buffers",
    },
    Variant {
        at: KEEP_ALIVE,
        contender: io_uring_with("without incremental buffers", &["--no-incremental-buffers"]),
        mechanism: "1024 x 8 KiB provided buffers, one per completion, instead of 4 x 256 KiB consumed a completion's bytes at a time",
    },
    Variant {
        at: KEEP_ALIVE,
        contender: io_uring_with("without DEFER_TASKRUN", &["--no-defer-taskrun"]),
        mechanism: "completion work run as task work whenever the thread enters the kernel (COOP_TASKRUN) instead of deferred until it waits, in batches",
    },
    Variant {
        at: KEEP_ALIVE,
        contender: io_uring_with("with batched waits (100 µs)", &["--batch-wait-us", "100"]),
        mechanism: "each io_uring_enter waits up to 100 µs for a batch of completions while requests arrive on their own (min-wait), trading a bounded delay for fewer wake-ups",
    },
    Variant {
        at: SERVER_CLOSES,
        contender: SINGLE_ACCEPT,
        mechanism: SINGLE_ACCEPT_MECHANISM,
    },
    Variant {
        at: SERVER_CLOSES,
        contender: FIXED_FILES,
        mechanism: FIXED_FILES_MECHANISM,
    },
    Variant {
        at: CLIENT_CLOSES,
        contender: SINGLE_ACCEPT,
        mechanism: SINGLE_ACCEPT_MECHANISM,
    },
    Variant {
        at: CLIENT_CLOSES,
        contender: FIXED_FILES,
        mechanism: FIXED_FILES_MECHANISM,
    },
    Variant {
        at: UPLOADS,
        contender: io_uring_with("with uploads by plain recv", &["--bulk-recv", "direct"]),
        mechanism: "a large upload's body received by plain recvs straight into a slice of the connection's input (64 KiB growing to 256 KiB, the epoll engines' read size) instead of a multishot recv's completion per arrival, back to the buffer ring once the body ends",
    },
    Variant {
        at: UPLOADS,
        contender: LARGE_RING,
        mechanism: LARGE_RING_MECHANISM,
    },
    Variant {
        at: KEEP_ALIVE,
        contender: LARGE_RING,
        mechanism: LARGE_RING_MECHANISM,
    },
    Variant {
        at: "5k idle",
        contender: io_uring_with("without the buffer ring", &["--no-multishot-recv"]),
        mechanism: "a plain recv into a buffer of its own per connection, armed while it idles, instead of the kernel picking a shared provided buffer when data arrives",
    },
    Variant {
        at: "256 KiB responses at a fixed rate",
        contender: ZERO_COPY,
        mechanism: ZERO_COPY_MECHANISM,
    },
    Variant {
        at: "1 MiB responses at a fixed rate",
        contender: ZERO_COPY,
        mechanism: ZERO_COPY_MECHANISM,
    },
    Variant {
        at: "one connection",
        contender: UNREGISTERED,
        mechanism: UNREGISTERED_MECHANISM,
    },
    Variant {
        at: KEEP_ALIVE,
        contender: UNREGISTERED,
        mechanism: UNREGISTERED_MECHANISM,
    },
    Variant {
        at: "one connection",
        contender: SQ_ARRAY,
        mechanism: SQ_ARRAY_MECHANISM,
    },
    Variant {
        at: KEEP_ALIVE,
        contender: SQ_ARRAY,
        mechanism: SQ_ARRAY_MECHANISM,
    },
    Variant {
        at: harness::workload::catalogue::BUSY_POLLED,
        contender: SQPOLL,
        mechanism: "a kernel thread polls the submission queue, so submitting takes no system call; the busiest wait io_uring_server has (its thread still waits for completions in io_uring_enter). Beside the client's busy-polling, what is left of the one-connection round trip without wake-ups. tokio_server has no busier wait to offer: its runtime always parks in epoll_wait",
    },
    Variant {
        at: "1 MiB files, 16 connections at a fixed rate",
        contender: IO_URING_READS,
        mechanism: "every file read through the ring into the connection's buffer and sent from there (page cache to buffer, buffer to socket) instead of sendfile handing the page-cache pages to TCP",
    },
];

/// The feature rows meant for `workload`: those naming it, or the start of the names of
/// the saturated loads they are meant for (an offered workload only by its whole name).
pub fn variants_at(workload: &Workload) -> Vec<Contender> {
    let offered = matches!(workload.shape, Shape::Offered { .. });
    harness::rounds::first_seen(
        VARIANTS
            .iter()
            .filter(|v| workload.name.starts_with(v.at) && (!offered || workload.name == v.at))
            .filter(|_| workload.tls().is_none())
            .map(|v| v.contender),
    )
}

/// The workloads with feature rows, each with its contenders: the default first, the A/A
/// control (the default again, in a second process) last.
pub fn lineup() -> Vec<(Workload, Vec<Contender>)> {
    WORKLOADS
        .iter()
        .copied()
        .filter_map(|workload| {
            let variants = variants_at(&workload);
            (!variants.is_empty()).then(|| (workload, [vec![IO_URING], variants, vec![AA_CONTROL]].concat()))
        })
        .collect()
}

const AA_MECHANISM: &str = "nothing: the A/A control, whose word says how far to trust the others";

/// The table's head but the column of what each feature changes (`results/features.md`'s).
const HEAD: &str = "| workload | measure | io_uring_server | ÷ default flags |";

pub const BEGIN: &str = "<!-- BEGIN FEATURES: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END FEATURES -->";

/// The table: per workload and feature row, the row ÷ the default, round by round; for
/// `results/features.md` every row with the method and what each feature changes, for
/// BENCHMARKS.md under a one-line provenance the rows that do not tie, the others named
/// in a sentence, the A/A control counted, and a link to the rest.
pub fn render(report: &WorkloadsReport, doc: Doc) -> String {
    let (provenance, method) = match doc {
        Doc::Benchmarks => (
            harness::workload::verdict::short_provenance(report, "scripts/workloads.sh"),
            "the verdict's rule.".to_string(),
        ),
        Doc::Results => (
            report.provenance("scripts/workloads.sh"),
            format!("the verdict's rule: {}", judge::METHOD),
        ),
    };
    let brief = doc == Doc::Benchmarks;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{provenance}\n\nEach cell is the feature row's figure ÷ io_uring_server with default \
         flags (lower is better), judged by {method}\n",
    );
    let _ = match brief {
        true => writeln!(out, "{HEAD}\n|---|---|---|---|"),
        false => writeln!(out, "{HEAD} what it changes |\n|---|---|---|---|---|"),
    };
    let mut ties = Vec::new();
    let measured = report.workloads();
    for (workload, contenders) in lineup() {
        let default = report.values(workload.name, IO_URING.id);
        // A feature row a run from before it had no rounds of: said so, the control left out.
        let absent = report.judged.is_some() && !measured.iter().any(|m| m == workload.name);
        for contender in &contenders[1..] {
            let ratios = harness::rounds::ratios(&report.values(workload.name, contender.id), &default);
            let cell = match (ratios.is_empty(), absent && *contender != AA_CONTROL) {
                (false, _) => judge::cell(&ratios),
                (true, true) => "not measured in this run".to_string(),
                (true, false) => continue,
            };
            let label = report.rate_label(&workload);
            if brief && *contender == AA_CONTROL {
                continue;
            }
            if brief && Word::judge(&ratios) == Word::Ties {
                ties.push(format!("{} at *{label}*", contender.label));
                continue;
            }
            let mechanism = match brief {
                true => String::new(),
                false => format!(
                    " {} |",
                    VARIANTS
                        .iter()
                        .find(|v| v.contender == *contender)
                        .map_or(AA_MECHANISM, |v| v.mechanism)
                ),
            };
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {cell} |{mechanism}",
                workload.measure(),
                contender.label,
            );
        }
    }
    if brief {
        if !ties.is_empty() {
            let _ = writeln!(
                out,
                "\nRows that read *ties* ({}): {}.",
                ties.len(),
                ties.join(", ")
            );
        }
        let controls: Vec<Vec<f64>> = control_cells(report).into_iter().map(|(_, r)| r).collect();
        if !controls.is_empty() {
            let _ = writeln!(out, "\n{}", judge::control_tally(&controls));
        }
        let _ = writeln!(
            out,
            "\nEvery row, with what each feature changes: [results/features.md](results/features.md)."
        );
    }
    out
}

/// The A/A control's cells of the feature rows: per workload with feature rows, the
/// control ÷ io_uring_server with default flags, per round, where it ran; what the line
/// under BENCHMARKS.md's feature table counts, and the answer names (leaving out those
/// of a verdict row's workload, the verdict's own cells).
pub fn control_cells(report: &WorkloadsReport) -> Vec<(Workload, Vec<f64>)> {
    lineup()
        .into_iter()
        .filter(|(_, contenders)| contenders.contains(&AA_CONTROL))
        .map(|(workload, _)| {
            let default = report.values(workload.name, IO_URING.id);
            let aa = report.values(workload.name, AA_CONTROL.id);
            (workload, harness::rounds::ratios(&aa, &default))
        })
        .filter(|(_, ratios)| !ratios.is_empty())
        .collect()
}

#[cfg(test)]
#[path = "features_tests.rs"]
mod tests;

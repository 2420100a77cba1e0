//! The workloads study (`scripts/workloads.sh`): for which workload is io_uring worth it?
//! Every contender runs each workload shape (small requests on kept-alive connections,
//! pipelining, one connection, a large echo, large responses, connection churn in both
//! who-closes patterns, idle connections) over interleaved rounds; the verdict at the top
//! of BENCHMARKS.md is generated from these rounds. This module names the workloads and
//! who runs them; the harness's `workload` measures them and decides the verdict,
//! `report` renders the study's tables and plots.

use harness::servers::{
    AA_CONTROL, ANCHORS, Contender, IO_URING, TOKIO_CODEC, TOKIO_CODEC_SHARED, TOKIO_HYPER, TOKIO_URING,
};
pub use harness::workload::catalogue::{WORKLOADS, response_sizes};
use harness::workload::offered::{VERDICT_PERCENT, base};
pub use harness::workload::samples::{Sample, WorkloadsReport};
pub use harness::workload::{BASELINES, SUBJECT, Shape, Unit, Workload};

pub mod answer;
pub mod features;
pub mod forest;
pub mod judged;
pub mod offered;
pub mod plot;
pub mod report;
pub mod runtimes;

/// The contenders the verdict judges, measured every round: the subject, its baselines
/// and the A/A control.
pub fn verdict_contenders() -> Vec<Contender> {
    let mut contenders = vec![SUBJECT, AA_CONTROL];
    contenders.extend(BASELINES);
    contenders
}

/// Who runs `workload` every round, and so is judged: the verdict's contenders; for the
/// idle workloads also the shared-buffer codec, the I/O-model control their fit is judged
/// against. Nobody for a workload shown in the details only: a saturated closed loop that
/// an offered workload measures at fixed rates (a capacity figure) and the offered rates
/// other than the verdict's.
pub fn judged_contenders(workload: &Workload) -> Vec<Contender> {
    let offered_elsewhere = WORKLOADS
        .iter()
        .any(|w| matches!(w.shape, Shape::Offered { of, .. } if of == workload.name));
    match workload.shape {
        Shape::Offered { percent, .. } if percent != VERDICT_PERCENT => Vec::new(),
        _ if offered_elsewhere => Vec::new(),
        Shape::Idle { .. } => {
            let mut contenders = verdict_contenders();
            contenders.push(TOKIO_CODEC_SHARED);
            contenders
        }
        _ => verdict_contenders(),
    }
}

/// The contenders shown in the detail tables only, measured in the first rounds:
/// tokio_uring_server, then the outside anchors where they can serve it (all but the
/// echo: nginx cannot echo a body without extra modules). A workload nobody runs every
/// round ([`judged_contenders`]) has the verdict's contenders here too.
pub fn detail_contenders(workload: &Workload) -> Vec<Contender> {
    let mut contenders = Vec::new();
    if judged_contenders(workload).is_empty() {
        contenders.extend(verdict_contenders());
    }
    contenders.push(TOKIO_URING);
    let echo = match workload.shape {
        Shape::Offered { of, .. } => matches!(base(of).shape, Shape::Echo { .. }),
        shape => matches!(shape, Shape::Echo { .. }),
    };
    if !echo {
        contenders.extend(ANCHORS);
    }
    contenders
}

/// What bounds every server on this workload, where that is not the I/O model: shown
/// under its detail table (words only; the figures come from the run).
pub fn bound_by(workload: &Workload) -> Option<&'static str> {
    match workload.shape {
        Shape::Offered { of, .. } => bound_by(&base(of)),
        Shape::Echo { .. } => Some(
            "What bounds it: the kernel copies each body twice, from the client's socket \
             into the server and from the server into the socket, the same for every \
             engine. Both codec engines send a large echoed body from the buffer it was \
             received into, in one vectored write with its head (io_uring_server: one \
             SENDMSG; a body that arrived whole in a provided buffer is copied, since that \
             buffer goes back to the ring), so what is left to the I/O model is a few syscalls per request.",
        ),
        Shape::Response { .. } => Some(
            "What bounds it: every byte is copied from the server's memory into the socket, \
             and on loopback the kernel's TCP work for both ends runs on the sender's CPU; \
             how the send is submitted changes neither. nginx sends these bodies from \
             files with sendfile, which skips the copy. io_uring's zero-copy send cannot \
             skip it here: the kernel copies every zero-copy page looped to a local socket \
             (Documentation/networking/msg_zerocopy.rst, \"Loopback\"), so it only adds \
             its pinning and notification, and reads slower in results/features.md. \
             Across a real NIC that copy is what SEND_ZC removes; this VM cannot measure it.",
        ),
        _ => None,
    }
}

/// Every contender some workload measures.
pub const EVERYONE: [Contender; 6] = [
    TOKIO_HYPER,
    TOKIO_CODEC,
    TOKIO_CODEC_SHARED,
    IO_URING,
    AA_CONTROL,
    TOKIO_URING,
];

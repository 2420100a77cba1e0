//! The workloads study (`scripts/workloads.sh`): for which workload is io_uring worth it?
//! Every contender runs each workload shape (small requests on kept-alive connections,
//! pipelining, one connection, a large echo, large uploads, large responses, files,
//! connection churn in both who-closes patterns, idle connections) over interleaved
//! rounds; the verdict at the top of BENCHMARKS.md is generated from these rounds. This module names the workloads and
//! who runs them; the harness's `workload` measures them and decides the verdict,
//! `report` renders the study's tables and plots. One run measures everyone: the verdict's
//! contenders, the ready io_uring runtimes (the runtime table, [`runtimes`]) and
//! io_uring_server's feature rows ([`features`]), then the rows beyond the verdict (large
//! bodies and files, `harness::workload::further`, rendered by [`further_rows`]), so every
//! view reads the same rounds.

use harness::servers::{
    AA_CONTROL, ANCHORS, Contender, IO_URING, TOKIO_CODEC_SENDFILE, TOKIO_CODEC_SHARED, TOKIO_URING,
};
use harness::workload::best;
pub use harness::workload::catalogue::{WORKLOADS, response_sizes};
use harness::workload::further;
use harness::workload::offered::base;
pub use harness::workload::samples::{Sample, WorkloadsReport};
use harness::workload::scope;
pub use harness::workload::{BASELINES, SUBJECT, Shape, Unit, Workload};

pub mod anchor;
pub mod answer;
pub mod answer_lines;
pub mod beyond;
pub mod control;
pub mod features;
pub mod first_lines;
pub mod first_screen;
pub mod forest;
pub mod further_rows;
pub mod judged;
pub mod offered;
pub mod origin;
pub mod over_tls;
pub mod plot;
pub mod reading;
pub mod report;
pub mod runtimes;
pub mod tail;
pub mod the_client;
pub mod two_measures;
pub mod wake_cost;
pub mod worth;
pub mod yours;

/// The contenders the verdict judges, measured every round: the subject, its baselines
/// and the A/A control.
pub fn verdict_contenders() -> Vec<Contender> {
    let mut contenders = vec![SUBJECT, AA_CONTROL];
    contenders.extend(BASELINES);
    contenders
}

/// Who runs `workload` every round, and so is judged: the verdict's contenders and every
/// tokio configuration its cheapest is chosen from ([`best::candidates`]: hyper on the
/// multi-thread scheduler, the codec engine with sendfile where files are served); for the
/// idle workloads also the shared-buffer codec, the I/O-model control their fit is judged
/// against. Nobody for a workload shown in the details only ([`scope::outside_verdict`]):
/// a saturated closed loop that an offered workload measures at a fixed rate (a capacity
/// figure), pipelining (which the client cannot offer at a fixed rate) and requests/s with
/// a few busy connections (which the client bounds).
pub fn judged_contenders(workload: &Workload) -> Vec<Contender> {
    if !scope::in_verdict(workload) {
        return Vec::new();
    }
    let mut contenders = match workload.shape {
        Shape::Idle { .. } => {
            let mut contenders = verdict_contenders();
            contenders.push(TOKIO_CODEC_SHARED);
            contenders
        }
        _ => verdict_contenders(),
    };
    // Every tokio configuration the row's cheapest is chosen from, in the same rounds.
    contenders.extend(best::candidates(workload));
    dedup(serving(workload, contenders))
}

/// The contenders shown in the detail tables only, measured in the first rounds:
/// tokio_uring_server, then the outside anchors where they can serve it
/// ([`anchors_cannot`]). A workload nobody runs every round ([`judged_contenders`]) has the
/// verdict's contenders here too, and where it serves files the codec engine with
/// sendfile where its files go by sendfile (the I/O-model control: the same zero-copy send
/// on epoll). A file row beyond the verdict ([`further`]) has the ready runtimes here,
/// which other judged rows run every round ([`runtimes_every_round`]).
pub fn detail_contenders(workload: &Workload) -> Vec<Contender> {
    let mut contenders = Vec::new();
    if !runtimes_every_round(workload) {
        contenders.extend(runtimes::READY);
    }
    if judged_contenders(workload).is_empty() {
        contenders.extend(verdict_contenders());
        if workload.sends_by_sendfile() {
            contenders.push(TOKIO_CODEC_SENDFILE);
        }
    }
    contenders.push(TOKIO_URING);
    if anchors_cannot(workload).is_none() {
        contenders.extend(ANCHORS);
    }
    serving(workload, contenders)
}

/// Why the outside anchors (nginx, configured for plain HTTP and the contract's static
/// answers) cannot serve `workload`, where they cannot: an answer computed from the
/// request's body (the echo, an upload's receipt) needs extra modules, TLS a
/// configuration it is not given here.
pub fn anchors_cannot(workload: &Workload) -> Option<&'static str> {
    let shape = match workload.shape {
        Shape::Offered { of, .. } => base(of).shape,
        shape => shape,
    };
    match shape {
        _ if workload.tls().is_some() => Some("nginx: configured here for plain HTTP only"),
        Shape::Echo { .. } => Some("nginx: no echo without extra modules"),
        Shape::Upload { .. } => {
            Some("nginx: no receipt of an upload's length and CRC32C without extra modules")
        }
        _ => None,
    }
}

/// Of `contenders`, those that can serve `workload`: over TLS, the servers with a rustls
/// adapter ([`Contender::speaks_tls`]; not tokio_uring_server, which has none, nor nginx,
/// configured here for plain HTTP only).
fn serving(workload: &Workload, contenders: Vec<Contender>) -> Vec<Contender> {
    match workload.tls() {
        Some(_) => contenders.into_iter().filter(Contender::speaks_tls).collect(),
        None => contenders,
    }
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
        Shape::Upload { .. } => Some(
            "What bounds it: a request here is one whole upload. Every server reads each \
             upload as it arrives and keeps none of it (http_core's upload reader, or hyper's \
             body stream): each byte is copied once from the socket into the server and read \
             once more for its CRC32C, the same for every engine. On loopback most of TCP's \
             receive processing runs in the sender's softirq, on the client's CPU; the \
             server's CPU pays the copy out of the socket and its ACKs, so this row leaves out \
             receive-path work a real NIC would put on the server. What is left to the I/O \
             model is how many reads an upload takes and what each costs.",
        ),
        Shape::Files { .. } => Some(
            "What bounds it: each file's bytes reach the socket from the page cache. From 64 \
             KiB on, io_uring_server, nginx and tokio_server (codec, sendfile) hand those pages \
             to TCP with sendfile, which copies nothing in the server; below that, and in the \
             others, each file is read into the server's memory and written from there, two \
             copies per byte. tokio's own file reads (tokio::fs, in both tokio engines) run on \
             its blocking thread pool, a thread hand-off per read, where io_uring_server reads \
             on its ring and nginx on its event loop: on small files that hand-off, not the \
             socket's I/O model, is most of what separates them. Its feature row \
             (io_uring_server reading files) is io_uring_server on that read path, and the \
             rows beyond the verdict measure 64 KiB files and cold ones the same way.",
        ),
        Shape::TlsKeepAlive { .. } | Shape::TlsChurn { .. } => Some(
            "How it is measured: TLS 1.3 in every server that has it, the one rustls \
             configuration of `server_kit::tls` (aws-lc-rs, TLS13_AES_128_GCM_SHA256, key \
             exchange X25519MLKEM768, an ECDSA P-256 certificate, stateless tickets, no kernel \
             TLS), each server through its runtime's adapter; tokio_uring_server (no rustls \
             adapter for tokio-uring is published) and nginx (configured here for plain HTTP) \
             are not run. Kept-alive: as many connections as plain keep-alive, each point opening them \
             afresh; their handshakes end within the open loop's warm-up, but their server \
             CPU counts in the per-request figure, so the two rows' percentages are not the \
             same load with and without TLS. Churn: one request per connection, closed by \
             the client with `close_notify`; a resumed handshake still makes the key exchange \
             and skips only the certificate and its signature, so it saves the server less \
             than one might expect. Every figure includes the server's crypto: what the I/O \
             model decides is the rest.",
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

/// Whether the ready runtimes run `workload` every round where it is judged: everywhere
/// but on the file rows beyond the verdict ([`further`]), which have them in the first
/// rounds only, to keep the run within its time.
fn runtimes_every_round(workload: &Workload) -> bool {
    !(further::is_further(workload) && workload.serves_files())
}

/// Who runs `workload` every round in the one run: the verdict's contenders
/// ([`judged_contenders`]), the ready runtimes wherever it is judged
/// ([`runtimes_every_round`]), the outside
/// anchor on the judged file rows, and the feature rows meant for it (with the default and the A/A control they are divided by).
pub fn every_round(workload: &Workload) -> Vec<Contender> {
    let mut contenders = judged_contenders(workload);
    if !contenders.is_empty() && runtimes_every_round(workload) {
        contenders.extend(runtimes::READY);
    }
    // The outside anchor on judged file rows, so that io_uring_server ÷ nginx is judged
    // ([`super::report`] puts it under the row's detail table), not one round's figure.
    if !contenders.is_empty() && workload.serves_files() && anchors_cannot(workload).is_none() {
        contenders.extend(ANCHORS);
    }
    let variants = features::variants_at(workload);
    if !variants.is_empty() {
        contenders.extend([IO_URING, AA_CONTROL]);
        contenders.extend(variants);
    }
    dedup(serving(workload, contenders))
}

/// Who runs `workload` in the first rounds only: [`detail_contenders`] less those that
/// run every round.
pub fn detail_only(workload: &Workload) -> Vec<Contender> {
    let every = every_round(workload);
    dedup(detail_contenders(workload))
        .into_iter()
        .filter(|c| !every.contains(c))
        .collect()
}

fn dedup(contenders: Vec<Contender>) -> Vec<Contender> {
    harness::rounds::first_seen(contenders.into_iter())
}

/// Every workload the run measures: the verdict's, then the rows beyond it ([`further`]).
pub fn measured_workloads() -> impl Iterator<Item = &'static Workload> {
    WORKLOADS.iter().chain(further::ROWS)
}

/// Every contender some workload measures, less the outside anchors
/// (`harness::servers::nginx::with_anchors` adds those that are installed).
pub fn everyone() -> Vec<Contender> {
    dedup(
        measured_workloads()
            .flat_map(|w| [every_round(w), detail_contenders(w)].concat())
            .filter(|c| !c.is_anchor())
            .collect(),
    )
}

#[cfg(test)]
#[path = "lineup_tests.rs"]
mod tests;

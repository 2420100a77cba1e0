//! How far the I/O model reaches at one workload: which part of each contender's CPU per
//! request an event loop shapes (its own code, syscalls, io_uring or epoll, wake-ups) and
//! which part is the socket work the bytes dictate (TCP send and receive, connection
//! set-up and teardown, copies). From these, the best io_uring_server could do: its HTTP
//! code plus the cheapest socket work any contender was measured doing, with a free
//! event loop. A ratio to a baseline above a target says no event loop can meet that
//! target at this workload; below it, says how much room the loop leaves.

use crate::profiles::classify::Category;
use crate::profiles::{Profile, Workload};
use harness::servers::{IO_URING, TOKIO_CODEC, TOKIO_HYPER};

/// The socket work: the same bytes through the same TCP stack whatever the event loop.
const SOCKET_WORK: [Category; 4] = [
    Category::TcpSend,
    Category::TcpReceive,
    Category::TcpConnection,
    Category::Copies,
];

/// µs per unit of work of `profile` in the socket work.
pub fn socket_work(profile: &Profile) -> f64 {
    SOCKET_WORK.iter().map(|&c| profile.cost(c)).sum()
}

/// µs per unit of work of `profile` that no event loop changes but the socket work: its
/// HTTP code and its crypto (none over plain HTTP).
fn own_work(profile: &Profile) -> f64 {
    profile.cost(Category::Http) + profile.cost(Category::Crypto)
}

/// µs per unit of work of `profile` that its event loop shapes: everything but the socket
/// work, the HTTP code and the crypto.
pub fn event_loop(profile: &Profile) -> f64 {
    profile.server_cpu_us - socket_work(profile) - own_work(profile)
}

/// The least io_uring_server could cost: its HTTP code and crypto plus the cheapest
/// socket work measured among `profiles`, with a free event loop.
pub fn best_case(profiles: &[&Profile]) -> Option<f64> {
    let subject = profiles.iter().find(|p| p.contender == IO_URING.id)?;
    let cheapest = profiles.iter().map(|p| socket_work(p)).reduce(f64::min)?;
    Some(own_work(subject) + cheapest)
}

/// The paragraph under a workload's table: each part per contender, then the best case as
/// a ratio to tokio codec and hyper.
pub fn sentence(workload: &Workload, profiles: &[&Profile]) -> Option<String> {
    let find = |id: &str| profiles.iter().copied().find(|p| p.contender == id);
    let subject = find(IO_URING.id)?;
    let best = best_case(profiles)?;
    let cheapest = profiles
        .iter()
        .min_by(|a, b| socket_work(a).total_cmp(&socket_work(b)))?;
    let parts: Vec<String> = profiles
        .iter()
        .map(|p| format!("{} {:.2} of {:.2}", p.label, event_loop(p), p.server_cpu_us))
        .collect();
    let unit = workload.unit();
    let mut text = format!(
        "How far the event loop reaches: the part it shapes (everything but the socket work, \
         the HTTP code and the crypto) is, in µs per {unit}, {}. The socket work (TCP, connections, \
         copies) is {:.2} µs in io_uring_server, {:.2} in the cheapest ({}). With a free \
         event loop and that socket work, io_uring_server would cost {best:.2} µs",
        parts.join(", "),
        socket_work(subject),
        socket_work(cheapest),
        cheapest.label,
    );
    let ratios: Vec<String> = [TOKIO_CODEC, TOKIO_HYPER]
        .iter()
        .filter_map(|c| find(c.id).map(|p| format!("{:.2}x {}", best / p.server_cpu_us, p.label)))
        .collect();
    if !ratios.is_empty() {
        let _ = std::fmt::Write::write_fmt(&mut text, format_args!(": {}", ratios.join(", ")));
    }
    text.push_str(", the most any event loop could save here.");
    Some(text)
}

/// Over TLS, what share of each contender's CPU is crypto and how much its event loop
/// still shapes, in µs per `unit` of work; `None` without io_uring_server's profile.
pub fn crypto_sentence(profiles: &[&Profile], unit: &str) -> Option<String> {
    profiles.iter().find(|p| p.contender == IO_URING.id)?;
    let parts: Vec<String> = profiles
        .iter()
        .map(|p| {
            format!(
                "{} {:.0}% ({:.2} of {:.2} µs per {unit}; its event loop {:.2} µs)",
                p.label,
                100.0 * p.cost(Category::Crypto) / p.server_cpu_us.max(f64::MIN_POSITIVE),
                p.cost(Category::Crypto),
                p.server_cpu_us,
                event_loop(p)
            )
        })
        .collect();
    Some(format!(
        "Crypto's share of the server's CPU (the frames of rustls, aws-lc and the TLS \
         adapters themselves; the copies and allocations they ask for count under copies \
         and allocation): {}.",
        parts.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::WORKLOADS;
    use crate::profiles::test_profiles::{pair, profile};

    #[test]
    fn the_best_case_keeps_the_cheapest_socket_work_and_io_uring_servers_http_code() {
        // codec: 10 µs, of which socket work (TCP send) 4.0 and HTTP 1.0;
        // io_uring: 8 µs, of which socket work 5.0 and HTTP 1.0.
        let (codec, uring) = pair();
        assert!((socket_work(&codec) - 4.0).abs() < 1e-9);
        assert!((event_loop(&uring) - 2.0).abs() < 1e-9);
        let mut costly = [0u64; crate::profiles::classify::COUNT];
        costly[Category::Copies.index()] = 100;
        let hyper = profile("tokio_hyper", "tokio_server (hyper)", 20.0, costly);
        let best = best_case(&[&codec, &uring, &hyper]).unwrap();
        assert!((best - 5.0).abs() < 1e-9, "{best}");
        let text = sentence(&WORKLOADS[0], &[&codec, &uring, &hyper]).unwrap();
        assert!(text.contains("io_uring_server 2.00 of 8.00"), "{text}");
        assert!(
            text.contains("5.00 µs in io_uring_server, 4.00 in the cheapest (tokio_server (codec))"),
            "{text}"
        );
        assert!(
            text.contains("cost 5.00 µs: 0.50x tokio_server (codec), 0.25x tokio_server (hyper)"),
            "{text}"
        );
    }

    #[test]
    fn crypto_is_neither_the_event_loops_nor_socket_work() {
        let (codec, uring) = pair();
        let mut samples = uring.breakdown.server;
        samples[Category::Crypto.index()] = 80;
        let tls = profile(IO_URING.id, IO_URING.label, 16.0, samples);
        // Half of 16 µs is crypto; the rest splits as in `uring`, scaled.
        assert!((tls.cost(Category::Crypto) - 8.0).abs() < 1e-9);
        assert!((event_loop(&tls) - event_loop(&uring)).abs() < 1e-9);
        assert!((best_case(&[&codec, &tls]).unwrap() - 13.0).abs() < 1e-9);
        let text = crypto_sentence(&[&codec, &tls], "request").unwrap();
        assert!(
            text.contains("io_uring_server 50% (8.00 of 16.00 µs per request; its event loop 2.00 µs)"),
            "{text}"
        );
        assert!(
            text.contains("tokio_server (codec) 0% (0.00 of 10.00 µs"),
            "{text}"
        );
        assert_eq!(crypto_sentence(&[&codec], "request"), None);
    }

    #[test]
    fn without_io_uring_server_there_is_no_best_case() {
        let (codec, _) = pair();
        assert_eq!(best_case(&[&codec]), None);
        assert_eq!(sentence(&WORKLOADS[0], &[&codec]), None);
    }
}

//! Made-up profiles for the report tests.

use crate::profiles::classify::Category;
use crate::profiles::{Breakdown, Profile, WORKLOADS};

pub fn profile(
    contender: &str,
    label: &str,
    cpu_us: f64,
    samples: [u64; crate::profiles::classify::COUNT],
) -> Profile {
    let breakdown = Breakdown {
        server: samples,
        idle: 10,
        others: 0,
    };
    Profile {
        workload: WORKLOADS[0].name.into(),
        contender: contender.into(),
        label: label.into(),
        offered_per_sec: Some(50_000.0),
        served_per_sec: 50_000.0,
        requests: 100_000,
        p99_us: 900,
        server_cpu_us: cpu_us,
        cost_us: breakdown.costs(cpu_us),
        breakdown,
        flame_graph: "profiles/keepalive_x.svg".into(),
        timer_delivered: Some(0.9),
        client_busy: Some(0.5),
        counts: None,
    }
}

/// Samples by category: syscalls and epoll for tokio, io_uring for io_uring_server.
pub fn pair() -> (Profile, Profile) {
    let mut codec = [0u64; crate::profiles::classify::COUNT];
    codec[Category::Http.index()] = 10;
    codec[Category::Syscall.index()] = 30;
    codec[Category::Epoll.index()] = 20;
    codec[Category::TcpSend.index()] = 40;
    let mut uring = [0u64; crate::profiles::classify::COUNT];
    uring[Category::Http.index()] = 10;
    uring[Category::Syscall.index()] = 5;
    uring[Category::IoUring.index()] = 15;
    uring[Category::TcpSend.index()] = 50;
    (
        profile("tokio_codec", "tokio_server (codec)", 10.0, codec),
        profile("io_uring", "io_uring_server", 8.0, uring),
    )
}

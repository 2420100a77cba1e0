//! Runs one churn point against one server and turns what loadgen and the CPU counters
//! saw into a [`Sample`]; a failed connection fails the study.

use std::time::Duration;

use crate::churn::{ChurnPoint, Drive, OPEN_LOOP_CLIENTS, Sample};
use harness::load::{self, Load, LoadKind, Point};
use harness::servers::Server;
use harness::settings::Pinning;

/// Measures `point` on `server` for `duration` (the open loop after its warm-up), as
/// round `round` of the study.
pub fn run(
    server: &Server,
    point: ChurnPoint,
    (round, duration): (usize, Duration),
    pinning: &Pinning,
) -> Result<Sample, String> {
    let measured = load::run_point(server, load_of(point, duration, pinning))?;
    Ok(sample(point, round, measured))
}

/// The sample `measured` (one point, or its slices merged) gives `point` in round `round`.
pub fn sample(point: ChurnPoint, round: usize, measured: Point) -> Sample {
    Sample {
        point,
        contender: measured.contender,
        label: measured.label,
        round,
        connections_per_sec: measured.requests_per_sec,
        server_cpu_us_per_connection: measured.server_cpu_us_per_request,
        machine_cpu_us_per_connection: measured.machine_cpu_us_per_request,
        p50_us: measured.latency_us.p50,
        p99_us: measured.latency_us.p99,
        client_lateness_p99_us: measured.send_lateness_us.map(|l| l.p99),
        client_busy: measured.client_busy,
        bottleneck: measured.bottleneck,
    }
}

/// The loadgen load of `point`: churn in a closed loop, or churn at a fixed rate (an open
/// loop, with its warm-up).
pub fn load_of(point: ChurnPoint, duration: Duration, pinning: &Pinning) -> Load {
    let load = match point.drive {
        Drive::Closed { clients } => Load::new(LoadKind::Churn, (clients, 1), None, duration, pinning),
        Drive::Open { .. } => Load::new(
            LoadKind::Open,
            (OPEN_LOOP_CLIENTS, 1),
            point.rate(),
            duration,
            pinning,
        ),
    };
    Load {
        churn: Some(point.closes),
        ..load
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::affinity::CpuSet;
    use loadgen::churn::Churn;

    #[test]
    fn an_open_point_is_churn_at_its_rate_after_a_warm_up() {
        let pinning = Pinning::choose(&CpuSet(vec![0, 1]), None, None);
        let second = Duration::from_secs(1);
        let open = ChurnPoint {
            closes: Churn::ClientCloses,
            drive: Drive::Open { rate: 4_000 },
        };
        let load = load_of(open, second, &pinning);
        assert_eq!(load.churn, Some(Churn::ClientCloses));
        assert_eq!((load.rate, load.connections), (Some(4_000.0), OPEN_LOOP_CLIENTS));
        assert_eq!(load.warmup, load::open_loop_warmup(second));
        assert!(load.warmup > Duration::ZERO);

        let closed = ChurnPoint {
            closes: Churn::ServerCloses,
            drive: Drive::Closed { clients: 8 },
        };
        let load = load_of(closed, second, &pinning);
        assert_eq!(load.churn, Some(Churn::ServerCloses));
        assert_eq!(
            (load.rate, load.connections, load.warmup),
            (None, 8, Duration::ZERO)
        );
    }
}

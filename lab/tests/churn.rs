//! The churn study's measure end to end against nginx (the one server a test can start
//! without building the contenders): a closed-loop point and an open-loop point at a
//! fixed connection rate, each in both who-closes patterns, come back as samples with
//! their figures. Skipped (with one line) where nginx is not installed.

use std::time::Duration;

use harness::affinity::CpuSet;
use harness::servers::nginx;
use harness::servers::{NGINX, Server};
use harness::settings::Pinning;
use lab::churn::{ChurnPoint, Drive, measure};
use loadgen::churn::Churn;

#[test]
fn churn_points_measure_in_a_closed_and_an_open_loop() {
    if nginx::binary().is_none() {
        eprintln!("{}", nginx::NOT_INSTALLED);
        return;
    }
    let server = Server::start(NGINX, &Default::default(), None, (1, None, false)).unwrap();
    let pinning = Pinning::choose(&CpuSet(vec![0, 1]), None, None);
    for closes in [Churn::ServerCloses, Churn::ClientCloses] {
        let closed = ChurnPoint {
            closes,
            drive: Drive::Closed { clients: 2 },
        };
        let sample = measure::run(&server, closed, (0, Duration::from_millis(300)), &pinning).unwrap();
        assert_eq!((sample.point, sample.contender.as_str()), (closed, "nginx"));
        assert!(sample.connections_per_sec > 0.0, "{sample:?}");
        assert!(0 < sample.p50_us && sample.p50_us <= sample.p99_us, "{sample:?}");
        assert!(sample.server_cpu_us_per_connection.is_some_and(|cpu| cpu > 0.0));
        assert_eq!(sample.client_lateness_p99_us, None);

        let open = ChurnPoint {
            closes,
            drive: Drive::Open { rate: 400 },
        };
        let sample = measure::run(&server, open, (1, Duration::from_secs(1)), &pinning).unwrap();
        assert_eq!((sample.point, sample.round), (open, 1));
        // The rate is offered from the schedule, not as fast as the server answers.
        assert!(
            (360.0..=420.0).contains(&sample.connections_per_sec),
            "{sample:?}"
        );
        assert!(sample.client_lateness_p99_us.is_some(), "{sample:?}");
        assert!(0 < sample.p50_us && sample.p50_us <= sample.p99_us, "{sample:?}");
    }
}

//! How much of one connection's cost is waking the client, for each server: its figures at the
//! *one connection* point (the client sleeps in its read between answers, so every request
//! finds both sides asleep) beside the *one busy-polled connection* point (the client
//! spins on its read, so it is always awake, while the server still sleeps between
//! requests), and what is saved when the client stays awake,
//! as a share of the first. On loopback the server's CPU pays to wake the client for each
//! answer it sends, so the server's own CPU per request falls too. io_uring_server with
//! SQPOLL at the busy-polled point ([`SQPOLL`]) is the nearest it comes to both sides
//! awake. Each share is one minus the median over the rounds of the per-round ratio (the
//! two points run in the same rounds); `report` puts it under the verdict's table.

use std::fmt::Write as _;

use harness::rounds::median;
use harness::workload::catalogue::BUSY_POLLED;

use crate::workloads::features::SQPOLL;
use crate::workloads::{Sample, WorkloadsReport};
use harness::servers::AA_CONTROL;

/// The point where every request wakes both sides.
const ASLEEP: &str = "one connection";

/// One server's two points: round trip and server CPU per request, medians over the rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct WakeCost {
    pub label: String,
    /// Round trip, µs: asleep, client awake, and the share that goes (0.63: 63%).
    pub round_trip: (f64, f64, f64),
    /// Server CPU µs per request, the same way.
    pub server_cpu: (f64, f64, f64),
}

/// Every server measured at both points (the A/A control and feature rows aside), in the
/// order the busy-polled point ran them first.
pub fn rows(report: &WorkloadsReport) -> Vec<WakeCost> {
    let mut ids: Vec<&str> = Vec::new();
    for sample in report.samples.iter().filter(|s| s.workload == BUSY_POLLED) {
        if !ids.contains(&sample.contender.as_str()) && sample.contender != AA_CONTROL.id {
            ids.push(&sample.contender);
        }
    }
    ids.into_iter().filter_map(|id| of(report, id)).collect()
}

fn of(report: &WorkloadsReport, id: &str) -> Option<WakeCost> {
    let asleep: Vec<&Sample> = report.of(ASLEEP, id).collect();
    let awake: Vec<&Sample> = report.of(BUSY_POLLED, id).collect();
    let label = asleep.first()?.label.clone();
    let measure = |figure: fn(&Sample) -> Option<f64>| -> Option<(f64, f64, f64)> {
        let each =
            |samples: &[&Sample]| median(&samples.iter().filter_map(|s| figure(s)).collect::<Vec<_>>());
        let ratios: Vec<f64> = asleep
            .iter()
            .filter_map(|a| {
                let b = awake.iter().find(|b| b.round == a.round)?;
                Some(figure(b)? / figure(a)?)
            })
            .collect();
        Some((each(&asleep)?, each(&awake)?, 1.0 - median(&ratios)?))
    };
    Some(WakeCost {
        label,
        round_trip: measure(|s| s.value)?,
        server_cpu: measure(|s| s.server_cpu_us)?,
    })
}

/// The paragraph and table; empty where no server was measured at both points.
pub fn render(report: &WorkloadsReport) -> String {
    let rows = rows(report);
    if rows.is_empty() {
        return String::new();
    }
    let machine = &report.machine;
    let mut out = format!(
        "\nHow much of one connection's cost is waking the client, on this run's machine \
         ({}; a wake-up costs differently on each machine: results/machines.md): each server at \
         *{ASLEEP}* (the client sleeps in its read between answers) and at *{BUSY_POLLED}* \
         (the client spins on its read, always awake; the server still sleeps between \
         requests), and what is saved when the client stays awake, as a share of the first. On \
         loopback the server pays to wake the client for each answer it sends, so its own \
         CPU per request falls too.\n\n\
         | server | round trip, µs: one connection → busy-polled | saved when the client spins | server CPU µs per request: one connection → busy-polled | saved when the client spins |\n\
         |---|---|---|---|---|\n",
        machine.cpu_and_wake_up()
    );
    for row in &rows {
        let (a, b, share) = row.round_trip;
        let (c, d, cpu_share) = row.server_cpu;
        let _ = writeln!(
            out,
            "| {} | {a:.1} → {b:.1} | {:.0}% | {c:.1} → {d:.1} | {:.0}% |",
            row.label,
            share * 100.0,
            cpu_share * 100.0
        );
    }
    let polled: Vec<f64> = report
        .of(BUSY_POLLED, SQPOLL.id)
        .filter_map(|s| s.value)
        .collect();
    let cpu: Vec<f64> = report
        .of(BUSY_POLLED, SQPOLL.id)
        .filter_map(|s| s.server_cpu_us)
        .collect();
    if let (Some(trip), Some(cpu)) = (median(&polled), median(&cpu)) {
        // One request at a time: more server CPU than wall time per request is more than a core.
        let cores = match cpu / trip {
            cores if cores > 1.0 => format!(
                " ({cores:.1} cores' worth: the polling thread is not pinned to the server's CPU, \
                 so it also spins on the client's, trading CPU for latency)"
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "\nBoth sides as awake as io_uring_server can be (its SQPOLL thread polls the \
             submission queue while the client spins): {trip:.1} µs round trip, {cpu:.1} µs \
             of server CPU per request, its polling thread's spin included{cores}."
        );
    }
    let _ = writeln!(
        out,
        "\nEach figure is the median over its point's own rounds; each saving is one minus the \
         median of the per-round ratios over the rounds that measured both points, so it need \
         not equal one minus the two medians' quotient."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::SUBJECT;
    use harness::servers::TOKIO_CODEC;

    fn sample(workload: &str, contender: &str, round: usize, trip: f64, cpu: f64) -> Sample {
        Sample {
            server_cpu_us: Some(cpu),
            label: contender.into(),
            ..Sample::example(workload, contender, round, trip)
        }
    }

    #[test]
    fn each_server_says_what_goes_when_the_client_stays_awake() {
        let mut samples = Vec::new();
        for round in 0..3 {
            let drift = 1.0 + round as f64; // the VM's speed: the per-round ratio holds
            for (id, trip, cpu) in [(SUBJECT.id, 80.0, 40.0), (TOKIO_CODEC.id, 90.0, 50.0)] {
                samples.push(sample(ASLEEP, id, round, trip * drift, cpu * drift));
                samples.push(sample(
                    BUSY_POLLED,
                    id,
                    round,
                    trip * drift / 4.0,
                    cpu * drift / 2.0,
                ));
            }
            samples.push(sample(BUSY_POLLED, AA_CONTROL.id, round, 20.0, 20.0));
            samples.push(sample(ASLEEP, AA_CONTROL.id, round, 80.0, 40.0));
            samples.push(sample(BUSY_POLLED, SQPOLL.id, round, 10.0, 30.0));
        }
        let report = WorkloadsReport::over(samples);
        let rows = rows(&report);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].round_trip, (160.0, 40.0, 0.75));
        assert_eq!(rows[1].server_cpu, (100.0, 50.0, 0.5));
        let text = render(&report);
        assert!(
            text.contains(&format!(
                "| {} | 160.0 → 40.0 | 75% | 80.0 → 40.0 | 50% |",
                SUBJECT.id
            )),
            "{text}"
        );
        assert!(
            text.contains("10.0 µs round trip, 30.0 µs of server CPU"),
            "{text}"
        );
        // One request at a time, 30 µs of CPU in 10 µs of wall time: three cores' worth.
        assert!(
            text.contains("(3.0 cores' worth: the polling thread is not pinned"),
            "{text}"
        );
        assert!(!text.contains(AA_CONTROL.id), "{text}");
    }

    #[test]
    fn nothing_is_said_without_the_busy_polled_point() {
        let report = WorkloadsReport::over(vec![sample(ASLEEP, SUBJECT.id, 0, 80.0, 40.0)]);
        assert_eq!(render(&report), "");
    }
}

//! Where a ready io_uring runtime's extra server CPU over io_uring_server lies, by
//! category, from the profiles: the sentence BENCHMARKS.md's runtimes section points to,
//! written under the profiles' summary table ([`super::summary`]) so that the claim is
//! the data's, not the prose's. For the kept-alive row (the first profiled workload), per
//! ready runtime, the categories where it spends the most above io_uring_server, largest
//! first.

use crate::profiles::classify::Category;
use crate::profiles::{Profile, ProfilesReport, WORKLOADS};
use harness::servers::{COMPIO, Contender, IO_URING, MONOIO, TOKIO_URING};

/// The ready runtimes, in the tables' order.
const READY: [Contender; 3] = [TOKIO_URING, MONOIO, COMPIO];

/// How many categories each runtime's clause names.
pub const LARGEST: usize = 3;

/// `runtime`'s categories above `subject`'s, largest first, at most [`LARGEST`] (only
/// those above by 0.005 µs or more, what the tables' two decimals show).
pub fn largest(runtime: &Profile, subject: &Profile) -> Vec<(Category, f64)> {
    let mut above: Vec<(Category, f64)> = Category::ALL
        .iter()
        .map(|&c| (c, runtime.cost(c) - subject.cost(c)))
        .filter(|(_, delta)| *delta >= 0.005)
        .collect();
    above.sort_by(|a, b| b.1.total_cmp(&a.1));
    above.truncate(LARGEST);
    above
}

/// "On *keep-alive, small requests at a fixed rate*, where a ready runtime spends more
/// server CPU per request than io_uring_server, largest first: tokio_uring_server TCP
/// receive and softirq (+1.52 µs), ...; monoio_server ...": `None` where the first
/// workload has no profile of io_uring_server or of any ready runtime.
pub fn sentence(report: &ProfilesReport) -> Option<String> {
    let workload = &WORKLOADS[0];
    let profiles: Vec<&Profile> = report.of(workload.name).collect();
    let find = |id: &str| profiles.iter().copied().find(|p| p.contender == id);
    let subject = find(IO_URING.id)?;
    let clauses: Vec<String> = READY
        .iter()
        .filter_map(|runtime| {
            let profile = find(runtime.id)?;
            let categories: Vec<String> = largest(profile, subject)
                .iter()
                .map(|(category, delta)| format!("{} ({delta:+.2} µs)", category.label()))
                .collect();
            Some(format!(
                "{} {:.2} against {:.2} µs, most in {}",
                profile.label,
                profile.server_cpu_us,
                subject.server_cpu_us,
                match categories.is_empty() {
                    true => "no category".to_string(),
                    false => categories.join(", "),
                }
            ))
        })
        .collect();
    (!clauses.is_empty()).then(|| {
        format!(
            "Where a ready runtime spends more server CPU per {} than io_uring_server on *{}*, \
             by category, largest first: {}.",
            workload.unit(),
            workload.label(),
            clauses.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::test_profiles::{pair, profile};

    #[test]
    fn each_ready_runtime_names_its_largest_categories_above_io_uring_server_in_order() {
        let (codec, uring) = pair();
        // io_uring_server: 8 µs over 80 samples, 0.1 µs each. The runtime: 12 µs over
        // 120 samples, the same 0.1 µs each, with more TCP receive than scheduler.
        let mut samples = uring.breakdown.server;
        samples[Category::TcpReceive.index()] += 25;
        samples[Category::Scheduler.index()] += 10;
        samples[Category::IoUring.index()] += 5;
        let runtime = profile(TOKIO_URING.id, TOKIO_URING.label, 12.0, samples);
        assert_eq!(
            largest(&runtime, &uring)
                .iter()
                .map(|(c, _)| *c)
                .collect::<Vec<_>>(),
            vec![Category::TcpReceive, Category::Scheduler, Category::IoUring]
        );
        let report = ProfilesReport {
            machine: harness::machine::Machine::detect(),
            pinning: String::new(),
            seconds_per_profile: 3.0,
            calibration: Vec::new(),
            profiles: vec![codec, uring, runtime],
            verdict: None,
        };
        let text = sentence(&report).unwrap();
        assert!(
            text.contains(&format!(
                "{} 12.00 against 8.00 µs, most in TCP receive and softirq (+2.50 µs), \
                 scheduler and wake-ups (+1.00 µs), io_uring core (+0.50 µs).",
                TOKIO_URING.label
            )),
            "{text}"
        );
        // Without a ready runtime's profile there is nothing to say.
        let report = ProfilesReport {
            profiles: report.profiles[..2].to_vec(),
            ..report
        };
        assert_eq!(sentence(&report), None);
    }
}

//! Rounds of workloads: every workload of a plan on each of its contenders, round after
//! round, each point on a freshly started server (so rounds sample process start too),
//! the order within a round balanced over the rounds ([`rounds::balanced`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Workload;
use super::measure::{self, Slot};
use super::samples::Sample;
use crate::progress::Progress;
use crate::rounds;
use crate::servers::{Contender, Lineup};

/// One workload, the contenders measured every round, and those measured in the first
/// [`Rounds::detail_rounds`] only (shown in detail tables, never judged).
pub struct Entry {
    pub workload: Workload,
    pub every_round: Vec<Contender>,
    pub detail: Vec<Contender>,
}

/// How many rounds, how long each point.
#[derive(Debug, Clone, Copy)]
pub struct Rounds {
    pub rounds: usize,
    pub seconds: f64,
    pub detail_rounds: usize,
}

impl Rounds {
    /// The contenders of `entry` that run in `round`.
    fn contenders(&self, entry: &Entry, round: usize) -> Vec<Contender> {
        let mut contenders = entry.every_round.clone();
        if round < self.detail_rounds {
            contenders.extend(&entry.detail);
        }
        contenders
    }
}

/// Measures `plan` over `rounds`, reporting progress under `name`; any wrong answer ends
/// the run with an error.
pub fn measure_rounds(
    lineup: &Lineup,
    plan: &[Entry],
    rounds: Rounds,
    name: &'static str,
) -> Result<Vec<Sample>, String> {
    let duration = Duration::from_secs_f64(rounds.seconds);
    let steps = (0..rounds.rounds)
        .flat_map(|round| {
            plan.iter()
                .map(move |entry| rounds.contenders(entry, round).len())
        })
        .sum();
    // Each point starts a server and connects; the idle workloads open thousands.
    let per_step = Duration::from_secs_f64(rounds.seconds * 1.25 + 0.6);
    let mut progress = Progress::start(name, steps, per_step);
    let mut samples = Vec::new();
    for round in 0..rounds.rounds {
        for entry in plan {
            let contenders = rounds.contenders(entry, round);
            for (position, turn) in rounds::balanced(contenders.len(), round).enumerate() {
                let server = lineup.start_fresh(contenders[turn])?;
                progress.step(&format!(
                    "round {}/{} {}: {}",
                    round + 1,
                    rounds.rounds,
                    entry.workload.name,
                    server.contender.label
                ));
                let slot = Slot {
                    round,
                    duration,
                    count_syscalls: round == 0,
                };
                let started_unix_s = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                let sample = measure::run(&server, &entry.workload, slot, &lineup.pinning)?;
                samples.push(Sample {
                    position,
                    started_unix_s,
                    ..sample
                });
            }
        }
    }
    progress.finish();
    Ok(samples)
}

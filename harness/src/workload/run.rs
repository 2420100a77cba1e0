//! Rounds of workloads: every workload of a plan on each of its contenders, round after
//! round, each round on freshly started servers (so rounds sample process start too),
//! the order within a round balanced over the rounds ([`rounds::balanced`]) and each
//! contender's time cut into slices alternated with the others' ([`crate::slices`]). Past its
//! planned rounds, a workload whose verdict is not yet decided runs on, up to a cap
//! (sequential stopping), so the time goes where the noise is; so does one short of its
//! planned rounds because a noisy round counted for nothing ([`super::client_bound`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::measure::{self, Slot};
use super::samples::{Sample, WorkloadsReport};
use super::{Shape, Workload};
use crate::progress::Progress;
use crate::servers::{Contender, Lineup};
use crate::{rounds, slices};

/// One workload, the contenders measured every round, and those measured in the first
/// [`Rounds::detail_rounds`] only (shown in detail tables, never judged).
pub struct Entry {
    pub workload: Workload,
    pub every_round: Vec<Contender>,
    pub detail: Vec<Contender>,
    /// An offered workload's rate, requests/s ([`super::offered`]).
    pub offered: Option<f64>,
}

/// How many rounds, how long each point.
#[derive(Debug, Clone, Copy)]
pub struct Rounds {
    pub rounds: usize,
    pub seconds: f64,
    pub detail_rounds: usize,
    /// Sequential stopping: after `rounds`, a workload whose verdict cells the rule has not
    /// all decided (the A/A control's included) runs more rounds, up to this many in all;
    /// `rounds` or less for a fixed count.
    pub max_rounds: usize,
    /// Slices each contender's point is cut into, alternated with the other contenders'
    /// ([`crate::slices`]); 1 measures each point in one go. The idle workloads always
    /// take one (what they compare is memory, which does not drift).
    pub slices: usize,
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

pub use super::samples::rounds_in;

/// The entries of `plan` still worth a round after `samples`: those with an undecided
/// verdict cell, and those with fewer than `planned` rounds that count (a noisy round,
/// [`super::client_bound`], is run again).
fn runs_on<'a>(plan: &[&'a Entry], samples: &[Sample], planned: usize) -> Vec<&'a Entry> {
    let so_far = WorkloadsReport::over(samples.to_vec());
    let short = |w: &Workload| so_far.counted_rounds(w.name) < planned;
    plan.iter()
        .copied()
        .filter(|e| !e.every_round.is_empty() && (so_far.undecided(&e.workload) || short(&e.workload)))
        .collect()
}

/// Measures `plan` over `rounds` (and, where cells are undecided, up to `max_rounds`),
/// reporting progress under `name`; any wrong answer ends the run with an error.
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
    let mut active: Vec<&Entry> = plan.iter().collect();
    for round in 0..rounds.rounds.max(rounds.max_rounds) {
        if round >= rounds.rounds {
            active = runs_on(&active, &samples, rounds.rounds);
            if active.is_empty() {
                break;
            }
            let more = active.iter().map(|e| rounds.contenders(e, round).len()).sum();
            let names: Vec<&str> = active.iter().map(|e| e.workload.name).collect();
            progress.extend(
                more,
                &format!(
                    "round {}, undecided or a round short: {}",
                    round + 1,
                    names.join(", ")
                ),
            );
        }
        let of = if round < rounds.rounds {
            rounds.rounds
        } else {
            rounds.max_rounds
        };
        for &entry in &active {
            let contenders = rounds.contenders(entry, round);
            let slot = Slot {
                round,
                duration,
                offered: entry.offered,
                count_syscalls: round == 0,
                slices: rounds.slices,
            };
            let step = |progress: &mut Progress, label: &str| {
                progress.step(&format!(
                    "round {}/{of} {}: {label}",
                    round + 1,
                    entry.workload.name
                ));
            };
            samples.extend(one_round(
                lineup,
                entry,
                &contenders,
                slot,
                rounds.slices,
                &mut progress,
                step,
            )?);
        }
    }
    progress.finish();
    Ok(samples)
}

/// `entry`'s `contenders` in one round: each started afresh, in the round's balanced order,
/// then measured in `slices` passes ([`crate::slices`]; idle workloads in one go);
/// `step` reports each contender's first slice.
fn one_round(
    lineup: &Lineup,
    entry: &Entry,
    contenders: &[Contender],
    slot: Slot,
    slices: usize,
    progress: &mut Progress,
    step: impl Fn(&mut Progress, &str),
) -> Result<Vec<Sample>, String> {
    let floor = match entry.workload.judges_tail() {
        true => Some(hiccup_floor(&lineup.pinning)?),
        false => None,
    };
    let servers = rounds::balanced(contenders.len(), slot.round)
        .map(|turn| lineup.start_fresh_serving(contenders[turn], entry.workload.tls().is_some()))
        .collect::<Result<Vec<_>, _>>()?;
    let order: Vec<usize> = (0..servers.len()).collect();
    let mut started = vec![0.0; servers.len()];
    let mut begin = |position: usize, progress: &mut Progress| {
        started[position] = unix_now();
        step(progress, servers[position].contender.label);
    };
    let mut samples = Vec::new();
    if let Shape::Idle { .. } = entry.workload.shape {
        // Memory does not drift: each server in one go.
        for &position in &order {
            begin(position, progress);
            samples.push(measure::run(
                &servers[position],
                &entry.workload,
                slot,
                &lineup.pinning,
            )?);
        }
    } else {
        let slice = slot.duration / slices.max(1) as u32;
        let merged = slices::interleave(&order, slices, |position, number| {
            if number == 0 {
                begin(position, progress);
            }
            measure::point(
                &servers[position],
                &entry.workload,
                slice,
                entry.offered,
                &lineup.pinning,
            )
        })?;
        super::page_cache::after(&entry.workload)?;
        for (server, point) in servers.iter().zip(merged) {
            samples.push(measure::finish(
                server,
                &entry.workload,
                slot,
                &lineup.pinning,
                point,
            )?);
        }
    }
    Ok(samples
        .into_iter()
        .zip(started)
        .enumerate()
        .map(|(position, (sample, started_unix_s))| Sample {
            position,
            started_unix_s,
            hiccup_p99_us: floor,
            ..sample
        })
        .collect())
}

/// The platform's hiccup floor at p99 for one round, in µs: a meter on the first server
/// CPU, then one on the first client CPU, each [`crate::noise::QUIET`] long while nothing
/// runs there ([`crate::noise::measure`]), the larger. Before the round's points, so no
/// point shares a CPU with a meter.
fn hiccup_floor(pinning: &crate::settings::Pinning) -> Result<u64, String> {
    let ((), noise) = crate::noise::measure(pinning, true, || {
        std::thread::sleep(crate::noise::QUIET);
        Ok(())
    })?;
    let floor = noise.hiccups.ok_or("the hiccup meters measured nothing")?;
    Ok(floor.larger(|h| h.p99_us))
}

/// Now, in seconds since the Unix epoch.
fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::AA_CONTROL;
    use crate::workload::catalogue::by_name;
    use crate::workload::{BASELINES, SUBJECT};

    fn entry(name: &str) -> Entry {
        Entry {
            workload: by_name(name).unwrap(),
            every_round: vec![SUBJECT],
            detail: Vec::new(),
            offered: None,
        }
    }

    /// Four rounds of `name`: the subject at `subject[round % 2]`, the baselines at 10 and
    /// 20, the A/A control at `control[round % 2]`.
    fn rounds_of(name: &str, subject: [f64; 2], control: [f64; 2]) -> Vec<Sample> {
        let mut samples = Vec::new();
        for round in 0..4 {
            samples.push(Sample::example(name, SUBJECT.id, round, subject[round % 2]));
            samples.push(Sample::example(name, BASELINES[0].id, round, 10.0));
            samples.push(Sample::example(name, BASELINES[1].id, round, 20.0));
            samples.push(Sample::example(name, AA_CONTROL.id, round, control[round % 2]));
        }
        samples
    }

    #[test]
    fn only_a_workload_with_an_undecided_cell_runs_on() {
        let (decided, scattered) = (
            entry("keep-alive, small requests at a fixed rate"),
            entry("64 KiB echo at a fixed rate"),
        );
        let mut samples = rounds_of(decided.workload.name, [5.0, 5.1], [5.0, 5.1]);
        // 8 and 13 against 10: the interval straddles 1; the A/A control too.
        samples.extend(rounds_of(scattered.workload.name, [8.0, 13.0], [13.0, 8.0]));
        let left = runs_on(&[&decided, &scattered], &samples, 4);
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].workload.name, "64 KiB echo at a fixed rate");
        assert_eq!(rounds_in(&samples), 4);
        assert!(runs_on(&[&decided], &samples, 4).is_empty());
    }

    #[test]
    fn a_noisy_round_is_run_again() {
        let decided = entry("keep-alive, small requests at a fixed rate");
        let mut samples = rounds_of(decided.workload.name, [5.0, 5.1], [5.0, 5.1]);
        assert!(
            runs_on(&[&decided], &samples, 4).is_empty(),
            "decided in 4 rounds"
        );
        samples
            .iter_mut()
            .filter(|s| s.round == 1 && s.contender == BASELINES[0].id)
            .for_each(|s| s.client_busy = Some(0.95));
        let left = runs_on(&[&decided], &samples, 4);
        assert_eq!(left.len(), 1, "3 rounds count of the 4 planned");
        assert!(runs_on(&[&decided], &samples, 3).is_empty());
    }
}

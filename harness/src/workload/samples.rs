//! What rounds of workloads measured: one [`Sample`] per contender, workload and round,
//! and the per-round ratios a verdict is decided from.

use serde::{Deserialize, Serialize};

use super::offered::Calibration;
use super::{BASELINES, SUBJECT, Shape, Unit, Workload};
use crate::io_workers::IoWorkers;
use crate::judge::Word;
use crate::machine::Machine;
use crate::rounds;
use crate::servers::AA_CONTROL;

/// A verdict row's per-round ratios: against each of the [`BASELINES`], and the A/A
/// control's (empty where it did not run).
pub type VerdictRatios = (Vec<Vec<f64>>, Vec<f64>);

/// One contender's figures for one workload in one round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    pub workload: String,
    pub contender: String,
    pub label: String,
    pub round: usize,
    /// Where in its round's order it ran (0: first), and when it started (Unix seconds).
    #[serde(default)]
    pub position: usize,
    #[serde(default)]
    pub started_unix_s: f64,
    /// The compared figure, in the workload's [`Unit`].
    pub value: Option<f64>,
    pub server_cpu_us: Option<f64>,
    /// The whole machine's CPU per request (or connection) over the same window
    /// ([`crate::machine_cpu`]).
    #[serde(default)]
    pub machine_cpu_us: Option<f64>,
    pub requests_per_sec: f64,
    pub p99_us: u64,
    /// The p99.9 beside it; `None` in reports from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<u64>,
    /// Where the tail is judged ([`Workload::judges_tail`]): the platform's hiccup floor at
    /// p99 in the same round, metered on the server's and the client's CPU while both were
    /// idle, just before the round's points, the larger ([`super::run`]). A p99 at or under
    /// it is the machine's own stall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hiccup_p99_us: Option<u64>,
    pub syscalls_per_request: Option<f64>,
    /// The server's wake-ups per request (or connection) over the point: its threads'
    /// voluntary context switches ([`crate::switches`]); `None` in reports from before
    /// they were counted, or for a server on another host ([`super::wakes`] reads them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeups_per_request: Option<f64>,
    pub bottleneck: String,
    /// The client's CPU over the point's wall time and its CPUs (1.0: saturated); `None`
    /// in reports from before it was kept. A cell is client-bound where it
    /// reached [`crate::usage::CLIENT_SATURATED`] ([`super::client_bound`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_busy: Option<f64>,
    /// A fixed-rate (open-loop) point's median send lateness, µs: how late the client's
    /// sends left their intended times (loadgen's `send_lateness_us` p50; its clock
    /// coalesces sends due within `MIN_GAP` of each other). `None` for a closed loop, and
    /// in reports from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_lateness_p50_us: Option<f64>,
    /// An offered workload's rate, requests/s ([`super::offered`]); its `value` is `None`
    /// where the server served less than [`super::offered::KEEP_UP`] of it, beyond what
    /// was still in flight ([`super::offered::keeps_up`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_per_sec: Option<f64>,
    /// Idle workloads: resident memory alone per idle connection, beside `value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_bytes_per_idle: Option<f64>,
    /// Idle workloads: whether `value` counts the kernel's memory (the server ran in a
    /// cgroup of its own) or, where this machine gave none, resident memory alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_included: Option<bool>,
    /// io_uring worker threads the server had at the point's end, where it had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_workers: Option<IoWorkers>,
}

impl Sample {
    /// A sample for reports' tests: `value` as the figure and the server CPU, 1000
    /// requests/s, p99 50 µs, the client the bottleneck (no busy share), syscalls counted
    /// in round 0.
    pub fn example(workload: &str, contender: &str, round: usize, value: f64) -> Sample {
        Sample {
            workload: workload.into(),
            contender: contender.into(),
            label: contender.into(),
            round,
            position: 0,
            started_unix_s: 0.0,
            value: Some(value),
            server_cpu_us: Some(value),
            machine_cpu_us: Some(value * 3.0),
            requests_per_sec: 1000.0,
            p99_us: 50,
            p999_us: None,
            hiccup_p99_us: None,
            syscalls_per_request: (round == 0).then_some(0.5),
            wakeups_per_request: None,
            bottleneck: "client".into(),
            client_busy: None,
            send_lateness_p50_us: None,
            offered_per_sec: None,
            rss_bytes_per_idle: None,
            kernel_included: None,
            io_workers: None,
        }
    }

    /// [`Sample::example`] at a fixed 100,000 requests/s with the client busy
    /// `client_busy` of its CPU: for the tests of what the client costs per request.
    pub fn example_with_client(
        workload: &str,
        contender: &str,
        round: usize,
        value: f64,
        client_busy: f64,
    ) -> Sample {
        Sample {
            client_busy: Some(client_busy),
            requests_per_sec: 100_000.0,
            ..Sample::example(workload, contender, round, value)
        }
    }
}

/// How many rounds `samples` span: the rounds a report over them has.
pub fn rounds_in(samples: &[Sample]) -> usize {
    samples.iter().map(|s| s.round + 1).max().unwrap_or(0)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadsReport {
    pub machine: Machine,
    /// The servers' host where it is not this one (`--server-host`): the agent's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_machine: Option<Machine>,
    pub pinning: String,
    /// The rounds run: the most any workload took.
    pub rounds: usize,
    /// The rounds planned for every workload, where later rounds ran only for workloads
    /// still undecided (sequential stopping); `None`: every workload ran every round.
    #[serde(default)]
    pub base_rounds: Option<usize>,
    /// The first rounds, in which the detail-only contenders (tokio_uring_server, the
    /// shared-buffer codec, nginx) ran too.
    #[serde(default)]
    pub detail_rounds: usize,
    pub seconds_per_point: f64,
    /// Slices each point was cut into ([`crate::slices`]); 0 in reports from before them.
    #[serde(default)]
    pub slices: usize,
    /// The workloads the verdict judges; `None`: every one measured (`cargo bench`, and
    /// reports from before).
    #[serde(default)]
    pub judged: Option<Vec<String>>,
    /// The capacities the offered workloads' rates are shares of.
    #[serde(default)]
    pub calibrations: Vec<Calibration>,
    /// The ids of the servers the user added (`--server`, `servers::outside`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<String>,
    pub samples: Vec<Sample>,
}

impl WorkloadsReport {
    /// A report over `samples` alone, every workload judged (no machine, no method): what
    /// the rounds so far decide, and reports' tests.
    pub fn over(samples: Vec<Sample>) -> WorkloadsReport {
        WorkloadsReport {
            server_machine: None,
            machine: crate::machine::blank(""),
            pinning: String::new(),
            rounds: rounds_in(&samples),
            base_rounds: None,
            detail_rounds: 0,
            seconds_per_point: 0.0,
            slices: 0,
            judged: None,
            calibrations: Vec::new(),
            outside: Vec::new(),
            samples,
        }
    }

    /// The samples of `contender` at `workload`, in round order.
    pub fn of<'a>(&'a self, workload: &'a str, contender: &'a str) -> impl Iterator<Item = &'a Sample> {
        self.samples
            .iter()
            .filter(move |s| s.workload == workload && s.contender == contender)
    }

    /// The compared figure of `contender` at `workload`, by round; `None` in a round it
    /// has none and in a noisy one that counts for nothing
    /// ([`WorkloadsReport::voided_rounds`]).
    pub fn values(&self, workload: &str, contender: &str) -> Vec<Option<f64>> {
        let voided = self.voided_rounds(workload);
        (0..self.rounds)
            .map(|round| match voided.contains(&round) {
                true => None,
                false => self.of(workload, contender).find(|s| s.round == round)?.value,
            })
            .collect()
    }

    /// Subject ÷ `baseline` at `workload`, per round (baseline ÷ subject for
    /// requests/s, so below 1 favours the subject in every unit).
    pub fn ratios(&self, workload: &Workload, baseline: &str) -> Vec<f64> {
        self.ratios_of(workload, (SUBJECT.id, baseline))
    }

    /// The A/A control ÷ the subject at `workload`, per round, as [`Self::ratios`]: two
    /// processes of one server, so the rule must find them tied.
    pub fn aa_ratios(&self, workload: &Workload) -> Vec<f64> {
        self.ratios_of(workload, (AA_CONTROL.id, SUBJECT.id))
    }

    /// `subject` ÷ `baseline` at `workload`, per round, as [`Self::ratios`] (any pair of
    /// contenders: the runtime table's).
    pub fn ratios_of(&self, workload: &Workload, pair: (&str, &str)) -> Vec<f64> {
        self.ratios_in(workload, workload.unit(), pair)
    }

    /// Whether `workload` is an idle one that the verdict judges with the others on their
    /// fitted slope ([`super::idle_fit`]) rather than on its own row.
    fn judged_on_fit(&self, workload: &Workload) -> bool {
        matches!(workload.shape, Shape::Idle { .. }) && self.idle_fit().is_some()
    }

    /// Whether the verdict judges `workload` (others are measured for the details only).
    pub fn is_judged(&self, workload: &str) -> bool {
        self.judged
            .as_ref()
            .is_none_or(|judged| judged.iter().any(|j| j == workload))
    }

    /// Every row `workload` has in a verdict: its own unit's, and its second where it has
    /// one ([`Workload::verdict_units`]: one connection's server CPU per request, the
    /// keep-alive cost row's p99). Each holds the ratios against each of the
    /// [`BASELINES`] and the A/A control's. None for a workload not judged (in this run,
    /// or by the verdict at all: [`super::scope`]), nor for an idle one where the report has a fit over several counts: those are judged together, on
    /// the fit's slope ([`super::idle_fit`]).
    pub fn verdict_rows(&self, workload: &Workload) -> Vec<(Unit, VerdictRatios)> {
        let outside = !super::scope::in_verdict(workload);
        if outside || !self.is_judged(workload.name) || self.judged_on_fit(workload) {
            return Vec::new();
        }
        let row = |unit| {
            let baselines = BASELINES
                .iter()
                .map(|b| self.ratios_in(workload, unit, (SUBJECT.id, b.id)))
                .collect();
            (
                baselines,
                self.ratios_in(workload, unit, (AA_CONTROL.id, SUBJECT.id)),
            )
        };
        workload
            .verdict_units()
            .into_iter()
            .map(|unit| (unit, row(unit)))
            .collect()
    }

    /// `pair`'s per-round ratios at `workload` in `unit`, one of its verdict units
    /// ([`Workload::verdict_units`]): `pair.0` ÷ `pair.1` (the inverse for requests/s, so
    /// that below 1 favours `pair.0` in every unit).
    pub fn ratios_in(&self, workload: &Workload, unit: Unit, (subject, baseline): (&str, &str)) -> Vec<f64> {
        let figures = |contender| self.figures_in(workload, unit, contender);
        let (subject, baseline) = (figures(subject), figures(baseline));
        match unit {
            Unit::RequestsPerSec => rounds::ratios(&baseline, &subject),
            _ => rounds::ratios(&subject, &baseline),
        }
    }

    /// `contender`'s figures at `workload` in `unit` (one of its verdict units), by round,
    /// as [`Self::values`]: `None` in a round that counts for nothing.
    pub fn figures_in(&self, workload: &Workload, unit: Unit, contender: &str) -> Vec<Option<f64>> {
        let voided = self.voided_rounds(workload.name);
        (0..self.rounds)
            .map(|round| {
                if voided.contains(&round) {
                    return None;
                }
                let sample = self.of(workload.name, contender).find(|s| s.round == round)?;
                workload.figure(unit, sample)
            })
            .collect()
    }

    /// Whether any cell of `workload`'s verdict rows (the cheapest tokio configuration's
    /// and the A/A control's included, where they ran) is still *inconclusive*: more
    /// rounds could decide it (a client-bound row's cannot: [`super::client_bound`]).
    pub fn undecided(&self, workload: &Workload) -> bool {
        if self.judged_on_fit(workload) {
            // Every count runs on while any cell of the fit is undecided.
            return self.idle_fit_undecided();
        }
        if self.client_bound(workload.name).is_some() {
            return false;
        }
        self.verdict_rows(workload)
            .into_iter()
            .any(|(unit, (baselines, aa))| {
                let best = self.best_tokio(workload, unit);
                let best = best.contender.map(|_| best.ratios);
                let cells = baselines.into_iter().chain([aa]).chain(best);
                cells
                    .into_iter()
                    .any(|ratios| Word::judge(&ratios) == Word::Inconclusive)
            })
    }

    /// The workloads measured, in the order first measured.
    pub fn workloads(&self) -> Vec<String> {
        rounds::first_seen(self.samples.iter().map(|s| s.workload.clone()))
    }

    /// The contenders measured at `workload`, as (id, label), in the order first measured.
    pub fn contenders(&self, workload: &str) -> Vec<(String, String)> {
        rounds::first_seen(
            self.samples
                .iter()
                .filter(|s| s.workload == workload)
                .map(|s| (s.contender.clone(), s.label.clone())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_without_the_send_lateness_loads_and_one_with_it_round_trips() {
        let mut json = serde_json::to_value(Sample::example("w", "a", 0, 1.0)).unwrap();
        assert!(json.get("send_lateness_p50_us").is_none(), "None is not written");
        let old: Sample = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(old.send_lateness_p50_us, None);
        json["send_lateness_p50_us"] = serde_json::json!(203.0);
        let kept: Sample = serde_json::from_value(json).unwrap();
        assert_eq!(kept.send_lateness_p50_us, Some(203.0));
        let again: Sample = serde_json::from_str(&serde_json::to_string(&kept).unwrap()).unwrap();
        assert_eq!(again.send_lateness_p50_us, Some(203.0));
    }
}

//! The verdict's rows as data, for the views drawn beside its table (the answer block,
//! the forest plot): per row its workload, what it measures, the cheapest tokio
//! configuration with io_uring_server's ratios against it, the per-round ratios of
//! io_uring_server ÷ each baseline and of the A/A control, and how to read any other
//! pair of contenders (a ready runtime ÷ the codec engine) or one contender's figures on
//! the same measure. The rows and ratios are [`WorkloadsReport::verdict_rows`]',
//! [`WorkloadsReport::best_tokio`]'s and the idle fit's, in the table's order, so every
//! view reads the table's numbers.

use crate::workloads::{BASELINES, SUBJECT, Shape, Unit, WORKLOADS, Workload, WorkloadsReport};
use harness::rounds;
use harness::servers::Contender;
use harness::workload::best::Best;

/// Where a row's figures come from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// The workload's own figure, in its unit.
    Values(Workload),
    /// The workload's second measure, the row's unit (one connection's server CPU per
    /// request, the keep-alive cost row's p99).
    Also(Workload),
    /// The slope of the idle connections' fit, bytes per idle connection.
    IdleFit,
}

/// One row of the verdict table.
#[derive(Debug, Clone)]
pub struct Row {
    /// The workload's name ("idle connections" for the fit).
    pub workload: String,
    /// Its name with an offered row's rate: "keep-alive, small requests at 34,704 req/s".
    pub label: String,
    pub unit: Unit,
    pub source: Source,
    /// The cheapest tokio configuration on this row, and io_uring_server ÷ it per round.
    pub best: Best,
    /// io_uring_server ÷ each of the [`BASELINES`], per round.
    pub against: Vec<Vec<f64>>,
    /// The A/A control ÷ io_uring_server, per round (empty where it did not run).
    pub aa: Vec<f64>,
}

impl Row {
    /// The shape of load the row measures (`None` for the idle fit).
    pub fn shape(&self) -> Option<Shape> {
        match self.source {
            Source::Values(w) | Source::Also(w) => Some(w.shape),
            Source::IdleFit => None,
        }
    }

    /// `subject` ÷ `baseline` on this row's measure, per round (baseline ÷ subject for
    /// requests/s, as the table).
    pub fn ratios(&self, report: &WorkloadsReport, (subject, baseline): (&str, &str)) -> Vec<f64> {
        match self.source {
            Source::Values(w) => report.ratios_of(&w, (subject, baseline)),
            Source::Also(w) => report.ratios_in(&w, self.unit, (subject, baseline)),
            Source::IdleFit => rounds::ratios(&report.idle_slopes(subject), &report.idle_slopes(baseline)),
        }
    }

    /// How busy the client was where this row is client-bound and a cheapest tokio
    /// configuration was chosen; `None` where it is not, or none was chosen.
    pub fn best_bound(&self, report: &WorkloadsReport) -> Option<f64> {
        self.best.contender?;
        self.client_bound(report)
    }

    /// How busy the client was where most of this row's rounds were noisy, so that the
    /// row is client-bound ([`harness::workload::client_bound`]); `None`: the rule decides
    /// every cell of it.
    pub fn client_bound(&self, report: &WorkloadsReport) -> Option<f64> {
        match self.source {
            Source::Values(w) | Source::Also(w) => report.client_bound(w.name),
            Source::IdleFit => None,
        }
    }

    /// `contender`'s figures on this row's measure, one per round it has one.
    pub fn figures(&self, report: &WorkloadsReport, contender: &str) -> Vec<f64> {
        match self.source {
            Source::Values(w) => report.values(w.name, contender).into_iter().flatten().collect(),
            Source::Also(w) => report
                .figures_in(&w, self.unit, contender)
                .into_iter()
                .flatten()
                .collect(),
            Source::IdleFit => report.idle_slopes(contender).into_iter().flatten().collect(),
        }
    }

    /// The row's workload without its offered rate: "churn, server closes".
    pub fn plain_name(&self) -> &str {
        match self.shape() {
            Some(Shape::Offered { of, .. }) => of,
            _ => &self.workload,
        }
    }

    /// The row as a reader names it: "churn, server closes", "one connection (server
    /// CPU)", "keep-alive, small requests (p99 latency)".
    pub fn name(&self) -> String {
        match (self.shape(), self.source) {
            (None, _) => "idle connections (memory)".into(),
            (Some(Shape::OneConnection { .. }), _) | (_, Source::Also(_)) => {
                format!("{} ({})", self.plain_name(), self.short_measure())
            }
            (Some(_), _) => self.plain_name().to_string(),
        }
    }

    /// "not judged: io_uring_server fell behind the offered rate in 5 of 6 rounds": why a
    /// row of a fixed rate has too few rounds to judge against `baseline`; `None` if
    /// neither server fell behind.
    pub fn fell_behind(&self, report: &WorkloadsReport, baseline: &Contender) -> Option<String> {
        let (Source::Values(workload) | Source::Also(workload)) = self.source else {
            return None;
        };
        let reasons: Vec<String> = [&SUBJECT, baseline]
            .iter()
            .filter_map(|contender| {
                let (behind, rounds) = report.rounds_behind(workload.name, &[contender.id])?;
                Some(format!(
                    "{} fell behind the offered rate in {behind} of {rounds} rounds",
                    contender.label
                ))
            })
            .collect();
        (!reasons.is_empty()).then(|| format!("not judged: {}", reasons.join("; ")))
    }

    /// A short name for the row's measure: "server CPU", "round trip", ...
    pub fn short_measure(&self) -> &'static str {
        match self.unit {
            Unit::CpuPerRequest => "server CPU",
            Unit::CpuPerConnection => "server CPU per connection",
            Unit::LatencyP50 => "round trip",
            Unit::LatencyP99 => "p99 latency",
            Unit::BytesPerIdleConnection => "memory per idle connection",
            Unit::RequestsPerSec => "requests/s",
        }
    }
}

/// "codec" for "tokio_server (codec)": the engine's name inside its label.
pub fn short(contender: &Contender) -> &str {
    contender
        .label
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(contender.label)
}

/// Every row of the verdict, in the table's order: each judged workload's rows, then
/// the idle fit's where the report has one.
pub fn rows(report: &WorkloadsReport) -> Vec<Row> {
    let measured = report.workloads();
    let mut rows = Vec::new();
    for workload in WORKLOADS.iter().filter(|w| measured.iter().any(|m| m == w.name)) {
        for (unit, (against, aa)) in report.verdict_rows(workload) {
            let source = match unit == workload.unit() {
                true => Source::Values(*workload),
                false => Source::Also(*workload),
            };
            rows.push(Row {
                workload: workload.name.into(),
                label: report.rate_label(workload),
                unit,
                source,
                best: report.best_tokio(workload, unit),
                against,
                aa,
            });
        }
    }
    if report.idle_fit().is_some() {
        rows.push(Row {
            workload: "idle connections".into(),
            label: "idle connections".into(),
            unit: Unit::BytesPerIdleConnection,
            source: Source::IdleFit,
            best: report.best_tokio_idle(),
            against: BASELINES.iter().map(|b| report.idle_fit_ratios(b.id)).collect(),
            aa: report.idle_fit_aa_ratios(),
        });
    }
    rows
}

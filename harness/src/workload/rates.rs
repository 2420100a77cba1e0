//! How the offered workloads' rates were set, in words: per calibration, the rate at the
//! verdict's load as a share of every contender's capacity, with what each served flat out
//! and how busy the client was then ([`describe`], the calibration's progress line); the
//! paragraph under a verdict table that states the rule ([`offered_rates`]); every
//! contender's figures as a table ([`rates_table`]); and a fixed-rate row's label, its rate
//! and its share of each compared server's capacity ([`WorkloadsReport::rate_label`],
//! [`WorkloadsReport::load_shares`]).

use super::client_probe::CLIENT_BUSY_MAX;
use super::offered::{self, Calibration, VERDICT_PERCENT};
use super::samples::WorkloadsReport;
use super::{SUBJECT, Shape, Workload};
use crate::format::rate as show_rate;

/// `calibration`'s rate at `percent`% load, as a share of every contender's capacity, the
/// client's busy share flat out beside each; said so where the rate was capped at what the
/// client could drive.
pub fn describe(calibration: &Calibration, percent: u32) -> String {
    let rate = calibration.rate(percent);
    let Some((smallest, capacity)) = calibration.smallest_capacity() else {
        return format!(
            "{}: {} req/s, {percent}% of the slowest flat-out figure ({}'s {} req/s; a report \
             from before capacities were measured)",
            calibration.workload,
            show_rate(rate),
            calibration.slowest_label(),
            show_rate(calibration.slowest),
        );
    };
    if calibration.by_pair() {
        return format!(
            "{}: {} req/s{}{}, which is {}",
            calibration.workload,
            show_rate(rate),
            pair_rule(calibration, percent),
            lowered(calibration),
            shares(calibration, rate).join(", ")
        );
    }
    let cap = if calibration.capped(percent) {
        format!(
            ", {percent}% of the client's reach (the slowest flat-out figure, {}'s {} \
             req/s), since the smallest capacity ({smallest}'s {} req/s) is more than that",
            calibration.slowest_label(),
            show_rate(calibration.slowest),
            show_rate(capacity),
        )
    } else {
        String::new()
    };
    format!(
        "{}: {} req/s{cap}, which is {}",
        calibration.workload,
        show_rate(rate),
        shares(calibration, rate).join(", ")
    )
}

/// ", 50% of the smaller capacity of io_uring_server (151,323 req/s) and tokio_server
/// (hyper, multi-thread) (130,686 req/s), the tokio configuration with the most": how a
/// pair set `calibration`'s rate at `percent`%, and where the client's reach capped it.
fn pair_rule(calibration: &Calibration, percent: u32) -> String {
    let named: Vec<String> = calibration
        .compared
        .iter()
        .map(|label| {
            let capacity = calibration.capacity_of(label).map_or("?".into(), show_rate);
            format!("{label} ({capacity} req/s)")
        })
        .collect();
    let mut text = format!(
        ", {percent}% of the smaller capacity of {}, the tokio configuration with the most",
        named.join(" and ")
    );
    if calibration.capped(percent) {
        let (label, reached) = calibration.reach();
        text.push_str(&format!(
            " (capped at {percent}% of the client's reach with the two, the lower of their \
             flat-out figures: {label}'s {} req/s)",
            show_rate(reached)
        ));
    }
    text
}

/// Per contender calibrated, `rate` as a share of its capacity, with what it served flat
/// out and how busy the client was then.
fn shares(calibration: &Calibration, rate: f64) -> Vec<String> {
    calibration
        .flat_out
        .iter()
        .map(|f| {
            let flat = format!(
                "flat out it served {} req/s, the client {:.0}% busy",
                show_rate(f.requests_per_sec),
                f.client_busy * 100.0
            );
            match (f.capacity(), f.server_cpu_us) {
                (Some(capacity), Some(us)) => format!(
                    "{:.0}% of {}'s capacity ({} req/s = {}10^6 ÷ {us:.1} µs; {flat})",
                    rate / capacity * 100.0,
                    f.label,
                    show_rate(capacity),
                    if f.cpus > 1 {
                        format!("{} × ", f.cpus)
                    } else {
                        String::new()
                    },
                ),
                _ => format!("{}'s capacity unknown (no server CPU figure; {flat})", f.label),
            }
        })
        .collect()
}

/// How the offered workloads' rates were set, where the report has any: the rule, once
/// (each row's label names its rate and its share of the compared servers' capacities;
/// every contender's figures are in [`rates_table`]).
pub fn offered_rates(report: &WorkloadsReport) -> String {
    if report.calibrations.is_empty() {
        return String::new();
    }
    let rule = match report.calibrations.iter().any(Calibration::by_pair) {
        true => format!(
            "Rows at a fixed rate offered every server the same open-loop rate, \
             {VERDICT_PERCENT}% of the smaller capacity of {} and its tokio baseline: the tokio \
             configuration with the most capacity at that workload in the calibration (the \
             cheapest one, which the verdict's column names, is known only after the rounds). \
             Where that was more than the client could drive with the two (the lower of their \
             flat-out requests/s), the rate is {VERDICT_PERCENT}% of that instead{}. Every other \
             contender is offered the same rate; one with less capacity may fall behind it, and \
             its cells say so. {}",
            SUBJECT.label,
            probed(report),
            capacity()
        ),
        false => format!(
            "Rows \"at a fixed rate\" offered every server the same open-loop rate, \
             {VERDICT_PERCENT}% of the smallest capacity among the contenders (or of the \
             client's reach, the slowest requests/s it reached flat out, where that was less). {}",
            capacity()
        ),
    };
    format!(
        "\n{rule} Each row's label names its rate and its share of each compared server's \
         capacity; every contender's capacity and flat-out figures are in the results file's \
         table *Offered rates and capacities*. A round in which a server served less than {:.0}% of the \
         offered rate (counting the requests still in flight as each window closed) counts for \
         nothing: a backlog is not a cost per request. Rows \"saturated closed loop\" drive \
         every server as fast as the client can: a capacity figure rather than a cost.\n",
        offered::KEEP_UP * 100.0,
    )
}

/// Every calibration as a table, a row per contender: the rate offered, how it was set
/// (on the workload's first row), the contender's capacity and the rate's share of it,
/// and what it served flat out with how busy the client was.
pub fn rates_table(report: &WorkloadsReport) -> String {
    if report.calibrations.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "## Offered rates and capacities\n\nA contender's capacity is 10^6 ÷ its server CPU µs \
         per request flat out in the calibration (times its server CPUs where it had more than \
         one). \"How it was set\" names the pair whose capacities set the rate, and the \
         lower flat-out requests/s where that capped it. Beside the share of each server's \
         capacity the offered rate took, how busy the client was with it in the rounds at that \
         rate (median, and the highest: a round at 90% or more counts for nothing), and the \
         client's own CPU per request there (its busy share ÷ the requests/s served, the \
         median over the rounds) ÷ io_uring_server's server CPU per request: where it is \
         above 1, the client saturates before the server.{}\n\n| \
         workload | offered req/s | how it was set | server | capacity req/s | offered ÷ \
         capacity | client busy in the rounds | client CPU per request | flat out req/s | \
         client busy flat out |\n|---|---|---|---|---|---|---|---|---|---|\n",
        report.lateness_said()
    );
    for calibration in &report.calibrations {
        let rate = calibration.rate(VERDICT_PERCENT);
        let how = how_set(calibration, VERDICT_PERCENT);
        for (index, flat) in calibration.flat_out.iter().enumerate() {
            let (workload, offered, how) = match index {
                0 => (calibration.workload.as_str(), show_rate(rate), how.as_str()),
                _ => ("", String::new(), ""),
            };
            let (capacity, share) = match flat.capacity() {
                Some(capacity) => (show_rate(capacity), format!("{:.0}%", rate / capacity * 100.0)),
                None => ("unknown".into(), "n/a".into()),
            };
            out.push_str(&format!(
                "| {workload} | {offered} | {how} | {} | {capacity} | {share} | {} | {} | {} | {:.0}% |\n",
                flat.label,
                report.client_busy_cell(&calibration.workload, &flat.label),
                report.client_cost_cell(&calibration.workload, &flat.label),
                show_rate(flat.requests_per_sec),
                flat.client_busy * 100.0
            ));
        }
    }
    out.push('\n');
    out
}

/// "50% of the smaller capacity of io_uring_server and tokio_server (codec); capped at
/// 50% of the client's reach (io_uring_server's 2,643 req/s flat out)": a calibration's
/// rule in a cell.
fn how_set(calibration: &Calibration, percent: u32) -> String {
    let base = match calibration.by_pair() {
        true => format!(
            "{percent}% of the smaller capacity of {}",
            calibration.compared.join(" and ")
        ),
        false => format!("{percent}% of the smallest capacity"),
    };
    let base = match calibration.capped(percent) {
        true => {
            let (label, reached) = calibration.reach();
            format!(
                "{base}; capped at {percent}% of the lowest flat-out requests/s among them \
                 ({label}'s {} req/s)",
                show_rate(reached)
            )
        }
        false => base,
    };
    format!("{base}{}", lowered(calibration))
}

/// "; then lowered to 60,000 req/s, since the client was 94% busy at 75,878 req/s with
/// io_uring_server (at most 75%)": where the client probe lowered the rate; empty where
/// it did not.
fn lowered(calibration: &Calibration) -> String {
    calibration
        .probe
        .and_then(|p| p.said())
        .map_or(String::new(), |said| format!("; then {said}"))
}

/// "; and where the client was more than 75% busy at that rate with io_uring_server, the
/// rate is lowered in proportion": said only of a report whose calibrations probed the
/// client ([`super::client_probe`]).
fn probed(report: &WorkloadsReport) -> String {
    match report.calibrations.iter().any(|c| c.probe.is_some()) {
        true => format!(
            "; and where the client was more than {:.0}% busy at that rate with {}, the rate \
             is lowered in proportion, so the cells measure the servers",
            CLIENT_BUSY_MAX * 100.0,
            SUBJECT.label
        ),
        false => String::new(),
    }
}

/// What a capacity is, in the paragraph under a verdict table.
fn capacity() -> String {
    format!(
        "A contender's capacity is 10^6 ÷ its server CPU µs per request in {:.1} s of \
         calibration flat out at the start (in {} slices alternated with the other \
         calibrated contenders', as the rounds' points are), times its server CPUs where it \
         had more than one: what its cores can serve, whatever the client reached.",
        offered::CALIBRATION.as_secs_f64(),
        offered::CALIBRATION_SLICES
    )
}

impl WorkloadsReport {
    /// The rate `workload` offered (io_uring_server's, else any server's); `None` for a
    /// workload without one.
    pub fn offered_rate(&self, workload: &str) -> Option<f64> {
        let of = |id: &str| {
            self.samples
                .iter()
                .filter(|s| s.workload == workload && (id.is_empty() || s.contender == id))
                .find_map(|s| s.offered_per_sec)
        };
        of(SUBJECT.id).or_else(|| of(""))
    }

    /// "keep-alive, small requests at 34,704 req/s": an offered row named by the rate it
    /// ran at, rather than by its share; any other workload by its name.
    pub fn rate_label(&self, workload: &Workload) -> String {
        match (workload.shape, self.offered_rate(workload.name)) {
            (Shape::Offered { of, .. }, Some(rate)) => format!("{of} at {} req/s", show_rate(rate)),
            _ => workload.name.to_string(),
        }
    }

    /// "23% of io_uring_server's capacity, 28% of tokio_server (codec)'s": an offered
    /// row's rate as a share of the calibrated capacity of each of `labels` and of the
    /// servers whose capacities set it (those calibrated), and, where the client probe
    /// lowered it, from what; `None` for a workload without a rate or a calibration.
    pub fn load_shares(&self, workload: &Workload, labels: &[&str]) -> Option<String> {
        let Shape::Offered { of, .. } = workload.shape else {
            return None;
        };
        let rate = self.offered_rate(workload.name)?;
        let calibration = self.calibrations.iter().find(|c| c.workload == of)?;
        // The servers whose capacities set the rate are named too.
        let setters = calibration.compared.iter().map(String::as_str);
        let named = crate::rounds::first_seen(labels.iter().copied().chain(setters));
        let mut shares: Vec<String> = named
            .iter()
            .filter_map(|label| Some((label, calibration.capacity_of(label)?)))
            .enumerate()
            .map(|(index, (label, capacity))| {
                let whose = if index == 0 { "'s capacity" } else { "'s" };
                format!("{:.0}% of {label}{whose}", rate / capacity * 100.0)
            })
            .collect();
        if let Some(probe) = calibration.probe.filter(|probe| probe.cap().is_some()) {
            shares.push(format!(
                "lowered from {} req/s, where the client was {:.0}% busy",
                show_rate(probe.offered),
                probe.client_busy * 100.0
            ));
        }
        (!shares.is_empty()).then(|| shares.join(", "))
    }
}

#[cfg(test)]
#[path = "rates_tests.rs"]
mod tests;

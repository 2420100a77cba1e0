//! How the offered workloads' rates were set, in words: per calibration, the rate at the
//! verdict's load as a share of every contender's capacity, with what each served flat out
//! and how busy the client was then ([`describe`]); the paragraph under a verdict table
//! that says so for a report ([`offered_rates`]); and a fixed-rate row's label, its rate
//! and its share of each compared server's capacity ([`WorkloadsReport::rate_label`],
//! [`WorkloadsReport::load_shares`]).

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
            "{}: {} req/s{}, which is {}",
            calibration.workload,
            show_rate(rate),
            pair_rule(calibration, percent),
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

/// How the offered workloads' rates were set, where the report has any.
pub fn offered_rates(report: &WorkloadsReport) -> String {
    if report.calibrations.is_empty() {
        return String::new();
    }
    let rates: Vec<String> = report
        .calibrations
        .iter()
        .map(|c| describe(c, VERDICT_PERCENT))
        .collect();
    let rule = match report.calibrations.iter().any(Calibration::by_pair) {
        true => format!(
            "Rows at a fixed rate offered every server the same open-loop rate, \
             {VERDICT_PERCENT}% of the smaller capacity of {} and its tokio baseline: the tokio \
             configuration with the most capacity at that workload in the calibration (the \
             cheapest one, which the verdict's column names, is known only after the rounds). \
             Where that was more than the client could drive with the two (the lower of their \
             flat-out requests/s), the rate is {VERDICT_PERCENT}% of that instead, and the line \
             says so. Every other contender is offered the same rate; one with less capacity \
             may fall behind it, and its cells say so. {}",
            SUBJECT.label,
            capacity()
        ),
        false => format!(
            "Rows \"at {VERDICT_PERCENT}% load\" offered every server the same open-loop rate, \
             {VERDICT_PERCENT}% of the smallest capacity among the contenders. {} Every \
             contender measured at that load counts, those shown in the details only too, so the \
             rate is at most {VERDICT_PERCENT}% of any server's capacity; where that was more than \
             the client could drive (the slowest requests/s it reached flat out), the rate is \
             {VERDICT_PERCENT}% of the client's reach instead, and the line says so.",
            capacity()
        ),
    };
    format!(
        "\n{rule} {}. A round in which a server served less than \
         {:.0}% of the offered rate (the answers that arrived within its scheduled window, over \
         that window, plus the round trips still in flight when it closed: the rate times the \
         mean round trip, at most one per connection; plus one request per window, since a \
         window holds a whole number of the schedule's slots) counts for nothing: a backlog is not a \
         cost per request. Rows \"saturated \
         closed loop\" drive every server as fast as the client can: their CPU per request is \
         the server's busy share divided by a rate the client sets, a capacity figure rather \
         than a cost.\n",
        rates.join("; "),
        offered::KEEP_UP * 100.0,
    )
}

/// What a capacity is, in the paragraph under a verdict table.
fn capacity() -> String {
    format!(
        "A contender's capacity is 10^6 ÷ its server CPU µs per request in a {:.1} s \
         calibration run flat out at the start, times its server CPUs where it had more than \
         one: what its cores can serve, whatever the client reached.",
        offered::CALIBRATION.as_secs_f64()
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
    /// row's rate as a share of each of `labels`' calibrated capacity (those calibrated);
    /// `None` for a workload without a rate or a calibration.
    pub fn load_shares(&self, workload: &Workload, labels: &[&str]) -> Option<String> {
        let Shape::Offered { of, .. } = workload.shape else {
            return None;
        };
        let rate = self.offered_rate(workload.name)?;
        let calibration = self.calibrations.iter().find(|c| c.workload == of)?;
        let shares: Vec<String> = labels
            .iter()
            .filter_map(|label| Some((label, calibration.capacity_of(label)?)))
            .enumerate()
            .map(|(index, (label, capacity))| {
                let whose = if index == 0 { "'s capacity" } else { "'s" };
                format!("{:.0}% of {label}{whose}", rate / capacity * 100.0)
            })
            .collect();
        (!shares.is_empty()).then(|| shares.join(", "))
    }
}

#[cfg(test)]
#[path = "rates_tests.rs"]
mod tests;

//! The capacities an offered workload's rates are shares of ([`super::offered`]): each
//! contender runs the saturated workload flat out on a fresh server, and its server CPU
//! per request, what it served and how busy the client was are kept; [`calibrate_plan`]
//! does so for every offered workload of a plan and sets their rates.

use super::offered::{CALIBRATION, Calibration, FlatOut};
use super::run::Entry;
use super::{Shape, Workload, offered};
use crate::servers::{Contender, Lineup};

/// Runs `workload` (a closed loop or churn) flat out on a fresh server of each of
/// `contenders` for [`CALIBRATION`]: each one's capacity is its server CPUs × 10^6 ÷ its
/// server CPU µs per request there (what its cores can serve). The rates are set by
/// io_uring_server and the tokio configuration with the most capacity among them
/// ([`super::best::rate_pair`]).
pub fn calibrate(
    lineup: &Lineup,
    workload: &Workload,
    contenders: &[Contender],
) -> Result<Calibration, String> {
    let mut flat_out = Vec::new();
    for contender in contenders {
        let server = lineup.start_fresh_serving(*contender, workload.tls().is_some())?;
        let point = super::measure::point(&server, workload, CALIBRATION, None, &lineup.pinning)?;
        flat_out.push(FlatOut {
            label: contender.label.to_string(),
            requests_per_sec: point.requests_per_sec,
            server_cpu_us: point.server_cpu_us_per_request,
            client_busy: point.client_busy,
            cpus: lineup.pinning.server_cpus(),
        });
    }
    let pair = super::best::rate_pair(workload, &flat_out);
    let calibration = Calibration::new(workload.name, flat_out).comparing(pair);
    if !calibration.slowest.is_finite() || calibration.slowest <= 0.0 {
        return Err(format!("{}: calibration served nothing", workload.name));
    }
    Ok(calibration)
}

/// The rate of every offered workload in `plan`: each base workload run flat out by every
/// contender any of its offered workloads has, the smaller capacity of io_uring_server and
/// its tokio baseline the one its rates are shares of ([`Calibration::rate`]). Says on the terminal what each calibration found.
pub fn calibrate_plan(
    lineup: &Lineup,
    mut plan: Vec<Entry>,
) -> Result<(Vec<Entry>, Vec<Calibration>), String> {
    let mut calibrations: Vec<Calibration> = Vec::new();
    for index in 0..plan.len() {
        let Shape::Offered { of, percent } = plan[index].workload.shape else {
            continue;
        };
        if !calibrations.iter().any(|c| c.workload == of) {
            let contenders = contenders_of(&plan, of);
            println!("calibrating {of}: {} contenders flat out", contenders.len());
            let calibration = calibrate(lineup, &offered::base(of), &contenders)?;
            println!(
                "{}",
                super::rates::describe(&calibration, offered::VERDICT_PERCENT)
            );
            calibrations.push(calibration);
        }
        let calibration = calibrations.iter().find(|c| c.workload == of);
        plan[index].offered = calibration.map(|c| c.rate(percent));
    }
    Ok((plan, calibrations))
}

/// Every contender, every round or in the details, of the offered workloads of `base` in
/// `plan`, in the order first named.
fn contenders_of(plan: &[Entry], base: &str) -> Vec<Contender> {
    let mut contenders = Vec::new();
    for e in plan
        .iter()
        .filter(|e| matches!(e.workload.shape, Shape::Offered { of, .. } if of == base))
    {
        for c in e.every_round.iter().chain(&e.detail) {
            if !contenders.contains(c) {
                contenders.push(*c);
            }
        }
    }
    contenders
}

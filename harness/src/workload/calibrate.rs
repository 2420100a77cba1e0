//! The capacities an offered workload's rates are shares of ([`super::offered`]): each
//! contender that can set the rate (io_uring_server and the tokio configurations) runs the
//! saturated workload flat out on a fresh server, and its server CPU
//! per request, what it served and how busy the client was are kept; [`calibrate_plan`]
//! does so for every offered workload of a plan and sets their rates.

use super::client_probe::ClientProbe;
use super::offered::{CALIBRATION, CALIBRATION_SLICES, Calibration, FlatOut, VERDICT_PERCENT};
use super::run::Entry;
use super::{SUBJECT, Shape, Workload, offered};
use crate::servers::{Contender, Lineup};

/// Runs `workload` (a closed loop or churn) flat out on a fresh server of each of
/// `contenders` for [`CALIBRATION`], in [`CALIBRATION_SLICES`] interleaved slices: each one's capacity is its server CPUs × 10^6 ÷ its
/// server CPU µs per request there (what its cores can serve). The rates are set by
/// io_uring_server and the tokio configuration with the most capacity among them
/// ([`super::best::rate_pair`]), then lowered where the client was too busy at that rate
/// with io_uring_server ([`super::client_probe`]).
pub fn calibrate(
    lineup: &Lineup,
    workload: &Workload,
    contenders: &[Contender],
) -> Result<Calibration, String> {
    let servers = contenders
        .iter()
        .map(|c| lineup.start_fresh_serving(*c, workload.tls().is_some()))
        .collect::<Result<Vec<_>, _>>()?;
    let order: Vec<usize> = (0..servers.len()).collect();
    let slice = CALIBRATION / CALIBRATION_SLICES as u32;
    let points = crate::slices::interleave(&order, CALIBRATION_SLICES, |at, _| {
        super::measure::point(&servers[at], workload, slice, None, &lineup.pinning)
    })?;
    let flat_out: Vec<FlatOut> = contenders
        .iter()
        .zip(points)
        .map(|(contender, point)| FlatOut {
            label: contender.label.to_string(),
            requests_per_sec: point.requests_per_sec,
            server_cpu_us: point.server_cpu_us_per_request,
            client_busy: point.client_busy,
            cpus: lineup.pinning.server_cpus(),
        })
        .collect();
    drop(servers);
    let pair = super::best::rate_pair(workload, &flat_out);
    let calibration = Calibration::new(workload.name, flat_out).comparing(pair);
    if !calibration.slowest.is_finite() || calibration.slowest <= 0.0 {
        return Err(format!("{}: calibration served nothing", workload.name));
    }
    if !contenders.contains(&super::SUBJECT) {
        return Ok(calibration);
    }
    let rate = calibration.rate(offered::VERDICT_PERCENT);
    let probe = probe(lineup, workload, rate)?;
    Ok(calibration.probed(probe))
}

/// Runs `base` (a saturated workload) at `rate` on a fresh io_uring_server for the
/// calibration's length and reads how busy the client was ([`super::client_probe`]).
pub fn probe(lineup: &Lineup, base: &Workload, rate: f64) -> Result<ClientProbe, String> {
    let offered = Workload {
        name: base.name,
        shape: Shape::Offered {
            of: base.name,
            percent: VERDICT_PERCENT,
        },
    };
    let server = lineup.start_fresh_serving(SUBJECT, base.tls().is_some())?;
    let point = super::measure::point(&server, &offered, CALIBRATION, Some(rate), &lineup.pinning)?;
    Ok(ClientProbe {
        offered: rate,
        client_busy: point.client_busy,
    })
}

/// The rate of every offered workload in `plan`: each base workload run flat out by the
/// contenders that can set its rate ([`contenders_of`]), the smaller capacity of io_uring_server and
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
            // A cold load's pages, dropped by its calibration and probe, cached again.
            super::page_cache::after(&offered::base(of))?;
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

/// The contenders of the offered workloads of `base` in `plan` (every round or in the
/// details, in the order first named) whose capacity can set the rate: io_uring_server and
/// the tokio configurations its cheapest is chosen from ([`super::best::candidates`]). The
/// others (the ready runtimes, the feature rows, the A/A control, nginx) are offered the
/// same rate without a calibration of their own: a 1.5 s run each that set nothing cost
/// the study about 2.5 minutes, and their capacity is in the details' closed loops.
fn contenders_of(plan: &[Entry], base: &str) -> Vec<Contender> {
    let setting = {
        let mut setting = vec![super::SUBJECT];
        setting.extend(super::best::candidates(&offered::base(base)));
        setting
    };
    let mut contenders = Vec::new();
    for e in plan
        .iter()
        .filter(|e| matches!(e.workload.shape, Shape::Offered { of, .. } if of == base))
    {
        for c in e.every_round.iter().chain(&e.detail) {
            if setting.contains(c) && !contenders.contains(c) {
                contenders.push(*c);
            }
        }
    }
    contenders
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::{AA_CONTROL, ANCHORS, TOKIO_CODEC, TOKIO_CODEC_SENDFILE, TOKIO_HYPER, TOKIO_URING};
    use crate::workload::catalogue::by_name;

    #[test]
    fn only_who_can_set_the_rate_is_calibrated() {
        let entry = |name: &str| Entry {
            workload: by_name(name).unwrap(),
            every_round: vec![
                super::super::SUBJECT,
                AA_CONTROL,
                TOKIO_CODEC,
                TOKIO_HYPER,
                TOKIO_URING,
            ],
            detail: ANCHORS.to_vec(),
            offered: None,
        };
        let plan = [
            entry("64 KiB echo at a fixed rate"),
            entry("1 MiB files, 16 connections at a fixed rate"),
        ];
        assert_eq!(
            contenders_of(&plan, "64 KiB echo"),
            [super::super::SUBJECT, TOKIO_CODEC, TOKIO_HYPER]
        );
        let mut files = entry("1 MiB files, 16 connections at a fixed rate");
        files.every_round.push(TOKIO_CODEC_SENDFILE);
        assert!(contenders_of(&[files], "1 MiB files, 16 connections").contains(&TOKIO_CODEC_SENDFILE));
    }
}

//! Which workloads the verdict judges, and why the others are shown in the details only
//! ([`outside_verdict`]): a saturated closed loop whose cost a fixed-rate row judges (its
//! figure is a capacity), a load the client cannot offer at a fixed rate (pipelining), a
//! measure the client cannot make honestly on this machine (requests/s with a few busy
//! connections). The sentences a verdict says about them ([`left_out`]; which of its rows a
//! run lacks: [`super::verdict::not_measured`]).

use super::catalogue::WORKLOADS;
use super::offered::VERDICT_PERCENT;
use super::{Shape, Workload};

/// Why pipelining is not a verdict row.
pub const PIPELINED: &str = "loadgen's open loop sends one request at a time on each \
     connection (`--rate` refuses `--depth` above 1), so pipelining cannot be offered at a \
     fixed rate, and flat out the client is what limits the cheaper servers (the details' \
     bottleneck column says which side was busy with each): a capacity, shown in the details";

/// Why requests/s with a few busy connections is not a verdict row.
pub const SMALL_SERVICE: &str = "requests/s on 4 and 16 busy connections is what one client \
     core can drive (the details give the client's busy share with each server), so the \
     figure measures the client; the round trip such a service's clients wait on is the *one \
     connection* row, its cost at a fixed rate the kept-alive row, and the requests/s stay in \
     the details";

/// Why `workload` is not a verdict row, where it is not: `None` for a row the verdict
/// judges.
pub fn outside_verdict(workload: &Workload) -> Option<String> {
    let offered_elsewhere = WORKLOADS
        .iter()
        .find(|w| matches!(w.shape, Shape::Offered { of, .. } if of == workload.name));
    match workload.shape {
        Shape::Offered { of, percent } if percent != VERDICT_PERCENT => Some(format!(
            "*{of}* at another share of capacity than the verdict's {VERDICT_PERCENT}%"
        )),
        Shape::Pipelined { .. } => Some(PIPELINED.into()),
        Shape::SmallService { .. } => Some(SMALL_SERVICE.into()),
        _ => offered_elsewhere.map(|row| {
            format!(
                "a capacity (the closed loop flat out, its CPU per request taken at the client's \
                 pace); its cost is judged at a fixed rate on *{}*",
                row.name
            )
        }),
    }
}

/// Whether the verdict judges `workload`.
pub fn in_verdict(workload: &Workload) -> bool {
    outside_verdict(workload).is_none()
}

/// The sentences under a verdict table for the measures it leaves out on purpose:
/// pipelining and requests/s with a few connections, each once with its reason. Capacities
/// and other shares of capacity are not named: their fixed-rate rows are in the table.
pub fn left_out() -> String {
    let named = |wanted: fn(&Shape) -> bool| -> Vec<String> {
        WORKLOADS
            .iter()
            .filter(|w| wanted(&w.shape))
            .map(|w| format!("*{}*", w.name))
            .collect()
    };
    let pipelined = named(|s| matches!(s, Shape::Pipelined { .. }));
    let small = named(|s| matches!(s, Shape::SmallService { .. }));
    format!(
        "Not verdict rows: {} ({PIPELINED}); {} ({SMALL_SERVICE}).",
        pipelined.join(", "),
        small.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::catalogue::by_name;

    #[test]
    fn every_verdict_row_is_a_fixed_rate_or_an_unsaturated_measure() {
        for workload in WORKLOADS.iter().filter(|w| in_verdict(w)) {
            assert!(
                !workload.measure().contains("saturated"),
                "{}: {}",
                workload.name,
                workload.measure()
            );
        }
        let capacity = by_name("256 KiB responses").unwrap();
        assert!(
            outside_verdict(&capacity)
                .unwrap()
                .contains("*256 KiB responses at a fixed rate*")
        );
        for name in ["pipelined 16 deep", "4 connections", "16 connections"] {
            assert!(!in_verdict(&by_name(name).unwrap()), "{name}");
        }
        for name in [
            "4 KiB files, 256 connections at a fixed rate",
            "1 MiB responses at a fixed rate",
            "one connection",
        ] {
            assert!(in_verdict(&by_name(name).unwrap()), "{name}");
        }
        let said = left_out();
        assert!(
            said.contains("*pipelined 16 deep* (loadgen's open loop"),
            "{said}"
        );
        assert!(said.contains("*4 connections* and *16 connections*"), "{said}");
    }
}

//! Which workloads the verdict judges, and why the others are shown in the details only
//! ([`outside_verdict`]): a saturated closed loop whose cost a fixed-rate row judges (its
//! figure is a capacity), a load the client cannot offer at a fixed rate (pipelining), a
//! measure the client cannot make honestly on this machine (requests/s with a few busy
//! connections). The sentences a verdict says about them ([`left_out`]; which of its rows a
//! run lacks: [`super::verdict::not_measured`]); where another study measures exactly a
//! verdict workload's load, the cell that says so ([`decided_in_the_verdict`]).

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

/// Where another study measures exactly a verdict workload's load: the cell that says so
/// instead of a second answer to the same question (one generator per claim). Where that
/// load is a capacity whose cost the verdict judges at a fixed rate, the cell names the
/// fixed-rate row; `None` for a load the verdict does not judge in any form.
pub fn decided_in_the_verdict(shape: Shape) -> Option<String> {
    let workload = WORKLOADS.iter().find(|w| w.shape == shape)?;
    if in_verdict(workload) {
        return Some(format!("the verdict's row (*{}*, the same load)", workload.name));
    }
    let row = WORKLOADS
        .iter()
        .find(|w| matches!(w.shape, Shape::Offered { of, .. } if of == workload.name))?;
    Some(format!(
        "a capacity; its cost is the verdict's row *{}*",
        row.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::catalogue::by_name;

    #[test]
    fn only_a_verdict_load_is_referred_to_the_verdict() {
        let echo = Shape::Echo {
            bytes: 64 << 10,
            connections: 16,
            chunk: None,
        };
        let said = decided_in_the_verdict(echo).unwrap();
        assert_eq!(
            said,
            "a capacity; its cost is the verdict's row *64 KiB echo at a fixed rate*"
        );
        let one = decided_in_the_verdict(Shape::OneConnection {
            tls: false,
            busy_poll: false,
        })
        .unwrap();
        assert!(one.contains("(*one connection*, the same load)"), "{one}");
        let pipelined = Shape::Pipelined {
            connections: 64,
            depth: 16,
        };
        assert_eq!(decided_in_the_verdict(pipelined), None);
        let other = Shape::Echo {
            bytes: 64 << 10,
            connections: 4,
            chunk: None,
        };
        assert_eq!(decided_in_the_verdict(other), None);
    }

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

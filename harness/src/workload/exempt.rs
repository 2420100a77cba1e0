//! The rows the client-bound rule leaves alone ([`super::client_bound`]), and the sentence
//! that says which and why, written from the catalogue under the verdict's table (which
//! BENCHMARKS.md's method points to) so the page names the same rows the code exempts:
//! memory per idle connection does not depend on the pace, and a busy-polled connection's
//! client spins on its read, so it is always busy, by design. Neither has a noisy round,
//! so neither reads *client-bound*.

use super::catalogue::{WORKLOADS, by_name};
use super::{Shape, Workload};

/// Why `shape` is exempt from the client-bound rule, or `None` where it is not.
fn why(shape: &Shape) -> Option<&'static str> {
    match shape {
        Shape::Idle { .. } => Some("memory per idle connection does not depend on the pace"),
        Shape::OneConnection { busy_poll: true, .. } => {
            Some("its client spins on its read, so it is always busy, by design")
        }
        _ => None,
    }
}

/// Whether the client's busy share never makes a round of `workload` noisy.
pub fn exempt(workload: &str) -> bool {
    by_name(workload).is_some_and(|w| why(&w.shape).is_some())
}

/// "Exempt from the client-bound rule: *1k idle connections*, ... (memory ...); *one
/// busy-polled connection* (its client ...): no round of theirs counts as noisy, ...": over
/// `workloads`, each reason once with its rows.
pub fn sentence(workloads: &[Workload]) -> String {
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    for workload in workloads {
        let Some(reason) = why(&workload.shape) else {
            continue;
        };
        let name = format!("*{}*", workload.name);
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, names)) => names.push(name),
            None => reasons.push((reason, vec![name])),
        }
    }
    let said: Vec<String> = reasons
        .iter()
        .map(|(reason, names)| format!("{} ({reason})", names.join(", ")))
        .collect();
    format!(
        "Exempt from the client-bound rule: {}; no round of theirs counts as noisy, so none \
         reads *client-bound*, however busy the client.",
        said.join("; ")
    )
}

/// [`sentence`] over the whole catalogue.
pub fn section() -> String {
    sentence(WORKLOADS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::catalogue::BUSY_POLLED;

    #[test]
    fn the_idle_rows_and_the_busy_polled_connection_are_exempt_and_said_so() {
        assert!(exempt("5k idle connections"));
        assert!(exempt(BUSY_POLLED));
        assert!(!exempt("one connection"));
        assert!(!exempt("keep-alive, small requests at a fixed rate"));
        let text = section();
        assert!(
            text.contains(
                "*1k idle connections*, *5k idle connections*, *10k idle connections* (memory \
                 per idle connection does not depend on the pace)"
            ),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "*{BUSY_POLLED}* (its client spins on its read, so it is always busy, by design)"
            )),
            "{text}"
        );
        assert!(!text.contains("*one connection*"), "{text}");
    }
}

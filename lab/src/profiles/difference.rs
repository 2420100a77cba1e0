//! One sentence per profiled workload: where io_uring_server saves or loses server CPU
//! against tokio's codec engine, by category. The full report and the BENCHMARKS.md
//! summary both print it under their tables.

use std::fmt::Write as _;

use crate::profiles::classify::Category;
use crate::profiles::{Profile, Workload};
use harness::servers::{IO_URING, TOKIO_CODEC};

fn find<'a>(profiles: &[&'a Profile], id: &str) -> Option<&'a Profile> {
    profiles.iter().copied().find(|p| p.contender == id)
}

/// Where io_uring_server saves or loses against tokio codec, from the table: the
/// categories carrying most of the difference in the direction of the total, and the
/// largest one against it.
pub fn sentence(workload: &Workload, profiles: &[&Profile]) -> Option<String> {
    let (subject, baseline) = (find(profiles, IO_URING.id)?, find(profiles, TOKIO_CODEC.id)?);
    let total = subject.server_cpu_us - baseline.server_cpu_us;
    let mut deltas: Vec<(Category, f64)> = Category::ALL
        .iter()
        .map(|&c| (c, subject.cost(c) - baseline.cost(c)))
        .collect();
    // Largest first in the direction of the total.
    deltas.sort_by(|a, b| (b.1 * total.signum()).total_cmp(&(a.1 * total.signum())));
    let with: f64 = deltas.iter().map(|d| d.1).filter(|d| d * total > 0.0).sum();
    let mut carried = Vec::new();
    let mut sum = 0.0;
    for &(category, delta) in deltas.iter().filter(|d| d.1 * total > 0.0).take(3) {
        carried.push(format!("{} ({delta:+.2} µs)", category.label()));
        sum += delta;
        if sum / with >= 0.75 {
            break;
        }
    }
    if carried.is_empty() {
        return Some(format!(
            "io_uring_server and tokio codec spend the same server CPU per {} ({:.2} µs).",
            workload.unit(),
            subject.server_cpu_us
        ));
    }
    let (word, noun) = match total < 0.0 {
        true => ("less", "saving"),
        false => ("more", "loss"),
    };
    let mut text = format!(
        "io_uring_server spends {:.2} µs {word} server CPU per {} than tokio codec ({:.2} against {:.2}); \
         most of the {noun} is in {}",
        total.abs(),
        workload.unit(),
        subject.server_cpu_us,
        baseline.server_cpu_us,
        carried.join(", ")
    );
    if let Some(&(category, delta)) = deltas.last().filter(|d| d.1 * total < 0.0) {
        let _ = write!(text, ", against {} ({delta:+.2} µs)", category.label());
    }
    text.push('.');
    Some(text)
}

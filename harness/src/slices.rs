//! A round measured in slices: each contender's share of a round is cut into short
//! slices, run in passes over the round's contenders whose order reverses every pass
//! (A B C, C B A, A B C, ...), and merged back into one point per contender.
//!
//! Why: this VM's speed drifts over seconds (a busy neighbour slows both CPUs 1.5-3x for
//! several seconds at a time, with no steal to show for it). Measured one after the other,
//! two contenders of a round can land on either side of such a change, and their ratio
//! carries the machine's change, not the servers' difference. Slices a fraction of a
//! second long, in passes that reverse, spread every contender over the same stretch of
//! time: a drift that is linear over a pair of passes falls on all of them equally.

use loadgen::run::Percentiles;

use crate::io_workers::IoWorkers;
use crate::load::Point;
use crate::usage::Usage;

/// The sentence a report's method gives for points cut into `slices` (none for 0, the
/// reports from before slices, or 1).
pub fn describe(slices: usize) -> String {
    if slices < 2 {
        return String::new();
    }
    format!(
        " Within a round, each server's point is cut into {slices} slices, run in passes over \
         the round's servers whose order reverses each pass (A B C, C B A, ...), and merged \
         back: this VM's speed drifts over seconds (a busy neighbour can slow both CPUs \
         1.5-3x for several seconds, with no steal to show for it), and slices spread every \
         server of a round over the same stretch of time."
    )
}

/// The order of the round's contenders (their positions, `0..n`) in pass `pass`: forward
/// on even passes, backward on odd ones.
pub fn pass(n: usize, pass: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    if pass % 2 == 1 {
        order.reverse();
    }
    order
}

/// Measures a round's servers in `slices` passes over `order` (a permutation of their
/// indices `0..n`: the round's order), each pass reversing the last ([`pass`]): `slice(server, pass)` measures
/// one slice of one server. Returns each server's slices merged ([`merge`]), by server
/// index; any error ends the round. `slices` must be 1 or even: only whole pairs of passes
/// give every server the same mean time.
pub fn interleave(
    order: &[usize],
    slices: usize,
    mut slice: impl FnMut(usize, usize) -> Result<Point, String>,
) -> Result<Vec<Point>, String> {
    if slices == 0 || (slices > 1 && slices % 2 == 1) {
        return Err(format!("slices must be 1 or an even number, not {slices}"));
    }
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    if sorted.iter().enumerate().any(|(i, &s)| i != s) {
        return Err(format!("a round's order must name each server once: {order:?}"));
    }
    let mut measured: Vec<Vec<Point>> = vec![Vec::new(); order.len()];
    for number in 0..slices {
        for at in pass(order.len(), number) {
            let server = order[at];
            measured[server].push(slice(server, number)?);
        }
    }
    measured
        .iter()
        .map(|points| merge(points).ok_or_else(|| "a server with no slices".to_string()))
        .collect()
}

/// One contender's slices as one point. The work adds up: requests, wall time and CPU
/// time are summed over the slices ([`Usage::plus`]), and the CPU per request, how busy
/// each side was and the bottleneck come from those totals; requests/s is every request
/// over every slice's measured window. The latency percentiles are the slices' averaged,
/// weighted by their requests (an approximation of the pooled histogram's; each slice's
/// comes from thousands of requests), the fine median too, the minimum and maximum the
/// smallest and largest,
/// the peak memory the largest. `None` for no slices.
pub fn merge(points: &[Point]) -> Option<Point> {
    let last = points.last()?;
    if points.len() == 1 {
        return Some(last.clone());
    }
    let requests: u64 = points.iter().map(|p| p.requests).sum();
    let window: f64 = points
        .iter()
        .filter(|p| p.requests_per_sec > 0.0)
        .map(|p| p.requests as f64 / p.requests_per_sec)
        .sum();
    let weights: Vec<f64> = points.iter().map(|p| p.requests as f64).collect();
    let all = |f: fn(&Point) -> Option<&Percentiles>| -> Option<Percentiles> {
        let each: Option<Vec<&Percentiles>> = points.iter().map(f).collect();
        Some(percentiles(&each?, &weights))
    };
    let mut merged = Point {
        requests,
        requests_in_window: points.iter().map(|p| p.requests_in_window).sum(),
        answered_in_window: points.iter().map(|p| p.answered_in_window).sum(),
        requests_per_sec: if window > 0.0 {
            requests as f64 / window
        } else {
            0.0
        },
        latency_us: all(|p| Some(&p.latency_us)).unwrap_or_default(),
        median_us: points
            .iter()
            .map(|p| p.median_us)
            .collect::<Option<Vec<f64>>>()
            .and_then(|medians| weighted(&medians, &weights)),
        uncorrected_latency_us: all(|p| p.uncorrected_latency_us.as_ref()),
        send_lateness_us: all(|p| p.send_lateness_us.as_ref()),
        peak_rss_kib: points.iter().filter_map(|p| p.peak_rss_kib).max(),
        server_wakeups: points.iter().map(|p| p.server_wakeups).sum(),
        io_workers: points
            .iter()
            .filter_map(|p| p.io_workers)
            .reduce(IoWorkers::larger),
        ..last.clone()
    };
    let usages: Option<Vec<Usage>> = points.iter().map(|p| p.usage).collect();
    if let Some(total) = usages.and_then(|u| u.into_iter().reduce(Usage::plus)) {
        merged.server_cpu_us_per_request = total.server_us_per_request();
        merged.client_cpu_us_per_request = total.client_us_per_request();
        merged.machine_cpu_us_per_request = total.machine_us_per_request();
        merged.client_busy = total.client_busy();
        merged.bottleneck = total.bottleneck();
        merged.usage = Some(total);
    }
    Some(merged)
}

/// Percentiles of several slices as one: each averaged, weighted by `weights`; the
/// minimum (quantile 0) and maximum the extremes. The spectrum is kept only where every
/// slice has the same quantiles.
fn percentiles(each: &[&Percentiles], weights: &[f64]) -> Percentiles {
    let mean = |f: &dyn Fn(&Percentiles) -> f64| -> f64 {
        let values: Vec<f64> = each.iter().map(|p| f(p)).collect();
        weighted(&values, weights).unwrap_or(0.0)
    };
    let round = |f: &dyn Fn(&Percentiles) -> u64| mean(&|p| f(p) as f64).round() as u64;
    let max = each.iter().map(|p| p.max).max().unwrap_or(0);
    let first = &each[0].spectrum;
    let same = each
        .iter()
        .all(|p| p.spectrum.len() == first.len() && p.spectrum.iter().zip(first).all(|(a, b)| a.0 == b.0));
    let spectrum = if same {
        (0..first.len())
            .map(|i| {
                let values = each.iter().map(|p| p.spectrum[i].1);
                let value = match first[i].0 {
                    q if q <= 0.0 => values.min().unwrap_or(0),
                    q if q >= 1.0 => values.max().unwrap_or(0),
                    _ => round(&|p| p.spectrum[i].1),
                };
                (first[i].0, value)
            })
            .collect()
    } else {
        Vec::new()
    };
    Percentiles {
        mean: mean(&|p| p.mean),
        p50: round(&|p| p.p50),
        p90: round(&|p| p.p90),
        p99: round(&|p| p.p99),
        p999: round(&|p| p.p999),
        max,
        spectrum,
    }
}

/// The mean of `values` weighted by `weights`; `None` when the weights sum to zero.
fn weighted(values: &[f64], weights: &[f64]) -> Option<f64> {
    let total: f64 = weights.iter().sum();
    (total > 0.0).then(|| values.iter().zip(weights).map(|(v, w)| v * w).sum::<f64>() / total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadKind, blank_point};

    /// A slice of `requests` at `rps` (a closed loop: its wall time is its window),
    /// costing `cpu` µs of server CPU per request, twice that of the whole machine, the
    /// client's one CPU half busy.
    fn slice(requests: u64, rps: f64, cpu: f64, p50: u64) -> Point {
        let wall_s = requests as f64 / rps;
        let usage = Usage {
            requests,
            wall_s,
            server_cpu_s: Some(cpu * requests as f64 / 1e6),
            client_cpu_s: wall_s / 2.0,
            machine_cpu_s: Some(2.0 * cpu * requests as f64 / 1e6),
            server_cpus: 1,
            client_cpus: 1,
        };
        let mut point = blank_point("io_uring", LoadKind::Closed);
        point.requests = requests;
        point.requests_in_window = requests;
        point.requests_per_sec = rps;
        point.server_cpu_us_per_request = usage.server_us_per_request();
        point.machine_cpu_us_per_request = usage.machine_us_per_request();
        point.usage = Some(usage);
        point.server_wakeups = Some(requests / 2);
        point.latency_us.p50 = p50;
        point.latency_us.max = p50 * 3;
        point
    }

    #[test]
    fn passes_alternate_direction() {
        assert_eq!(pass(3, 0), [0, 1, 2]);
        assert_eq!(pass(3, 1), [2, 1, 0]);
        assert_eq!(pass(3, 2), [0, 1, 2]);
        assert_eq!(pass(1, 1), [0]);
    }

    #[test]
    fn interleave_runs_passes_that_reverse_and_merges_by_server() {
        let mut ran = Vec::new();
        let merged = interleave(&[2, 0, 1], 2, |server, number| {
            ran.push((server, number));
            Ok(slice(1000 * (server as u64 + 1), 1000.0, 5.0, 10))
        })
        .unwrap();
        assert_eq!(ran, [(2, 0), (0, 0), (1, 0), (1, 1), (0, 1), (2, 1)]);
        let requests: Vec<u64> = merged.iter().map(|p| p.requests).collect();
        assert_eq!(requests, [2000, 4000, 6000]);
        assert!(interleave(&[0], 1, |_, _| Err("refused".into())).is_err());
    }

    #[test]
    fn merged_figures_are_totals_over_the_slices() {
        // 1000 requests in 1 s at 10 µs, then 3000 in 1 s at 6 µs: 28 ms of CPU over 4000.
        let merged = merge(&[slice(1000, 1000.0, 10.0, 100), slice(3000, 3000.0, 6.0, 40)]).unwrap();
        assert_eq!(merged.requests, 4000);
        assert_eq!(merged.server_wakeups, Some(2000));
        assert!((merged.requests_per_sec - 2000.0).abs() < 1e-9);
        assert!((merged.server_cpu_us_per_request.unwrap() - 7.0).abs() < 1e-9);
        assert!((merged.machine_cpu_us_per_request.unwrap() - 14.0).abs() < 1e-9);
        assert_eq!(merged.latency_us.p50, 55);
        assert_eq!(merged.latency_us.max, 300);
    }

    #[test]
    fn the_bottleneck_comes_from_every_slice() {
        // 60% busy in the first slice, 100% in the second: 80% over both, server bound
        // (the last slice alone would say 100%, the first alone neither side).
        let merged = merge(&[slice(1000, 1000.0, 600.0, 100), slice(1000, 1000.0, 1000.0, 100)]).unwrap();
        assert!(
            merged.bottleneck.starts_with("server (server 80%"),
            "{}",
            merged.bottleneck
        );
        assert!((merged.client_busy - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_slice_without_a_figure_leaves_the_merged_one_unknown() {
        let mut external = slice(1000, 1000.0, 10.0, 100);
        external.usage = external.usage.map(|u| Usage {
            server_cpu_s: None,
            ..u
        });
        external.server_wakeups = None;
        let merged = merge(&[slice(1000, 1000.0, 10.0, 100), external]).unwrap();
        assert_eq!(merged.server_cpu_us_per_request, None);
        assert_eq!(merged.server_wakeups, None);
        assert!(merge(&[]).is_none());
    }

    #[test]
    fn only_whole_pairs_of_passes_and_a_permutation() {
        let never = |_: usize, _: usize| -> Result<Point, String> { unreachable!() };
        assert!(interleave(&[0, 1], 3, never).is_err());
        assert!(interleave(&[0, 0], 2, never).is_err());
        assert!(interleave(&[0, 2], 2, never).is_err());
    }
}

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

use crate::load::Point;

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
/// index; any error ends the round.
pub fn interleave(
    order: &[usize],
    slices: usize,
    mut slice: impl FnMut(usize, usize) -> Result<Point, String>,
) -> Result<Vec<Point>, String> {
    let mut measured: Vec<Vec<Point>> = vec![Vec::new(); order.len()];
    for number in 0..slices.max(1) {
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

/// One contender's slices as one point: totals over every slice (requests, and the CPU
/// each figure per request stands for), requests/s over the slices' summed wall time, the
/// latency percentiles averaged over the slices weighted by their requests (an
/// approximation of the pooled histogram's: each slice's is measured from thousands of
/// requests), the peak memory the largest. The client's bottleneck reading is the last
/// slice's. `None` for no slices.
pub fn merge(points: &[Point]) -> Option<Point> {
    let last = points.last()?;
    if points.len() == 1 {
        return Some(last.clone());
    }
    let windows: Vec<f64> = points.iter().map(|p| p.requests_in_window as f64).collect();
    let walls: Vec<f64> = points
        .iter()
        .map(|p| {
            if p.requests_per_sec > 0.0 {
                p.requests as f64 / p.requests_per_sec
            } else {
                0.0
            }
        })
        .collect();
    let per_request = |f: fn(&Point) -> Option<f64>| -> Option<f64> {
        let values: Option<Vec<f64>> = points.iter().map(f).collect();
        weighted(&values?, &windows)
    };
    let requests: u64 = points.iter().map(|p| p.requests).sum();
    let wall: f64 = walls.iter().sum();
    let latency = |f: fn(&Point) -> u64| -> u64 {
        let values: Vec<f64> = points.iter().map(|p| f(p) as f64).collect();
        weighted(&values, &windows).map_or(0, |v| v.round() as u64)
    };
    let mut latency_us = last.latency_us.clone();
    latency_us.mean = weighted(
        &points.iter().map(|p| p.latency_us.mean).collect::<Vec<_>>(),
        &windows,
    )
    .unwrap_or(0.0);
    latency_us.p50 = latency(|p| p.latency_us.p50);
    latency_us.p90 = latency(|p| p.latency_us.p90);
    latency_us.p99 = latency(|p| p.latency_us.p99);
    latency_us.p999 = latency(|p| p.latency_us.p999);
    latency_us.max = points.iter().map(|p| p.latency_us.max).max().unwrap_or(0);
    latency_us.spectrum = spectrum(points, &windows);
    Some(Point {
        requests,
        requests_in_window: points.iter().map(|p| p.requests_in_window).sum(),
        requests_per_sec: if wall > 0.0 { requests as f64 / wall } else { 0.0 },
        latency_us,
        server_cpu_us_per_request: per_request(|p| p.server_cpu_us_per_request),
        client_cpu_us_per_request: per_request(|p| Some(p.client_cpu_us_per_request)).unwrap_or(0.0),
        machine_cpu_us_per_request: per_request(|p| p.machine_cpu_us_per_request),
        client_busy: weighted(&points.iter().map(|p| p.client_busy).collect::<Vec<_>>(), &walls)
            .unwrap_or(0.0),
        peak_rss_kib: points.iter().filter_map(|p| p.peak_rss_kib).max(),
        ..last.clone()
    })
}

/// Each quantile of the spectrum averaged over the slices, weighted by requests; empty
/// unless every slice has the same quantiles.
fn spectrum(points: &[Point], windows: &[f64]) -> Vec<(f64, u64)> {
    let first = &points[0].latency_us.spectrum;
    let same = points.iter().all(|p| {
        p.latency_us.spectrum.len() == first.len()
            && p.latency_us.spectrum.iter().zip(first).all(|(a, b)| a.0 == b.0)
    });
    if !same {
        return Vec::new();
    }
    (0..first.len())
        .map(|i| {
            let values: Vec<f64> = points.iter().map(|p| p.latency_us.spectrum[i].1 as f64).collect();
            (
                first[i].0,
                weighted(&values, windows).map_or(0, |v| v.round() as u64),
            )
        })
        .collect()
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

    /// A slice of `requests` at `rps`, costing `cpu` µs per request.
    fn slice(requests: u64, rps: f64, cpu: f64, p50: u64) -> Point {
        let mut point = blank_point("io_uring", LoadKind::Closed);
        point.requests = requests;
        point.requests_in_window = requests;
        point.requests_per_sec = rps;
        point.server_cpu_us_per_request = Some(cpu);
        point.machine_cpu_us_per_request = Some(cpu * 2.0);
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
        assert!((merged.requests_per_sec - 2000.0).abs() < 1e-9);
        assert!((merged.server_cpu_us_per_request.unwrap() - 7.0).abs() < 1e-9);
        assert!((merged.machine_cpu_us_per_request.unwrap() - 14.0).abs() < 1e-9);
        assert_eq!(merged.latency_us.p50, 55);
        assert_eq!(merged.latency_us.max, 300);
    }

    #[test]
    fn a_slice_without_a_figure_leaves_the_merged_one_unknown() {
        let mut external = slice(1000, 1000.0, 10.0, 100);
        external.server_cpu_us_per_request = None;
        let merged = merge(&[slice(1000, 1000.0, 10.0, 100), external]).unwrap();
        assert_eq!(merged.server_cpu_us_per_request, None);
        assert!(merge(&[]).is_none());
    }
}

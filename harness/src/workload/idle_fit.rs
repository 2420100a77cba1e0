//! Memory per idle connection as the slope of a fit: within each round, a contender's
//! memory growth at 1k, 5k and 10k idle connections, fitted by least squares against the
//! count, so what one point's fixed costs (a table grown once, the allocator's first
//! pages) add divides out, and the cgroup's per-CPU charge batching weighs little. The
//! verdict judges the slopes' per-round ratios by the one rule.

use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Shape};
use crate::judge::Word;
use crate::rounds;
use crate::servers::{AA_CONTROL, TOKIO_CODEC_SHARED};

/// The least-squares slope of `y` against `x`; `None` under two distinct `x`.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (points.len() >= 2 && sxx > 0.0).then(|| sxy / sxx)
}

/// The idle workloads a report measured, as (name, connection count).
pub type IdleCounts = Vec<(String, usize)>;

impl WorkloadsReport {
    /// The idle workloads measured, when there are two counts or more to fit.
    pub fn idle_fit(&self) -> Option<IdleCounts> {
        let idle: IdleCounts = self
            .workloads()
            .into_iter()
            .filter_map(|name| match super::catalogue::by_name(&name)?.shape {
                Shape::Idle { count, .. } => Some((name, count)),
                _ => None,
            })
            .collect();
        (idle.len() >= 2).then_some(idle)
    }

    /// `contender`'s fitted bytes per idle connection, per round: `None` in a round
    /// missing a count.
    pub fn idle_slopes(&self, contender: &str) -> Vec<Option<f64>> {
        let Some(idle) = self.idle_fit() else {
            return Vec::new();
        };
        let per_count: Vec<_> = idle
            .iter()
            .map(|(name, count)| (*count as f64, self.values(name, contender)))
            .collect();
        (0..self.rounds)
            .map(|round| {
                let points: Option<Vec<(f64, f64)>> = per_count
                    .iter()
                    .map(|(count, values)| Some((*count, values.get(round).copied()?? * count)))
                    .collect();
                slope(&points?)
            })
            .collect()
    }

    /// The subject's fitted slope ÷ `baseline`'s, per round.
    pub fn idle_fit_ratios(&self, baseline: &str) -> Vec<f64> {
        rounds::ratios(&self.idle_slopes(SUBJECT.id), &self.idle_slopes(baseline))
    }

    /// The A/A control's fitted slope ÷ the subject's, per round.
    pub fn idle_fit_aa_ratios(&self) -> Vec<f64> {
        rounds::ratios(&self.idle_slopes(AA_CONTROL.id), &self.idle_slopes(SUBJECT.id))
    }

    /// Whether a cell of the fitted row (a baseline's, the cheapest tokio configuration's,
    /// the I/O-model control's or the A/A control's, where each ran) is still
    /// *inconclusive*.
    pub fn idle_fit_undecided(&self) -> bool {
        let mut cells: Vec<Vec<f64>> = BASELINES.iter().map(|b| self.idle_fit_ratios(b.id)).collect();
        cells.push(self.idle_fit_ratios(TOKIO_CODEC_SHARED.id));
        cells.push(self.idle_fit_aa_ratios());
        cells.push(self.best_tokio_idle().ratios);
        cells
            .iter()
            .filter(|ratios| !ratios.is_empty())
            .any(|ratios| Word::judge(ratios) == Word::Inconclusive)
    }

    /// What the idle figures count, in words for a table: the cgroup's charge where every
    /// idle sample had one, else resident pages.
    pub fn idle_memory_counts(&self) -> &'static str {
        let idle = self
            .samples
            .iter()
            .filter(|s| s.rss_bytes_per_idle.is_some() || s.kernel_included.is_some());
        let with_kernel = idle.clone().filter(|s| s.kernel_included == Some(true)).count();
        match (with_kernel, idle.count()) {
            (0, _) => "resident pages (RSS) only: no memory cgroup here",
            (k, n) if k == n => {
                "its pages and the kernel memory charged to its cgroup (the TCP socket itself is \
                 charged to none)"
            }
            _ => "mixed: some servers in a cgroup of their own, some by resident pages only",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::samples::Sample;

    #[test]
    fn a_slope_ignores_the_fixed_cost() {
        // 2,000 bytes a connection on top of a fixed 1 MB.
        let points: Vec<(f64, f64)> = [1_000.0, 5_000.0, 10_000.0]
            .iter()
            .map(|&n| (n, 1e6 + 2_000.0 * n))
            .collect();
        assert!((slope(&points).unwrap() - 2_000.0).abs() < 1e-6);
        assert_eq!(slope(&[(5.0, 1.0)]), None);
        assert_eq!(slope(&[(5.0, 1.0), (5.0, 2.0)]), None);
    }

    #[test]
    fn the_fit_is_taken_per_round_and_its_ratios_judged() {
        let mut report = WorkloadsReport::over(Vec::new());
        for round in 0..2 {
            for (name, count) in [
                ("1k idle connections", 1_000.0),
                ("5k idle connections", 5_000.0),
                ("10k idle connections", 10_000.0),
            ] {
                // Per connection: the fixed 1 MB spread over the count, plus the slope.
                let per = |slope: f64| (1e6 + slope * count) / count;
                report
                    .samples
                    .push(Sample::example(name, SUBJECT.id, round, per(2_000.0)));
                report
                    .samples
                    .push(Sample::example(name, "tokio_codec", round, per(8_000.0)));
            }
        }
        report.rounds = 2;
        let ratios = report.idle_fit_ratios("tokio_codec");
        assert_eq!(ratios.len(), 2);
        assert!(ratios.iter().all(|r| (r - 0.25).abs() < 1e-9), "{ratios:?}");
        let idle = by_name("5k idle connections");
        assert!(report.verdict_rows(&idle).is_empty(), "judged on the fit instead");
        assert!(!report.undecided(&idle), "0.25 in both rounds: decided");
        // A third round at 4x the first two's ratio (8,000 bytes a connection each) scatters
        // the fit's cell: every idle count runs on.
        for name in [
            "1k idle connections",
            "5k idle connections",
            "10k idle connections",
        ] {
            report.samples.push(Sample::example(name, SUBJECT.id, 2, 8_000.0));
            report
                .samples
                .push(Sample::example(name, "tokio_codec", 2, 8_000.0));
        }
        report.rounds = 3;
        assert!(
            report.undecided(&idle),
            "{:?}",
            report.idle_fit_ratios("tokio_codec")
        );
    }

    fn by_name(name: &str) -> crate::workload::Workload {
        crate::workload::catalogue::by_name(name).unwrap()
    }
}

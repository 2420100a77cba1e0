//! The one rule every study decides by. A round is one pair of measurements, subject and
//! baseline, taken close in time; its statistic is the log of their ratio (subject ÷
//! baseline, lower is better). Over the rounds:
//!
//! - the estimate is the geometric mean of the ratios, with a 95% interval from Student's
//!   t on the log ratios. t rather than a bootstrap: with the 5 to 15 rounds a study can
//!   afford, a percentile bootstrap's interval is too narrow (it cannot reach past the
//!   rounds it resamples), while t widens with few rounds as it should; the log ratios of
//!   A/A pairs on this machine are close enough to normal for it.
//! - *wins* (*loses*) when the 95% interval lies below (above) 1, "by at least 10%" where
//!   it also lies below 0.90 (above 1.11);
//! - *ties* when the 90% interval lies inside [0.90, 1.11]: two one-sided tests, each at
//!   5%, that the difference is smaller than [`CLAIM_FLOOR`];
//! - else *inconclusive*: the rounds cannot tell, and more of them would.

use std::fmt;

/// The smallest difference a study claims, and the margin of a tie: within a factor of
/// 1 / (1 − `CLAIM_FLOOR`) of 1 either way, i.e. [0.90, 1.11].
pub const CLAIM_FLOOR: f64 = 0.10;

/// What the rounds say about the subject against the baseline (ratios below 1 favour the
/// subject).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// The 95% interval lies below 1.
    Wins,
    /// The 90% interval lies inside the tie margin.
    Ties,
    /// The 95% interval lies above 1.
    Loses,
    /// Neither: the interval is too wide to tell.
    Inconclusive,
    /// Fewer than two rounds measured both.
    NotMeasured,
}

impl Word {
    /// The word the rule gives `ratios` (see [`Estimate`]).
    pub fn judge(ratios: &[f64]) -> Word {
        Estimate::of(ratios).map_or(Word::NotMeasured, |e| e.word)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Word::Wins => "wins",
            Word::Ties => "ties",
            Word::Loses => "loses",
            Word::Inconclusive => "inconclusive",
            Word::NotMeasured => "not measured",
        }
    }
}

/// The rule applied to one cell's per-round ratios.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The geometric mean of the ratios.
    pub ratio: f64,
    /// The 95% interval around it.
    pub low: f64,
    pub high: f64,
    pub rounds: usize,
    pub word: Word,
    /// Whether the 95% interval also clears the claim floor (a win or loss "by at least
    /// 10%").
    pub beyond_floor: bool,
}

impl Estimate {
    /// `None` for fewer than two ratios (no interval), or for a ratio that is not a
    /// positive number.
    pub fn of(ratios: &[f64]) -> Option<Estimate> {
        let n = ratios.len();
        if n < 2 || ratios.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
            return None;
        }
        let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let variance = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let error = (variance / n as f64).sqrt();
        let df = n - 1;
        let (low, high) = interval(mean, error * t_quantile(df, 0.975));
        let (low90, high90) = interval(mean, error * t_quantile(df, 0.95));
        let (floor, ceiling) = (1.0 - CLAIM_FLOOR, 1.0 / (1.0 - CLAIM_FLOOR));
        let (word, beyond_floor) = if high < 1.0 {
            (Word::Wins, high < floor)
        } else if low > 1.0 {
            (Word::Loses, low > ceiling)
        } else if low90 > floor && high90 < ceiling {
            (Word::Ties, false)
        } else {
            (Word::Inconclusive, false)
        };
        Some(Estimate {
            ratio: mean.exp(),
            low,
            high,
            rounds: n,
            word,
            beyond_floor,
        })
    }

    /// "**wins** by ≥10%", "**ties**": the word as a table cell shows it.
    pub fn verdict(&self) -> String {
        let by = if self.beyond_floor { " by ≥10%" } else { "" };
        format!("**{}**{by}", self.word.as_str())
    }
}

/// "0.81 (0.74-0.89, 10 rounds)": the ratio, its 95% interval and how many rounds.
impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.2} ({:.2}-{:.2}, {} rounds)",
            self.ratio, self.low, self.high, self.rounds
        )
    }
}

/// A cell of a verdict table: "0.81 (0.74-0.89, 10 rounds) **wins** by ≥10%", or why none.
pub fn cell(ratios: &[f64]) -> String {
    match Estimate::of(ratios) {
        Some(estimate) => format!("{estimate} {}", estimate.verdict()),
        None => no_estimate(ratios.len()),
    }
}

/// A cell of a summary table: "0.81 **wins** by ≥10%", the ratio and the word without the
/// interval and the rounds (the full [`cell`] is in the results file beside it), or why
/// there is none.
pub fn brief_cell(ratios: &[f64]) -> String {
    match Estimate::of(ratios) {
        Some(estimate) => format!("{:.2} {}", estimate.ratio, estimate.verdict()),
        None => no_estimate(ratios.len()),
    }
}

/// "n/a (1 round)", "n/a (0 rounds)": a cell with too few rounds for an interval.
pub fn no_estimate(rounds: usize) -> String {
    match rounds {
        1 => "n/a (1 round)".into(),
        _ => format!("n/a ({rounds} rounds)"),
    }
}

/// How an A/A control's cells read, counted one way in every view: over the cells the
/// rule judged (measured in two rounds or more, and not client-bound: a caller leaves
/// those out), how many read *ties*, how many *wins* or *loses* (the rule fooled by the
/// machine's noise) and how many *inconclusive*.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ControlCount {
    pub ties: usize,
    pub called: usize,
    pub undecided: usize,
}

impl ControlCount {
    /// The count of cells the rule gave `words`; a cell not measured is not counted.
    pub fn of_words(words: impl IntoIterator<Item = Word>) -> ControlCount {
        let mut count = ControlCount::default();
        words.into_iter().for_each(|word| count.add(word));
        count
    }

    /// One more cell, which the rule gave `word`.
    pub fn add(&mut self, word: Word) {
        match word {
            Word::Ties => self.ties += 1,
            Word::Wins | Word::Loses => self.called += 1,
            Word::Inconclusive => self.undecided += 1,
            Word::NotMeasured => {}
        }
    }

    /// The count of cells of per-round ratios `cells`.
    pub fn of<'a>(cells: impl IntoIterator<Item = &'a [f64]>) -> ControlCount {
        ControlCount::of_words(cells.into_iter().map(Word::judge))
    }

    /// The cells the rule judged.
    pub fn judged(&self) -> usize {
        self.ties + self.called + self.undecided
    }

    /// "*ties* in 18 of 19 cells judged, *wins* or *loses* in 0, *inconclusive* in 1".
    pub fn phrase(&self) -> String {
        format!(
            "*ties* in {} of {} cells judged, *wins* or *loses* in {}, *inconclusive* in {}",
            self.ties,
            self.judged(),
            self.called,
            self.undecided
        )
    }
}

/// "The A/A control ... read *ties* in 5 of 6 cells judged, ...": the line under a table
/// with an A/A column, one ratio set per cell ([`ControlCount`]; a caller leaves its
/// client-bound cells out).
pub fn control_tally(cells: &[Vec<f64>]) -> String {
    let count = ControlCount::of(cells.iter().map(Vec::as_slice));
    format!(
        "The A/A control (a second io_uring_server process against the first) read {}: how \
         often this run's rounds fool the rule.",
        count.phrase()
    )
}

/// The plain words of the rule, for a report's method paragraph.
pub const METHOD: &str = "Each cell is the geometric mean of the per-round ratios with its 95% \
     interval (Student's t on the log ratios) and the number of rounds. *wins* (*loses*): the \
     95% interval lies below (above) 1, \"by ≥10%\" where it also clears 0.90 (1.11); *ties*: \
     the 90% interval lies inside [0.90, 1.11] (two one-sided tests that the difference is \
     under 10%); *inconclusive*: neither, so more rounds would be needed to tell.";

fn interval(mean: f64, half_width: f64) -> (f64, f64) {
    ((mean - half_width).exp(), (mean + half_width).exp())
}

/// Student's t quantile `p` (0.95 or 0.975) for `df` degrees of freedom: the table below
/// up to 30, then the Cornish-Fisher expansion around the normal quantile.
fn t_quantile(df: usize, p: f64) -> f64 {
    const T975: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    const T95: [f64; 30] = [
        6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782, 1.771, 1.761,
        1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701,
        1.699, 1.697,
    ];
    let (table, z): (&[f64; 30], f64) = if p > 0.96 {
        (&T975, 1.959_964)
    } else {
        (&T95, 1.644_854)
    };
    match table.get(df.max(1) - 1) {
        Some(&t) => t,
        None => {
            let v = df as f64;
            z + (z.powi(3) + z) / (4.0 * v) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        }
    }
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;

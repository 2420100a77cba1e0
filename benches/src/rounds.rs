//! Judging a contender against a baseline from interleaved rounds: the per-round ratios
//! of their figures, summarised as a median with its range and decided by one rule that
//! every study shares (the large-body study, the workloads and the verdict).

/// A difference smaller than this share is not claimed, whatever the rounds say.
pub const CLAIM_FLOOR: f64 = 0.10;

/// What the per-round ratios (subject ÷ baseline, lower is better) say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// Every round below 1 − [`CLAIM_FLOOR`].
    Wins,
    /// Every round within [`CLAIM_FLOOR`] of 1.
    Ties,
    /// Every round above 1 + [`CLAIM_FLOOR`].
    Loses,
    /// The rounds disagree: some on one side of the floor, some on the other or inside it.
    Inconclusive,
    NotMeasured,
}

impl Word {
    pub fn judge(ratios: &[f64]) -> Word {
        Word::judge_with(ratios, CLAIM_FLOOR)
    }

    /// As [`Word::judge`], with `floor` in place of [`CLAIM_FLOOR`] (a floor an A/A
    /// control measured, say).
    pub fn judge_with(ratios: &[f64], floor: f64) -> Word {
        let (Some(low), Some(high)) = (
            ratios.iter().copied().reduce(f64::min),
            ratios.iter().copied().reduce(f64::max),
        ) else {
            return Word::NotMeasured;
        };
        if high <= 1.0 - floor {
            Word::Wins
        } else if low >= 1.0 + floor {
            Word::Loses
        } else if low > 1.0 - floor && high < 1.0 + floor {
            Word::Ties
        } else {
            Word::Inconclusive
        }
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

/// The middle value (the lower middle for an even count); `None` for no values.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len().saturating_sub(1) / 2).copied()
}

/// "0.84 (0.80-0.91)": the median and range of per-round ratios.
pub fn spread(values: &[f64]) -> String {
    let (Some(mid), Some(low), Some(high)) = (
        median(values),
        values.iter().copied().reduce(f64::min),
        values.iter().copied().reduce(f64::max),
    ) else {
        return "n/a".into();
    };
    format!("{mid:.2} ({low:.2}-{high:.2})")
}

/// `0..n` starting at `round % n`: the order in which `n` contenders run in `round`, so
/// none always runs first.
pub fn rotated(n: usize, round: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |turn| (turn + round) % n)
}

/// `a[i] / b[i]` for the rounds where both were measured.
pub fn ratios(a: &[Option<f64>], b: &[Option<f64>]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter_map(|(a, b)| Some(a.as_ref()? / b.as_ref()?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_needs_every_round() {
        assert_eq!(Word::judge(&[0.8, 0.85]), Word::Wins);
        assert_eq!(Word::judge(&[0.95, 1.05]), Word::Ties);
        assert_eq!(Word::judge(&[0.8, 0.95]), Word::Inconclusive);
        assert_eq!(Word::judge(&[0.8, 1.2]), Word::Inconclusive);
        assert_eq!(Word::judge(&[1.15, 1.2]), Word::Loses);
        assert_eq!(Word::judge(&[]), Word::NotMeasured);
        assert_eq!(Word::judge_with(&[0.8, 0.85], 0.25), Word::Ties);
    }

    #[test]
    fn each_round_starts_one_later() {
        assert_eq!(rotated(3, 0).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(rotated(3, 1).collect::<Vec<_>>(), [1, 2, 0]);
        assert_eq!(rotated(3, 5).collect::<Vec<_>>(), [2, 0, 1]);
    }

    #[test]
    fn spreads_and_ratios() {
        assert_eq!(spread(&[1.0, 0.5, 2.0]), "1.00 (0.50-2.00)");
        assert_eq!(spread(&[]), "n/a");
        assert_eq!(median(&[3.0, 1.0, 2.0, 4.0]), Some(2.0));
        assert_eq!(
            ratios(&[Some(2.0), None, Some(3.0)], &[Some(4.0), Some(1.0), None]),
            [0.5]
        );
    }
}

//! The rule on recorded data (results/scan.json's A/A control and results/workloads.json,
//! both at 790d29d-5e2e3c8) and on made-up edge cases.

use super::*;

/// Server CPU per request of the scan's A/A control ÷ the default io_uring_server, 3
/// rounds at each of 1, 2, 4 ... 1024 connections (results/scan.json at 790d29d).
const RECORDED_A_A: [f64; 30] = [
    0.861, 1.026, 0.808, 1.005, 1.196, 1.005, 0.997, 0.958, 0.908, 0.977, 1.043, 0.846, 1.059, 0.965, 1.147,
    1.007, 0.922, 0.954, 0.881, 0.835, 0.96, 0.912, 1.064, 0.988, 0.975, 1.045, 1.362, 0.865, 0.933, 0.924,
];

#[test]
fn recorded_a_a_rounds_tie_ten_at_a_time_and_all_together() {
    for rounds in RECORDED_A_A.chunks(10).chain([&RECORDED_A_A[..]]) {
        let estimate = Estimate::of(rounds).unwrap();
        assert_eq!(estimate.word, Word::Ties, "{estimate}");
    }
}

#[test]
fn a_recorded_twenty_percent_difference_wins_by_at_least_ten() {
    // io_uring_server ÷ hyper, churn with the server closing (results/workloads.json at 5e2e3c8).
    let estimate = Estimate::of(&[0.747, 0.755, 0.823, 0.769, 0.765]).unwrap();
    assert_eq!((estimate.word, estimate.beyond_floor), (Word::Wins, true));
    assert_eq!(estimate.to_string(), "0.77 (0.74-0.81, 5 rounds)");
    assert_eq!(estimate.verdict(), "**wins** by ≥10%");
    assert_eq!(
        brief_cell(&[0.747, 0.755, 0.823, 0.769, 0.765]),
        "0.77 **wins** by ≥10%",
        "a summary's cell: the ratio and the word, no interval"
    );
    assert_eq!(brief_cell(&[0.8]), no_estimate(1));
    // The old min/max rule called the same run's 16 KiB responses inconclusive for one
    // round at 0.986; the interval still straddles 1.
    assert_eq!(
        Word::judge(&[0.897, 0.811, 0.932, 0.986, 1.015]),
        Word::Inconclusive
    );
}

#[test]
fn losses_mirror_wins_and_the_floor_is_said_only_when_cleared() {
    let wins = [0.93, 0.95, 0.94, 0.96];
    let loses: Vec<f64> = wins.iter().map(|r| 1.0 / r).collect();
    let (w, l) = (Estimate::of(&wins).unwrap(), Estimate::of(&loses).unwrap());
    assert_eq!((w.word, w.beyond_floor), (Word::Wins, false));
    assert_eq!((l.word, l.beyond_floor), (Word::Loses, false));
    assert!((w.ratio * l.ratio - 1.0).abs() < 1e-12);
    assert!((w.low * l.high - 1.0).abs() < 1e-9);
}

#[test]
fn too_few_or_too_scattered_rounds_decide_nothing() {
    assert_eq!(Word::judge(&[]), Word::NotMeasured);
    assert_eq!(Word::judge(&[0.5]), Word::NotMeasured);
    assert_eq!(Word::judge(&[0.5, f64::NAN]), Word::NotMeasured);
    assert_eq!(Word::judge(&[0.8, 1.2]), Word::Inconclusive);
    // Close to 1 but only two rounds: t with one degree of freedom is too wide to tie.
    assert_eq!(Word::judge(&[0.97, 1.04]), Word::Inconclusive);
    assert_eq!(cell(&[0.5]), "n/a (1 round)");
}

#[test]
fn t_quantiles_follow_the_table_then_approach_the_normal() {
    assert_eq!(t_quantile(9, 0.975), 2.262);
    assert_eq!(t_quantile(30, 0.95), 1.697);
    let past_table = t_quantile(31, 0.975);
    assert!((2.035..2.045).contains(&past_table), "{past_table}");
    assert!((t_quantile(10_000, 0.95) - 1.645).abs() < 1e-3);
}

#[test]
fn the_control_tally_counts_ties_and_fooled_cells() {
    let tied = vec![0.99, 1.01, 1.00, 0.98, 1.02];
    let fooled = vec![0.80, 0.81, 0.79];
    let unsure = vec![0.8, 1.2];
    let line = control_tally(&[tied.clone(), tied, fooled, unsure, Vec::new()]);
    assert!(
        line.contains("*ties* in 2 of 4 cells judged, *wins* or *loses* in 1, *inconclusive* in 1:"),
        "the cell without rounds is not counted: {line}"
    );
    let words = [Word::Ties, Word::NotMeasured, Word::Loses, Word::Wins];
    let count = ControlCount::of_words(words);
    assert_eq!(
        (count.ties, count.called, count.undecided, count.judged()),
        (1, 2, 0, 3)
    );
}

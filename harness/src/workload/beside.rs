//! A view that measures on its own rounds (`cargo bench`'s short verdict) beside the full
//! verdict (`results/workloads.json`): where a row's word differs between the two, the
//! short view names the full verdict's word next to its own and says why they can differ,
//! so that it never shows a contrary word unexplained; where the full verdict compares the
//! row with another tokio configuration (one the short run did not measure, say), it names
//! that one too.

use super::samples::WorkloadsReport;
use super::{Shape, Unit, Workload};
use crate::judge::Word;
use crate::servers::Contender;

/// The word a report gives a row against its cheapest tokio configuration, as the
/// verdict's first column says it: *client-bound* where the client bound the row.
pub fn word(report: &WorkloadsReport, workload: &Workload, unit: Unit) -> &'static str {
    if report.client_bound(workload.name).is_some() {
        return "client-bound";
    }
    Word::judge(&report.best_tokio(workload, unit).ratios).as_str()
}

/// The full verdict's cheapest tokio configuration and its word on the row `run` measures
/// as `workload`: the idle connections' fit where `workload` is one count of idle
/// connections and `full` fitted them (its verdict's row), else the same workload's row;
/// `None` where `full` has neither.
fn full_row(
    full: &WorkloadsReport,
    workload: &Workload,
    unit: Unit,
) -> Option<(Option<Contender>, &'static str)> {
    if matches!(workload.shape, Shape::Idle { .. }) && full.idle_fit().is_some() {
        let best = full.best_tokio_idle();
        return Some((best.contender, Word::judge(&best.ratios).as_str()));
    }
    if !full.workloads().iter().any(|name| name == workload.name) {
        return None;
    }
    Some((
        full.best_tokio(workload, unit).contender,
        word(full, workload, unit),
    ))
}

/// " (this shorter run; the full verdict: *ties*)" where `full` has the row and reads it
/// otherwise than `run`; where the full verdict's cheapest tokio configuration is another
/// than `run`'s (each the cheapest by the row's measure in its own rounds), it is named,
/// in full whether the word differs or not, so that two views never divide by two
/// baselines unsaid (in `brief`, where the words agree, the line under the table names it
/// for a p99 row, [`super::chosen::p99_sentence`], and the full table for the rest):
/// " (the full verdict: *wins* against tokio_server (codec, shared buffer), which this run
/// did not measure)" (in `brief`, a table whose line under it lists what the run did not
/// measure, without the last clause). Empty where the two agree, or `full` lacks the row.
pub fn note(
    run: &WorkloadsReport,
    full: Option<&WorkloadsReport>,
    workload: &Workload,
    unit: Unit,
    brief: bool,
) -> String {
    let Some((theirs, verdict)) = full.and_then(|full| full_row(full, workload, unit)) else {
        return String::new();
    };
    let short = word(run, workload, unit);
    let against = match theirs {
        Some(c) if theirs != run.best_tokio(workload, unit).contender => {
            match (run.samples.iter().any(|s| s.contender == c.id), brief) {
                (true, true) if short == verdict => String::new(),
                (true, _) | (false, true) => format!(" against {}", c.label),
                (false, false) => format!(" against {}, which this run did not measure", c.label),
            }
        }
        _ => String::new(),
    };
    match (short == verdict, against.is_empty()) {
        (true, true) => String::new(),
        (false, _) => format!(" (this shorter run; the full verdict: *{verdict}*{against})"),
        (true, false) => format!(" (the full verdict: *{verdict}*{against})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::{TOKIO_CODEC, TOKIO_CODEC_SHARED, TOKIO_HYPER};
    use crate::workload::samples::Sample;
    use crate::workload::{SUBJECT, catalogue};

    /// Bytes per idle connection at each of `counts`, four rounds, for `contenders`.
    fn idle(counts: &[&str], contenders: &[(&str, f64)]) -> WorkloadsReport {
        let mut samples = Vec::new();
        for round in 0..4 {
            let wobble = [1.0, 1.01, 0.99, 1.0][round];
            for name in counts {
                for (id, bytes) in contenders {
                    let bytes = if *id == SUBJECT.id { bytes * wobble } else { *bytes };
                    samples.push(Sample::example(name, id, round, bytes));
                }
            }
        }
        WorkloadsReport::over(samples)
    }

    #[test]
    fn a_row_the_full_verdict_compares_with_another_engine_names_it() {
        let five = catalogue::by_name("5k idle connections").unwrap();
        let short = [
            (SUBJECT.id, 2400.0),
            (TOKIO_CODEC.id, 8600.0),
            (TOKIO_HYPER.id, 15000.0),
        ];
        let run = idle(&[five.name], &short);
        let counts = [
            "1k idle connections",
            "5k idle connections",
            "10k idle connections",
        ];
        let full = idle(
            &counts,
            &[short.as_slice(), &[(TOKIO_CODEC_SHARED.id, 4100.0)]].concat(),
        );
        // Both win, but the full verdict's row, the fit, is against the shared buffer.
        let unit = Unit::BytesPerIdleConnection;
        assert_eq!(
            note(&run, Some(&full), &five, unit, false),
            " (the full verdict: *wins* against tokio_server (codec, shared buffer), which \
             this run did not measure)"
        );
        // In brief, the line under the table lists what the run did not measure.
        assert_eq!(
            note(&run, Some(&full), &five, unit, true),
            " (the full verdict: *wins* against tokio_server (codec, shared buffer))"
        );
        assert_eq!(note(&full, Some(&full), &five, unit, false), "");
        // Another configuration the run did measure, the word the same: still named, the
        // two views dividing by different baselines.
        let mut hyper_cheapest = full.clone();
        hyper_cheapest
            .samples
            .retain(|s| s.contender != TOKIO_CODEC_SHARED.id);
        for sample in &mut hyper_cheapest.samples {
            if sample.contender == TOKIO_HYPER.id {
                sample.value = Some(4000.0);
            }
        }
        assert_eq!(
            note(&run, Some(&hyper_cheapest), &five, unit, false),
            " (the full verdict: *wins* against tokio_server (hyper))"
        );
        // The short run lists the engine among those it did not measure; the full one not.
        let (_, absent) = crate::workload::best::configurations(&run);
        assert!(absent.contains(&TOKIO_CODEC_SHARED.label), "{absent:?}");
        let (_, absent) = crate::workload::best::configurations(&full);
        assert!(!absent.contains(&TOKIO_CODEC_SHARED.label), "{absent:?}");
    }
}

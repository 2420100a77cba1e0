//! Where a win over the codec engine comes from, for the answer's table: of what
//! io_uring_server saves against the same code on epoll, the part a technique a tokio
//! server can use too (sendfile, a read buffer shared by every connection, another engine
//! or scheduler) and the part left to the I/O model. Both are read from rows the run
//! measured: the technique's same-code control where the row has one (the codec engine
//! with sendfile on large files, on tokio's io_uring file path on small ones, with a
//! shared buffer on idle connections), else the row's
//! cheapest tokio configuration; technique = it ÷ the codec engine, I/O model =
//! io_uring_server ÷ it, each judged by the rule over the rounds both ran.

use crate::workloads::judged::{Row, Source};
use crate::workloads::runtimes::BASELINE;
use crate::workloads::worth::{signed_percent, word};
use crate::workloads::{SUBJECT, Shape, WorkloadsReport};
use harness::judge::{Estimate, Word, no_estimate};
use harness::servers::{
    Contender, TOKIO_CODEC_IO_URING_FS, TOKIO_CODEC_SENDFILE, TOKIO_CODEC_SHARED, TOKIO_HYPER,
    TOKIO_HYPER_MULTI_THREAD,
};

/// What a tokio configuration brings that the codec engine has not, in a few words.
fn technique(contender: &Contender) -> &'static str {
    match *contender {
        TOKIO_CODEC_SENDFILE => "sendfile",
        TOKIO_CODEC_IO_URING_FS => "tokio's io_uring file path",
        TOKIO_CODEC_SHARED => "one read buffer shared by every connection",
        TOKIO_HYPER => "hyper's engine",
        TOKIO_HYPER_MULTI_THREAD => "hyper on the multi-thread scheduler",
        _ => "another tokio configuration",
    }
}

/// The same-code control of the technique a win on `row` may owe to, where the row has
/// one: sendfile where files go by sendfile, tokio's io_uring file path where smaller
/// files are read (the file reads on a ring, as io_uring_server's are), a shared read
/// buffer where connections idle.
fn control(row: &Row) -> Option<Contender> {
    match row.source {
        Source::IdleFit => Some(TOKIO_CODEC_SHARED),
        Source::Values(w) | Source::Also(w) => match w.shape {
            Shape::Idle { .. } => Some(TOKIO_CODEC_SHARED),
            _ if w.sends_by_sendfile() => Some(TOKIO_CODEC_SENDFILE),
            _ if w.serves_files() => Some(TOKIO_CODEC_IO_URING_FS),
            _ => None,
        },
    }
}

/// Whether `row` wins against the codec engine (the same code on epoll), the rule deciding.
pub fn wins_over_codec(report: &WorkloadsReport, row: &Row) -> bool {
    row.client_bound(report).is_none() && Estimate::of(&row.against[0]).is_some_and(|e| e.word == Word::Wins)
}

/// The tokio configuration whose technique a win over the codec engine on `row` may owe
/// to: the technique's same-code control where the row measured one, else the row's
/// cheapest tokio configuration; `None` where that is the codec engine itself.
fn reference(report: &WorkloadsReport, row: &Row) -> Option<Contender> {
    let measured = |c: &Contender| !row.figures(report, c.id).is_empty();
    control(row)
        .filter(measured)
        .or(row.best.contender)
        .filter(|c| *c != BASELINE)
}

/// io_uring_server ÷ the same code on epoll with the row's technique, per round: against
/// the technique's same-code control where the row measured one (the codec engine with
/// sendfile on files, with a shared buffer on idle connections), else against the codec
/// engine. What the I/O model alone saves, with no technique a tokio server can use too.
pub fn io_model_ratios(report: &WorkloadsReport, row: &Row) -> Vec<f64> {
    io_model_baseline(report, row).1
}

/// The server [`io_model_ratios`] divides by, with those ratios.
pub fn io_model_baseline(report: &WorkloadsReport, row: &Row) -> (Contender, Vec<f64>) {
    let measured = |c: &Contender| !row.figures(report, c.id).is_empty();
    match control(row).filter(measured) {
        Some(same_technique) => (
            same_technique,
            row.ratios(report, (SUBJECT.id, same_technique.id)),
        ),
        None => (BASELINE, row.against[0].clone()),
    }
}

/// "sendfile −46% (*wins* by ≥10%), then the I/O model −15% (*inconclusive*)": where a
/// win over the codec engine on `row` comes from; empty for a row that does not win there.
pub fn cell(report: &WorkloadsReport, row: &Row) -> String {
    if !wins_over_codec(report, row) {
        return String::new();
    }
    let Some(reference) = reference(report, row) else {
        return "the I/O model, all of it (the codec engine is the cheapest tokio configuration here)".into();
    };
    let part = |pair: (&str, &str)| {
        let ratios = row.ratios(report, pair);
        match Estimate::of(&ratios) {
            Some(e) => format!("{} ({})", signed_percent(&e), word(&e)),
            None => no_estimate(ratios.len()),
        }
    };
    format!(
        "{} {} of the codec engine's, then the I/O model {} of {}'s",
        technique(&reference),
        part((reference.id, BASELINE.id)),
        part((SUBJECT.id, reference.id)),
        reference.label,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::Sample;
    use crate::workloads::judged::rows;
    use harness::servers::{AA_CONTROL, TOKIO_CODEC};

    /// Four rounds of `workload`: io_uring_server at 4, the codec at 10, hyper at 12, and
    /// `control` at 5 where given.
    fn report(workload: &str, control: Option<Contender>) -> WorkloadsReport {
        let mut samples = Vec::new();
        for round in 0..4 {
            let wobble = 1.0 + 0.01 * round as f64;
            let mut figures = vec![
                (SUBJECT.id, 4.0 * wobble),
                (TOKIO_CODEC.id, 10.0),
                (TOKIO_HYPER.id, 12.0),
                (AA_CONTROL.id, 4.0 * wobble),
            ];
            figures.extend(control.map(|c| (c.id, 5.0)));
            for (contender, value) in figures {
                samples.push(Sample::example(workload, contender, round, value));
            }
        }
        WorkloadsReport::over(samples)
    }

    #[test]
    fn a_files_win_is_split_between_sendfile_and_the_io_model() {
        let with = report(
            "1 MiB files, 16 connections at a fixed rate",
            Some(TOKIO_CODEC_SENDFILE),
        );
        let without = report("1 MiB files, 16 connections at a fixed rate", None);
        let (report, row) = (&with, &rows(&with)[0]);
        assert_eq!(
            cell(report, row),
            "sendfile −50% (*wins* by ≥10%) of the codec engine's, then the I/O model −19% \
             (*wins* by ≥10%) of tokio_server (codec, sendfile)'s"
        );
        let alone = Estimate::of(&io_model_ratios(report, row)).unwrap();
        assert!((alone.ratio - 0.4 * 1.015 / 0.5).abs() < 0.01, "{}", alone.ratio);
        let row = &rows(&without)[0];
        assert_eq!(
            io_model_ratios(&without, row),
            row.against[0],
            "no control: the codec"
        );
    }

    #[test]
    fn a_win_where_the_codec_engine_is_the_cheapest_is_the_io_models() {
        let report = report("keep-alive, small requests at a fixed rate", None);
        let row = &rows(&report)[0];
        assert!(cell(&report, row).starts_with("the I/O model, all of it"));
        let slower = report.samples.iter().map(|s| Sample {
            value: s
                .value
                .map(|v| if s.contender == SUBJECT.id { v * 3.0 } else { v }),
            ..s.clone()
        });
        let report = WorkloadsReport::over(slower.collect());
        assert_eq!(cell(&report, &rows(&report)[0]), "", "no win, nothing to split");
    }
}

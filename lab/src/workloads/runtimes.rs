//! Which io_uring runtime (measured in the one run of `scripts/workloads.sh`): the hand-rolled loop
//! (io_uring_server) beside the ready io_uring runtimes a user would pick instead
//! (tokio-uring, monoio, compio), each running the same codec, each ÷ tokio_server's codec
//! engine at every workload the verdict judges. Measured like the workloads (interleaved
//! rounds, fresh servers, slices) and judged by the same rule, with the A/A control, a
//! requests/s cell the client bound read *client-bound* and left out of every tally, as in
//! the verdict; it answers how much of io_uring's difference a ready runtime keeps.

use std::fmt::Write as _;

use crate::workloads::{Shape, Unit, WORKLOADS, Workload, WorkloadsReport, judged_contenders};
use harness::judge::{self, Word};
use harness::output::Doc;
use harness::rounds;
use harness::servers::{AA_CONTROL, COMPIO, Contender, IO_URING, MONOIO, TOKIO_CODEC, TOKIO_URING};
use harness::workload::{client_bound, verdict};

/// The io_uring engines compared, the hand-rolled loop first.
pub const RUNTIMES: [Contender; 4] = [IO_URING, TOKIO_URING, MONOIO, COMPIO];

/// What every runtime is divided by: tokio's epoll engine running the same codec.
pub const BASELINE: Contender = TOKIO_CODEC;

pub const BEGIN: &str = "<!-- BEGIN RUNTIMES: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END RUNTIMES -->";

/// Whom the table compares: the baseline, the runtimes and the A/A control
/// (io_uring_server again); all of them run in the verdict's rounds
/// ([`super::every_round`]).
pub fn contenders() -> Vec<Contender> {
    [vec![BASELINE], RUNTIMES.to_vec(), vec![AA_CONTROL]].concat()
}

/// The workloads the verdict judges, each run by [`contenders`] every round.
pub fn lineup() -> Vec<(Workload, Vec<Contender>)> {
    WORKLOADS
        .iter()
        .copied()
        .filter(|w| !judged_contenders(w).is_empty())
        .map(|w| (w, contenders()))
        .collect()
}

/// The ready runtimes: what a user picks instead of hand-rolling.
pub const READY: [Contender; 3] = [TOKIO_URING, MONOIO, COMPIO];

/// Two tables: each io_uring engine ÷ the baseline (with the A/A control ÷
/// io_uring_server), then each ready runtime ÷ the hand-rolled loop; each cell judged
/// round by round, a sentence under each. BENCHMARKS.md gets the first table in brief
/// (each cell its ratio and word, [`judge::brief_cell`]) and the lines under it, under a
/// one-line provenance, and a link to `results/runtimes.md` for the rest.
pub fn render(report: &WorkloadsReport, doc: Doc) -> String {
    let against_tokio = rows(report, &RUNTIMES, BASELINE);
    let mut out = String::new();
    if doc == Doc::Benchmarks {
        let _ = writeln!(
            out,
            "{}\n\nEach cell is the runtime's figure ÷ {}'s in the same round, lower is better: \
             the geometric mean over the rounds and the rule's word; the last column is the A/A \
             control, which must read *ties*. Every cell's interval and rounds, each ready \
             runtime ÷ the hand-rolled loop, and the offered rates: \
             [results/runtimes.md](results/runtimes.md).\n",
            verdict::short_provenance(report, "scripts/workloads.sh"),
            BASELINE.label,
        );
        table(&mut out, &RUNTIMES, &against_tokio, true, true);
        out.push_str(&summary(&against_tokio, doc));
        return out;
    }
    let _ = writeln!(
        out,
        "{}\n\nEvery server parses and answers with http_core's codec; what differs \
         is who drives the sockets. Each cell is the runtime's figure ÷ {}'s in the same round, \
         lower is better (for requests/s the baseline's ÷ the runtime's, so below 1 favours the \
         runtime there too). The last column is the A/A control (a second io_uring_server \
         process ÷ the first): it must read *ties*. {}\n",
        report.provenance("scripts/workloads.sh"),
        BASELINE.label,
        judge::METHOD,
    );
    table(&mut out, &RUNTIMES, &against_tokio, true, false);
    out.push_str(&summary(&against_tokio, doc));
    let _ = writeln!(
        out,
        "\nWhere hand-rolling pays: each ready runtime ÷ {} in the same rounds (above 1: the \
         hand-rolled loop is cheaper, or faster for requests/s).\n",
        IO_URING.label
    );
    let against_loop = rows(report, &READY, IO_URING);
    table(&mut out, &READY, &against_loop, false, false);
    out.push_str(&keeps(&against_tokio));
    out.push_str(&verdict::offered_rates(report));
    out
}

/// One workload's row: each subject's ratios and the A/A control's, and for each how busy
/// the client was where it bound the cell ([`client_bound`]).
struct Row {
    workload: String,
    measure: String,
    unit: Unit,
    cells: Vec<Vec<f64>>,
    bound: Vec<Option<f64>>,
    /// Per subject: the workload is over TLS and it has none (tokio_uring_server).
    no_tls: Vec<bool>,
    aa: Vec<f64>,
    aa_bound: Option<f64>,
}

impl Row {
    /// The rule's word for subject `index`; `None` where the client bound the cell or the
    /// subject has no TLS for a TLS row.
    fn word(&self, index: usize) -> Option<Word> {
        (self.bound[index].is_none() && !self.no_tls[index]).then(|| Word::judge(&self.cells[index]))
    }
}

/// The cell of a runtime without TLS on a TLS row.
const NO_TLS: &str = "no TLS (no rustls adapter for it is published)";

/// A cell as the rule reads it, or *client-bound* with the client's busy share; in
/// `brief`, the ratio and the word alone.
fn cell(ratios: &[f64], bound: Option<f64>, brief: bool) -> String {
    match (bound, brief) {
        (Some(busy), false) => client_bound::cell(ratios, busy),
        (Some(_), true) => client_bound::brief_cell(ratios),
        (None, false) => judge::cell(ratios),
        (None, true) => judge::brief_cell(ratios),
    }
}

/// Every row of the table of `subjects` ÷ `baseline`: per workload measured, in the
/// lineup's order (one connection twice, the second in server CPU), the idle counts as
/// one fitted row where there is a fit.
fn rows(report: &WorkloadsReport, subjects: &[Contender], baseline: Contender) -> Vec<Row> {
    let mut rows = Vec::new();
    let measured = report.workloads();
    for (workload, _) in lineup() {
        let on_fit = matches!(workload.shape, Shape::Idle { .. }) && report.idle_fit().is_some();
        if !measured.iter().any(|m| m == workload.name) || on_fit {
            continue;
        }
        for unit in workload.verdict_units() {
            let measure = match unit == workload.unit() {
                true => workload.measure(),
                false => unit.describe().into(),
            };
            let of = |pair: (&str, &str)| report.ratios_in(&workload, unit, pair);
            let bound = report.client_bound(workload.name);
            let aa = (AA_CONTROL.id, IO_URING.id);
            rows.push(Row {
                workload: report.rate_label(&workload),
                measure,
                unit,
                cells: subjects.iter().map(|s| of((s.id, baseline.id))).collect(),
                bound: vec![bound; subjects.len()],
                no_tls: subjects
                    .iter()
                    .map(|s| workload.tls().is_some() && !s.speaks_tls())
                    .collect(),
                aa: of(aa),
                aa_bound: bound,
            });
        }
    }
    if let Some(idle) = report.idle_fit() {
        let slopes = |c: &Contender| report.idle_slopes(c.id);
        let counts: Vec<String> = idle
            .iter()
            .map(|(_, count)| harness::format::group_thousands(*count as f64))
            .collect();
        rows.push(Row {
            workload: "idle connections".into(),
            measure: format!(
                "{} ({}): the slope of a fit over {} connections",
                Unit::BytesPerIdleConnection.describe(),
                report.idle_memory_counts(),
                counts.join(", ")
            ),
            unit: Unit::BytesPerIdleConnection,
            cells: subjects
                .iter()
                .map(|s| rounds::ratios(&slopes(s), &slopes(&baseline)))
                .collect(),
            bound: vec![None; subjects.len()],
            no_tls: vec![false; subjects.len()],
            aa: rounds::ratios(&slopes(&AA_CONTROL), &slopes(&IO_URING)),
            aa_bound: None,
        });
    }
    rows
}

/// Writes `rows` as a table with a column per subject (and the A/A control's, if `aa`);
/// in `brief`, each measure its unit and each cell its ratio and word.
fn table(out: &mut String, subjects: &[Contender], rows: &[Row], aa: bool, brief: bool) {
    let labels: Vec<&str> = subjects.iter().map(|r| r.label).collect();
    let (aa_head, aa_rule) = if aa { (" A/A control |", "---|") } else { ("", "") };
    let _ = writeln!(
        out,
        "| workload | measure | {} |{aa_head}\n|---|---|{}{aa_rule}",
        labels.join(" | "),
        "---|".repeat(subjects.len())
    );
    for row in rows {
        let cells: Vec<String> = row
            .cells
            .iter()
            .zip(&row.bound)
            .zip(&row.no_tls)
            .map(|((ratios, bound), no_tls)| match (*no_tls, brief) {
                (true, false) => NO_TLS.to_string(),
                (true, true) => "no TLS".to_string(),
                (false, _) => cell(ratios, *bound, brief),
            })
            .collect();
        let aa_cell = if aa {
            format!(" {} |", cell(&row.aa, row.aa_bound, brief))
        } else {
            String::new()
        };
        let measure = if brief {
            row.unit.describe()
        } else {
            row.measure.as_str()
        };
        let _ = writeln!(
            out,
            "| {} | {measure} | {} |{aa_cell}",
            row.workload,
            cells.join(" | ")
        );
    }
}

/// Under the first table: per runtime, how many rows it wins, ties and loses against the
/// baseline (client-bound cells left out), and how often the A/A control tied.
fn summary(rows: &[Row], doc: Doc) -> String {
    let mut out = String::from("\n");
    for (index, runtime) in RUNTIMES.iter().enumerate() {
        let words: Vec<Option<Word>> = rows.iter().map(|r| r.word(index)).collect();
        let count = |word: Word| words.iter().filter(|w| **w == Some(word)).count();
        let no_tls = rows.iter().filter(|r| r.no_tls[index]).count();
        let bound = words.iter().filter(|w| w.is_none()).count() - no_tls;
        let judged = rows.len() - bound - no_tls;
        let left_out = match (bound, no_tls) {
            (0, 0) => String::new(),
            (n, 0) => format!("; {n} client-bound, left out"),
            (0, t) => format!("; {t} over TLS, which it lacks"),
            (n, t) => format!("; {n} client-bound, left out; {t} over TLS, which it lacks"),
        };
        let _ = writeln!(
            out,
            "- {} against {}: wins {}, ties {}, loses {}, inconclusive or not measured {} of {judged} rows{left_out}.",
            runtime.label,
            BASELINE.label,
            count(Word::Wins),
            count(Word::Ties),
            count(Word::Loses),
            judged - count(Word::Wins) - count(Word::Ties) - count(Word::Loses),
        );
    }
    let aa: Vec<Vec<f64>> = rows
        .iter()
        .filter(|r| r.aa_bound.is_none())
        .map(|r| r.aa.clone())
        .collect();
    let _ = writeln!(out, "\n{}", judge::control_tally(&aa));
    if rows.iter().any(|r| r.bound.iter().any(Option::is_some)) {
        let _ = writeln!(out, "\n{}", client_bound::explain_in(doc));
    }
    out
}

/// How much of the hand-rolled loop's lead a ready runtime keeps: of the rows
/// io_uring_server wins against the baseline, how many each ready runtime wins too.
fn keeps(against_tokio: &[Row]) -> String {
    let won: Vec<&Row> = against_tokio
        .iter()
        .filter(|r| r.word(0) == Some(Word::Wins))
        .collect();
    let kept: Vec<String> = READY
        .iter()
        .map(|ready| {
            let index = RUNTIMES.iter().position(|r| r == ready).unwrap_or_default();
            let also = won.iter().filter(|r| r.word(index) == Some(Word::Wins)).count();
            format!("{} {also}", ready.label)
        })
        .collect();
    format!(
        "\nWhat a ready runtime keeps: {} wins {} of the {} rows against {}; of those, the \
         ready runtimes win too in: {}.\n",
        IO_URING.label,
        won.len(),
        against_tokio.len(),
        BASELINE.label,
        kept.join(", ")
    )
}

#[cfg(test)]
#[path = "runtimes_tests.rs"]
mod tests;

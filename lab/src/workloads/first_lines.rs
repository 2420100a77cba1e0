//! The first screen's rows as plain facts and its few sentences: per verdict row, what
//! io_uring_server saves against the row's cheapest tokio configuration (in the row's
//! unit and in %), the rule's word and the kind of load the row is; from those, where
//! it saves, where it does not, what it means for a handler that works 10 or 100 µs,
//! and how a reader with another handler cost reads their case. Every figure is the
//! verdict's own, read from the rows ([`super::judged`]); no sentence carries a figure
//! of its own.

use crate::workloads::judged::Row;
pub use crate::workloads::reading::Fact;
use crate::workloads::reading::{Reading, reading};
use crate::workloads::worth::{for_a_service, handler_micros, micros, word, your_handler};
use crate::workloads::{SUBJECT, Shape, Unit, WorkloadsReport};
use harness::format::group_thousands;
use harness::judge::{Estimate, Word};
use harness::rounds::median;
use harness::workload::offered::base;

/// Each row's fact, in the rows' order.
pub fn facts(report: &WorkloadsReport, rows: &[Row]) -> Vec<Fact> {
    rows.iter().map(|row| fact(report, row)).collect()
}

fn fact(report: &WorkloadsReport, row: &Row) -> Fact {
    let against = row.best.contender.map(|c| (c, row.best.ratios.clone()));
    let reading = reading(report, row, against);
    let estimate = Estimate::of(&row.best.ratios);
    let figure = row
        .best
        .contender
        .and_then(|c| median(&row.figures(report, c.id)));
    let (saved, percent) = match (&estimate, figure) {
        (Some(e), Some(figure)) => (Some(figure * (1.0 - e.ratio)), Some((1.0 - e.ratio) * 100.0)),
        _ => (None, None),
    };
    let word = match (reading, &estimate) {
        (Reading::Rule(_), Some(estimate)) => word(estimate),
        (Reading::ClientBound, _) => "*client-bound*".into(),
        (Reading::FellBehind, _) => "not judged: a server fell behind".into(),
        _ => "not measured every round".into(),
    };
    let clear = reading == Reading::Rule(Word::Wins)
        && estimate
            .as_ref()
            .is_some_and(|e| e.beyond_floor || Estimate::of(&row.aa).is_some_and(|aa| aa.word == Word::Ties));
    let mut servers = vec![(SUBJECT.id, SUBJECT.label)];
    servers.extend(row.best.contender.map(|c| (c.id, c.label)));
    Fact {
        name: row.name(),
        kind: kind(row),
        unit: row.unit,
        saved,
        percent,
        reading,
        word,
        clear,
        handler: handler_micros(row),
        baseline: figure,
        wakes: report.wake_word(&row.workload, &servers),
    }
}

/// The kind of load a row is, as the sentences name it: [`kind_name`], but one
/// connection's round trips, its server CPU and a TLS connection's server CPU apart, so
/// that one kind is not named where it saves and where it does not for two measures.
fn kind(row: &Row) -> &'static str {
    match (row.shape(), row.unit) {
        (Some(Shape::OneConnection { .. }), Unit::LatencyP50) => "round trips",
        (Some(Shape::OneConnection { tls: true, .. }), _) => "one TLS connection's CPU",
        (Some(Shape::OneConnection { .. }), _) => "one connection's CPU",
        (shape, _) => kind_name(shape),
    }
}

/// The kind of load a row's shape is, as a reader names it.
pub fn kind_name(shape: Option<Shape>) -> &'static str {
    let shape = match shape {
        Some(Shape::Offered { of, .. }) => base(of).shape,
        Some(shape) => shape,
        None => return "idle memory",
    };
    match shape {
        Shape::KeepAlive { .. } | Shape::Handler { .. } | Shape::Pipelined { .. } => "kept-alive requests",
        Shape::SmallService { .. } => "small services",
        Shape::TlsKeepAlive { .. } | Shape::TlsChurn { .. } => "TLS",
        Shape::Echo { .. } | Shape::Upload { .. } => "request bodies",
        Shape::Churn { .. } | Shape::ShortLived { .. } => "new connections",
        Shape::OneConnection { .. } => "one connection at a time",
        Shape::Response { .. } => "large responses",
        Shape::Files { .. } => "files",
        Shape::Idle { .. } | Shape::Offered { .. } => "idle memory",
    }
}

/// "−1.3 µs", "+184.4 µs", "−1,683 bytes": a saving as the table shows it.
pub fn signed_amount(fact: &Fact) -> Option<String> {
    let saved = fact.saved?;
    let sign = if saved >= 0.0 { "−" } else { "+" };
    Some(match fact.unit {
        Unit::BytesPerIdleConnection => format!("{sign}{} bytes", group_thousands(saved.abs())),
        _ => format!("{sign}{} µs", micros(saved.abs())),
    })
}

/// "−23%", "+6%", "−0.7%".
pub fn signed_share(fact: &Fact) -> Option<String> {
    let percent = fact.percent?;
    let sign = if percent >= 0.0 { "−" } else { "+" };
    Some(match percent.abs() {
        small if small < 1.0 => format!("{sign}{small:.1}%"),
        large => format!("{sign}{large:.0}%"),
    })
}

/// The distinct kinds of `facts`, in their order, joined: "files, TLS and idle memory".
fn kinds(facts: &[&Fact]) -> String {
    let seen = distinct_kinds(facts);
    match seen.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The kinds of `facts`, each once, in order.
fn distinct_kinds(facts: &[&Fact]) -> Vec<&'static str> {
    let mut seen: Vec<&'static str> = Vec::new();
    for fact in facts {
        if !seen.contains(&fact.kind) {
            seen.push(fact.kind);
        }
    }
    seen
}

/// The kinds `clear` covers, named ([`kinds`]), or "every kind of load measured" where
/// they are all the kinds of `facts` ("... but round trips" where all but one), so the
/// first screen's line stays short.
fn kinds_won(clear: &[&Fact], facts: &[Fact]) -> String {
    let every = distinct_kinds(&facts.iter().collect::<Vec<_>>());
    let won = distinct_kinds(clear);
    let missed: Vec<&str> = every.iter().copied().filter(|kind| !won.contains(kind)).collect();
    match missed[..] {
        [] if every.len() > 2 => "every kind of load measured".into(),
        [kind] if every.len() > 3 => format!("every kind of load measured but {kind}"),
        _ => kinds(clear),
    }
}

/// Whether a fact's figure is server CPU in µs (per request or per connection).
fn cpu(fact: &Fact) -> bool {
    matches!(fact.unit, Unit::CpuPerRequest | Unit::CpuPerConnection)
}

/// The answer as bullets, one sentence each: where it saves, where it does not, what it
/// means for a service, how to read another handler cost (each left out where the rows
/// say nothing of it).
pub fn answer(facts: &[Fact]) -> Vec<String> {
    [
        ("Where it saves.", saves(facts)),
        ("Where it does not.", elsewhere(facts)),
        ("For a service.", for_a_service(facts)),
        ("Another handler cost.", your_handler(facts)),
    ]
    .into_iter()
    .filter_map(|(lead, sentence)| sentence.map(|sentence| format!("- **{lead}** {sentence}")))
    .collect()
}

/// Where it saves: how many rows, by the rule's word for them ([`WINS`]), which kinds,
/// and the median saving in µs and % over the CPU rows it clearly wins.
pub fn saves(facts: &[Fact]) -> Option<String> {
    let clear: Vec<&Fact> = facts.iter().filter(|f| f.clear).collect();
    let cpu_rows: Vec<&&Fact> = clear.iter().filter(|f| cpu(f)).collect();
    let saved = median(&cpu_rows.iter().filter_map(|f| f.saved).collect::<Vec<_>>());
    let percent = median(&cpu_rows.iter().filter_map(|f| f.percent).collect::<Vec<_>>());
    // The kinds by name, or by count where the names would run past the line's limit.
    let mut which = kinds_won(&clear, facts);
    if which.chars().count() > LINE / 3 {
        which = format!("{} kinds of load", distinct_kinds(&clear).len());
    }
    let lead = format!(
        "{} *wins* over tokio at its cheapest, beyond the machine's own wobble, on {} of {} rows \
         ({WINS}: {which})",
        SUBJECT.label,
        clear.len(),
        facts.len(),
    );
    match (clear.is_empty(), saved, percent) {
        (true, _, _) => None,
        (false, Some(saved), Some(percent)) => Some(format!(
            "{lead}, typically by {} µs ({percent:.0}%) per request or connection.",
            micros(saved)
        )),
        _ => Some(format!("{lead}.")),
    }
}

/// The rule's *wins* in a few words ([`harness::judge`]): the 95% interval of the
/// per-round ratios (io_uring_server ÷ tokio) lies below 1, however close to it.
pub const WINS: &str = "interval below 1.00";

/// The rule's *ties* in a few words ([`harness::judge`]): the interval holds 1 and its
/// 90% interval lies inside [0.90, 1.11], so a small saving whose interval clears 1.00
/// *wins* while a larger one whose interval holds it *ties*.
pub const TIES: &str = "interval holds 1.00, within ±10%";

/// Where it does not: the rows it ties or loses (by kind, the losses by name and %), and
/// those the rule left undecided or did not judge; in fewer words (a higher
/// [`said_elsewhere`] level) where the sentence would run past the first screen's line of
/// 300 characters.
pub fn elsewhere(facts: &[Fact]) -> Option<String> {
    let room = LINE - "- **Where it does not.** ".len();
    let mut said = None;
    for level in 0..=3 {
        said = said_elsewhere(facts, level);
        if said.as_ref().is_none_or(|s| s.chars().count() < room) {
            break;
        }
    }
    said
}

/// The first screen's longest line, in characters (the shape test's limit).
const LINE: usize = 300;

/// [`elsewhere`]'s sentence at a `level` of brevity: from 1, *ties* without the rule's
/// words (the glossary has them) and a small win "within the machine's own wobble"; from
/// 2, the undecided rows in fewer words ([`undecided`]).
fn said_elsewhere(facts: &[Fact], level: usize) -> Option<String> {
    let (ties_rule, wobble) = match level > 0 {
        false => (
            format!("{TIES}: "),
            "saves no more than the machine's own wobble on",
        ),
        true => (String::new(), "wins within the machine's own wobble on"),
    };
    let with =
        |wanted: &dyn Fn(&Fact) -> bool| -> Vec<&Fact> { facts.iter().filter(|f| wanted(f)).collect() };
    let small = with(&|f| f.reading == Reading::Rule(Word::Wins) && !f.clear);
    let ties = with(&|f| f.reading == Reading::Rule(Word::Ties));
    let loses = with(&|f| f.reading == Reading::Rule(Word::Loses));
    let open = with(&|f| !matches!(f.reading, Reading::Rule(Word::Wins | Word::Ties | Word::Loses)));
    // A few losses by name, each with its %, more by kind.
    let named = |facts: &[&Fact]| -> String {
        match facts.len() {
            1 | 2 => facts
                .iter()
                .map(|f| match signed_share(f) {
                    Some(share) => format!("{}, {share}", f.name),
                    None => f.name.clone(),
                })
                .collect::<Vec<_>>()
                .join("; "),
            _ => kinds(facts),
        }
    };
    let clauses: Vec<String> = [
        (!ties.is_empty()).then(|| format!("*ties* on {} ({ties_rule}{})", rows(ties.len()), kinds(&ties))),
        (!small.is_empty()).then(|| format!("{wobble} {} ({})", rows(small.len()), kinds(&small))),
        (!loses.is_empty()).then(|| format!("costs more on {} ({})", rows(loses.len()), named(&loses))),
        (!open.is_empty()).then(|| {
            format!(
                "is not decided on {} ({})",
                rows(open.len()),
                undecided(&open, level)
            )
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!clauses.is_empty()).then(|| format!("It {}.", join_clauses(&clauses)))
}

/// The undecided rows, each by name (its own parentheses made a clause, as these rows are
/// listed inside parentheses) and why the rule left it open; at `level` 2, by name after
/// the word they share (else each with its word); at 3, or where more than 2, only the
/// word they share, the full verdict naming them. Never by kind: a kind's other rows may
/// read a decided word.
fn undecided(facts: &[&Fact], level: usize) -> String {
    let flat = |f: &Fact| match f.name.strip_suffix(')').and_then(|n| n.rsplit_once(" (")) {
        Some((row, aside)) => format!("{row}, {aside}"),
        None => f.name.clone(),
    };
    let shared = facts
        .iter()
        .all(|f| f.word == facts[0].word)
        .then(|| facts[0].word.clone());
    if level >= 3 || facts.len() > 2 {
        return match shared {
            Some(word) => format!("{word}; the full verdict names them"),
            None => "the full verdict names them".into(),
        };
    }
    let why = |f: &Fact| match f.reading {
        Reading::Rule(Word::Inconclusive) if level < 2 => {
            format!("{}, its rounds too far apart to tell", f.word)
        }
        Reading::FellBehind if level < 2 => "a server fell behind its rate".into(),
        _ => f.word.clone(),
    };
    match (level, shared) {
        (2, Some(word)) => format!(
            "{word}: {}",
            facts.iter().map(|f| flat(f)).collect::<Vec<_>>().join("; ")
        ),
        _ => facts
            .iter()
            .map(|f| format!("{}: {}", flat(f), why(f)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// "1 row", "6 rows".
fn rows(count: usize) -> String {
    match count {
        1 => "1 row".into(),
        _ => format!("{count} rows"),
    }
}

/// "a, b and c".
fn join_clauses(clauses: &[String]) -> String {
    match clauses.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}, and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: &'static str) -> Fact {
        Fact {
            name: kind.into(),
            kind,
            unit: Unit::CpuPerRequest,
            saved: Some(1.0),
            percent: Some(10.0),
            reading: Reading::Rule(Word::Wins),
            word: "*wins*".into(),
            clear: true,
            handler: None,
            baseline: Some(10.0),
            wakes: None,
        }
    }

    #[test]
    fn the_kinds_won_are_named_unless_all_or_all_but_one() {
        let facts: Vec<Fact> = ["files", "TLS", "round trips", "idle memory"].map(fact).into();
        let won = |n: usize| kinds_won(&facts.iter().take(n).collect::<Vec<_>>(), &facts);
        assert_eq!(won(4), "every kind of load measured");
        assert_eq!(won(3), "every kind of load measured but idle memory");
        assert_eq!(won(2), "files and TLS");
    }

    #[test]
    fn an_undecided_row_is_named_without_nested_parentheses_and_says_why() {
        let p99 = Fact {
            name: "keep-alive, small requests (p99 latency)".into(),
            reading: Reading::Rule(Word::Inconclusive),
            word: "*inconclusive*".into(),
            ..fact("kept-alive requests")
        };
        let client = Fact {
            name: "64 KiB echo".into(),
            reading: Reading::ClientBound,
            word: "*client-bound*".into(),
            ..fact("kept-alive requests")
        };
        assert_eq!(
            undecided(&[&p99, &client], 0),
            "keep-alive, small requests, p99 latency: *inconclusive*, its rounds too far apart \
             to tell; 64 KiB echo: *client-bound*"
        );
        // In fewer words: by name after the word they share, then the word alone.
        assert_eq!(
            undecided(&[&p99, &client], 2),
            "keep-alive, small requests, p99 latency: *inconclusive*; 64 KiB echo: *client-bound*"
        );
        assert_eq!(undecided(&[&p99, &client], 3), "the full verdict names them");
        let busy = Fact {
            name: "one busy-polled connection (server CPU)".into(),
            ..p99.clone()
        };
        assert_eq!(
            undecided(&[&p99, &busy], 2),
            "*inconclusive*: keep-alive, small requests, p99 latency; one busy-polled connection, \
             server CPU"
        );
        assert_eq!(
            undecided(&[&p99, &busy], 3),
            "*inconclusive*; the full verdict names them"
        );
    }
}

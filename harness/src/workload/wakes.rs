//! Whether a row's servers were mostly awake or woke for most requests, from the run's own
//! wake-up counts ([`super::samples::Sample::wakeups_per_request`]). A server that finds
//! a backlog each time it wakes (many connections, a high rate) pays a wake-up now and
//! then; one that sleeps between requests (one connection, a low rate) pays one per
//! request, and a wake-up costs what the machine makes it cost (`results/machines.md`,
//! the machine record's wake-up probe): those rows depend on the machine. The rule,
//! [`WAKES_PER_REQUEST`], is here alone; the verdict table shows it in each row's label.

use super::samples::WorkloadsReport;
use crate::rounds;

/// A server woke for most requests where it had at least this many wake-ups per request
/// (median over the rounds): half, since a request that finds its server asleep wakes it
/// once, and one that finds it awake not at all.
pub const WAKES_PER_REQUEST: f64 = 0.5;

/// How a row's servers met its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wakefulness {
    /// Every server compared had fewer than [`WAKES_PER_REQUEST`]: a backlog at each
    /// wake-up.
    MostlyAwake,
    /// Every one of them woke for most requests: the row depends on the machine's
    /// wake-up cost.
    WokePerRequest,
    /// Some of them woke for most requests and the others were mostly awake: the row
    /// depends on the machine's wake-up cost, for those that woke ([`WorkloadsReport::wake_word`]
    /// names them).
    SomeWoke,
}

impl Wakefulness {
    /// Of the servers' median wake-ups per request; `None` where none was counted.
    pub fn of(wakeups: &[f64]) -> Option<Wakefulness> {
        if wakeups.is_empty() {
            return None;
        }
        let woke = wakeups.iter().filter(|w| **w >= WAKES_PER_REQUEST).count();
        Some(match woke {
            0 => Wakefulness::MostlyAwake,
            n if n == wakeups.len() => Wakefulness::WokePerRequest,
            _ => Wakefulness::SomeWoke,
        })
    }

    /// The word without the servers' names ("only some woke for most requests" where they
    /// differ; [`WorkloadsReport::wake_word`] names them).
    pub fn describe(self) -> &'static str {
        match self {
            Wakefulness::MostlyAwake => "servers mostly awake",
            Wakefulness::WokePerRequest => "woke for most requests",
            Wakefulness::SomeWoke => "only some woke for most requests",
        }
    }
}

impl WorkloadsReport {
    /// Whether any of its rounds counted a server's wake-ups (a report from before they
    /// were counted has none).
    pub fn counted_wakeups(&self) -> bool {
        self.samples.iter().any(|s| s.wakeups_per_request.is_some())
    }

    /// The sentence under the verdict table: the rule, or that the run did not record
    /// wake-ups.
    pub fn wakes_sentence(&self) -> String {
        match self.counted_wakeups() {
            true => format!(
                "Each row's label says whether io_uring_server and the cheapest tokio \
                 configuration woke for most requests (at least {WAKES_PER_REQUEST} wake-ups, \
                 their threads' voluntary context switches, per request, the median over the \
                 rounds: such a row depends on what a wake-up costs on the machine, \
                 results/machines.md), were mostly awake, finding a backlog at each wake-up, \
                 or, where the two differ, which one woke for most requests."
            ),
            false => "Wake-ups per request: not recorded in this run.".into(),
        }
    }

    /// `contender`'s median wake-ups per request at `workload` over the rounds that
    /// counted them; `None` where none did.
    pub fn wakeups_per_request(&self, workload: &str, contender: &str) -> Option<f64> {
        let counted: Vec<f64> = self
            .samples
            .iter()
            .filter(|s| s.workload == workload && s.contender == contender)
            .filter_map(|s| s.wakeups_per_request)
            .collect();
        rounds::median(&counted)
    }

    /// Whether `workload`'s servers `contenders` (ids) were mostly awake, with each one's
    /// median wake-ups per request (by label); `None` where the run counted none.
    pub fn wakefulness(
        &self,
        workload: &str,
        contenders: &[(&str, &str)],
    ) -> Option<(Wakefulness, Vec<(String, f64)>)> {
        let each: Vec<(String, f64)> = contenders
            .iter()
            .filter_map(|(id, label)| Some((label.to_string(), self.wakeups_per_request(workload, id)?)))
            .collect();
        let figures: Vec<f64> = each.iter().map(|(_, w)| *w).collect();
        Some((Wakefulness::of(&figures)?, each))
    }

    /// "woke for most requests", "servers mostly awake", or where the servers differ
    /// "only io_uring_server woke for most requests": how `workload`'s servers `contenders`
    /// (ids, labels) met its requests, naming the ones that woke where not all did; `None`
    /// where the run counted none.
    pub fn wake_word(&self, workload: &str, contenders: &[(&str, &str)]) -> Option<String> {
        let (word, each) = self.wakefulness(workload, contenders)?;
        Some(named(word, &each))
    }

    /// "woke for most requests: io_uring_server 0.98, tokio_server (codec) 1.00 wake-ups
    /// per request" for a row's label ("only io_uring_server woke for most requests: ..."
    /// where the servers differ: [`Self::wake_word`]), or "wake-ups not recorded" in a run
    /// from before they were counted.
    pub fn wake_label(&self, workload: &str, contenders: &[(&str, &str)]) -> String {
        match self.wakefulness(workload, contenders) {
            Some((word, each)) => {
                let figures: Vec<String> = each.iter().map(|(label, w)| format!("{label} {w:.2}")).collect();
                format!(
                    "{}: {} wake-ups per request",
                    named(word, &each),
                    figures.join(", ")
                )
            }
            None => "wake-ups not recorded".into(),
        }
    }
}

/// `word` as a row says it, naming the servers of `each` (label, wake-ups per request)
/// that woke for most requests where only some did.
fn named(word: Wakefulness, each: &[(String, f64)]) -> String {
    match word {
        Wakefulness::SomeWoke => {
            let woke: Vec<&str> = each
                .iter()
                .filter(|(_, w)| *w >= WAKES_PER_REQUEST)
                .map(|(label, _)| label.as_str())
                .collect();
            format!("only {} woke for most requests", woke.join(" and "))
        }
        word => word.describe().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::samples::Sample;

    fn sample(workload: &str, contender: &str, round: usize, wakeups: Option<f64>) -> Sample {
        Sample {
            wakeups_per_request: wakeups,
            ..Sample::example(workload, contender, round, 1.0)
        }
    }

    #[test]
    fn a_row_woke_per_request_where_its_servers_did_half_the_time_or_more() {
        assert_eq!(Wakefulness::of(&[0.1, 0.49]), Some(Wakefulness::MostlyAwake));
        assert_eq!(Wakefulness::of(&[0.5, 1.0]), Some(Wakefulness::WokePerRequest));
        // One woke, the other did not: not the same as both waking.
        assert_eq!(Wakefulness::of(&[0.1, 0.5]), Some(Wakefulness::SomeWoke));
        assert_eq!(Wakefulness::of(&[]), None);
    }

    #[test]
    fn the_label_gives_each_servers_median_or_says_none_was_recorded() {
        let report = WorkloadsReport::over(vec![
            sample("one connection", "io_uring", 0, Some(0.9)),
            sample("one connection", "io_uring", 1, Some(1.1)),
            sample("one connection", "io_uring", 2, Some(1.0)),
            sample("one connection", "tokio_codec", 0, Some(0.2)),
            sample("keep-alive", "io_uring", 0, None),
        ]);
        let servers = [
            ("io_uring", "io_uring_server"),
            ("tokio_codec", "tokio_server (codec)"),
        ];
        // Only io_uring_server woke for most requests: the label names it, not "woke".
        assert_eq!(
            report.wake_label("one connection", &servers),
            "only io_uring_server woke for most requests: io_uring_server 1.00, \
             tokio_server (codec) 0.20 wake-ups per request"
        );
        assert_eq!(
            report.wake_word("one connection", &servers).as_deref(),
            Some("only io_uring_server woke for most requests")
        );
        assert_eq!(report.wake_label("keep-alive", &servers), "wake-ups not recorded");
        assert!(report.wakes_sentence().contains("at least 0.5 wake-ups"));
        let old = WorkloadsReport::over(vec![sample("keep-alive", "io_uring", 0, None)]);
        assert!(!old.counted_wakeups());
        assert_eq!(
            old.wakes_sentence(),
            "Wake-ups per request: not recorded in this run."
        );
    }
}

//! Progress of a long study run, fed by its own plan (so many points of so many seconds):
//! the estimate before it starts, then a bar with elapsed time and time left when stderr is
//! a terminal (`indicatif`), or one plain line per step when it is not (CI, a log file), so
//! logs stay readable. Time left is the steps left at the pace so far, or at the planned
//! pace before the first step ends.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress {
    tool: &'static str,
    total: usize,
    done: usize,
    planned_step: Duration,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A run of `total` steps of about `step` each (measurement plus start-up); prints
    /// the estimate at once.
    pub fn start(tool: &'static str, total: usize, step: Duration) -> Progress {
        eprintln!(
            "{tool}: {total} steps, about {} (estimated before starting)",
            minutes(step * total as u32)
        );
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            let style = ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} {elapsed_precise} elapsed, {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(tool);
            bar
        });
        Progress {
            tool,
            total,
            done: 0,
            planned_step: step,
            started: Instant::now(),
            bar,
        }
    }

    /// Step `what` begins.
    pub fn step(&mut self, what: &str) {
        let left = time_left(self.done, self.total, self.started.elapsed(), self.planned_step);
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.done as u64);
                bar.set_message(format!("about {} left: {what}", minutes(left)));
            }
            None => eprintln!(
                "{}: [{}/{}] {what} ({} elapsed, about {} left)",
                self.tool,
                self.done + 1,
                self.total,
                minutes(self.started.elapsed()),
                minutes(left)
            ),
        }
        self.done += 1;
    }

    /// `more` steps beyond the plan (a study that adds rounds where its cells are still
    /// undecided), with `why` said once.
    pub fn extend(&mut self, more: usize, why: &str) {
        self.total += more;
        if let Some(bar) = &self.bar {
            bar.set_length(self.total as u64);
        }
        self.note(&format!("{}: {why}: {more} more steps", self.tool));
    }

    /// A line that must stay readable above the bar.
    pub fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
        eprintln!("{}: done in {}", self.tool, minutes(self.started.elapsed()));
    }
}

/// Time left after `done` of `total` steps took `elapsed`: the steps left at the pace so
/// far, or at `planned` per step before any step has ended.
pub fn time_left(done: usize, total: usize, elapsed: Duration, planned: Duration) -> Duration {
    let left = total.saturating_sub(done) as u32;
    if done == 0 {
        return planned * left;
    }
    elapsed / done as u32 * left
}

/// "12 min", "45 s": a duration as a person reads an estimate.
pub fn minutes(d: Duration) -> String {
    let seconds = d.as_secs();
    if seconds < 90 {
        format!("{seconds} s")
    } else {
        format!("{} min", (seconds + 30) / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_follows_the_pace_once_there_is_one() {
        let s = Duration::from_secs;
        assert_eq!(time_left(0, 100, s(0), s(3)), s(300), "the plan before any step");
        assert_eq!(
            time_left(10, 100, s(40), s(3)),
            s(360),
            "4 s a step so far, 90 to go"
        );
        assert_eq!(time_left(100, 100, s(400), s(3)), s(0));
        assert_eq!(time_left(120, 100, s(400), s(3)), s(0), "more steps than planned");
    }

    #[test]
    fn estimates_read_as_seconds_then_minutes() {
        assert_eq!(minutes(Duration::from_secs(45)), "45 s");
        assert_eq!(minutes(Duration::from_secs(89)), "89 s");
        assert_eq!(minutes(Duration::from_secs(17 * 60 + 40)), "18 min");
    }
}

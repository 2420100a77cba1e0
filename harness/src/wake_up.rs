//! What a wake-up costs on this machine, recorded beside its CPU model in every run's
//! machine record: a ping-pong between the first two CPUs this process may use, as a
//! server and its client are pinned ([`crate::affinity`]), once with both sides asleep
//! between messages and once with both busy-polling ([`crate::ping_pong`]), and the idle
//! settings that decide much of the difference ([`crate::cpuidle`]). A request that finds
//! its server's CPU idle pays that wake-up; one that finds it awake does not, so rows
//! whose server mostly slept depend on it. `cargo run --release -p harness --bin wake_up`
//! prints it.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::affinity::CpuSet;
use crate::cpuidle::IdleSettings;
use crate::ping_pong::{self, Length, RoundTrips, Wait};

/// The wake-up cost measured on a machine, with its idle settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WakeUp {
    /// The echoing thread's CPU (where a server runs), then the pinging thread's.
    pub cpus: [usize; 2],
    /// Both sides sleep in a blocking read between messages.
    pub asleep: RoundTrips,
    /// Neither side sleeps: non-blocking reads in a loop.
    pub busy_polling: RoundTrips,
    /// The cpuidle driver and governor and the halt-polling settings.
    pub idle: IdleSettings,
}

impl WakeUp {
    /// Measures it now: about a second at [`ping_pong::DEFAULT_LENGTH`].
    pub fn measure(length: Length) -> Result<WakeUp, String> {
        // A study runs pinned to its client's CPU: then the machine's first two CPUs, where
        // its server and client are pinned.
        let mine = CpuSet::current();
        let candidates = if mine.0.len() >= 2 { mine } else { CpuSet::online() };
        let cpus = match candidates.0[..] {
            [server, client, ..] => [server, client],
            _ => return Err("a wake-up between CPUs needs two CPUs".into()),
        };
        Ok(WakeUp {
            cpus,
            asleep: ping_pong::run(cpus, Wait::Sleep, length)?,
            busy_polling: ping_pong::run(cpus, Wait::BusyPoll, length)?,
            idle: IdleSettings::read(),
        })
    }

    /// "17.3 µs round trip and 9.1 µs CPU asleep, 2.1 µs and 4.2 µs busy-polling, cpuidle
    /// haltpoll/haltpoll": the medians of the round trips, the CPU per round trip of both
    /// sides together, and the idle settings, in one phrase.
    pub fn describe(&self) -> String {
        format!(
            "{:.1} µs round trip and {:.1} µs CPU asleep, {:.1} µs and {:.1} µs busy-polling, {}",
            self.asleep.round_trip_us,
            self.asleep.cpu_per_round_trip_us,
            self.busy_polling.round_trip_us,
            self.busy_polling.cpu_per_round_trip_us,
            self.idle.describe(),
        )
    }

    /// A fixed wake-up for the reports' tests; never measured.
    pub fn example() -> WakeUp {
        let probe = |round_trip_us, cpu_per_round_trip_us| RoundTrips {
            round_trip_us,
            cpu_per_round_trip_us,
            measured: 20_000,
        };
        WakeUp {
            cpus: [0, 1],
            asleep: probe(17.26, 9.14),
            busy_polling: probe(2.07, 4.2),
            idle: IdleSettings {
                driver: Some("haltpoll".into()),
                governor: Some("haltpoll".into()),
                halt_poll: [("haltpoll.guest_halt_poll_ns".into(), "200000".into())].into(),
            },
        }
    }
}

/// This process's wake-up figures, measured the first time a machine record asks for them
/// and kept for the rest of the run; `None` (with a note on stderr) when they could not be
/// measured.
pub fn for_this_run() -> Option<WakeUp> {
    static MEASURED: OnceLock<Option<WakeUp>> = OnceLock::new();
    MEASURED
        .get_or_init(|| {
            WakeUp::measure(ping_pong::DEFAULT_LENGTH)
                .map_err(|e| eprintln!("wake-up not measured: {e}"))
                .ok()
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrase_gives_both_modes_to_a_tenth_of_a_microsecond_and_the_idle_driver() {
        assert_eq!(
            WakeUp::example().describe(),
            "17.3 µs round trip and 9.1 µs CPU asleep, 2.1 µs and 4.2 µs busy-polling, \
             cpuidle haltpoll/haltpoll"
        );
    }

    #[test]
    fn this_machine_measures_both_modes_on_two_cpus() {
        let length = Length {
            warm_up: 10,
            round_trips: 500,
            time_cap: std::time::Duration::from_millis(50),
        };
        let wake_up = WakeUp::measure(length).unwrap();
        assert_ne!(wake_up.cpus[0], wake_up.cpus[1]);
        for probe in [wake_up.asleep, wake_up.busy_polling] {
            assert!(probe.measured >= 1, "{wake_up:?}");
            assert!(probe.round_trip_us >= 0.1, "{wake_up:?}");
            assert!(probe.cpu_per_round_trip_us > 0.0, "{wake_up:?}");
        }
    }
}

//! The worker's once-a-second tick as a small state machine. The tick is re-armed after
//! each expiry until the worker stops it; a stop that races with an expiry (the cancel
//! finds nothing because the expiry is already on its way) still ends it, because an
//! expiry that arrives after the stop is never re-armed.

/// Where the tick's timeout operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// A timeout is in flight and will be re-armed when it expires.
    Armed,
    /// A cancel was submitted; the next completion of the timeout ends it.
    Cancelling,
    /// No timeout is in flight and none will be armed.
    Stopped,
}

impl Timer {
    /// The worker is done with the tick: says whether a cancel must be submitted.
    pub fn stop(&mut self) -> bool {
        let cancel = *self == Timer::Armed;
        if cancel {
            *self = Timer::Cancelling;
        }
        cancel
    }

    /// The timeout completed (expired or cancelled): says whether this was a tick to count
    /// and re-arm, or the end of the timer.
    pub fn on_completion(&mut self) -> bool {
        match self {
            Timer::Armed => true,
            Timer::Cancelling | Timer::Stopped => {
                *self = Timer::Stopped;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_re_arm_until_stopped() {
        let mut timer = Timer::Armed;
        assert!(timer.on_completion());
        assert!(timer.stop(), "the armed timeout needs a cancel");
        assert!(!timer.stop(), "one cancel is enough");
        assert!(!timer.on_completion(), "its cancelled completion ends it");
        assert_eq!(timer, Timer::Stopped);
    }

    /// The race: the tick expires just before the stop, so the cancel finds nothing. The
    /// expiry, handled after the stop, must not re-arm, or the worker never exits.
    #[test]
    fn an_expiry_racing_the_stop_ends_the_timer() {
        let mut timer = Timer::Armed;
        timer.stop();
        assert!(!timer.on_completion(), "the expiry is not re-armed");
        assert_eq!(timer, Timer::Stopped);
    }
}

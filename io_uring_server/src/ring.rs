//! The worker's io_uring instance and the one way entries reach it. A push never enters
//! the kernel, so it never blocks or spins: when the submission queue is full, the entry
//! waits in `parked`, in order, until the loop's next `enter`, which runs after the
//! provided buffers are published and submits them all. (Waiting for room inside a push
//! could wait forever: under SQPOLL the kernel thread stops consuming while completions
//! overflow, and only the loop, by reaping, can clear that.)

use std::collections::VecDeque;
use std::marker::PhantomData;

use io_uring::{IoUring, squeue, types};

use crate::ring_enter;

pub struct Ring {
    pub uring: IoUring,
    /// Entries that did not fit, oldest first; they go before any newer entry.
    parked: VecDeque<squeue::Entry>,
    /// The index the ring's own descriptor is registered at (`ring_enter.rs`), if it is:
    /// valid on the thread that registered it only.
    registered: Option<u32>,
    /// A registration belongs to the thread that made it, so the ring stays on it: built,
    /// entered and dropped by one worker thread (`worker::run`).
    _one_thread: PhantomData<*const ()>,
}

/// Gives the registered slot back before the ring's descriptor closes: the kernel holds a
/// reference to a registered ring until then (or until the thread exits), which would
/// keep the ring, and what it may still write, alive past its owner.
impl Drop for Ring {
    fn drop(&mut self) {
        if let Some(index) = self.registered.take() {
            ring_enter::unregister(&self.uring, index);
        }
    }
}

/// What to do about an `io_uring_enter` error.
#[derive(Debug, PartialEq, Eq)]
pub enum EnterError {
    /// Interrupted, or the kernel is short of memory or of completion-queue room for a
    /// moment: reap completions and enter again.
    Retry,
    /// The ring cannot be trusted any more; the message says why.
    Fatal(String),
}

impl Ring {
    /// With `register`, enters name the ring by a registered index (`ring_enter.rs`),
    /// where the kernel allows it (Linux 5.18) and the loop enters at all (not SQPOLL);
    /// [`Ring::registered`] says whether they do.
    pub fn new(uring: IoUring, register: bool) -> Ring {
        let sqpoll = uring.params().is_setup_sqpoll();
        let registered = (register && !sqpoll)
            .then(|| ring_enter::register(&uring).ok())
            .flatten();
        Ring {
            uring,
            parked: VecDeque::new(),
            registered,
            _one_thread: PhantomData,
        }
    }

    pub fn registered(&self) -> bool {
        self.registered.is_some()
    }

    /// Queues `entry` for the next submission (the loop's next [`Ring::enter`]).
    ///
    /// # Safety
    /// Every buffer `entry` points to must stay allocated, and must not be written by us
    /// (or read, for a receive) until the final completion of `entry`: the one without
    /// IORING_CQE_F_MORE. For a SEND_ZC that is its notification (IORING_CQE_F_NOTIF),
    /// which may come after the completion that counts the bytes sent: the kernel reads
    /// the bytes until then.
    pub unsafe fn push(&mut self, entry: squeue::Entry) {
        // SAFETY: forwarded from the caller.
        if !self.parked.is_empty() || unsafe { self.uring.submission().push(&entry) }.is_err() {
            self.parked.push_back(entry);
        }
    }

    /// Moves parked entries into the submission queue while there is room; says whether
    /// any are left.
    fn unpark(&mut self) -> bool {
        let mut queue = self.uring.submission();
        while let Some(entry) = self.parked.front() {
            // SAFETY: `push`'s caller guaranteed the entry's memory until its completion,
            // which cannot come before it is submitted.
            if unsafe { queue.push(entry) }.is_err() {
                return true;
            }
            self.parked.pop_front();
        }
        false
    }

    /// Submits everything queued and waits for `want` completions, up to `min_wait_us`
    /// (0: as long as it takes) before settling for what has come (with none, the kernel
    /// returns `ETIME`, retried like an interruption). Parked entries go first, in as
    /// many submissions as they need (under SQPOLL the kernel thread takes them as it
    /// can, and the rest wait for the next turn). Errors that leave the ring usable return,
    /// to be retried on the next turn; the others end the process.
    pub fn enter(&mut self, want: usize, min_wait_us: u32) {
        let sqpoll = self.uring.params().is_setup_sqpoll();
        while self.unpark() && !sqpoll {
            if let Err(error) = self.uring.submit() {
                return self.on_error(&error);
            }
        }
        let entered = match (min_wait_us, self.registered) {
            (0, Some(index)) => ring_enter::submit_and_wait(&mut self.uring, index, want),
            (0, None) => self.uring.submit_and_wait(want),
            (us, _) => {
                let args = types::SubmitArgs::new().min_wait_usec(us);
                self.uring.submitter().submit_with_args(want, &args)
            }
        };
        if let Err(error) = entered {
            self.on_error(&error);
        }
    }

    fn on_error(&self, error: &std::io::Error) {
        if let EnterError::Fatal(why) = enter_error(error) {
            fatal(&why);
        }
    }

    /// Entries waiting for room in the submission queue.
    #[cfg(test)]
    pub fn parked(&self) -> usize {
        self.parked.len()
    }
}

/// Classifies an `io_uring_enter` error.
pub fn enter_error(error: &std::io::Error) -> EnterError {
    match error.raw_os_error() {
        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY | libc::ETIME) => EnterError::Retry,
        Some(libc::EBADR) => EnterError::Fatal(
            "the kernel dropped completions (EBADR), so the operations in flight are no longer known".into(),
        ),
        _ => EnterError::Fatal(format!("io_uring_enter failed: {error}")),
    }
}

/// Ends the process with one line and status 70: the loop cannot go on safely, and
/// unwinding could free memory the kernel still owns (exit does not).
pub fn fatal(why: &str) -> ! {
    server_kit::log!("fatal: {why}");
    std::process::exit(70);
}

#[cfg(test)]
mod tests {
    use super::*;
    use io_uring::opcode;

    #[test]
    fn enter_errors_retry_or_stop_with_a_reason() {
        let error = std::io::Error::from_raw_os_error;
        for errno in [libc::EINTR, libc::EAGAIN, libc::EBUSY, libc::ETIME] {
            assert_eq!(enter_error(&error(errno)), EnterError::Retry, "errno {errno}");
        }
        let EnterError::Fatal(why) = enter_error(&error(libc::EBADR)) else {
            panic!("EBADR must be fatal");
        };
        assert!(why.contains("dropped completions"), "{why}");
        assert!(matches!(enter_error(&error(libc::EFAULT)), EnterError::Fatal(_)));
    }

    #[test]
    fn the_ring_is_registered_where_the_loop_enters_and_a_nop_completes_through_it() {
        let build = || {
            IoUring::builder()
                .build(8)
                .expect("io_uring works on the test machine")
        };
        let mut ring = Ring::new(build(), true);
        assert!(ring.registered(), "Linux 5.18 and later register the ring");
        assert!(!Ring::new(build(), false).registered());
        // SAFETY: a NOP names no memory.
        unsafe { ring.push(opcode::Nop::new().build().user_data(7)) };
        ring.enter(1, 0);
        let seen: Vec<u64> = ring.uring.completion().map(|cqe| cqe.user_data()).collect();
        assert_eq!(seen, [7]);
        let mut sqpoll = IoUring::builder();
        sqpoll.setup_sqpoll(100);
        let sqpoll = Ring::new(sqpoll.build(8).unwrap(), true);
        assert!(!sqpoll.registered(), "under SQPOLL the kernel thread submits");
    }

    /// 100 pushes into a queue of 8 entries, with and without SQPOLL: none blocks, the
    /// overflow waits in order, and the loop's turns submit every entry.
    #[test]
    fn a_full_submission_queue_parks_entries_until_the_loop_makes_room() {
        for sqpoll in [false, true] {
            let mut builder = IoUring::builder();
            if sqpoll {
                builder.setup_sqpoll(100);
            }
            let mut ring = Ring::new(
                builder.build(8).expect("io_uring works on the test machine"),
                true,
            );
            for i in 0..100u64 {
                // SAFETY: a no-op names no memory.
                unsafe { ring.push(opcode::Nop::new().build().user_data(i)) };
            }
            assert!(
                ring.parked() > 0,
                "a full queue parks without entering the kernel"
            );
            let mut seen = Vec::new();
            for _ in 0..1000 {
                if seen.len() == 100 {
                    break;
                }
                ring.enter(1, 0);
                seen.extend(ring.uring.completion().map(|c| c.user_data()));
            }
            assert_eq!(seen.len(), 100, "sqpoll {sqpoll}");
            if sqpoll {
                assert!(seen.is_sorted(), "parked entries keep their order");
            }
        }
    }
}

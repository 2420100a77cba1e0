//! Busy-polling (`--busy-poll`): the client waits for an answer without ever sleeping. A
//! future polled through [`spinning`] that is not ready wakes its own task at once, so the
//! client's thread never parks: the runtime polls it again after an `epoll_wait` with no
//! timeout, and the answer is read as soon as it lands, with no wake-up of the client on
//! the way. What the client then spends spinning is CPU, not latency.

use std::future::Future;

/// `future`, polled again and again until it is ready, never left waiting for a wake-up.
pub async fn spinning<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| {
        let polled = future.as_mut().poll(cx);
        if polled.is_pending() {
            cx.waker().wake_by_ref();
        }
        polled
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::Poll;
    use std::time::Duration;

    #[test]
    fn a_future_that_never_wakes_its_task_still_completes_when_spun() {
        // Ready once another thread sets the flag, which wakes nobody: only a poll finds it.
        let flag = Arc::new(AtomicBool::new(false));
        let setter = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            setter.store(true, Ordering::Relaxed);
        });
        let silent = std::future::poll_fn(|_| match flag.load(Ordering::Relaxed) {
            true => Poll::Ready(7),
            false => Poll::Pending,
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let answer =
            runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), spinning(silent)).await });
        assert_eq!(answer, Ok(7));
    }
}

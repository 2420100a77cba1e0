//! The thread clock's tests: deadlines kept, never early, in deadline order.

use super::*;

fn on_one_thread(test: impl Future<Output = ()>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tokio::task::LocalSet::new().block_on(&runtime, test);
}

#[test]
fn adding_carries_nanoseconds_into_seconds() {
    let time = Timespec {
        tv_sec: 5,
        tv_nsec: 999_999_000,
    };
    let sum = add(time, Duration::from_micros(1_500));
    assert_eq!((sum.tv_sec, sum.tv_nsec), (6, 1_499_000));
}

#[test]
fn wakes_at_the_deadline_never_before() {
    on_one_thread(async {
        let mut deadline = Deadline::new().unwrap();
        for micros in [300, 1_700, 0, 10] {
            let at = Instant::now() + Duration::from_micros(micros);
            deadline.wait_until(at).await.unwrap();
            assert!(Instant::now() >= at, "woke before a deadline {micros} µs ahead");
        }
    });
}

#[test]
fn many_tasks_leave_at_or_after_their_own_deadlines_in_deadline_order() {
    const TASKS: u32 = 300;
    on_one_thread(async {
        let start = Instant::now() + Duration::from_millis(50);
        let released = Rc::new(RefCell::new(Vec::new()));
        let mut tasks = tokio::task::JoinSet::new();
        for task in 0..TASKS {
            // Deadlines 7 µs apart, queued in a scrambled order.
            let at = start + Duration::from_micros(u64::from(task * 37 % TASKS) * 7);
            let released = released.clone();
            let mut deadline = Deadline::new().unwrap();
            tasks.spawn_local(async move {
                deadline.wait_until(at).await.unwrap();
                released.borrow_mut().push((at, Instant::now()));
            });
        }
        while let Some(ended) = tasks.join_next().await {
            ended.unwrap();
        }
        let released = released.borrow();
        assert_eq!(released.len(), TASKS as usize);
        for (at, left) in released.iter() {
            assert!(left >= at, "released {:?} before its deadline", *at - *left);
        }
        let deadlines: Vec<_> = released.iter().map(|(at, _)| *at).collect();
        assert!(deadlines.is_sorted(), "released out of deadline order");
    });
}

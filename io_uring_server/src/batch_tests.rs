//! The batcher against modelled clients: a server loop on a virtual clock, whose waits
//! end as the kernel's would (once `want` completions are in, else at the min-wait with
//! what has come, nothing included), and clients that send either after a round trip or on their own schedule.

use super::*;

const MIN_WAIT_US: u32 = 100;

/// When each client's next request reaches the server, in µs from the start.
struct Clients {
    next_arrival: Vec<Option<u64>>,
    /// A client answered at `t` sends again at `t + round_trip_us` (closed loop), or
    /// `None`: each client sends every `period_us` whatever we do (open loop).
    round_trip_us: Option<u64>,
    period_us: u64,
}

/// What the modelled server saw: every wait it made, with the time it was made, and the
/// requests each turn answered.
struct Trace {
    waits: Vec<(u64, usize, u32)>,
    answered: Vec<(u64, usize)>,
    requests: usize,
}

/// Runs the server loop for `run_us` of virtual time.
fn serve(batcher: &mut WaitBatcher, clients: &mut Clients, run_us: u64) -> Trace {
    let start = Instant::now();
    let at = |us: u64| start + Duration::from_micros(us);
    let mut trace = Trace {
        waits: Vec::new(),
        answered: Vec::new(),
        requests: 0,
    };
    let mut now = 0;
    let mut ready: Vec<usize> = Vec::new();
    while now < run_us {
        let mut sends = 0;
        for &client in &ready {
            batcher.on_data(client as u32, 1);
            batcher.on_send(client as u32, true);
            trace.requests += 1;
            sends += 1;
            clients.next_arrival[client] = match clients.round_trip_us {
                Some(round_trip) => Some(now + round_trip),
                None => clients.next_arrival[client],
            };
        }
        trace.answered.push((now, sends));
        let (want, min_wait) = batcher.next_wait(|| at(now));
        trace.waits.push((now, want, min_wait));
        // The sends complete at once; the wait ends at the `want`th completion, else at the
        // min-wait with whatever has come (nothing: ETIME, and the loop enters again).
        let mut arrivals: Vec<(u64, usize)> = clients
            .next_arrival
            .iter()
            .enumerate()
            .filter_map(|(client, t)| t.map(|t| (t.max(now), client)))
            .collect();
        arrivals.sort();
        let needed = want.saturating_sub(sends);
        let deadline = now + u64::from(min_wait);
        let ends = match (needed, arrivals.get(needed.saturating_sub(1))) {
            (0, _) => now,
            (_, Some(&(t, _))) if min_wait == 0 || t <= deadline => t,
            _ => deadline,
        };
        ready = arrivals
            .iter()
            .filter(|&&(t, _)| t <= ends)
            .map(|&(_, c)| c)
            .collect();
        for &client in &ready {
            clients.next_arrival[client] = match clients.round_trip_us {
                Some(_) => None,
                None => Some(clients.next_arrival[client].unwrap() + clients.period_us),
            };
        }
        batcher.on_woken(|| at(ends));
        now = ends.max(now + 1);
    }
    trace
}

fn closed_loop(clients: usize, round_trip_us: u64) -> Clients {
    Clients {
        next_arrival: (0..clients)
            .map(|c| Some(c as u64 * round_trip_us / clients as u64))
            .collect(),
        round_trip_us: Some(round_trip_us),
        period_us: 0,
    }
}

fn open_loop(clients: usize, period_us: u64) -> Clients {
    Clients {
        next_arrival: (0..clients)
            .map(|c| Some(c as u64 * period_us / clients as u64))
            .collect(),
        round_trip_us: None,
        period_us,
    }
}

fn batched(trace: &Trace) -> usize {
    trace
        .waits
        .iter()
        .filter(|&&(_, _, min_wait)| min_wait > 0)
        .count()
}

/// 1 to 64 keep-alive clients whose next request comes a round trip (30 µs, or 90 µs)
/// after their answer: each request can only come after an answer we just sent, so no
/// wait is ever held for one, at any count.
#[test]
fn round_trips_are_never_waited_for() {
    for clients in [1, 2, 4, 8, 16, 32, 64] {
        for round_trip in [30, 90] {
            let mut batcher = WaitBatcher::new(MIN_WAIT_US, Instant::now());
            let trace = serve(&mut batcher, &mut closed_loop(clients, round_trip), 20_000);
            // A connection's first request answers nothing of ours: the first window may
            // count those as independent.
            let held = trace.waits.iter().filter(|&&(t, _, wait)| t > 2_000 && wait > 0);
            assert_eq!(held.count(), 0, "{clients} clients, {round_trip} µs round trip");
            assert!(trace.requests > 20_000 / 91, "{clients} clients made progress");
        }
    }
}

/// 64 clients sending every 640 µs whatever we do (100k requests/s): after the first
/// windows, waits ask for their sends plus a batch of about 5 (half of what arrives in
/// the min-wait), and a turn answers more than 4 requests on average.
#[test]
fn independent_requests_are_batched() {
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, Instant::now());
    let trace = serve(&mut batcher, &mut open_loop(64, 640), 20_000);
    let late: Vec<_> = trace.waits.iter().filter(|&&(t, _, _)| t > 3_000).collect();
    assert!(
        late.iter().all(|&&(_, _, min_wait)| min_wait == MIN_WAIT_US),
        "{late:?}"
    );
    assert!(late.iter().all(|&&(_, want, _)| want >= ENGAGE_AT), "{late:?}");
    let answered: usize = trace
        .answered
        .iter()
        .filter(|&&(t, _)| t > 3_000)
        .map(|&(_, n)| n)
        .sum();
    assert!(
        late.len() * 4 < answered,
        "{} waits for {answered} requests",
        late.len()
    );
}

/// Many clients, each coming back long after its answer (256 clients with a 2 ms round
/// trip): those requests arrive whether we sleep or not, so they are batched.
#[test]
fn clients_that_come_back_after_the_wait_are_independent() {
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, Instant::now());
    let trace = serve(&mut batcher, &mut closed_loop(256, 2_000), 20_000);
    let summary: Vec<_> = trace.waits.iter().step_by(trace.waits.len() / 20).collect();
    assert!(
        batched(&trace) * 2 > trace.waits.len(),
        "most waits are batched: {} of {} ({} requests) {summary:?}",
        batched(&trace),
        trace.waits.len(),
        trace.requests
    );
}

/// A light open loop (8 clients every 4 ms: 2 requests per ms, 0.2 per min-wait) never
/// engages.
#[test]
fn light_load_waits_for_one_completion() {
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, Instant::now());
    let trace = serve(&mut batcher, &mut open_loop(8, 4_000), 20_000);
    assert_eq!(batched(&trace), 0);
}

/// Batched waits that last their whole min-wait (the timer ended them) make the batcher
/// sit out 1, 2, 4 ... windows; once its back-off has run out and its waits fill, it
/// stays engaged.
#[test]
fn waits_that_expire_short_back_off() {
    let start = Instant::now();
    let at = |ms: u64| start + Duration::from_micros(ms * 1000);
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, start);
    let mut engaged = Vec::new();
    for ms in 1..=40 {
        // 100 independent requests from 10 connections each window, and every batched
        // wait of the first 20 ms gets one completion.
        (0..10).for_each(|slot| batcher.on_data(slot, 10));
        let (_, min_wait) = batcher.next_wait(|| at(ms));
        engaged.push(min_wait > 0);
        let lasted = Duration::from_micros(if ms <= 20 { 100 } else { 30 });
        batcher.on_woken(|| at(ms) + lasted);
    }
    let on = |range: std::ops::Range<usize>| engaged[range].iter().filter(|&&e| e).count();
    assert!(on(1..20) < 10, "short waits back off: {engaged:?}");
    assert_eq!(on(37..40), 3, "filled waits stay engaged: {engaged:?}");
}

/// Eight clients doing 64 KiB POSTs back to back, 80 requests per ms in all (enough for
/// a batch of 4): each body arrives in a dozen receives, and each comes back a round trip
/// after its answer, so no batch is ever expected.
#[test]
fn clients_with_large_bodies_never_engage_batching() {
    let start = Instant::now();
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, start);
    for step in 1..=50u64 {
        let now = start + Duration::from_micros(step * 100);
        for client in 0..8 {
            (0..11).for_each(|_| batcher.on_data(client, 0));
            batcher.on_data(client, 1);
            batcher.on_send(client, true);
        }
        assert_eq!(batcher.next_wait(|| now), (1, 0), "at {step}");
    }
}

/// One connection pipelining hundreds of requests per millisecond is one connection: a
/// wait for more completions than it can produce would only add latency.
#[test]
fn the_batch_is_capped_by_the_connections_that_sent_data() {
    let start = Instant::now();
    let mut batcher = WaitBatcher::new(MIN_WAIT_US, start);
    for step in 1..=3 {
        batcher.on_data(0, 500);
        assert_eq!(batcher.next_wait(|| start + Duration::from_millis(step)), (1, 0));
    }
    for step in 4..=6 {
        (0..4).for_each(|slot| batcher.on_data(slot, 100));
        batcher.next_wait(|| start + Duration::from_millis(step));
    }
    batcher.on_send(9, false);
    assert_eq!(
        batcher.next_wait(|| start + Duration::from_millis(6)),
        (1 + 4, MIN_WAIT_US),
        "its own send plus one request from each of the 4"
    );
}

#[test]
fn zero_switches_batching_off() {
    let mut off = WaitBatcher::new(0, Instant::now());
    let trace = serve(&mut off, &mut open_loop(64, 640), 5_000);
    assert_eq!(batched(&trace), 0);
    assert!(trace.waits.iter().all(|&(_, want, _)| want == 1));
}

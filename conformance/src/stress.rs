//! Load-shaped checks for any server: many simultaneous connections, churn without fd
//! leaks, idle keep-alive connections held open, a large echo to a slow reader, a client
//! that never reads, and resets mid-request.
//! Each is bounded in count and time and ends with the server still answering.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use loadgen::idle::IdleConnections;
use loadgen::response::Expect;

use crate::tcp_table::held_connections;
use crate::wire::{Conn, probe};
use server_kit::ServerProcess;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: stress\r\n\r\n";

/// Raises this process's open-file soft limit to its hard limit, so a test can hold
/// thousands of sockets; servers started afterwards inherit it.
pub fn raise_fd_limit() {
    server_kit::fd_limit::raise_to_hard_limit();
}

/// Open descriptors of process `pid`. An unreadable /proc is an error, never 0, so a
/// leak check cannot pass by reading nothing.
pub fn fd_count(pid: u32) -> Result<usize, String> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map_err(|e| format!("cannot read /proc/{pid}/fd: {e}"))?;
    Ok(dir.count())
}

/// Resident memory of process `pid`, in KiB; an unreadable or unparsable /proc is an error.
pub fn rss_kib(pid: u32) -> Result<u64, String> {
    status_kib(pid, "VmRSS")
}

/// The `field` line of `/proc/PID/status` (`VmRSS`, `VmHWM`, ...) in KiB; an unreadable
/// or unparsable /proc is an error.
pub fn status_kib(pid: u32, field: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("cannot read /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// What a leak check compares before and after: the server's descriptors, and the
/// connections to it that it still holds according to the kernel's TCP table. The second
/// also sees io_uring direct descriptors, which never show in `/proc/PID/fd`.
pub fn held_resources(server: &ServerProcess) -> Result<(usize, usize), String> {
    Ok((fd_count(server.pid())?, held_connections(server.addr())?))
}

/// Waits up to 3 seconds for the server's descriptors and held connections to return to
/// `before` (tolerance 2 each); `what` names the work done, for the message.
pub fn expect_released(server: &ServerProcess, before: (usize, usize), what: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let after = held_resources(server)?;
        if after.0 <= before.0 + 2 && after.1 <= before.1 + 2 {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "descriptors {} -> {}, held connections {} -> {} after {what}",
                before.0, after.0, before.1, after.1
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `count` connections open at once, each sends a request, each gets its answer.
pub fn simultaneous_connections(addr: SocketAddr, count: usize) -> Result<(), String> {
    let mut conns: Vec<Conn> = (0..count).map(|_| Conn::connect(addr)).collect();
    for conn in &mut conns {
        conn.send(GET).map_err(|e| format!("send: {e}"))?;
    }
    expect_all_ok(&mut conns, "connection")
}

/// `count` keep-alive connections each make one request, then stay idle: every one is
/// answered, a fresh client is still served while they wait, and the server closes none
/// of them (well within its idle timeout).
pub fn idle_connections(addr: SocketAddr, count: usize) -> Result<(), String> {
    let expect = Expect {
        status: 200,
        body_len: Some(http_core::routes::HELLO.len()),
    };
    let idle = IdleConnections::open(addr, count, GET, expect)?;
    probe(addr).map_err(|e| format!("not serving beside {count} idle connections: {e}"))?;
    match idle.closed() {
        0 => Ok(()),
        closed => Err(format!("the server closed {closed} of {count} idle connections")),
    }
}

/// Reads the next answer on each of `conns`, each of which must be a 200; `name` says
/// what the connections are in a failure's message.
pub fn expect_all_ok(conns: &mut [Conn], name: &str) -> Result<(), String> {
    let count = conns.len();
    for (i, conn) in conns.iter_mut().enumerate() {
        let response = conn
            .response(false)
            .map_err(|e| format!("{name} {i} of {count}: {e}"))?;
        if response.status != 200 {
            return Err(format!("{name} {i} of {count}: status {}", response.status));
        }
    }
    Ok(())
}

/// `total` requests over short-lived connections (10 requests each) from 4 threads, a
/// tenth of the connections reset instead of closed, every answer a 200; afterwards the
/// server's descriptors and held connections return to where they started.
pub fn churn_without_fd_leak(server: &ServerProcess, total: usize) -> Result<(), String> {
    let addr = server.addr();
    let before = held_resources(server)?;
    let per_thread = total / 4;
    let workers: Vec<_> = (0..4)
        .map(|t| std::thread::spawn(move || churn(addr, per_thread, t)))
        .collect();
    for worker in workers {
        worker.join().map_err(|_| "churn thread panicked".to_string())??;
    }
    expect_released(server, before, &format!("{total} requests with churn"))
}

fn churn(addr: SocketAddr, requests: usize, seed: usize) -> Result<(), String> {
    for round in 0..requests / 10 {
        let mut conn = Conn::connect(addr);
        conn.send(&GET.repeat(10)).map_err(|e| e.to_string())?;
        for _ in 0..10 {
            let status = conn.response(false)?.status;
            if status != 200 {
                return Err(format!("churn: a request got {status}"));
            }
        }
        if (round + seed).is_multiple_of(10) {
            reset(conn.stream());
        }
    }
    Ok(())
}

/// Makes the coming close send RST instead of FIN (SO_LINGER with a zero timeout).
fn reset(stream: &TcpStream) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: setsockopt reads `linger` for the duration of the call only.
    unsafe {
        libc::setsockopt(
            std::os::fd::AsRawFd::as_raw_fd(stream),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

/// A body of `size` bytes echoed to a client that reads 16 KiB at a time with pauses,
/// so the server's sends come up short and must resume at the right byte.
pub fn large_echo_to_slow_reader(addr: SocketAddr, size: usize) -> Result<(), String> {
    let body: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let head = format!("POST /payload HTTP/1.1\r\nHost: s\r\nContent-Length: {size}\r\n\r\n");
    stream.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    stream.write_all(&body).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let mut received = Vec::with_capacity(size + 512);
    let mut chunk = vec![0u8; 16 * 1024];
    let mut reads = 0u32;
    while !received.ends_with(&body[size - 64..]) || received.len() < size {
        let n = stream
            .read(&mut chunk)
            .map_err(|e| format!("after {} bytes: {e}", received.len()))?;
        if n == 0 {
            return Err(format!("closed after {} bytes", received.len()));
        }
        received.extend_from_slice(&chunk[..n]);
        reads += 1;
        if reads.is_multiple_of(8) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let body_start = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no head")?
        + 4;
    if received[body_start..] == body[..] {
        Ok(())
    } else {
        Err(format!(
            "echo differs: {} bytes back for {size}",
            received.len() - body_start
        ))
    }
}

/// A client pipelines requests and never reads: the server must stop reading it rather
/// than buffer without bound, and keep serving others. Returns the RSS growth in KiB.
pub fn never_reading_client(server: &ServerProcess, limit_kib: u64) -> Result<u64, String> {
    let before = rss_kib(server.pid())?;
    let mut stream = TcpStream::connect(server.addr()).map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    let batch = GET.repeat(2048);
    let mut written = 0usize;
    let started = Instant::now();
    while written < 256 << 20 && started.elapsed() < Duration::from_secs(10) {
        match stream.write(&batch) {
            Ok(n) => written += n,
            Err(_) => break,
        }
    }
    probe(server.addr()).map_err(|e| format!("others not served while one client never reads: {e}"))?;
    let growth = rss_kib(server.pid())?.saturating_sub(before);
    if growth <= limit_kib {
        Ok(growth)
    } else {
        Err(format!(
            "RSS grew {growth} KiB (limit {limit_kib}) after {written} bytes unread"
        ))
    }
}

/// Resets in the middle of a head and of a body leave the server serving others.
pub fn reset_mid_request(addr: SocketAddr) -> Result<(), String> {
    let partials: [&[u8]; 2] = [
        b"GET / HTTP/1.1\r\nHost: s\r\nX-Partial: ",
        b"POST /payload HTTP/1.1\r\nHost: s\r\nContent-Length: 100\r\n\r\nonly some",
    ];
    for partial in partials {
        let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
        stream.write_all(partial).map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(20));
        reset(&stream);
        drop(stream);
        probe(addr)?;
    }
    Ok(())
}

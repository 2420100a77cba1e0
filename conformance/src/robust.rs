//! Hostile and unusual clients, for every server: oversized heads, a truncated body, a
//! slowloris crowd, descriptor exhaustion, and a soak with malformed traffic. Each check is
//! bounded in time and count and ends with the server still answering a fresh request.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::stress::{expect_all_ok, expect_released, held_resources, rss_kib};
use crate::wire::{Conn, probe};
use server_kit::ServerProcess;

/// Oversized requests get a 4xx or a close, never a 200, and the server keeps serving.
pub fn oversized_requests(addr: SocketAddr) -> Vec<String> {
    let huge_value = |n: usize| format!("GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(n));
    let cases = [
        ("64 KiB header", huge_value(64 << 10)),
        ("1 MiB header", huge_value(1 << 20)),
        (
            "1 MiB URI",
            format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "u".repeat(1 << 20)),
        ),
        (
            "10,000 headers",
            format!("GET / HTTP/1.1\r\nHost: x\r\n{}\r\n", "X-H: v\r\n".repeat(10_000)),
        ),
    ];
    let mut failures = Vec::new();
    for (name, request) in cases {
        let mut conn = Conn::connect(addr);
        let _ = conn.send(request.as_bytes());
        match conn.response(false) {
            Ok(response) if (400..500).contains(&response.status) => {}
            Ok(response) => failures.push(format!("{name}: answered {}", response.status)),
            Err(_) => {} // closed or reset without an answer: also a refusal
        }
        failures.extend(probe(addr).err().map(|e| format!("{name}: then {e}")));
    }
    failures
}

/// A body cut short by the client's FIN is never answered with a 2xx, and the server
/// closes its side.
pub fn truncated_body_then_fin(addr: SocketAddr) -> Result<(), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .write_all(b"POST /payload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b")
        .map_err(|e| e.to_string())?;
    stream.shutdown(Shutdown::Write).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) | Err(_) if answer.starts_with(b"HTTP/1.1 2") => {
            Err("a truncated body was answered with 2xx".into())
        }
        Ok(_) => probe(addr),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => probe(addr),
        Err(e) => Err(format!("the server did not close a truncated request: {e}")),
    }
}

/// `crowd` connections each send one byte of a never-ending head per second for
/// `seconds`; meanwhile fresh requests must keep being answered quickly.
pub fn slowloris(addr: SocketAddr, crowd: usize, seconds: u64) -> Result<(), String> {
    let slow: Vec<TcpStream> = (0..crowd).filter_map(|_| TcpStream::connect(addr).ok()).collect();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let trickle = std::thread::spawn(move || {
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ";
        let mut sent = 0;
        while Instant::now() < deadline {
            for mut stream in &slow {
                let _ = stream.write_all(&[*head.get(sent).unwrap_or(&b'a')]);
            }
            sent += 1;
            std::thread::sleep(Duration::from_secs(1));
        }
        slow
    });
    let mut slowest = Duration::ZERO;
    while Instant::now() < deadline {
        let start = Instant::now();
        probe(addr).map_err(|e| format!("while {crowd} clients trickle: {e}"))?;
        slowest = slowest.max(start.elapsed());
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(trickle.join());
    if slowest < Duration::from_secs(1) {
        Ok(())
    } else {
        Err(format!(
            "a fresh request took {slowest:?} while {crowd} clients trickled"
        ))
    }
}

/// Runs `binary args` with at most `limit` open descriptors, opens more connections than
/// that, and checks: the server keeps serving what it accepted, does not spin, and
/// answers the connections it could not accept once descriptors are free again.
pub fn descriptor_exhaustion(binary: &str, args: &[&str], limit: u64) -> Result<(), String> {
    let mut command = Command::new(binary);
    command.args(args);
    // SAFETY: runs between fork and exec; setrlimit is async-signal-safe and reads only
    // the struct on this stack frame.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let server = ServerProcess::spawn(command, format!("{binary} (RLIMIT_NOFILE={limit})"))?;
    let mut conns: Vec<Conn> = (0..limit as usize + 16)
        .map(|_| Conn::connect(server.addr()))
        .collect();
    for conn in &mut conns {
        conn.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .map_err(|e| e.to_string())?;
    }
    let cpu_before = cpu_ticks(server.pid())?;
    let (mut answered, mut waiting) = (Vec::new(), Vec::new());
    for mut conn in conns {
        conn.stream()
            .set_read_timeout(Some(Duration::from_millis(200)))
            .map_err(|e| e.to_string())?;
        match conn.response_within(Duration::from_millis(200)) {
            Ok(r) if r.status == 200 => answered.push(conn),
            _ => waiting.push(conn),
        }
    }
    let spun = cpu_ticks(server.pid())?.saturating_sub(cpu_before);
    if answered.len() < 8 || waiting.is_empty() {
        return Err(format!(
            "{} answered, {} waiting: the limit was not reached as planned",
            answered.len(),
            waiting.len()
        ));
    }
    if spun > 50 {
        return Err(format!(
            "the server burned {spun} CPU ticks while out of descriptors (busy loop?)"
        ));
    }
    drop(answered);
    expect_all_ok(&mut waiting, "waiting connection")?;
    drop(waiting);
    std::thread::sleep(Duration::from_millis(300));
    probe(server.addr())
}

/// utime + stime of process `pid`, in clock ticks; an unreadable /proc is an error.
fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("cannot read /proc/{pid}/stat: {e}"))?;
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line: 11 and 12 after the name.
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    match (field(11), field(12)) {
        (Some(utime), Some(stime)) => Ok(utime + stime),
        _ => Err(format!("unexpected /proc/{pid}/stat: {stat}")),
    }
}

/// `total` requests from 4 threads over connections of 10 requests each, one connection
/// in 20 ending with a malformed request (answered 400 and closed). Afterwards the
/// server's descriptors return to their starting count and its RSS grows by at most
/// `rss_limit_kib`.
pub fn soak(server: &ServerProcess, total: usize, rss_limit_kib: u64) -> Result<(), String> {
    let (addr, pid) = (server.addr(), server.pid());
    let (held_before, rss_before) = (held_resources(server)?, rss_kib(pid)?);
    let workers: Vec<_> = (0..4)
        .map(|t| std::thread::spawn(move || soak_lane(addr, total / 4, t)))
        .collect();
    for worker in workers {
        worker.join().map_err(|_| "soak thread panicked".to_string())??;
    }
    expect_released(server, held_before, &format!("a soak of {total} requests"))?;
    let growth = rss_kib(pid)?.saturating_sub(rss_before);
    if growth > rss_limit_kib {
        return Err(format!(
            "RSS grew {growth} KiB (limit {rss_limit_kib}) over {total} requests"
        ));
    }
    probe(addr)
}

fn soak_lane(addr: SocketAddr, requests: usize, lane: usize) -> Result<(), String> {
    const GOOD: &[u8] = b"GET / HTTP/1.1\r\nHost: soak\r\n\r\n";
    for round in 0..requests / 10 {
        let mut conn = Conn::connect(addr);
        let malformed = (round + lane).is_multiple_of(20);
        let good = if malformed { 9 } else { 10 };
        let mut batch = GOOD.repeat(good);
        if malformed {
            batch.extend_from_slice(b"GET / HTTP/1.1\r\nBad Header\r\n\r\n");
        }
        conn.send(&batch).map_err(|e| e.to_string())?;
        for _ in 0..good {
            let status = conn.response(false)?.status;
            if status != 200 {
                return Err(format!("soak: a good request got {status}"));
            }
        }
        if malformed {
            let refused = conn.response(false)?;
            if refused.status != 400 {
                return Err(format!("malformed request got {}", refused.status));
            }
        }
    }
    Ok(())
}

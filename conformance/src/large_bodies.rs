//! Large request bodies on one keep-alive connection, each with a small request pipelined
//! right behind it: every echo must come back byte for byte, and the small request after
//! it must still be answered. A server that switches how it receives for a large body
//! (and back) is checked across both switches and at sizes around its thresholds.

use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::wire::Conn;

/// Bodies sent in turn on one connection, with their chunk size if sent chunked: around
/// 64 KiB, a full 1 MiB, a tiny one after the large ones, one that arrives in several
/// reads, and large chunked ones.
const BODIES: [(usize, Option<usize>); 8] = [
    (70_000, None),
    (1 << 20, None),
    (100, None),
    (300_000, Some(512)),
    (300_000, None),
    (65_536, None),
    (200_000, Some(4096)),
    (1, None),
];

const FOLLOWER: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

pub fn large_bodies_keep_alive(to: &Endpoint) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    for (turn, (size, chunk)) in BODIES.into_iter().enumerate() {
        let body: Vec<u8> = (0..size).map(|i| ((i * 7 + turn) % 251) as u8).collect();
        let mut request = b"POST /payload HTTP/1.1\r\nHost: t\r\n".to_vec();
        match chunk {
            None => {
                request.extend_from_slice(format!("Content-Length: {size}\r\n\r\n").as_bytes());
                request.extend_from_slice(&body);
            }
            Some(chunk) => {
                request.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                for piece in body.chunks(chunk) {
                    request.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                    request.extend_from_slice(piece);
                    request.extend_from_slice(b"\r\n");
                }
                request.extend_from_slice(b"0\r\n\r\n");
            }
        }
        request.extend_from_slice(FOLLOWER);
        conn.send(&request)
            .map_err(|e| format!("large bodies: sending {size} B: {e}"))?;
        let echo = conn
            .response_within(Duration::from_secs(10))
            .map_err(|e| format!("large bodies: echo of {size} B: {e}"))?;
        if echo.status != 200 || echo.body != body {
            return Err(format!(
                "large bodies: echo of {size} B came back as {} with {} B{}",
                echo.status,
                echo.body.len(),
                if echo.body.len() == size {
                    " that differ"
                } else {
                    ""
                }
            ));
        }
        let follower = conn
            .response(false)
            .map_err(|e| format!("large bodies: GET after {size} B: {e}"))?;
        if follower.status != 200 {
            return Err(format!(
                "large bodies: GET after {size} B got {}",
                follower.status
            ));
        }
    }
    Ok(())
}

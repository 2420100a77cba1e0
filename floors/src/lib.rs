//! Floors, not contenders: three tiny servers that answer `GET /` as cheaply as their
//! stack allows, so the studies can put each engine's distance from its stack's floor
//! in a column. None of them is a server anyone should run: two do no HTTP parsing at
//! all, and none applies the contract's limits, timeouts or graceful shutdown.
//!
//! - `bare_hyper`: hyper 1.x's hello world, configured as its users write it, on a
//!   current-thread tokio runtime per thread (the floor of tokio_server's hyper engine);
//! - `bare_tokio`: a tokio loop that reads, counts complete requests by their `\r\n\r\n`
//!   ends and writes that many [`canned_hello`]s (the floor of the codec on tokio);
//! - `bare_uring`: the same counting over a plain io_uring loop, a multishot recv into a
//!   provided-buffer ring per connection (the floor of io_uring_server and the io_uring
//!   runtimes).
//!
//! All three take the flags the harness passes (`--addr`, `--threads`, and server_kit's
//! common flags, of which only `--threads` is used), print server_kit's ready line, and
//! listen with server_kit's SO_REUSEPORT group (TCP_NODELAY inherited by every accepted
//! socket), one listener per thread. SIGINT or SIGTERM ends the process at once.

pub mod cli;
pub mod request_ends;
pub mod tokio_floor;

pub use cli::Cli;
pub use request_ends::RequestEnds;

use http_core::response::{Persistence, render};
use http_core::routes::{RouteRequest, route};

/// The contract's answer to `GET /` (status, `Server`, `Date`, `Content-Type`,
/// `Content-Length` and `Hello, World!`), rendered once by http_core: the `Date` is the
/// time this is called and stays fixed for the process's life, the one liberty a floor
/// takes (loadgen checks status and body, not the date).
pub fn canned_hello() -> Vec<u8> {
    let reply = route(&RouteRequest {
        method: "GET",
        target: "/",
        content_type: None,
        body: &[],
    });
    let mut out = Vec::new();
    render(&reply, false, Persistence::KeepAlive, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canned_answer_is_the_contracts_hello() {
        let text = String::from_utf8(canned_hello()).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        for name in [
            "Server: ",
            "Date: ",
            "Content-Type: text/plain",
            "Content-Length: 13\r\n",
        ] {
            assert!(text.contains(name), "{name} missing: {text}");
        }
        assert!(text.ends_with("\r\n\r\nHello, World!"), "{text}");
    }
}

//! The one line a server prints on stdout once it accepts connections, and its parser:
//! tests and benchmarks read the address from it, so `--addr 127.0.0.1:0` works.

use std::net::SocketAddr;

const PREFIX: &str = "listening on http://";
const PREFIX_TLS: &str = "listening on https://";

/// `listening on http://ADDR (DETAILS)`.
pub fn ready_line(addr: SocketAddr, details: &str) -> String {
    format!("{PREFIX}{addr} ({details})")
}

/// Prints the [`ready_line`] on stdout.
pub fn announce(addr: SocketAddr, details: &str) {
    println!("{}", ready_line(addr, details));
}

/// Prints `listening on https://ADDR (DETAILS, TLS)` on stdout, TLS being
/// [`crate::tls::DESCRIPTION`].
pub fn announce_https(addr: SocketAddr, details: &str) {
    println!("{PREFIX_TLS}{addr} ({details}, {})", crate::tls::DESCRIPTION);
}

/// Parses the address back out of a [`ready_line`] (or an HTTPS one).
pub fn parse_ready_line(line: &str) -> Option<SocketAddr> {
    let rest = line
        .strip_prefix(PREFIX)
        .or_else(|| line.strip_prefix(PREFIX_TLS))?;
    rest.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_line_round_trips() {
        let addr: SocketAddr = "127.0.0.1:4321".parse().unwrap();
        let line = ready_line(addr, "engine=hyper, threads=2");
        assert_eq!(
            line,
            "listening on http://127.0.0.1:4321 (engine=hyper, threads=2)"
        );
        assert_eq!(parse_ready_line(&line), Some(addr));
        assert_eq!(parse_ready_line("something else"), None);
        let https = format!("listening on https://{addr} (engine=codec, tls=TLS1.3)");
        assert_eq!(parse_ready_line(&https), Some(addr));
    }
}

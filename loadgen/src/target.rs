//! Turns a URL like `http://127.0.0.1:8080/json` into an address and a pre-rendered request.

use std::net::{SocketAddr, ToSocketAddrs};

pub struct Target {
    pub addr: SocketAddr,
    pub request: Vec<u8>,
}

/// Parses a plain `http://host:port/path` URL (no TLS) and renders `GET path`.
pub fn parse(url: &str) -> Result<Target, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// URLs are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let with_port = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let addr = with_port
        .to_socket_addrs()
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority}: no address"))?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n").into_bytes();
    Ok(Target { addr, request })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_request_for_a_url() {
        let target = parse("http://127.0.0.1:8080/json").unwrap();
        assert_eq!(target.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(
            target.request,
            b"GET /json HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        );
        assert_eq!(
            parse("http://127.0.0.1:9").unwrap().request,
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n"
        );
        assert!(parse("https://x").is_err());
    }
}

//! Turns a URL like `http://127.0.0.1:8080/json` (or `https://`) into an address, the
//! host TLS would name, and a pre-rendered request:
//! a `GET`, or a `POST` of a patterned body sent with Content-Length or chunked, with
//! the body the workspace's contract answers it with (for `--check-body`): `/payload`'s
//! echo, or `/upload`'s receipt of the body's length and CRC32C. The body is rendered
//! once per run, into the request itself, however large (an upload of tens of MiB).

use std::net::{SocketAddr, ToSocketAddrs};

use http_core::routes::{OCTET_STREAM, RouteRequest, pattern_byte, route};

pub struct Target {
    pub addr: SocketAddr,
    /// `https://`: the connection speaks TLS.
    pub https: bool,
    /// The URL's host, without its port (what TLS names by default).
    pub host: String,
    pub request: Vec<u8>,
    /// The body http_core's routes answer this request with: what a server of this
    /// workspace must send back, byte for byte.
    pub contract_body: Vec<u8>,
}

/// The body the contract answers `method path` (with `body`, typed octet-stream) with.
fn contract_body(method: &str, path: &str, body: &[u8]) -> Vec<u8> {
    let request = RouteRequest {
        method,
        target: path,
        content_type: Some(OCTET_STREAM),
        body,
    };
    route(&request).body.as_bytes().to_vec()
}

/// Parses an `http://host:port/path` or `https://host:port/path` URL and renders
/// `GET path`.
pub fn parse(url: &str) -> Result<Target, String> {
    let (rest, https, default_port) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
        (Some(rest), _) => (rest, false, 80),
        (_, Some(rest)) => (rest, true, 443),
        _ => return Err(format!("{url}: only http:// and https:// URLs are supported")),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, with_port) = match authority.rsplit_once(':') {
        Some((host, _)) => (host, authority.to_string()),
        None => (authority, format!("{authority}:{default_port}")),
    };
    let addr = with_port
        .to_socket_addrs()
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority}: no address"))?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n").into_bytes();
    Ok(Target {
        addr,
        https,
        host: host.to_string(),
        request,
        contract_body: contract_body("GET", path, b""),
    })
}

/// A `POST` of `body_len` patterned bytes to `url`, framed by Content-Length, or with
/// `chunk` as chunks of that many bytes (the last one shorter). A Content-Length body is
/// written straight into the request, so it is held once, whatever its size.
pub fn post(url: &str, body_len: usize, chunk: Option<usize>) -> Result<Target, String> {
    let get = parse(url)?;
    let path = url
        .splitn(4, '/')
        .nth(3)
        .map_or("/".to_string(), |p| format!("/{p}"));
    let line_end = get.request.windows(2).position(|w| w == b"\r\n").unwrap_or(0);
    let request_line = String::from_utf8_lossy(&get.request[..line_end]).replacen("GET ", "POST ", 1);
    let host_and_end = &get.request[line_end..get.request.len() - 2];
    let mut request = Vec::with_capacity(get.request.len() + 96 + body_len);
    request.extend_from_slice(request_line.as_bytes());
    request.extend_from_slice(host_and_end);
    request.extend_from_slice(b"Content-Type: application/octet-stream\r\n");
    let contract_body = match chunk {
        None => {
            request.extend_from_slice(format!("Content-Length: {body_len}\r\n\r\n").as_bytes());
            let body_start = request.len();
            request.extend((0..body_len).map(pattern_byte));
            contract_body("POST", &path, &request[body_start..])
        }
        Some(size) => {
            let body: Vec<u8> = (0..body_len).map(pattern_byte).collect();
            request.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
            for piece in body.chunks(size.max(1)) {
                request.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                request.extend_from_slice(piece);
                request.extend_from_slice(b"\r\n");
            }
            request.extend_from_slice(b"0\r\n\r\n");
            contract_body("POST", &path, &body)
        }
    };
    Ok(Target {
        request,
        contract_body,
        ..get
    })
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
        assert!(!parse("http://127.0.0.1:9").unwrap().https);
        let https = parse("https://localhost:8443/json").unwrap();
        assert_eq!((https.https, https.host.as_str()), (true, "localhost"));
        assert_eq!(https.addr.port(), 8443);
        assert!(parse("ftp://x").is_err());
    }

    #[test]
    fn knows_the_body_the_contract_answers() {
        let bytes = parse("http://127.0.0.1:9/bytes/30").unwrap();
        assert_eq!(bytes.contract_body, b"abcdefghijklmnopqrstuvwxyzabcd");
        assert_eq!(
            parse("http://127.0.0.1:9").unwrap().contract_body,
            b"Hello, World!"
        );
        let echo = post("http://127.0.0.1:9/payload?x", 27, Some(5)).unwrap();
        assert_eq!(echo.contract_body, b"abcdefghijklmnopqrstuvwxyza");
    }

    #[test]
    fn an_upload_is_answered_with_its_length_and_crc32c() {
        // 0x364B3FB7: the CRC-32C (Castagnoli) of "abc", a published check value.
        let upload = post("http://127.0.0.1:9/upload", 3, None).unwrap();
        assert_eq!(upload.contract_body, br#"{"length":3,"crc32c":910901175}"#);
        assert!(upload.request.starts_with(b"POST /upload HTTP/1.1\r\n"));
        assert!(upload.request.ends_with(b"Content-Length: 3\r\n\r\nabc"));
        let chunked = post("http://127.0.0.1:9/upload", 3, Some(2)).unwrap();
        assert_eq!(
            chunked.contract_body, upload.contract_body,
            "the framing is no part of it"
        );
    }

    #[test]
    fn renders_posts_with_either_framing() {
        let plain = post("http://127.0.0.1:9/payload", 3, None).unwrap();
        assert_eq!(
            plain.request,
            b"POST /payload HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Type: application/octet-stream\r\nContent-Length: 3\r\n\r\nabc"
        );
        let chunked = post("http://127.0.0.1:9/payload", 5, Some(2)).unwrap();
        assert!(
            chunked
                .request
                .ends_with(b"Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n1\r\ne\r\n0\r\n\r\n")
        );
    }
}

//! Renders a [`Reply`] as HTTP/1.1 bytes, appending to a caller-owned [`Sink`] so that
//! pipelined responses leave in one write (a static body by reference, where the sink
//! keeps it so).

use crate::date::http_date;
use crate::error::reason;
use crate::output::Sink;
use crate::routes::{Body, Reply};

/// The `Server` header value of every server in this workspace.
pub const SERVER_NAME: &str = "uring-vs-tokio";

/// The interim response to `Expect: 100-continue`.
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// What the response says about the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// HTTP/1.1 default: no `Connection` header needed.
    KeepAlive,
    /// An HTTP/1.0 client asked for persistence: confirm with `Connection: keep-alive`.
    ConfirmKeepAlive,
    /// The server closes after this response: `Connection: close`.
    Close,
}

/// Appends the full response to `out`. For HEAD, `omit_body` keeps the headers of the GET
/// answer (Content-Length included) and drops the body (RFC 9110 section 9.3.2).
pub fn render(reply: &Reply, omit_body: bool, persistence: Persistence, out: &mut impl Sink) {
    let len = reply.body.as_bytes().len() as u64;
    render_head_with(
        reply.status,
        reply.content_type,
        len,
        reply.allow,
        persistence,
        out,
    );
    if !omit_body {
        match &reply.body {
            Body::Static(body) => out.push_static(body),
            Body::Borrowed(body) => out.push_borrowed(body),
            Body::Owned(body) => out.push(body),
        }
    }
}

/// Appends the head of a response whose body of `len` bytes the caller appends (or, for
/// HEAD, does not): a file's, read after its head is rendered.
pub fn render_head(
    status: u16,
    content_type: &[u8],
    len: u64,
    persistence: Persistence,
    out: &mut impl Sink,
) {
    render_head_with(status, content_type, len, None, persistence, out);
}

fn render_head_with(
    status: u16,
    content_type: &[u8],
    len: u64,
    allow: Option<&str>,
    persistence: Persistence,
    out: &mut impl Sink,
) {
    let mut status_digits = itoa::Buffer::new();
    let mut length = itoa::Buffer::new();
    let parts: [&[u8]; 11] = [
        b"HTTP/1.1 ",
        status_digits.format(status).as_bytes(),
        b" ",
        reason(status).as_bytes(),
        b"\r\nServer: ",
        SERVER_NAME.as_bytes(),
        b"\r\nDate: ",
        &http_date(),
        b"\r\nContent-Type: ",
        content_type,
        b"\r\nContent-Length: ",
    ];
    for part in parts {
        out.push(part);
    }
    out.push(length.format(len).as_bytes());
    if let Some(allow) = allow {
        out.push(b"\r\nAllow: ");
        out.push(allow.as_bytes());
    }
    out.push(match persistence {
        Persistence::KeepAlive => b"\r\n\r\n".as_slice(),
        Persistence::ConfirmKeepAlive => b"\r\nConnection: keep-alive\r\n\r\n",
        Persistence::Close => b"\r\nConnection: close\r\n\r\n",
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::{RouteRequest, plain_error, route};

    fn masked(out: &[u8]) -> String {
        let text = String::from_utf8(out.to_vec()).unwrap();
        let start = text.find("Date: ").unwrap() + 6;
        format!("{}<date>{}", &text[..start], &text[start + 29..])
    }

    #[test]
    fn renders_every_required_header() {
        let mut out = Vec::new();
        let request = RouteRequest {
            method: "GET",
            target: "/",
            content_type: None,
            body: b"",
        };
        render(&route(&request), false, Persistence::KeepAlive, &mut out);
        assert_eq!(
            masked(&out),
            "HTTP/1.1 200 OK\r\nServer: uring-vs-tokio\r\nDate: <date>\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nHello, World!"
        );
    }

    #[test]
    fn head_keeps_length_and_drops_body_and_close_is_announced() {
        let mut out = Vec::new();
        let request = RouteRequest {
            method: "HEAD",
            target: "/",
            content_type: None,
            body: b"",
        };
        render(&route(&request), true, Persistence::Close, &mut out);
        let text = masked(&out);
        assert!(
            text.ends_with("Content-Length: 13\r\nConnection: close\r\n\r\n"),
            "{text}"
        );
    }

    #[test]
    fn errors_carry_allow_and_reason_body() {
        let mut out = Vec::new();
        let request = RouteRequest {
            method: "PUT",
            target: "/",
            content_type: None,
            body: b"",
        };
        render(&route(&request), false, Persistence::ConfirmKeepAlive, &mut out);
        let text = masked(&out);
        assert!(text.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"), "{text}");
        assert!(
            text.contains("\r\nAllow: GET, HEAD\r\nConnection: keep-alive\r\n\r\nMethod Not Allowed"),
            "{text}"
        );
        out.clear();
        render(&plain_error(431), false, Persistence::Close, &mut out);
        assert!(
            masked(&out)
                .ends_with("Content-Length: 31\r\nConnection: close\r\n\r\nRequest Header Fields Too Large")
        );
    }
}

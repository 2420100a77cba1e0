//! The `POST /upload` rows of the [`crate::cases`] table, each compared with the codec's
//! own answer like every case: small uploads answered with their receipt (by
//! `Content-Length`, chunked with extensions and a trailer, empty, pipelined), other
//! methods 405 with `Allow: POST`, and a declared length over the default limit refused
//! at once. Large bodies, the limit set by flag and memory are checked in conversation:
//! [`crate::uploads`], [`crate::upload_limits`], [`crate::upload_memory`].

use http_core::limits::MAX_UPLOAD_BYTES;

use crate::case::{Case, case, get, req};

fn upload(headers: &str, body: &str) -> String {
    req("POST /upload HTTP/1.1", headers, body)
}

pub fn cases() -> Vec<Case> {
    let over = MAX_UPLOAD_BYTES + 1;
    vec![
        case(
            "upload_length",
            upload("Content-Length: 13\r\n", "Hello, World!"),
            &[200],
            false,
        ),
        case(
            "upload_chunked",
            upload(
                "Transfer-Encoding: chunked\r\n",
                "5\r\nHello\r\n2;ext=1\r\n, \r\n00006;flag\r\nWorld!\r\n0\r\nX-Trailer: t\r\n\r\n",
            ),
            &[200],
            false,
        ),
        case("upload_empty", upload("Content-Length: 0\r\n", ""), &[200], false),
        case("upload_without_framing", upload("", ""), &[200], false),
        case(
            "upload_with_query",
            req("POST /upload?name=x HTTP/1.1", "Content-Length: 3\r\n", "abc"),
            &[200],
            false,
        ),
        case(
            "upload_pipelined",
            format!(
                "{}{}{}",
                upload("Content-Length: 3\r\n", "abc"),
                upload("Transfer-Encoding: chunked\r\n", "1\r\nx\r\n0\r\n\r\n"),
                get("/")
            ),
            &[200, 200, 200],
            false,
        ),
        case(
            "upload_connection_close",
            upload("Connection: close\r\nContent-Length: 3\r\n", "abc"),
            &[200],
            true,
        ),
        case("get_upload_405", get("/upload"), &[405], false),
        case(
            "put_upload_405",
            req("PUT /upload HTTP/1.1", "Content-Length: 3\r\n", "abc"),
            &[405],
            false,
        ),
        Case {
            head: true,
            ..case(
                "head_upload_405",
                req("HEAD /upload HTTP/1.1", "", ""),
                &[405],
                false,
            )
        },
        case(
            "upload_over_limit_413",
            upload(&format!("Content-Length: {over}\r\n"), ""),
            &[413],
            true,
        ),
        case(
            "upload_expect_continue_over_limit_413",
            upload(&format!("Expect: 100-continue\r\nContent-Length: {over}\r\n"), ""),
            &[413],
            true,
        ),
    ]
}

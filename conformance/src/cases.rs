//! The contract as request bytes and the answers they must get. Each case is sent on a
//! fresh connection; the runner also compares every response with http_core's own codec.

use http_core::limits::{MAX_BODY_BYTES, MAX_HEAD_BYTES, MAX_HEADERS};
use http_core::routes::MAX_BYTES_BODY;

pub use crate::case::Case;
use crate::case::{case, get, req};

fn post(headers: &str, body: &str) -> String {
    req("POST /payload HTTP/1.1", headers, body)
}

pub fn all() -> Vec<Case> {
    let mut cases = routes();
    cases.extend(bytes());
    cases.extend(work());
    cases.extend(persistence());
    cases.extend(framing_errors());
    cases.extend(syntax_errors());
    cases.extend(limit_errors());
    cases.extend(crate::upload_cases::cases());
    cases
}

fn routes() -> Vec<Case> {
    vec![
        case("get_root", get("/"), &[200], false),
        case("get_root_with_query", get("/?a=1"), &[200], false),
        Case {
            head: true,
            ..case("head_root", req("HEAD / HTTP/1.1", "", ""), &[200], false)
        },
        case("get_json", get("/json"), &[200], false),
        Case {
            head: true,
            ..case("head_json", req("HEAD /json HTTP/1.1", "", ""), &[200], false)
        },
        case(
            "post_payload_length",
            post("Content-Type: text/x-test\r\nContent-Length: 5\r\n", "hello"),
            &[200],
            false,
        ),
        case(
            "post_payload_default_type",
            post("Content-Length: 3\r\n", "abc"),
            &[200],
            false,
        ),
        case(
            "post_payload_empty",
            post("Content-Length: 0\r\n", ""),
            &[200],
            false,
        ),
        case(
            "post_payload_chunked",
            post(
                "Transfer-Encoding: chunked\r\n",
                "5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\nTrailer: x\r\n\r\n",
            ),
            &[200],
            false,
        ),
        case("unknown_path_404", get("/missing"), &[404], false),
        case(
            "post_root_405",
            req("POST / HTTP/1.1", "Content-Length: 0\r\n", ""),
            &[405],
            false,
        ),
        case("get_payload_405", get("/payload"), &[405], false),
        case(
            "delete_json_405",
            req("DELETE /json HTTP/1.1", "", ""),
            &[405],
            false,
        ),
        case("leading_empty_line", format!("\r\n{}", get("/")), &[200], false),
    ]
}

/// `GET /work/{µs}`: `GET /`'s answer after the handler's work, 404 out of range.
fn work() -> Vec<Case> {
    let over = http_core::work::MAX_WORK_MICROS + 1;
    vec![
        case("get_work", get("/work/50"), &[200], false),
        case(
            "get_work_over_limit_404",
            get(&format!("/work/{over}")),
            &[404],
            false,
        ),
        case("get_work_malformed_404", get("/work/5x"), &[404], false),
    ]
}

/// `GET /bytes/{n}`: the patterned body in range, 404 outside it.
fn bytes() -> Vec<Case> {
    vec![
        case("get_bytes_small", get("/bytes/100"), &[200], false),
        case("get_bytes_zero", get("/bytes/0"), &[200], false),
        case(
            "get_bytes_limit",
            get(&format!("/bytes/{MAX_BYTES_BODY}")),
            &[200],
            false,
        ),
        case(
            "get_bytes_over_limit_404",
            get(&format!("/bytes/{}", MAX_BYTES_BODY + 1)),
            &[404],
            false,
        ),
        case("get_bytes_malformed_404", get("/bytes/12a"), &[404], false),
        Case {
            head: true,
            ..case(
                "head_bytes_limit",
                req(&format!("HEAD /bytes/{MAX_BYTES_BODY} HTTP/1.1"), "", ""),
                &[200],
                false,
            )
        },
        case(
            "pipelined_bytes",
            format!("{}{}{}", get("/bytes/65536"), get("/"), get("/bytes/20000")),
            &[200, 200, 200],
            false,
        ),
    ]
}

fn persistence() -> Vec<Case> {
    let sixteen: String = (0..16)
        .map(|i| match i % 3 {
            0 => get("/"),
            1 => get("/json"),
            _ => post("Content-Length: 2\r\n", "hi"),
        })
        .collect();
    vec![
        case("pipelined_16", sixteen, &[200; 16], false),
        case("http10_closes", "GET / HTTP/1.0\r\n\r\n", &[200], true),
        case(
            "http10_keep_alive",
            "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            &[200],
            false,
        ),
        case(
            "connection_close",
            req("GET / HTTP/1.1", "Connection: close\r\n", ""),
            &[200],
            true,
        ),
        case(
            "nothing_after_connection_close",
            format!(
                "{}{}",
                req("GET / HTTP/1.1", "Connection: close\r\n", ""),
                get("/")
            ),
            &[200],
            true,
        ),
        case(
            "error_ends_a_pipeline",
            format!("{}GET / HTTP/1.1\r\n\r\n{}", get("/"), get("/")),
            &[200, 400],
            true,
        ),
    ]
}

fn framing_errors() -> Vec<Case> {
    let bad_length = |name, value: &str| {
        case(
            name,
            post(&format!("Content-Length: {value}\r\n"), "abc"),
            &[400],
            true,
        )
    };
    vec![
        case("missing_host", "GET / HTTP/1.1\r\n\r\n", &[400], true),
        case(
            "duplicate_host",
            req("GET / HTTP/1.1", "Host: other\r\n", ""),
            &[400],
            true,
        ),
        bad_length("content_length_negative", "-3"),
        bad_length("content_length_not_a_number", "abc"),
        bad_length("content_length_plus_sign", "+3"),
        bad_length("content_length_overflow", "184467440737095516160"),
        bad_length("content_length_differing_list", "3, 4"),
        case(
            "content_length_duplicated_differing",
            post("Content-Length: 3\r\nContent-Length: 4\r\n", "abcd"),
            &[400],
            true,
        ),
        case(
            "content_length_duplicated_same",
            post("Content-Length: 3\r\nContent-Length: 3\r\n", "abc"),
            &[200],
            false,
        ),
        case(
            "content_length_with_transfer_encoding",
            post(
                "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
                "3\r\nabc\r\n0\r\n\r\n",
            ),
            &[400],
            true,
        ),
        case(
            "transfer_encoding_gzip",
            post("Transfer-Encoding: gzip\r\n", ""),
            &[501],
            true,
        ),
        case(
            "chunked_not_last",
            post("Transfer-Encoding: chunked, gzip\r\n", ""),
            &[400],
            true,
        ),
        case(
            "transfer_encoding_in_http10",
            "POST /payload HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            &[400],
            true,
        ),
        case(
            "chunk_size_invalid",
            post("Transfer-Encoding: chunked\r\n", "xyz\r\nabc\r\n0\r\n\r\n"),
            &[400],
            true,
        ),
        case(
            "chunk_size_overflow",
            post("Transfer-Encoding: chunked\r\n", "1ffffffffffffffff\r\nab\r\n"),
            &[400],
            true,
        ),
        case(
            "chunk_data_too_long",
            post("Transfer-Encoding: chunked\r\n", "2\r\nabc\r\n0\r\n\r\n"),
            &[400],
            true,
        ),
    ]
}

fn syntax_errors() -> Vec<Case> {
    vec![
        case(
            "malformed_request_line",
            "GET/HTTP/1.1\r\nHost: test\r\n\r\n",
            &[400],
            true,
        ),
        case(
            "malformed_method",
            "G@T / HTTP/1.1\r\nHost: test\r\n\r\n",
            &[400],
            true,
        ),
        case(
            "http_major_version_2",
            "GET / HTTP/2.0\r\nHost: test\r\n\r\n",
            &[505],
            true,
        ),
        case(
            "obs_fold",
            req("GET / HTTP/1.1", "X-A: 1\r\n folded\r\n", ""),
            &[400],
            true,
        ),
        case(
            "space_before_colon",
            req("GET / HTTP/1.1", "X-A : 1\r\n", ""),
            &[400],
            true,
        ),
        case(
            "nul_in_value",
            req("GET / HTTP/1.1", "X-A: a\0b\r\n", ""),
            &[400],
            true,
        ),
        case(
            "cr_in_value",
            req("GET / HTTP/1.1", "X-A: a\rb\r\n", ""),
            &[400],
            true,
        ),
        case(
            "control_in_name",
            req("GET / HTTP/1.1", "X\x01A: 1\r\n", ""),
            &[400],
            true,
        ),
    ]
}

fn limit_errors() -> Vec<Case> {
    let many_headers = "X-H: v\r\n".repeat(MAX_HEADERS);
    let big_header = format!("X-Big: {}\r\n", "a".repeat(MAX_HEAD_BYTES));
    let long_uri = format!("/{}", "u".repeat(MAX_HEAD_BYTES));
    let over = MAX_BODY_BYTES + 1;
    let chunk = format!(
        "{:x}\r\n{}\r\n",
        MAX_BODY_BYTES / 2 + 1,
        "c".repeat(MAX_BODY_BYTES / 2 + 1)
    );
    vec![
        case(
            "too_many_headers_431",
            req("GET / HTTP/1.1", &many_headers, ""),
            &[431],
            true,
        ),
        case(
            "head_too_large_431",
            req("GET / HTTP/1.1", &big_header, ""),
            &[431],
            true,
        ),
        case("uri_too_long_414", get(&long_uri), &[414], true),
        case(
            "body_too_large_413",
            post(&format!("Content-Length: {over}\r\n"), ""),
            &[413],
            true,
        ),
        case(
            "chunked_body_too_large_413",
            post("Transfer-Encoding: chunked\r\n", &chunk.repeat(2)),
            &[413],
            true,
        ),
        case(
            "expect_continue_over_limit_413",
            post(&format!("Expect: 100-continue\r\nContent-Length: {over}\r\n"), ""),
            &[413],
            true,
        ),
    ]
}

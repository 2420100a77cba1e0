//! The conformance suite against the three engines of tokio_server.

use conformance::Deviation;

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

/// hyper answers a request it cannot parse itself, before our service sees it: the
/// status is right and the connection closes, but the answer has no body and carries only
/// `Connection`, `Content-Length` and `Date`.
const HYPER_OWN_ERROR: &str = "hyper answers its own parse errors (no Server, Content-Type or body)";

const fn own_error(case: &'static str, status: u16) -> Deviation {
    Deviation {
        case,
        status,
        why: HYPER_OWN_ERROR,
    }
}

/// Where hyper refuses a request itself, before our service sees it, with its own answer.
const HYPER_DEVIATIONS: &[Deviation] = &[
    Deviation {
        case: "content_length_with_transfer_encoding",
        status: 200,
        why: "hyper drops Content-Length, decodes the chunked body and closes afterwards, \
              which RFC 9112 section 6.3 allows; the codec refuses with 400",
    },
    Deviation {
        case: "transfer_encoding_gzip",
        status: 400,
        why: "hyper refuses a non-chunked coding itself, with 400 rather than 501",
    },
    own_error("content_length_negative", 400),
    own_error("content_length_not_a_number", 400),
    own_error("content_length_plus_sign", 400),
    own_error("content_length_overflow", 400),
    own_error("content_length_differing_list", 400),
    own_error("content_length_duplicated_differing", 400),
    own_error("chunked_not_last", 400),
    own_error("transfer_encoding_in_http10", 400),
    own_error("malformed_request_line", 400),
    own_error("malformed_method", 400),
    Deviation {
        case: "http_major_version_2",
        status: 400,
        why: "hyper answers HTTP/2.0 on an HTTP/1 connection with its own 400, not 505",
    },
    own_error("obs_fold", 400),
    own_error("space_before_colon", 400),
    own_error("nul_in_value", 400),
    own_error("cr_in_value", 400),
    own_error("control_in_name", 400),
    own_error("head_too_large_431", 431),
    Deviation {
        case: "uri_too_long_414",
        status: 431,
        why: "hyper answers its own parse errors, and a request line over the head limit gets 431, not 414",
    },
];

#[test]
fn codec_engine_conforms() {
    conformance::check_server(BIN, &["--engine", "codec"], &[]);
}

#[test]
fn hyper_engine_conforms() {
    conformance::check_server(BIN, &["--engine", "hyper"], HYPER_DEVIATIONS);
}

#[test]
fn codec_engine_flags_and_startup_errors() {
    conformance::check_flags(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_flags_and_startup_errors() {
    conformance::check_flags(BIN, &["--engine", "hyper"]);
}

#[test]
fn shared_buffer_codec_engine_conforms() {
    conformance::check_server(BIN, &["--engine", "codec-shared"], &[]);
}

#[test]
fn shared_buffer_codec_engine_flags_and_startup_errors() {
    conformance::check_flags(BIN, &["--engine", "codec-shared"]);
}

#[test]
fn hyper_engine_on_the_multi_thread_scheduler_conforms() {
    conformance::check_server(BIN, &["--engine", "hyper", "--multi-thread"], HYPER_DEVIATIONS);
}

#[test]
fn codec_engine_conforms_over_tls() {
    conformance::check_tls(BIN, &["--engine", "codec"], &[]);
}

#[test]
fn hyper_engine_conforms_over_tls() {
    conformance::check_tls(BIN, &["--engine", "hyper"], HYPER_DEVIATIONS);
}

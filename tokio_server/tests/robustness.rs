//! The robustness suite (hostile clients, exhaustion, soak, pipelined floods that never read) for the three tokio engines.

const BIN: &str = env!("CARGO_BIN_EXE_tokio_server");

#[test]
fn codec_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "codec"]);
}

#[test]
fn hyper_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "hyper"]);
}

#[test]
fn shared_buffer_codec_engine_is_robust() {
    conformance::check_robustness(BIN, &["--engine", "codec-shared"]);
}

#[test]
fn pipelined_floods_that_never_read_stay_bounded_on_every_engine() {
    // codec-shared serves plain HTTP only.
    for (engine, over_tls) in [("codec", true), ("hyper", true), ("codec-shared", false)] {
        conformance::check_floods(BIN, &["--engine", engine], over_tls);
    }
}

//! Flag sets the io_uring_server test suites share.

/// Every io_uring feature switched off: single accept, plain recv into per-connection
/// buffers, no DEFER_TASKRUN, no batched waits. The baseline of the ablation.
pub const EVERY_FEATURE_OFF: [&str; 8] = [
    "--no-multishot-accept",
    "--no-sendfile",
    "--no-registered-ring",
    "--sq-array",
    "--no-multishot-recv",
    "--no-defer-taskrun",
    "--batch-wait-us",
    "0",
];

//! The category table: which kind of work one CPU sample of a server was doing, decided
//! from the symbols of its stack.
//!
//! How a sample is classified: its frames are walked **from the leaf up** (the function
//! the CPU was in, then its caller, ...); for each frame the [`RULES`] are tried **in
//! order**, and the first rule with a matching pattern names the category. A sample none of
//! whose frames match is [`Category::Other`]. So a copy or an allocation counts as such
//! wherever it happens, and a frame without a rule of its own (a spin unlock, a slab free)
//! is charged to the nearest caller that has one (the TCP receive path, a wake-up).
//!
//! A pattern is `name` (the whole frame), `name*` (the frame starts with it), `*name`
//! (it ends with it) or `*name*` (it contains it). Frames are compared without a leading `<` or `&` (Rust trait
//! impls: `<tokio_util::..TrackedFuture<F> as Future>::poll` starts with `tokio_util::`)
//! and, for kernel and C symbols, without a compiler suffix (`do_softirq.part.0`).
//!
//! User-space stacks come without frame pointers here (release builds omit them), so a
//! user-space sample is usually classified by its leaf function alone; what the compiler
//! inlines of `http_core` into the server's loop (its generic and `#[inline]` code: the
//! servers are built without cross-crate LTO) counts as the loop.

/// How many categories there are.
pub const COUNT: usize = 14;

/// What a sample of the server's CPU was spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// HTTP parsing and rendering: `http_core`, httparse, and hyper's own HTTP code.
    Http,
    /// TLS: rustls, the crypto provider (aws-lc: AES-GCM, key exchange, hashes) and each
    /// server's rustls adapter (tokio-rustls, monoio-rustls, compio's tls,
    /// io_uring_server's `tls_session`).
    Crypto,
    /// The rest of the server's user-space code: its loop, the async runtime (tokio,
    /// tokio-uring, monoio, compio: its tasks and its driver above the io-uring crate),
    /// Rust's standard library.
    ServerLoop,
    /// malloc, free and Rust's allocator entry points.
    Allocation,
    /// Entering and leaving the kernel, and looking up the file of a descriptor.
    Syscall,
    /// The kernel's io_uring (submission, completion, its ops) and the io-uring crate.
    IoUring,
    /// epoll and socket readiness, tokio's I/O driver and mio.
    Epoll,
    /// TCP and IP sending, down to the loopback device.
    TcpSend,
    /// TCP and IP receiving, the network softirq, freeing what was received or acked.
    TcpReceive,
    /// Accepting, closing and tearing down connections (TCP state changes, socket release).
    TcpConnection,
    /// Opening, stat-ing and reading files: path lookup, the VFS, the page cache, the file
    /// system and, for cold files, the block layer; and tokio's `fs` with its blocking pool
    /// (the code that hands file calls to a thread, where no deeper frame says more).
    Files,
    /// The scheduler, context switches, and waking a waiting task.
    Scheduler,
    /// Copying bytes: between user and kernel memory, memcpy and memmove.
    Copies,
    /// Everything else (timers, interrupts, clock reads, perf itself).
    Other,
}

impl Category {
    /// Every category, in the order the reports list them.
    pub const ALL: [Category; COUNT] = [
        Category::Http,
        Category::Crypto,
        Category::ServerLoop,
        Category::Allocation,
        Category::Syscall,
        Category::IoUring,
        Category::Epoll,
        Category::TcpSend,
        Category::TcpReceive,
        Category::TcpConnection,
        Category::Files,
        Category::Scheduler,
        Category::Copies,
        Category::Other,
    ];

    /// How the reports name it.
    pub fn label(self) -> &'static str {
        match self {
            Category::Http => "HTTP code",
            Category::Crypto => "crypto (rustls, aws-lc)",
            Category::ServerLoop => "server's own loop",
            Category::Allocation => "allocation",
            Category::Syscall => "syscall entry/exit",
            Category::IoUring => "io_uring core",
            Category::Epoll => "epoll/readiness",
            Category::TcpSend => "TCP send",
            Category::TcpReceive => "TCP receive and softirq",
            Category::TcpConnection => "TCP accept and close",
            Category::Files => "files (open, stat, page cache)",
            Category::Scheduler => "scheduler and wake-ups",
            Category::Copies => "copies",
            Category::Other => "other",
        }
    }

    /// Its index in [`Category::ALL`].
    pub fn index(self) -> usize {
        Category::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }
}

/// The table, tried in order for each frame; the first matching rule wins. A category may
/// have several rules (the server crates are named before `io_*`, which they also match).
#[rustfmt::skip]
pub const RULES: &[(Category, &[&str])] = &[
    (Category::Copies, &[
        "copy_user*", "copy_to_user*", "copy_from_user*", "_copy_to_iter", "_copy_from_iter",
        "_copy_*", "__copy_*", "*memcpy*", "*memmove*", "rep_movs*", "simple_copy_to_iter",
        "skb_copy_datagram*", "__skb_datagram_iter", "copy_page*",
    ]),
    (Category::Allocation, &[
        "malloc", "free", "realloc", "calloc", "cfree", "__libc_malloc", "__libc_free",
        "__libc_realloc", "__libc_calloc", "_int_malloc", "_int_free*", "_int_realloc",
        "malloc_consolidate", "unlink_chunk", "tcache_*", "__rust_alloc*", "__rust_dealloc",
        "__rust_realloc", "__rdl_*", "alloc::raw_vec::*", "alloc::alloc::*",
    ]),
    (Category::Http, &[
        "http_core::*", "httparse::*", "httpdate::*", "hyper::*", "itoa::*",
    ]),
    (Category::Crypto, &[
        "rustls::*", "rustls_pki_types::*", "aws_lc_rs::*", "tokio_rustls::*",
        "monoio_rustls::*", "compio_tls::*", "io_uring_server::tls_session::*", "aws_lc*",
        "AWS_LC*", "_aesni*", "__aesni*", "aesni_*", "aes_*", "_vpaes*", "vpaes_*", "aead_*",
        "gcm_*", "*ghash*", "ecp_nistz256*", "__ecp_nistz256*", "Lcurve25519*", "Lp256*",
        "Lp384*", "Lp521*", "Ledwards25519*", "Lmld*", "Lbignum*", "x25519*", "mlkem*",
        "ml_kem*", "sha256_block*", "sha512_block*", "KeccakF1600*", "keccak*", "bn_*", "fiat_*",
        "pkey_*",
    ]),
    (Category::ServerLoop, &[
        "io_uring_server::*", "tokio_server::*", "tokio_uring_server::*", "monoio_server::*",
        "compio_server::*", "server_kit::*",
    ]),
    (Category::IoUring, &[
        "io_*", "__io_*", "*sys_io_uring*", "io_uring::*",
    ]),
    (Category::Epoll, &[
        "ep_*", "*epoll*", "sock_poll", "tcp_poll", "__pollwait", "mio::*", "tokio::runtime::io::*",
    ]),
    (Category::Scheduler, &[
        "schedule*", "__schedule", "finish_task_switch", "try_to_wake_up", "__wake_up*", "wake_up*",
        "autoremove_wake_function", "default_wake_function", "ttwu_*", "sock_def_readable",
        "sock_def_write_space", "sk_stream_write_space", "enqueue_task*", "dequeue_task*",
        "pick_next_task*", "put_prev_task*", "update_curr*", "select_task_rq*", "psi_*",
        "asm_sysvec_reschedule_ipi", "sysvec_reschedule_ipi", "__sched_yield", "do_sched_yield",
        "sched_yield",
    ]),
    (Category::TcpConnection, &[
        "tcp_close", "__tcp_close", "tcp_shutdown", "inet_shutdown", "tcp_send_fin", "tcp_fin",
        "tcp_time_wait", "inet_twsk_*", "tcp_v4_connect", "inet_csk_accept", "inet_accept",
        "do_accept", "__sys_accept4*", "tcp_v4_syn_recv_sock", "tcp_conn_request",
        "tcp_create_openreq_child", "tcp_check_req", "inet_csk_*", "tcp_set_state", "tcp_done",
        "inet_release", "sock_close", "__sock_release", "tcp_v4_destroy_sock", "__sk_destruct",
        "sk_free", "tcp_rcv_state_process", "tcp_send_active_reset", "tcp_v4_send_reset",
        "tcp_disconnect", "sk_clone*", "tcp_v4_send_synack", "inet_child_forget",
        "inet_csk_listen_stop", "__fput", "____fput", "do_sock_shutdown*", "__sys_shutdown*",
    ]),
    (Category::TcpReceive, &[
        "tcp_v4_rcv", "tcp_v4_do_rcv", "tcp_rcv_*", "tcp_ack*", "tcp_data_queue*", "tcp_recvmsg*",
        "tcp_cleanup_rbuf", "__tcp_send_ack", "tcp_send_ack", "tcp_send_delayed_ack",
        "tcp_event_data_recv", "tcp_queue_rcv", "tcp_add_backlog", "ip_rcv*", "ip_local_deliver*",
        "ip_protocol_deliver_rcu", "ip_sublist_rcv*", "__netif_receive_skb*", "netif_receive_skb*",
        "process_backlog", "__napi_poll", "napi_*", "net_rx_action", "__do_softirq",
        "handle_softirqs", "do_softirq", "sock_recvmsg", "inet_recvmsg", "sock_read_iter",
        "__sys_recvfrom", "__sys_recvmsg", "___sys_recvmsg", "__kfree_skb", "kfree_skb*",
        "skb_attempt_defer_free", "skb_defer_free_flush", "enqueue_to_backlog", "netif_rx*",
        "sk_wait_data", "release_sock", "__release_sock",
    ]),
    (Category::TcpSend, &[
        "tcp_sendmsg*", "tcp_write_xmit", "tcp_push*", "__tcp_push*", "*tcp_transmit_skb",
        "tcp_event_new_data_sent", "tcp_schedule_loss_probe", "tcp_rate_skb_sent",
        "tcp_stream_alloc_skb", "ip_output", "ip_finish_output*", "*ip_queue_xmit",
        "*dev_queue_xmit", "dev_hard_start_xmit", "loopback_xmit", "sock_sendmsg*", "__sys_sendto",
        "__sys_sendmsg", "___sys_sendmsg", "sock_write_iter", "tcp_wmem_schedule",
    ]),
    (Category::Files, &[
        "do_sys_openat2", "do_filp_open", "path_openat", "link_path_walk", "walk_component",
        "lookup_fast", "do_open", "do_dentry_open", "may_open", "alloc_empty_file", "vfs_statx*",
        "do_statx*", "cp_statx", "vfs_getattr*", "generic_fillattr", "filemap_*",
        "generic_file_*", "page_cache_*", "*readahead*", "touch_atime", "atime_needs_update",
        "ext4_*", "xfs_*", "btrfs_*", "shmem_file_read_iter", "submit_bio*", "blk_*",
        "tokio::fs::*", "tokio::runtime::blocking::*",
    ]),
    (Category::Syscall, &[
        "entry_SYSCALL*", "do_syscall_64", "syscall_exit_to_user_mode*",
        "syscall_return_via_sysret", "syscall", "fdget*", "__fdget*", "fget*", "__fget*", "fput*",
        "__libc_recv*", "__libc_send*", "__libc_read", "__libc_write", "recv", "send", "__recv",
        "__send", "read", "write", "x64_sys_call", "syscall_enter_from_user_mode*",
    ]),
    (Category::ServerLoop, &[
        "tokio::*", "tokio_util::*", "tokio_uring::*", "monoio::*", "compio*", "futures*", "std::*",
        "core::*", "slab::*",
    ]),
];

/// The category of a sample whose stack is `frames`, root first.
pub fn classify<S: AsRef<str>>(frames: &[S]) -> Category {
    frames
        .iter()
        .rev()
        .find_map(|frame| category_of(frame.as_ref()))
        .unwrap_or(Category::Other)
}

/// The category the first matching rule gives one frame, if any.
pub fn category_of(frame: &str) -> Option<Category> {
    let name = normalise(frame);
    RULES
        .iter()
        .find(|(_, patterns)| patterns.iter().any(|p| matches(p, name)))
        .map(|(category, _)| *category)
}

/// `frame` as the patterns see it: no leading `<`/`&`, no compiler suffix on C symbols.
fn normalise(frame: &str) -> &str {
    let name = frame.trim_start_matches(['<', '&']);
    match name.contains("::") {
        true => name,
        false => name.split('.').next().unwrap_or(name),
    }
}

fn matches(pattern: &str, name: &str) -> bool {
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(inner), Some(_)) => name.contains(inner.trim_end_matches('*')),
        (None, Some(prefix)) => name.starts_with(prefix),
        (Some(suffix), None) => name.ends_with(suffix),
        (None, None) => name == pattern,
    }
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;

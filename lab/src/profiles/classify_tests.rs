//! The category table against single frames, whole stacks, and stacks recorded on this
//! machine (`fixtures/servers.folded`: trimmed `perf script` of io_uring_server and tokio
//! codec at 256 connections, folded by `record::collapse`).

use super::*;
use crate::profiles::record;

#[test]
fn frames_get_the_category_their_pattern_names() {
    let cases = [
        ("http_core::codec::Codec::serve_within", Category::Http),
        ("httparse::parse_version", Category::Http),
        (
            "<tokio_util::task::task_tracker::TrackedFuture<F> as core::future::future::Future>::poll",
            Category::ServerLoop,
        ),
        (
            "io_uring_server::event_loop::EventLoop::run",
            Category::ServerLoop,
        ),
        ("tokio::runtime::io::driver::Driver::turn", Category::Epoll),
        (
            "tokio::runtime::scheduler::current_thread::Context::park",
            Category::ServerLoop,
        ),
        ("io_submit_sqes", Category::IoUring),
        ("__do_sys_io_uring_enter", Category::IoUring),
        ("ep_poll_callback", Category::Epoll),
        ("do_epoll_wait", Category::Epoll),
        ("__memmove_avx_unaligned_erms", Category::Copies),
        ("_copy_to_iter", Category::Copies),
        ("_int_malloc", Category::Allocation),
        ("__rust_dealloc", Category::Allocation),
        ("finish_task_switch.isra.0", Category::Scheduler),
        ("do_softirq.part.0", Category::TcpReceive),
        ("tcp_v4_rcv", Category::TcpReceive),
        ("__tcp_send_ack.part.0", Category::TcpReceive),
        ("tcp_sendmsg_locked", Category::TcpSend),
        ("__tcp_transmit_skb", Category::TcpSend),
        ("tcp_close", Category::TcpConnection),
        ("inet_csk_accept", Category::TcpConnection),
        ("entry_SYSCALL_64_after_hwframe", Category::Syscall),
        ("fdget", Category::Syscall),
        ("aws_lc_0_47_0_EVP_AEAD_CTX_seal", Category::Crypto),
        ("_aesni_ctr32_ghash_6x", Category::Crypto),
        ("Lcurve25519_x25519_scalarloop", Category::Crypto),
        (
            "rustls::conn::unbuffered::UnbufferedConnectionCommon<Data>::process_tls_records",
            Category::Crypto,
        ),
        (
            "<tokio_rustls::server::TlsStream<IO> as tokio::io::async_read::AsyncRead>::poll_read",
            Category::Crypto,
        ),
        ("io_uring_server::tls_session::TlsSession::seal", Category::Crypto),
        ("io_uring_server::conn::Conn::on_recv", Category::ServerLoop),
    ];
    for (frame, category) in cases {
        assert_eq!(category_of(frame), Some(category), "{frame}");
    }
    assert_eq!(category_of("read_tsc"), None);
    for runtime in [
        "tokio_uring::runtime::driver::Driver::tick",
        "monoio::driver::uring::UringInner::tick",
        "compio_driver::sys::Driver::poll",
        "monoio_server::connection::serve::{{closure}}",
    ] {
        assert_eq!(category_of(runtime), Some(Category::ServerLoop), "{runtime}");
    }
}

#[test]
fn the_frame_nearest_the_leaf_with_a_rule_decides() {
    // A spin unlock has no rule: the wake-up that called it does.
    let wake = [
        "tcp_v4_rcv",
        "tcp_data_queue",
        "sock_def_readable",
        "__wake_up_sync_key",
        "_raw_spin_unlock_irqrestore",
    ];
    assert_eq!(classify(&wake), Category::Scheduler);
    // The network softirq run while sending counts as receiving.
    let softirq = [
        "tcp_sendmsg",
        "__dev_queue_xmit",
        "do_softirq.part.0",
        "net_rx_action",
        "_find_first_bit",
    ];
    assert_eq!(classify(&softirq), Category::TcpReceive);
    // A copy counts as a copy wherever it happens.
    let copy = [
        "io_recv",
        "sock_recvmsg",
        "tcp_recvmsg_locked",
        "_copy_to_iter",
        "rep_movs_alternative",
    ];
    assert_eq!(classify(&copy), Category::Copies);
    assert_eq!(classify(&["read_tsc"]), Category::Other);
    assert_eq!(
        classify(&["io_issue_sqe", "io_read", "filemap_read", "filemap_get_pages"]),
        Category::Files
    );
    assert_eq!(
        classify(&["io_issue_sqe", "io_read", "filemap_read", "copy_page_to_iter"]),
        Category::Copies
    );
    assert_eq!(
        classify(&["tokio::runtime::blocking::pool::Inner::run", "futex_wait"]),
        Category::Files
    );
    assert_eq!(classify::<&str>(&[]), Category::Other);
}

#[test]
fn recorded_stacks_land_in_their_categories() {
    let stacks = record::parse(include_str!("fixtures/servers.folded"));
    assert!(stacks.len() >= 20, "{}", stacks.len());
    let of = |comm: &str| {
        let mut by = [0u64; crate::profiles::classify::COUNT];
        for stack in stacks.iter().filter(|s| s.comm == comm) {
            by[classify(&stack.frames).index()] += stack.weight;
        }
        by
    };
    let (uring, codec) = (of("uring-0"), of("tokio_server"));
    for category in [
        Category::IoUring,
        Category::TcpSend,
        Category::TcpReceive,
        Category::Scheduler,
        Category::Http,
    ] {
        assert!(
            uring[category.index()] > 0,
            "io_uring_server has no {category:?} sample"
        );
    }
    assert_eq!(
        codec[Category::IoUring.index()],
        0,
        "tokio codec makes no io_uring call"
    );
    for category in [
        Category::Epoll,
        Category::TcpSend,
        Category::TcpReceive,
        Category::ServerLoop,
    ] {
        assert!(
            codec[category.index()] > 0,
            "tokio codec has no {category:?} sample"
        );
    }
}

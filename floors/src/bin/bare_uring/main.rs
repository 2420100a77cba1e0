//! `bare_uring`, a floor: a plain io_uring loop with no HTTP at all, one ring and one
//! SO_REUSEPORT listener per thread. A multishot accept takes connections; each
//! connection has a multishot recv into the thread's provided-buffer ring, counts the
//! request ends (`\r\n\r\n`) each arrival completed and sends that many canned `GET /`
//! answers. What io_uring_server (or tokio-uring) costs beyond this is HTTP and its own
//! design.
//!
//! Read `main.rs`, then `event_loop.rs` (what each completion leads to), `kernel.rs` (the
//! ring, the connections, and why the kernel's use of memory is sound) and `buf_ring.rs`
//! (the provided buffers: who owns each, when).

mod buf_ring;
mod event_loop;
mod kernel;

use floors::{Cli, canned_hello};
use server_kit::{StartupError, Workers};

fn main() {
    let cli = Cli::parse_for("bare_uring");
    let threads = cli.common.threads();
    let answer: &'static [u8] = canned_hello().leak();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let (workers, setups) = Workers::start("floor", listeners, |listener, ready| {
        move || match kernel::Kernel::new(answer) {
            Ok(kernel) => {
                let _ = ready.send(Ok(kernel.setup));
                let error = event_loop::run(kernel, &listener);
                server_kit::log!("io_uring failed: {error}; exiting");
                std::process::exit(1);
            }
            Err(error) => {
                let _ = ready.send(Err(StartupError::IoUring(error)));
            }
        }
    })
    .unwrap_or_else(|e| e.exit());
    let setup = setups.first().copied().unwrap_or("plain");
    let (count, size) = (buf_ring::COUNT, buf_ring::SIZE);
    let details = format!(
        "threads={threads}, floor=bare io_uring loop, no HTTP parsing, setup={setup}, \
         recv=multishot with buffer ring {count}x{size} B"
    );
    server_kit::ready::announce(local, &details);
    workers.serve_until_signal(|| std::process::exit(0));
}

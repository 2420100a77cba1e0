//! One thread's loop: accept, recv, count the request ends, send that many canned
//! answers, recv again; EOF or an error closes the connection. Each connection is either
//! receiving or sending, never both (see `kernel.rs` for why that keeps memory safe).

use std::io;
use std::net::TcpListener;

use floors::RequestEnds;

use crate::kernel::{Completion, Kernel, Op};

/// Serves `listener` with `kernel` until an unrecoverable error.
pub fn run(mut kernel: Kernel, listener: &TcpListener) -> io::Error {
    let mut ends: Vec<RequestEnds> = Vec::new();
    let mut completions = Vec::new();
    kernel.accept(listener);
    loop {
        if let Err(error) = kernel.wait(&mut completions) {
            return error;
        }
        for Completion { op, result } in completions.drain(..) {
            match op {
                Op::Accept { more } => {
                    if result >= 0 {
                        let slot = kernel.open(result);
                        if ends.len() <= slot {
                            ends.resize(slot + 1, RequestEnds::default());
                        }
                        ends[slot] = RequestEnds::default();
                        kernel.recv(slot);
                    }
                    if !more {
                        if let Err(error) = rearm_after(result) {
                            return error;
                        }
                        kernel.accept(listener);
                    }
                }
                Op::Recv(slot) if result > 0 => {
                    let requests = ends[slot].count(kernel.received(slot, result as usize));
                    if requests == 0 {
                        kernel.recv(slot);
                        continue;
                    }
                    kernel.owe(slot, requests);
                    kernel.send(slot);
                }
                Op::Send(slot) if result > 0 => {
                    if kernel.sent(slot, result as usize) {
                        kernel.recv(slot);
                    } else {
                        kernel.send(slot);
                    }
                }
                Op::Recv(slot) | Op::Send(slot) => kernel.close(slot),
            }
        }
    }
}

/// Whether the multishot accept that ended with `result` may be armed again: at once
/// after a connection, after a pause when descriptors ran out (so a full backlog does
/// not spin the CPU), never when the kernel refuses the accept itself.
fn rearm_after(result: i32) -> Result<(), io::Error> {
    match -result {
        libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM => {
            std::thread::sleep(std::time::Duration::from_millis(10));
            Ok(())
        }
        libc::EINVAL | libc::EBADF | libc::ENOTSOCK | libc::EOPNOTSUPP => {
            Err(io::Error::from_raw_os_error(-result))
        }
        _ => Ok(()),
    }
}

//! One thread's loop: accept, then per connection one multishot recv that stays armed,
//! each of its completions counting the request ends (`\r\n\r\n`) in a provided buffer
//! before handing the buffer back, and sends of that many canned answers, one at a time.
//! The peer's EOF, or an error, ends the recv; the connection closes once what it owes
//! is sent. Why the kernel's use of memory stays sound: `kernel.rs` and `buf_ring.rs`.

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
        for Completion {
            op,
            result,
            more,
            buffer,
        } in completions.drain(..)
        {
            kernel.completed(op, more);
            match op {
                Op::Accept => {
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
                Op::Recv(slot) => {
                    if let Some(buffer) = buffer {
                        let requests = kernel.read(buffer, |bytes| ends[slot].count(bytes));
                        kernel.owe(slot, requests);
                    }
                    // Ended, but not by the peer's EOF nor an error: arm it again. ENOBUFS
                    // means every provided buffer was taken; some are back by now.
                    if !more && (result > 0 || result == -libc::ENOBUFS) {
                        kernel.recv(slot);
                    }
                    kernel.advance(slot);
                }
                Op::Send(slot) => {
                    if result > 0 {
                        kernel.sent(slot, result as usize);
                    } else {
                        kernel.broken(slot);
                    }
                    kernel.advance(slot);
                }
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

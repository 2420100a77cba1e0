//! One thread's loop: accept, recv, count the request ends, send that many canned
//! answers, recv again; EOF or an error closes the connection. Each connection is either
//! receiving or sending, never both (see `kernel.rs` for why that keeps memory safe).

use std::io;
use std::net::TcpListener;

use floors::RequestEnds;

use crate::kernel::{Completion, Kernel, Op};

/// Serves `listener` with `kernel` until an unrecoverable ring error.
pub fn run(mut kernel: Kernel, listener: TcpListener, answer: &[u8]) -> io::Error {
    let mut ends: Vec<RequestEnds> = Vec::new();
    let mut completions = Vec::new();
    kernel.accept(&listener);
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
                        kernel.accept(&listener);
                    }
                }
                Op::Recv(slot) if result > 0 => {
                    let requests = ends[slot].count(kernel.received(slot, result as usize));
                    if requests == 0 {
                        kernel.recv(slot);
                        continue;
                    }
                    let output = kernel.output(slot);
                    for _ in 0..requests {
                        output.extend_from_slice(answer);
                    }
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

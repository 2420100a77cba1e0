//! A connection read against a deadline for a whole line, not a timeout for each read: a
//! read timeout alone bounds one `read()`, so a peer sending a byte just within it keeps
//! a line, and the agent's session, open for as long as it likes. [`Deadlined`] sets the
//! socket's read timeout to what is left until the deadline before every read, and fails
//! once it has passed.

use std::io::{self, ErrorKind, Read};
use std::net::TcpStream;
use std::time::Instant;

/// A connection whose reads all end by one deadline ([`Deadlined::set_deadline`]).
pub struct Deadlined {
    stream: TcpStream,
    deadline: Instant,
}

impl Deadlined {
    /// Reads `stream` by `deadline`.
    pub fn new(stream: TcpStream, deadline: Instant) -> Deadlined {
        Deadlined { stream, deadline }
    }

    /// Every read from now on ends by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }
}

impl Read for Deadlined {
    /// As [`TcpStream::read`], failing with [`ErrorKind::TimedOut`] once the deadline has
    /// passed (or `WouldBlock`, should it pass while the read waits).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(ErrorKind::TimedOut, "the deadline passed"));
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::time::Duration;

    #[test]
    fn a_line_that_trickles_in_fails_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let trickle = std::thread::spawn(move || {
            // A byte every 50 ms, for 2 s at most: each read alone would be quick.
            for _ in 0..40 {
                if peer.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let began = Instant::now();
        let mut reader = BufReader::new(Deadlined::new(stream, began + Duration::from_millis(300)));
        let mut line = Vec::new();
        let error = reader.read_until(b'\n', &mut line).unwrap_err();
        let took = began.elapsed();
        assert!(
            matches!(error.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock),
            "{error}"
        );
        assert!(took < Duration::from_secs(1), "read on for {took:?}");
        assert!(!line.is_empty(), "no byte came before the deadline");
        drop(reader);
        trickle.join().unwrap();
    }
}

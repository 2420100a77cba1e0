//! The raw client of the server-bound scenario: a few kept-alive TCP
//! connections, each sending its share of a batch of `GET /` with up to [`DEPTH`] in
//! flight (the requests pre-rendered by loadgen, the answers framed by loadgen's
//! `response::frame`), every answer's status and every body byte checked. Far cheaper per
//! request than reqwest, so the server, not the client, is what saturates.
//!
//! Connections are opened by [`Pipelined::reconnect`], outside the timed region; a batch
//! only writes and reads.

use futures::future::try_join_all;
use loadgen::response::{Frame, frame};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use http_core::routes::HELLO;

use crate::answer::check;

/// Requests in flight per connection.
pub const DEPTH: usize = 16;

/// Bytes read at most per read call.
const READ_SIZE: usize = 64 * 1024;

/// One connection and the bytes it has read but not yet framed.
struct Lane {
    stream: TcpStream,
    input: Vec<u8>,
}

pub struct Pipelined {
    addr: std::net::SocketAddr,
    /// [`DEPTH`] copies of the request, back to back: a window is a prefix of it.
    window: Vec<u8>,
    request_len: usize,
    /// Connections [`Pipelined::reconnect`] opens.
    connections: usize,
    lanes: Mutex<Vec<Lane>>,
}

impl Pipelined {
    /// A client of the server at `base_url` over `connections` connections; none is opened
    /// yet.
    pub fn new(base_url: &str, connections: usize) -> Result<Pipelined, String> {
        let target = loadgen::target::parse(&format!("{base_url}/"))?;
        Ok(Pipelined {
            addr: target.addr,
            window: target.request.repeat(DEPTH),
            request_len: target.request.len(),
            connections,
            lanes: Mutex::new(Vec::new()),
        })
    }

    /// Opens fresh connections in place of the old ones (which a server may have closed
    /// as idle while other scenarios ran).
    pub async fn reconnect(&self) -> Result<(), String> {
        let connect = (0..self.connections).map(|_| async {
            let stream = TcpStream::connect(self.addr)
                .await
                .map_err(|e| format!("connect {}: {e}", self.addr))?;
            stream.set_nodelay(true).map_err(|e| e.to_string())?;
            Ok::<Lane, String>(Lane {
                stream,
                input: Vec::with_capacity(READ_SIZE),
            })
        });
        *self.lanes.lock().await = try_join_all(connect).await?;
        Ok(())
    }

    /// `requests` `GET /` spread evenly over the connections, each keeping up to
    /// [`DEPTH`] of its share in flight: it sends the first [`DEPTH`], then as answers
    /// arrive, as many more as were answered.
    pub async fn batch(&self, requests: usize) -> Result<(), String> {
        let mut lanes = self.lanes.lock().await;
        if lanes.is_empty() {
            return Err("the pipelined client is not connected (reconnect first)".into());
        }
        let count = lanes.len();
        let work = lanes.iter_mut().enumerate().map(|(index, lane)| {
            let share = requests / count + usize::from(index < requests % count);
            self.lane(lane, share)
        });
        try_join_all(work).await.map(drop)
    }

    async fn lane(&self, lane: &mut Lane, requests: usize) -> Result<(), String> {
        let (mut sent, mut answered) = (0, 0);
        while answered < requests {
            let more = (requests - sent).min(DEPTH - (sent - answered));
            if more > 0 {
                lane.stream
                    .write_all(&self.window[..more * self.request_len])
                    .await
                    .map_err(|e| format!("write: {e}"))?;
                sent += more;
            }
            answered += lane.read_answers(sent - answered).await?;
        }
        Ok(())
    }
}

impl Lane {
    /// Reads until at least one answer is whole, then checks and drops every whole answer
    /// read (at most `outstanding`): each a 200 whose body is the hello byte for byte.
    /// Returns how many.
    async fn read_answers(&mut self, outstanding: usize) -> Result<usize, String> {
        loop {
            let (answers, used) = check_answers(&self.input, outstanding)?;
            if answers > 0 {
                self.input.drain(..used);
                return Ok(answers);
            }
            self.input.reserve(READ_SIZE);
            let read = self
                .stream
                .read_buf(&mut self.input)
                .await
                .map_err(|e| format!("read: {e}"))?;
            if read == 0 {
                return Err("the server closed the connection".into());
            }
        }
    }
}

/// Checks the whole answers at the start of `input`, at most `outstanding`; returns how
/// many and the bytes they fill.
fn check_answers(input: &[u8], outstanding: usize) -> Result<(usize, usize), String> {
    let (mut answers, mut used) = (0, 0);
    while answers < outstanding {
        let Frame::Complete {
            status,
            len,
            body_len,
            chunked,
        } = frame(&input[used..])?
        else {
            break;
        };
        if chunked {
            return Err("a chunked answer to GET /".into());
        }
        let answer = &input[used..used + len];
        check(status, &answer[len - body_len..], HELLO)?;
        answers += 1;
        used += len;
    }
    Ok((answers, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    #[test]
    fn whole_answers_are_counted_and_a_partial_one_waits() {
        let hello = answer("200 OK", "Hello, World!");
        let input = format!("{hello}{hello}{}", &hello[..10]);
        assert_eq!(check_answers(input.as_bytes(), 16), Ok((2, 2 * hello.len())));
        assert_eq!(check_answers(input.as_bytes(), 1), Ok((1, hello.len())));
        assert_eq!(check_answers(&input.as_bytes()[..10], 16), Ok((0, 0)));
    }

    #[test]
    fn a_wrong_status_or_body_byte_is_an_error() {
        let wrong_body = answer("200 OK", "Hello, World?");
        assert!(check_answers(wrong_body.as_bytes(), 1).is_err());
        let wrong_status = answer("404 Not Found", "Hello, World!");
        assert!(check_answers(wrong_status.as_bytes(), 1).is_err());
    }
}

//! `bare_tokio`, a floor: a tokio loop with no HTTP at all. Each connection reads into a
//! 4 KiB buffer, counts the request ends (`\r\n\r\n`) the read completed, and writes that
//! many copies of the canned `GET /` answer in one write; EOF or an error closes it.
//! Whatever tokio_server's codec engine costs beyond this is HTTP and its own design.

use floors::{Cli, RequestEnds, canned_hello};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Bytes read at a time; a connection holds this and the answers to one read's requests.
const READ_BUFFER: usize = 4096;

fn main() {
    let cli = Cli::parse_for("bare_tokio");
    let answer: &'static [u8] = canned_hello().leak();
    floors::tokio_floor::run(&cli, "floor=bare tokio loop, no HTTP parsing", move |stream| {
        serve(stream, answer)
    });
}

async fn serve(mut stream: TcpStream, answer: &'static [u8]) {
    let mut input = [0u8; READ_BUFFER];
    let mut output = Vec::new();
    let mut ends = RequestEnds::default();
    loop {
        let read = match stream.read(&mut input).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let requests = ends.count(&input[..read]);
        if requests == 0 {
            continue;
        }
        output.clear();
        for _ in 0..requests {
            output.extend_from_slice(answer);
        }
        if stream.write_all(&output).await.is_err() {
            return;
        }
    }
}

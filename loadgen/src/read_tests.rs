//! Reading answers over real sockets: large bodies checked as they arrive through the
//! thread's buffer, each connection's inbox holding no more than a partial line and one
//! small read behind it, a wrong byte failing its own read alone, and the bytes after an
//! answer to `Connection: close` counted.

use super::*;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Duration;

/// A 1 MiB answer of the shared pattern, its body, and where its body starts.
fn answer() -> (Vec<u8>, Vec<u8>, usize) {
    let body: Vec<u8> = (0..1 << 20).map(http_core::routes::pattern_byte).collect();
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
    (body.clone(), [head.as_bytes(), &body].concat(), head.len())
}

fn block_on<F: Future>(test: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    runtime.unwrap().block_on(test)
}

/// How many bytes of each answer's head are written before a pause.
const HEAD_SPLIT: usize = 20;

/// Writes each of `answers`: the first [`HEAD_SPLIT`] bytes of its head, then a pause
/// (the reader takes everything before it, so the partial head is all it has pending),
/// then the rest in pieces of `sizes` in turn, letting the reader run after each. Stops
/// quietly when the reader has closed its end.
async fn write_heads_split(mut socket: TcpStream, answers: &[Vec<u8>], sizes: &[usize]) {
    for answer in answers {
        let (head, mut rest) = answer.split_at(HEAD_SPLIT);
        if socket.write_all(head).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        for &size in sizes.iter().cycle() {
            let (piece, after) = rest.split_at(size.min(rest.len()));
            if piece.is_empty() || socket.write_all(piece).await.is_err() {
                break;
            }
            tokio::task::yield_now().await;
            rest = after;
        }
    }
}

/// The inbox holds at most a partial line and one small read behind it, never a body
/// (reading the rest of a 1 MiB answer into it would take 256 KiB or more).
fn assert_small(inbox: &Inbox) {
    let held = inbox.buffer.capacity();
    assert!(held <= 4 * INBOX_READ, "the inbox grew to {held} bytes");
}

/// Two 1 MiB answers and a third with one wrong byte, each head split across writes: each
/// is read, framed once and checked as it arrives, and after a partial head the
/// connection's inbox takes one small read, not the body.
#[test]
fn large_answers_arriving_in_pieces_are_checked_in_a_small_buffer() {
    let (body, answer, body_start) = answer();
    let mut wrong = answer.clone();
    wrong[body_start + 777_777] ^= 1;
    let answers = [answer.clone(), answer, wrong];
    block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let writer = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            write_heads_split(socket, &answers, &[1, 7, 30, 100, 65_539]).await;
        });
        let mut stream = Stream::Left(TcpStream::connect(addr).await.unwrap());
        let config = Config {
            expect_body: Some(body),
            ..Config::new(addr, Vec::new())
        };
        let patience = Instant::now() + Duration::from_secs(10);
        let mut inbox = Inbox::default();
        for _ in 0..2 {
            let read = within(patience, read_response(&mut stream, &mut inbox, (&config, None))).await;
            assert_eq!(read, Ok(()));
            assert_small(&inbox);
        }
        let failure = within(patience, read_response(&mut stream, &mut inbox, (&config, None)))
            .await
            .unwrap_err();
        assert!(
            failure.message.contains("first difference at Some(777777)"),
            "{}",
            failure.message
        );
        writer.await.unwrap();
    });
}

/// Two connections of one thread read 1 MiB answers at once, in pieces of different
/// sizes and each head split, their reads interleaved through the thread's one buffer:
/// each answer is checked against the right body, a wrong byte in the second
/// connection's second answer fails that read alone, and neither inbox takes a body.
#[test]
fn connections_sharing_the_threads_buffer_each_check_their_own_answers() {
    let (body, answer, body_start) = answer();
    let mut wrong = answer.clone();
    wrong[body_start + 500_001] ^= 1;
    block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (first, second) = (
            TcpStream::connect(addr).await.unwrap(),
            TcpStream::connect(addr).await.unwrap(),
        );
        let (one, _) = listener.accept().await.unwrap();
        let (two, _) = listener.accept().await.unwrap();
        let (a, b) = ([answer.clone(), answer.clone()], [answer, wrong]);
        let writers = tokio::spawn(async move {
            tokio::join!(
                write_heads_split(one, &a, &[40_000]),
                write_heads_split(two, &b, &[3, 65_539, 17, 9_000])
            )
        });
        let config = Config {
            expect_body: Some(body),
            ..Config::new(addr, Vec::new())
        };
        let patience = Instant::now() + Duration::from_secs(10);
        let read_two = |stream: TcpStream| {
            let config = &config;
            async move {
                let (mut stream, mut inbox) = (Stream::Left(stream), Inbox::default());
                let mut answers = Vec::new();
                for _ in 0..2 {
                    let read = read_response(&mut stream, &mut inbox, (config, None));
                    answers.push(within(patience, read).await);
                    assert_small(&inbox);
                }
                answers
            }
        };
        let (first, second) = tokio::join!(read_two(first), read_two(second));
        writers.await.unwrap();
        assert_eq!(first, [Ok(()), Ok(())]);
        assert_eq!(second[0], Ok(()));
        let failure = second[1].clone().unwrap_err();
        assert!(
            failure.message.contains("first difference at Some(500001)"),
            "{}",
            failure.message
        );
    });
}

/// After an answer to `Connection: close`: none when the server just closes, and the
/// bytes that follow counted whether they came with the answer or in a later read.
#[test]
fn the_bytes_after_a_closing_answer_are_counted() {
    let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".to_vec();
    for (with_answer, later) in [(&b""[..], &b""[..]), (b"junk", b""), (b"", b"later")] {
        let first_write = [&answer[..], with_answer].concat();
        let counted = block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let writer = tokio::spawn(async move {
                let (mut socket, _) = listener.accept().await.unwrap();
                socket.write_all(&first_write).await.unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
                socket.write_all(later).await.unwrap();
            });
            let mut stream = Stream::Left(TcpStream::connect(addr).await.unwrap());
            let config = Config::new(addr, Vec::new());
            let mut inbox = Inbox::default();
            tokio::time::sleep(Duration::from_millis(10)).await;
            read_response(&mut stream, &mut inbox, (&config, None))
                .await
                .unwrap();
            writer.await.unwrap();
            inbox.bytes_before_the_end(&mut stream).await.unwrap()
        });
        let expected = with_answer.len().max(later.len());
        assert_eq!(counted, expected, "{with_answer:?} then {later:?}");
    }
}

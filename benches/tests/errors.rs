//! A wrong answer must fail the timed run, never count as a fast iteration.

use benches::scenario::{Clients, Scenario, time_iterations};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A keep-alive server that answers every request head with `response`.
async fn canned_server(response: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 4096];
                let mut pending = Vec::new();
                while let Ok(n @ 1..) = stream.read(&mut buffer).await {
                    pending.extend_from_slice(&buffer[..n]);
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        pending.drain(..end + 4);
                        if stream.write_all(response.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

async fn outcome(response: &'static str) -> Result<std::time::Duration, String> {
    let url = canned_server(response).await;
    let clients = Clients::new(&url).unwrap();
    time_iterations(&clients, Scenario::Throughput1000, 2).await
}

#[tokio::test]
async fn a_correct_server_is_timed() {
    let ok = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello, World!";
    assert!(outcome(ok).await.is_ok());
}

#[tokio::test]
async fn an_error_status_fails_the_run() {
    let error =
        outcome("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 13\r\n\r\nHello, World!").await;
    assert!(error.unwrap_err().contains("status 500"));
}

#[tokio::test]
async fn a_wrong_body_fails_the_run() {
    let short = outcome("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHello").await;
    assert!(short.unwrap_err().contains("5 bytes"));
}

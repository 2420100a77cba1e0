//! The `codec` engine: http_core's codec over tokio's TcpStream, through the connection
//! loop tokio_uring_server runs too (`server_kit::exchange`). This is tokio on epoll doing
//! exactly the HTTP work the io_uring server does.
//!
//! The `codec-shared` engine: the same codec, read on readiness into a buffer shared by
//! every connection of a thread (`server_kit::shared_buffer`), so that an idle connection
//! holds no buffer, as with io_uring_server's provided-buffer ring.

//!
//! Over TLS only the `codec` engine runs: its loop reads through rustls like any stream.

use server_kit::Settings;
use server_kit::exchange::Transport;
use tokio::net::TcpStream;

/// Serves one connection, TCP or TLS over it.
pub async fn serve<T: Transport>(mut stream: T, settings: Settings) {
    server_kit::exchange::serve(&mut stream, &settings).await;
}

pub async fn serve_shared(mut stream: TcpStream, settings: Settings) {
    server_kit::shared_buffer::serve(&mut stream, &settings).await;
}

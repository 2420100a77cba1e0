//! The `codec` engine: http_core's codec over tokio's TcpStream, through the connection
//! loop tokio_uring_server runs too (`server_kit::exchange`). This is tokio on epoll doing
//! exactly the HTTP work the io_uring server does.

use server_kit::Settings;
use tokio::net::TcpStream;

pub async fn serve(mut stream: TcpStream, settings: Settings) {
    server_kit::exchange::serve(&mut stream, &settings).await;
}

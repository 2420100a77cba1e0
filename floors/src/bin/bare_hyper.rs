//! `bare_hyper`, a floor: hyper 1.x's hello world as its users write it (hyper's
//! `http1::Builder` with its defaults, a `service_fn` answering every request with
//! `Hello, World!`), on a current-thread tokio runtime per thread. hyper adds `Date` and
//! `Content-Length`; the service adds `Server` and `Content-Type`, so the answer carries
//! the same headers as the contract's `GET /`. Whatever tokio_server's hyper engine costs
//! beyond this is its routing, limits and watchdog.

use std::convert::Infallible;

use bytes::Bytes;
use floors::Cli;
use http_body_util::Full;
use http_core::response::SERVER_NAME;
use http_core::routes::HELLO;
use hyper::header::{CONTENT_TYPE, HeaderValue, SERVER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

fn main() {
    let cli = Cli::parse_for("bare_hyper");
    floors::tokio_floor::run(&cli, "floor=bare hyper hello world", serve);
}

async fn serve(stream: TcpStream) {
    let _ = http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service_fn(hello))
        .await;
}

async fn hello(_: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::new(Full::new(Bytes::from_static(HELLO)));
    let headers = response.headers_mut();
    headers.insert(SERVER, HeaderValue::from_static(SERVER_NAME));
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(TEXT_PLAIN));
    Ok(response)
}

/// http_core's `TEXT_PLAIN`, as hyper's users would write it: a static string.
const TEXT_PLAIN: &str = "text/plain; charset=utf-8";

#[cfg(test)]
mod tests {
    #[test]
    fn the_content_type_is_the_contracts() {
        assert_eq!(super::TEXT_PLAIN.as_bytes(), http_core::routes::TEXT_PLAIN);
    }
}

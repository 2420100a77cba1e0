//! A TLS 1.3 test server (tokio-rustls, rustls's default session cache and tickets) with a
//! fresh self-signed certificate for `localhost` and 127.0.0.1: it answers every request
//! head with [`super::OK`], closes with `close_notify` after a `Connection: close` head,
//! and counts the connections whose client said `close_notify` before closing.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use loadgen::tls::TestIdentity;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A running TLS test server.
pub struct TlsServer {
    pub addr: SocketAddr,
    /// The server's certificate, PEM: what a client trusts.
    pub ca_pem: Vec<u8>,
    /// Connections the client ended with `close_notify`.
    pub close_notifies: Arc<AtomicU64>,
}

/// A fresh [`TestIdentity`]: (certificate PEM, server config).
pub fn self_signed() -> (Vec<u8>, ServerConfig) {
    let identity = TestIdentity::generate();
    let cert = CertificateDer::from_pem_slice(identity.cert_pem.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(identity.key_pem.as_bytes()).unwrap();
    let config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    (identity.cert_pem.into_bytes(), config)
}

pub fn tls_server() -> TlsServer {
    let (ca_pem, config) = self_signed();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let close_notifies = Arc::new(AtomicU64::new(0));
    let counted = close_notifies.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, counted) = (acceptor.clone(), counted.clone());
                tokio::spawn(async move {
                    let Ok(mut stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let (mut chunk, mut pending) = (vec![0u8; 4096], Vec::new());
                    loop {
                        match stream.read(&mut chunk).await {
                            // rustls reads a clean end only after the peer's close_notify.
                            Ok(0) => {
                                counted.fetch_add(1, Ordering::Relaxed);
                                return;
                            }
                            Ok(n) => pending.extend_from_slice(&chunk[..n]),
                            Err(_) => return,
                        }
                        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head: Vec<u8> = pending.drain(..end + 4).collect();
                            if stream.write_all(super::OK.as_bytes()).await.is_err() {
                                return;
                            }
                            if head.windows(17).any(|w| w == b"Connection: close") {
                                let _ = stream.shutdown().await;
                                return;
                            }
                        }
                    }
                });
            }
        });
    });
    TlsServer {
        addr,
        ca_pem,
        close_notifies,
    }
}

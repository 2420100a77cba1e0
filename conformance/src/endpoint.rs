//! Where the kit connects ([`Endpoint`]: an address, and the TLS client to speak there
//! when the server serves HTTPS) and the connection it reads and writes ([`Wire`]: plain
//! TCP, or rustls over it). The TLS client is the load generator's ([`client_config`]):
//! TLS 1.3 only, rustls with aws-lc-rs, trusting only the server's own [`TestIdentity`].

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use loadgen::tls::{Handshakes, TestIdentity, client_config};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};

/// How long a test waits for any single answer (a connection, a handshake, a
/// response). Default is 5 seconds.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// A server to check: its address, and how to speak TLS to it if it serves HTTPS.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub addr: SocketAddr,
    pub tls: Option<Arc<ClientConfig>>,
}

impl From<SocketAddr> for Endpoint {
    fn from(addr: SocketAddr) -> Endpoint {
        Endpoint { addr, tls: None }
    }
}

impl From<&Endpoint> for Endpoint {
    fn from(endpoint: &Endpoint) -> Endpoint {
        endpoint.clone()
    }
}

impl Endpoint {
    /// The HTTPS server at `addr` presenting `identity`.
    pub fn https(addr: SocketAddr, identity: &TestIdentity) -> Endpoint {
        let config = client_config(identity.cert_pem.as_bytes(), Handshakes::Full);
        Endpoint {
            addr,
            tls: Some(config.expect("a client trusting the test identity")),
        }
    }

    /// A new connection with TCP_NODELAY, its TLS handshake done where the server speaks
    /// TLS; panics if either fails (the server is expected to be up).
    pub fn connect(&self) -> Wire {
        self.try_connect().unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Endpoint::connect`], saying why it failed instead of panicking.
    pub fn try_connect(&self) -> Result<Wire, String> {
        let tcp = TcpStream::connect_timeout(&self.addr, ANSWER_TIMEOUT)
            .map_err(|e| format!("connect to {}: {e}", self.addr))?;
        tcp.set_nodelay(true).expect("nodelay");
        let Some(config) = &self.tls else {
            return Ok(Wire::Plain(tcp));
        };
        tcp.set_read_timeout(Some(ANSWER_TIMEOUT))
            .expect("set_read_timeout");
        let name = ServerName::try_from("localhost").expect("a DNS name");
        let connection = ClientConnection::new(config.clone(), name).expect("a TLS client");
        let mut stream = StreamOwned::new(connection, tcp);
        while stream.conn.is_handshaking() {
            if let Err(e) = stream.conn.complete_io(&mut stream.sock) {
                return Err(format!("TLS handshake with {}: {e}", self.addr));
            }
        }
        Ok(Wire::Tls(Box::new(stream)))
    }

    /// This endpoint with another TLS client configuration (a client that resumes, or
    /// one that offers other cipher suites).
    pub fn with_client(&self, config: Arc<ClientConfig>) -> Endpoint {
        Endpoint {
            addr: self.addr,
            tls: Some(config),
        }
    }

    /// The first bytes a TLS 1.3 client sends: its whole ClientHello record.
    pub fn client_hello(&self) -> Vec<u8> {
        let config = self.tls.clone().expect("a TLS endpoint");
        let name = ServerName::try_from("localhost").expect("a DNS name");
        let mut connection = ClientConnection::new(config, name).expect("a TLS client");
        let mut hello = Vec::new();
        connection.write_tls(&mut hello).expect("a ClientHello");
        hello
    }
}

/// A connection as the checks use it.
pub enum Wire {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Wire {
    /// Over TLS, the client's side of the session: what was negotiated.
    pub fn session(&self) -> Option<&ClientConnection> {
        match self {
            Wire::Plain(_) => None,
            Wire::Tls(stream) => Some(&stream.conn),
        }
    }

    /// The TCP socket (under TLS, the one its records travel on).
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Wire::Plain(tcp) => tcp,
            Wire::Tls(stream) => &stream.sock,
        }
    }
}

/// Over TLS, a read at the end of the stream is `Ok(0)` only after the server's
/// `close_notify`; an end without one is an `UnexpectedEof` error.
impl Read for Wire {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Wire::Plain(tcp) => tcp.read(buf),
            Wire::Tls(stream) => stream.read(buf),
        }
    }
}

impl Write for Wire {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Wire::Plain(tcp) => tcp.write(buf),
            Wire::Tls(stream) => stream.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Wire::Plain(tcp) => tcp.flush(),
            Wire::Tls(stream) => stream.flush(),
        }
    }
}

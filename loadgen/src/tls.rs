//! HTTPS: each connection is a rustls client over the TCP stream (TLS 1.3 only, rustls's
//! default crypto provider, aws-lc-rs, with its default cipher suites and key-exchange
//! groups), trusting the one certificate given (`--tls-ca`, e.g. the harness's
//! self-signed one), named by `--tls-name` (SNI and the name checked). A new connection
//! makes a full handshake, or resumes a session from a ticket an earlier connection got
//! ([`Handshakes`]); every handshake is counted by kind, as what was negotiated, so a run
//! says what it measured. A connection the client closes sends `close_notify` first.
//! [`TestIdentity`] is the throwaway certificate a server under test presents (tests and
//! studies generate one per run; nothing is committed).

use std::sync::Arc;

use rustls::client::Resumption;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, HandshakeKind, RootCertStore};
use serde::Serialize;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::errors::{ErrorKind, Failure};

/// A connection as the client uses it: plain TCP, or TLS over it.
pub type Stream = tokio_util::either::Either<TcpStream, TlsStream<TcpStream>>;

/// Sessions resumed per client, at most: rustls keeps up to 8 TLS 1.3 tickets per
/// server name, and every connection to the target shares them.
const SESSIONS_CACHED: usize = 256;

/// What a new connection's handshake is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Handshakes {
    /// Every connection makes a full handshake: no session is kept.
    Full,
    /// A connection resumes a session from a ticket an earlier one received (a full
    /// handshake when none is left: [`TlsCounts`] says how many).
    Resumed,
}

/// How to speak TLS to the target.
#[derive(Debug, Clone)]
pub struct Tls {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    pub handshakes: Handshakes,
}

impl Tls {
    /// A client trusting the certificates in `ca_pem` (PEM), expecting the server to be
    /// `name`.
    pub fn new(ca_pem: &[u8], name: &str, handshakes: Handshakes) -> Result<Tls, String> {
        let name = ServerName::try_from(name.to_string()).map_err(|e| format!("--tls-name {name}: {e}"))?;
        Ok(Tls {
            config: client_config(ca_pem, handshakes)?,
            name,
            handshakes,
        })
    }

    /// [`Tls::new`] with the certificates read from the file at `ca`.
    pub fn from_file(ca: &std::path::Path, name: &str, handshakes: Handshakes) -> Result<Tls, String> {
        let pem = std::fs::read(ca).map_err(|e| format!("--tls-ca {}: {e}", ca.display()))?;
        Tls::new(&pem, name, handshakes)
    }

    /// The handshake over `tcp`; the connection and what it negotiated.
    pub(crate) async fn handshake(&self, tcp: TcpStream) -> Result<(Stream, Negotiated), Failure> {
        let stream = TlsConnector::from(self.config.clone())
            .connect(self.name.clone(), tcp)
            .await
            .map_err(|e| Failure::new(ErrorKind::Connect, format!("TLS handshake: {e}")))?;
        let negotiated = Negotiated::of(stream.get_ref().1);
        Ok((Stream::Right(stream), negotiated))
    }
}

/// The client's TLS configuration: TLS 1.3 only, rustls's default crypto provider
/// (aws-lc-rs), trusting only the certificates in `ca_pem` (PEM), keeping sessions to
/// resume or none as `handshakes` says.
pub fn client_config(ca_pem: &[u8], handshakes: Handshakes) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem) {
        let cert = cert.map_err(|e| format!("--tls-ca: {e}"))?;
        roots.add(cert).map_err(|e| format!("--tls-ca: {e}"))?;
    }
    if roots.is_empty() {
        return Err("--tls-ca: no certificate in the file".into());
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.resumption = match handshakes {
        Handshakes::Full => Resumption::disabled(),
        Handshakes::Resumed => Resumption::in_memory_sessions(SESSIONS_CACHED),
    };
    Ok(Arc::new(config))
}

/// What one handshake negotiated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub resumed: bool,
    pub cipher_suite: String,
    pub key_exchange: String,
}

impl Negotiated {
    fn of(connection: &rustls::ClientConnection) -> Negotiated {
        let name = |n: Option<String>| n.unwrap_or_else(|| "none".into());
        Negotiated {
            resumed: connection.handshake_kind() == Some(HandshakeKind::Resumed),
            cipher_suite: name(
                connection
                    .negotiated_cipher_suite()
                    .map(|s| format!("{:?}", s.suite())),
            ),
            key_exchange: name(
                connection
                    .negotiated_key_exchange_group()
                    .map(|g| format!("{:?}", g.name())),
            ),
        }
    }
}

/// The run's handshakes: how many of each kind (warm-up included), and what the first
/// negotiated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TlsCounts {
    pub full_handshakes: u64,
    pub resumed_handshakes: u64,
    pub cipher_suite: String,
    pub key_exchange: String,
}

impl TlsCounts {
    pub(crate) fn count(&mut self, negotiated: Negotiated) {
        match negotiated.resumed {
            true => self.resumed_handshakes += 1,
            false => self.full_handshakes += 1,
        }
        if self.cipher_suite.is_empty() {
            self.cipher_suite = negotiated.cipher_suite;
            self.key_exchange = negotiated.key_exchange;
        }
    }

    pub(crate) fn add(&mut self, other: TlsCounts) {
        self.full_handshakes += other.full_handshakes;
        self.resumed_handshakes += other.resumed_handshakes;
        if self.cipher_suite.is_empty() {
            self.cipher_suite = other.cipher_suite;
            self.key_exchange = other.key_exchange;
        }
    }
}

/// A TLS run's handshakes, as the summary reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TlsSummary {
    /// The handshakes asked for.
    pub handshakes: Handshakes,
    /// Those made, by kind, and what they negotiated.
    #[serde(flatten)]
    pub made: TlsCounts,
}

/// Closes a connection the client is done with: TLS says `close_notify` first (what
/// RFC 8446 asks of each side before it closes), given up at `patience`; plain TCP just
/// closes.
pub(crate) async fn close(stream: Stream, patience: tokio::time::Instant) {
    if let Stream::Right(mut tls) = stream {
        // Best effort: a server that has gone has nothing left to tell.
        let goodbye = tokio::io::AsyncWriteExt::shutdown(&mut tls);
        let _ = tokio::time::timeout_at(patience, goodbye).await;
    }
}

/// A throwaway identity for a server under test: a self-signed certificate for
/// `localhost` and 127.0.0.1 (ECDSA P-256 with SHA-256, an end entity's, not a CA's) and
/// its private key (PKCS#8), both PEM. Clients trust the certificate itself.
#[derive(Clone)]
pub struct TestIdentity {
    pub cert_pem: String,
    pub key_pem: String,
}

impl TestIdentity {
    pub fn generate() -> TestIdentity {
        TestIdentity::generate_for(&[])
    }

    /// As [`TestIdentity::generate`], naming `also` too (the IP a server on another host
    /// is reached at, say).
    pub fn generate_for(also: &[String]) -> TestIdentity {
        let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
        names.extend_from_slice(also);
        let certified = rcgen::generate_simple_self_signed(names).expect("a self-signed certificate");
        TestIdentity {
            cert_pem: certified.cert.pem(),
            key_pem: certified.signing_key.serialize_pem(),
        }
    }

    /// Writes `cert.pem` and `key.pem` (readable by the owner only) into `dir`; returns
    /// their paths.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, &self.cert_pem)?;
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&key)?
            .write_all(self.key_pem.as_bytes())?;
        Ok((cert, key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_identity_is_trusted_by_the_client_and_written_with_a_private_key() {
        let identity = TestIdentity::generate();
        assert!(Tls::new(identity.cert_pem.as_bytes(), "localhost", Handshakes::Full).is_ok());
        assert!(Tls::new(identity.cert_pem.as_bytes(), "127.0.0.1", Handshakes::Full).is_ok());
        let dir = std::env::temp_dir().join(format!("loadgen-identity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cert, key) = identity.write(&dir).unwrap();
        assert_eq!(std::fs::read_to_string(cert).unwrap(), identity.cert_pem);
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600);
        assert!(std::fs::read_to_string(key).unwrap().contains("PRIVATE KEY"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}

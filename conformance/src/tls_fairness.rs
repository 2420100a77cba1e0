//! What every HTTPS server must negotiate, so that their TLS costs compare: TLS 1.3 and
//! the one cipher suite `server_kit::tls` configures, whatever the client prefers; a
//! client offering only another suite refused; and a session resumed from a ticket the
//! server sent on an earlier connection.

use std::sync::Arc;

use loadgen::tls::{Handshakes, TestIdentity, client_config};
use rustls::crypto::CryptoProvider;
use rustls::crypto::aws_lc_rs::{self, cipher_suite};
use rustls::{CipherSuite, ClientConfig, HandshakeKind, ProtocolVersion};

use crate::endpoint::Endpoint;
use crate::wire::Conn;

/// The suite every server configures (`server_kit::tls`).
const SUITE: CipherSuite = CipherSuite::TLS13_AES_128_GCM_SHA256;

/// One line per failure.
pub fn negotiates_the_shared_configuration(to: &Endpoint, identity: &TestIdentity) -> Vec<String> {
    let mut failures = Vec::new();
    let conn = Conn::connect(to);
    let session = conn.session().expect("a TLS endpoint");
    if session.protocol_version() != Some(ProtocolVersion::TLSv1_3) {
        failures.push(format!(
            "negotiated {:?}, not TLS 1.3",
            session.protocol_version()
        ));
    }
    let suite = session.negotiated_cipher_suite().map(|s| s.suite());
    if suite != Some(SUITE) {
        failures.push(format!("negotiated {suite:?}, not {SUITE:?}"));
    }
    failures.extend(refuses_another_suite(to, identity).err());
    failures.extend(resumes(to, identity).err());
    failures
}

/// A client offering only TLS13_AES_256_GCM_SHA384 gets no session.
fn refuses_another_suite(to: &Endpoint, identity: &TestIdentity) -> Result<(), String> {
    let provider = CryptoProvider {
        cipher_suites: vec![cipher_suite::TLS13_AES_256_GCM_SHA384],
        ..aws_lc_rs::default_provider()
    };
    let config = ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_root_certificates(trusting_roots(identity)?)
        .with_no_client_auth();
    match to.with_client(Arc::new(config)).try_connect() {
        Ok(_) => Err("a client offering only TLS13_AES_256_GCM_SHA384 got a session".into()),
        Err(_) => Ok(()),
    }
}

/// A second connection of a client that keeps tickets resumes the first's session.
fn resumes(to: &Endpoint, identity: &TestIdentity) -> Result<(), String> {
    let resuming = to.with_client(client_config(identity.cert_pem.as_bytes(), Handshakes::Resumed)?);
    let mut first = Conn::connect(&resuming);
    // The tickets come after the handshake: an answer read means they were read too.
    first
        .send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        .map_err(|e| e.to_string())?;
    first.response(false)?;
    drop(first);
    let second = Conn::connect(&resuming);
    match second.session().and_then(|s| s.handshake_kind()) {
        Some(HandshakeKind::Resumed) => Ok(()),
        other => Err(format!(
            "a second connection's handshake was {other:?}, not resumed"
        )),
    }
}

/// A root store holding the identity's certificate.
fn trusting_roots(identity: &TestIdentity) -> Result<rustls::RootCertStore, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(identity.cert_pem.as_bytes()) {
        roots
            .add(cert.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    Ok(roots)
}

//! HTTPS, the same for every server: one rustls server configuration, built once at
//! startup from `--tls-cert FILE --tls-key FILE` (PEM) and shared by every connection.
//! TLS 1.3 only; rustls's default crypto provider (aws-lc-rs) with one cipher suite,
//! TLS13_AES_128_GCM_SHA256 (the one RFC 8446 makes every implementation support), and
//! the provider's key-exchange groups; sessions resumed from stateless tickets (rustls
//! sends two after each handshake, sealed with a key the process rotates), no 0-RTT.
//! Every server that speaks TLS names this in its ready line ([`DESCRIPTION`]), so a
//! measurement can say what it measured. No kernel TLS: every byte is encrypted by
//! rustls in the server's own process, so its CPU counts as the server's.

use std::path::Path;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::crypto::aws_lc_rs::{self, cipher_suite, kx_group};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// What every TLS server says about its TLS in its ready line.
pub const DESCRIPTION: &str =
    "tls=TLS1.3 TLS13_AES_128_GCM_SHA256 aws-lc-rs, kx=X25519MLKEM768|X25519|P-256, resumption=tickets";

/// The server configuration for the certificate chain in `cert` and the private key in
/// `key` (both PEM); the error names the file and what is wrong, for a startup line.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let read =
        |path: &Path, flag: &str| std::fs::read(path).map_err(|e| format!("{flag} {}: {e}", path.display()));
    let (cert_pem, key_pem) = (read(cert, "--tls-cert")?, read(key, "--tls-key")?);
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no certificate in the file",
            cert.display()
        ));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| format!("--tls-key {}: no private key in the file ({e})", key.display()))?;
    // rustls's default key-exchange preference, said here so that no feature of a
    // dependency changes it: the post-quantum hybrid first, as rustls offers it.
    let provider = CryptoProvider {
        cipher_suites: vec![cipher_suite::TLS13_AES_128_GCM_SHA256],
        kx_groups: vec![kx_group::X25519MLKEM768, kx_group::X25519, kx_group::SECP256R1],
        ..aws_lc_rs::default_provider()
    };
    let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("--tls-cert and --tls-key do not make an identity: {e}"))?;
    config.ticketer = aws_lc_rs::Ticketer::new().map_err(|e| format!("TLS session tickets: {e}"))?;
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("server-kit-tls-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_self_signed_identity_loads_and_files_that_are_not_one_are_named() {
        let dir = scratch("load");
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, certified.cert.pem()).unwrap();
        std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
        let config = server_config(&cert, &key).unwrap();
        assert!(config.ticketer.enabled());
        assert_eq!(config.crypto_provider().cipher_suites.len(), 1);

        let missing = server_config(&dir.join("none.pem"), &key).unwrap_err();
        assert!(
            missing.starts_with("--tls-cert ") && missing.contains("none.pem"),
            "{missing}"
        );
        let swapped = server_config(&key, &cert).unwrap_err();
        assert!(
            swapped.starts_with("--tls-cert ") && swapped.contains("no certificate"),
            "{swapped}"
        );
        let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(&key, other.signing_key.serialize_pem()).unwrap();
        assert!(
            server_config(&cert, &key)
                .unwrap_err()
                .contains("do not make an identity")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

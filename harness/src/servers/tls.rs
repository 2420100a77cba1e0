//! The identity every server serves HTTPS with in a study: one throwaway self-signed
//! certificate (`loadgen::tls::TestIdentity`, for `localhost` and 127.0.0.1) per harness
//! process, written once into a directory of its own under the system's temporary
//! directory; nothing is committed, and clients trust that certificate alone.

use std::path::PathBuf;
use std::sync::OnceLock;

use loadgen::tls::TestIdentity;

/// The certificate and key files servers are started with, and the certificate clients
/// trust.
pub struct Identity {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub cert_pem: String,
}

/// This process's identity, generated and written on first use.
pub fn identity() -> Result<&'static Identity, String> {
    static IDENTITY: OnceLock<Result<Identity, String>> = OnceLock::new();
    IDENTITY.get_or_init(write_new).as_ref().map_err(Clone::clone)
}

fn write_new() -> Result<Identity, String> {
    let generated = TestIdentity::generate();
    let dir = std::env::temp_dir().join(format!("uring-vs-tokio-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (cert, key) = generated
        .write(&dir)
        .map_err(|e| format!("writing the test certificate into {}: {e}", dir.display()))?;
    Ok(Identity {
        cert,
        key,
        cert_pem: generated.cert_pem,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_identity_per_process_whose_files_hold_the_certificate() {
        let first = super::identity().unwrap();
        assert!(std::ptr::eq(first, super::identity().unwrap()));
        assert_eq!(std::fs::read_to_string(&first.cert).unwrap(), first.cert_pem);
        assert!(
            std::fs::read_to_string(&first.key)
                .unwrap()
                .contains("PRIVATE KEY")
        );
    }
}

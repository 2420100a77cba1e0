//! The identity every server serves HTTPS with in a study: one throwaway self-signed
//! certificate (`loadgen::tls::TestIdentity`, for `localhost` and 127.0.0.1, and in the
//! agent for the IP its servers listen on too: [`name_also`]) per harness process, written
//! once into a directory of its own under the system's temporary directory; nothing is
//! committed, and clients trust that certificate alone.

use std::net::IpAddr;
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

/// An IP the identity names too, set once before its first use ([`name_also`]).
static ALSO: OnceLock<IpAddr> = OnceLock::new();

/// Has the identity name `ip` as well: the agent's, whose servers a client on another
/// host reaches at that IP. Call it before the first [`identity`]; an error after.
pub fn name_also(ip: IpAddr) -> Result<(), String> {
    ALSO.set(ip)
        .map_err(|_| "the TLS identity names its IPs once".to_string())?;
    match IDENTITY.get() {
        Some(_) => Err("the TLS identity was made before its IP was named".into()),
        None => Ok(()),
    }
}

/// This process's identity, once made.
static IDENTITY: OnceLock<Result<Identity, String>> = OnceLock::new();

/// This process's identity, generated and written on first use.
pub fn identity() -> Result<&'static Identity, String> {
    IDENTITY.get_or_init(write_new).as_ref().map_err(Clone::clone)
}

fn write_new() -> Result<Identity, String> {
    let also: Vec<String> = ALSO.get().map(|ip| ip.to_string()).into_iter().collect();
    let generated = TestIdentity::generate_for(&also);
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

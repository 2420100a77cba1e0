//! Command-line flags every server shares: threads, limits, timeouts, files and TLS. Each server
//! flattens [`CommonArgs`] into its own parser beside its `--addr`.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use http_core::limits::{self, Limits};
use http_core::pace::{self, Pace};

use crate::StartupError;

/// Names the program for log lines, raises its descriptor limit
/// ([`crate::fd_limit::raise_to_hard_limit`]), parses its flags (clap exits with status 2
/// on a bad one), and exits with status 2 naming the flag if `validate` rejects them.
pub fn parse<C: Parser>(program: &'static str, validate: impl FnOnce(&C) -> Result<(), String>) -> C {
    crate::log::set_program(program);
    crate::fd_limit::raise_to_hard_limit();
    let cli = C::parse();
    if let Err(message) = validate(&cli) {
        StartupError::from(message).exit();
    }
    cli
}

/// Flags common to all servers; each server flattens this into its own parser.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Worker threads. Default is the number of CPUs this process may run on
    /// (its affinity mask, so `taskset -c 0` gives 1).
    #[arg(long)]
    pub threads: Option<NonZeroUsize>,

    /// Largest request head in bytes (431 or 414 above it).
    #[arg(long, default_value_t = limits::MAX_HEAD_BYTES)]
    pub max_head_bytes: usize,

    /// Most header fields in one request (431 above it).
    #[arg(long, default_value_t = limits::MAX_HEADERS)]
    pub max_headers: usize,

    /// Largest request body in bytes (413 above it).
    #[arg(long, default_value_t = limits::MAX_BODY_BYTES)]
    pub max_body_bytes: usize,

    /// Largest `POST /upload` body in bytes (413 above it); it is read as it arrives,
    /// never held whole.
    #[arg(long, default_value_t = limits::MAX_UPLOAD_BYTES)]
    pub max_upload_bytes: usize,

    /// Seconds a partly sent request may stay silent before the connection is closed.
    #[arg(long, default_value_t = limits::REQUEST_TIMEOUT.as_secs())]
    pub request_timeout_secs: u64,

    /// Seconds an idle keep-alive connection is kept open.
    #[arg(long, default_value_t = limits::IDLE_TIMEOUT.as_secs())]
    pub idle_timeout_secs: u64,

    /// Seconds a request (head and body) may take from its first byte before it must
    /// average --min-request-rate; a request that falls behind is closed.
    #[arg(long, default_value_t = pace::REQUEST_GRACE.as_secs())]
    pub request_grace_secs: u64,

    /// Bytes per second a request must average past its grace: each byte received
    /// extends its deadline by 1/rate seconds (at least 1).
    #[arg(long, default_value_t = pace::MIN_REQUEST_RATE)]
    pub min_request_rate: u64,

    /// Directory `GET /files/{name}` serves regular files from (see `http_core::files`).
    /// Default is none: every file is 404.
    #[arg(long)]
    pub files_dir: Option<PathBuf>,

    /// Serve HTTPS only (TLS 1.3, see `server_kit::tls`) with the certificate chain in
    /// this PEM file; needs --tls-key.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key (PEM) of --tls-cert's certificate.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl CommonArgs {
    /// The worker count: `--threads`, else the CPUs in this process's affinity mask.
    pub fn threads(&self) -> usize {
        self.threads
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, NonZeroUsize::get)
    }

    pub fn limits(&self) -> Limits {
        Limits {
            max_head_bytes: self.max_head_bytes,
            max_headers: self.max_headers,
            max_body_bytes: self.max_body_bytes,
            max_upload_bytes: self.max_upload_bytes,
        }
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_secs)
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_secs)
    }

    /// A request's time budget: `--request-grace-secs` and `--min-request-rate`.
    pub fn pace(&self) -> Pace {
        Pace {
            grace: Duration::from_secs(self.request_grace_secs),
            min_rate: self.min_request_rate,
        }
    }

    /// With --tls-cert and --tls-key, the TLS configuration every connection shares;
    /// an error names the file and what is wrong with it.
    pub fn tls(&self) -> Result<Option<std::sync::Arc<rustls::ServerConfig>>, String> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => crate::tls::server_config(cert, key).map(Some),
            _ => Ok(None),
        }
    }

    /// Refuses --tls-cert in a server that does not speak TLS; `why` says why.
    pub fn refuse_tls(&self, why: &str) -> Result<(), String> {
        match &self.tls_cert {
            Some(_) => Err(format!("--tls-cert: {why}; serve plain HTTP without it")),
            None => Ok(()),
        }
    }

    /// Rejects limits the servers cannot honour, with the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_head_bytes < 1024 {
            return Err("--max-head-bytes must be at least 1024".into());
        }
        if self.max_headers == 0 {
            return Err("--max-headers must be at least 1".into());
        }
        if self.min_request_rate == 0 {
            return Err("--min-request-rate must be at least 1 byte per second".into());
        }
        if let Some(dir) = &self.files_dir
            && !dir.is_dir()
        {
            return Err(format!("--files-dir {} is not a directory", dir.display()));
        }
        Ok(())
    }
}

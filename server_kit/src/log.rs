//! Every line a server writes to stderr starts with its program name, so the logs of
//! servers started side by side (benchmarks, tests) say who wrote what. `main` names the
//! program once with [`set_program`]; [`log!`](crate::log!) prefixes it.

use std::sync::OnceLock;

static PROGRAM: OnceLock<&'static str> = OnceLock::new();

/// Names the program for every later log line; the first call wins.
pub fn set_program(name: &'static str) {
    let _ = PROGRAM.set(name);
}

/// The name given to [`set_program`], or `server` before it is called.
pub fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("server")
}

/// `eprintln!` with the program name in front: `log!("accepting again")` writes
/// `tokio_server: accepting again`.
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        eprintln!("{}: {}", $crate::log::program(), format_args!($($arg)*))
    };
}

//! What every benchmark binary does around its work: its flags parsed by clap (with
//! `--help`), and an error ending the run with one line naming the tool and exit status 1.

/// Parses the flags `C`, then runs `work` with them as [`exit_on_error`] does.
pub fn main<C: clap::Parser>(name: &str, work: impl FnOnce(C) -> Result<(), String>) {
    let cli = C::parse();
    exit_on_error(name, || work(cli));
}

/// Runs `work`; on an error prints `{name}: error: {message}` and exits with status 1.
/// The CPU steal the run's machine line reports is counted from here on.
pub fn exit_on_error(name: &str, work: impl FnOnce() -> Result<(), String>) {
    crate::machine::start_run();
    if let Err(message) = work() {
        eprintln!("{name}: error: {message}");
        std::process::exit(1);
    }
}

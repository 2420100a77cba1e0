//! The contenders, the floors and the outside anchor: which binary each is, with which
//! flags, how it is launched, and which floor sits under which engine.

/// How a contender is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// The binary of the cargo package [`Contender::package`], with [`Contender::args`].
    Cargo,
    /// The same, built apart with tokio's unstable io_uring file path
    /// ([`TOKIO_IO_URING_FS_BUILD`]) into its own target directory, so that the
    /// baselines' builds (and their tokio) stay exactly as they are.
    CargoTokioIoUringFs,
    /// The system's nginx with the repository's `nginx/nginx.conf` (`nginx.rs`).
    Nginx,
    /// A server of the user's, started by this command (`{port}` filled in): `outside.rs`.
    Command(&'static str),
}

/// One server configuration under test: a binary and its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contender {
    /// Stable id used in benchmark names and JSON.
    pub id: &'static str,
    /// How the report names it.
    pub label: &'static str,
    /// The cargo package that builds it, and the binary of that package it runs.
    pub package: &'static str,
    pub binary: &'static str,
    pub args: &'static [&'static str],
    /// Set this variable to a base URL to bench a server you started yourself; `None`:
    /// always started here.
    pub url_env: Option<&'static str>,
    pub launch: Launch,
}

/// How [`Launch::CargoTokioIoUringFs`] binaries are built, from the workspace root:
/// `RUSTFLAGS="--cfg tokio_unstable" cargo build --release -p tokio_server --features
/// io-uring-fs --target-dir target/tokio-io-uring`.
pub const TOKIO_IO_URING_FS_BUILD: TokioIoUringFsBuild = TokioIoUringFsBuild {
    rustflags: "--cfg tokio_unstable",
    package: "tokio_server",
    features: "io-uring-fs",
    target_dir: "target/tokio-io-uring",
};

/// The parts of the [`TOKIO_IO_URING_FS_BUILD`] command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokioIoUringFsBuild {
    pub rustflags: &'static str,
    pub package: &'static str,
    pub features: &'static str,
    /// Relative to the workspace root.
    pub target_dir: &'static str,
}

impl Launch {
    /// Whether the harness builds the binary with cargo.
    pub fn is_cargo(self) -> bool {
        matches!(self, Launch::Cargo | Launch::CargoTokioIoUringFs)
    }
}

impl Contender {
    /// The key of its executable among the built binaries: the binary's name, marked for
    /// a build apart.
    pub fn binary_key(&self) -> String {
        match self.launch {
            Launch::CargoTokioIoUringFs => format!("{} (io-uring-fs)", self.binary),
            _ => self.binary.to_string(),
        }
    }

    /// Whether it stands outside the comparison (an [`ANCHORS`] row): measured beside the
    /// contenders, never in a ratio or a verdict.
    pub fn is_anchor(&self) -> bool {
        ANCHORS.contains(self)
    }
}

pub const TOKIO_HYPER: Contender = Contender {
    id: "tokio_hyper",
    label: "tokio_server (hyper)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "hyper"],
    url_env: Some("BENCH_TOKIO_URL"),
    launch: Launch::Cargo,
};

pub const TOKIO_CODEC: Contender = Contender {
    id: "tokio_codec",
    label: "tokio_server (codec)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "codec"],
    url_env: Some("BENCH_TOKIO_CODEC_URL"),
    launch: Launch::Cargo,
};

/// The codec engine with `tokio::fs` on tokio's own io_uring (open and read on a ring; the
/// stat still on the blocking pool, as tokio 1.54 has it): not in [`CONTENDERS`]; the file
/// study sets it beside [`TOKIO_CODEC`], whose files go through the blocking pool.
pub const TOKIO_CODEC_IO_URING_FS: Contender = Contender {
    id: "tokio_codec_io_uring_fs",
    label: "tokio_server (codec, tokio io_uring fs)",
    args: &["--engine", "codec"],
    url_env: None,
    launch: Launch::CargoTokioIoUringFs,
    ..TOKIO_CODEC
};

/// The codec engine sending a file of 64 KiB or more by `sendfile(2)` whenever the socket
/// is writable (`--sendfile`), as an expert tokio user would: the I/O-model control for
/// io_uring_server's sendfile path; not in [`CONTENDERS`], the file study sets it beside
/// [`TOKIO_CODEC`].
pub const TOKIO_CODEC_SENDFILE: Contender = Contender {
    id: "tokio_codec_sendfile",
    label: "tokio_server (codec, sendfile)",
    args: &["--engine", "codec", "--sendfile"],
    url_env: None,
    ..TOKIO_CODEC
};

/// The hyper engine with `tokio::fs` on tokio's own io_uring, beside [`TOKIO_HYPER`]; not
/// in [`CONTENDERS`].
pub const TOKIO_HYPER_IO_URING_FS: Contender = Contender {
    id: "tokio_hyper_io_uring_fs",
    label: "tokio_server (hyper, tokio io_uring fs)",
    args: &["--engine", "hyper"],
    url_env: None,
    launch: Launch::CargoTokioIoUringFs,
    ..TOKIO_HYPER
};

/// hyper on tokio's multi-thread, work-stealing scheduler (`--multi-thread`), even on one
/// server thread: tokio as `#[tokio::main]` gives it to most users, beside the
/// current-thread [`TOKIO_HYPER`] in the verdict's details and the sweep ([`SCHEDULER`]);
/// not in [`CONTENDERS`].
pub const TOKIO_HYPER_MULTI_THREAD: Contender = Contender {
    id: "tokio_hyper_multi_thread",
    label: "tokio_server (hyper, multi-thread)",
    args: &["--engine", "hyper", "--multi-thread"],
    url_env: None,
    ..TOKIO_HYPER
};

/// The scheduler control: tokio's default scheduler beside the current-thread engines.
pub const SCHEDULER: [Contender; 1] = [TOKIO_HYPER_MULTI_THREAD];

/// The codec on tokio reading into a buffer per thread, not per connection: not in
/// [`CONTENDERS`]; it stands beside the others where memory per idle connection is
/// measured, to tell what is io_uring's doing from what is the server's design.
pub const TOKIO_CODEC_SHARED: Contender = Contender {
    id: "tokio_codec_shared",
    label: "tokio_server (codec, shared buffer)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "codec-shared"],
    url_env: None,
    launch: Launch::Cargo,
};

pub const IO_URING: Contender = Contender {
    id: "io_uring",
    label: "io_uring_server",
    package: "io_uring_server",
    binary: "io_uring_server",
    args: &[],
    url_env: Some("BENCH_URING_URL"),
    launch: Launch::Cargo,
};

pub const TOKIO_URING: Contender = Contender {
    id: "tokio_uring",
    label: "tokio_uring_server",
    package: "tokio_uring_server",
    binary: "tokio_uring_server",
    args: &[],
    url_env: Some("BENCH_TOKIO_URING_URL"),
    launch: Launch::Cargo,
};

/// monoio (thread-per-core, io_uring driver) running the same codec loop: the first of
/// the ready io_uring runtimes a user would pick instead of hand-rolling.
pub const MONOIO: Contender = Contender {
    id: "monoio",
    label: "monoio_server",
    package: "monoio_server",
    binary: "monoio_server",
    args: &[],
    url_env: Some("BENCH_MONOIO_URL"),
    launch: Launch::Cargo,
};

/// compio (completion-based, io_uring driver) running the same codec loop: the second
/// ready io_uring runtime.
pub const COMPIO: Contender = Contender {
    id: "compio",
    label: "compio_server",
    package: "compio_server",
    binary: "compio_server",
    args: &[],
    url_env: Some("BENCH_COMPIO_URL"),
    launch: Launch::Cargo,
};

/// io_uring_server with `args`, named (and identified) by `label`; always started here.
pub const fn io_uring_with(label: &'static str, args: &'static [&'static str]) -> Contender {
    Contender {
        id: label,
        label,
        args,
        url_env: None,
        ..IO_URING
    }
}

/// The A/A control: a second process of the default io_uring_server, measured through
/// the same pipeline as the first. The rule must find the two tied; how often it does not
/// is the study's false-alarm rate, shown beside its verdicts.
pub const AA_CONTROL: Contender = io_uring_with("io_uring_server, a second process (A/A control)", &[]);

/// A floor, not a contender: the cheapest `GET /` answer of one stack (the `floors`
/// crate), measured beside the contenders so each engine's distance from its stack's
/// floor is a column. Labels start with "floor: ".
const fn floor(id: &'static str, label: &'static str) -> Contender {
    Contender {
        id,
        label,
        package: "floors",
        binary: id,
        args: &[],
        url_env: None,
        launch: Launch::Cargo,
    }
}

pub const FLOOR_HYPER: Contender = floor("bare_hyper", "floor: bare hyper");
pub const FLOOR_TOKIO: Contender = floor("bare_tokio", "floor: bare tokio loop");
pub const FLOOR_URING: Contender = floor("bare_uring", "floor: bare io_uring loop");

/// The floors, in report order.
pub const FLOORS: [Contender; 3] = [FLOOR_HYPER, FLOOR_TOKIO, FLOOR_URING];

impl Contender {
    pub fn is_floor(&self) -> bool {
        self.package == "floors"
    }

    /// The floor of this contender's stack: bare hyper under the hyper engine, the bare
    /// tokio loop under the codec engines, and the bare io_uring loop under
    /// io_uring_server and also under the io_uring runtimes (tokio_uring_server,
    /// monoio_server, compio_server), whose requests go through the same kernel interface
    /// (what each costs above that floor is its runtime and the codec). `None` for a floor.
    pub fn floor(&self) -> Option<Contender> {
        match self.package {
            "io_uring_server" | "tokio_uring_server" | "monoio_server" | "compio_server" => Some(FLOOR_URING),
            "tokio_server" if self.args.contains(&"hyper") => Some(FLOOR_HYPER),
            "tokio_server" => Some(FLOOR_TOKIO),
            _ => None,
        }
    }
}

/// Flags with which a server refuses `--tls-cert` (each says why at startup): the shared
/// buffer and sendfile of tokio_server's codec, io_uring_server's single-shot receive and
/// zero-copy send of static bodies.
const REFUSE_TLS: [&str; 4] = [
    "codec-shared",
    "--sendfile",
    "--no-multishot-recv",
    "--zero-copy-send",
];

impl Contender {
    /// Whether it serves HTTPS when started with the harness's certificate
    /// ([`super::tls`]): the servers with a rustls adapter (all but tokio_uring_server,
    /// which has none published, the floors and the outside anchors), without a flag that
    /// refuses TLS.
    pub fn speaks_tls(&self) -> bool {
        self.launch == Launch::Cargo
            && matches!(
                self.package,
                "tokio_server" | "io_uring_server" | "monoio_server" | "compio_server"
            )
            && !self.args.iter().any(|arg| REFUSE_TLS.contains(arg))
    }
}

/// The contender or floor with this id, among the [`findable_by_id`].
pub fn by_id(id: &str) -> Option<Contender> {
    findable_by_id().find(|c| c.id == id)
}

/// The name the agent on another host offers `contender` by (`lab/src/agent/`): its id,
/// for a server [`by_id`] finds, and io_uring_server's for the A/A control (the same server
/// in a process of its own); `None` for any other (a feature row's flags, nginx, a server
/// of yours), which the agent does not start.
pub fn offered_name(contender: &Contender) -> Option<&'static str> {
    if *contender == AA_CONTROL {
        return Some(IO_URING.id);
    }
    (by_id(contender.id) == Some(*contender)).then_some(contender.id)
}

/// The servers [`by_id`] finds: the [`CONTENDERS`], the [`SCHEDULER`] control, the
/// codec engine's technique controls (sendfile, a shared read buffer) and the [`FLOORS`],
/// in that order.
pub fn findable_by_id() -> impl Iterator<Item = Contender> {
    CONTENDERS
        .iter()
        .chain(&SCHEDULER)
        .chain(&TECHNIQUES)
        .chain(&FLOORS)
        .copied()
}

/// The codec engine with a technique any tokio server can use (sendfile, one read buffer
/// shared by every connection): the controls that say how much of a win is that
/// technique's rather than the I/O model's.
pub const TECHNIQUES: [Contender; 2] = [TOKIO_CODEC_SENDFILE, TOKIO_CODEC_SHARED];

/// Every server a plot draws as a line of its own, in the order that gives each its
/// colour: the [`CONTENDERS`], the [`ANCHORS`], then the [`SCHEDULER`] control.
pub fn drawn() -> impl Iterator<Item = &'static Contender> {
    CONTENDERS.iter().chain(&ANCHORS).chain(&SCHEDULER)
}

/// The contenders of `cargo bench`, the sweep and the large-body study, in report order.
/// The feature rows are contenders too (io_uring_server with flags, see `io_uring_with`).
pub const CONTENDERS: [Contender; 6] = [TOKIO_HYPER, TOKIO_CODEC, IO_URING, TOKIO_URING, MONOIO, COMPIO];

/// nginx, one worker (`nginx/nginx.conf`): where a widely used epoll server lands on this
/// machine. It cannot echo a body, so it sits out the echo workloads.
pub const NGINX: Contender = Contender {
    id: "nginx",
    label: "nginx (outside anchor)",
    package: "nginx",
    binary: "nginx",
    args: &[],
    url_env: None,
    launch: Launch::Nginx,
};

/// The outside anchors the sweep and the workloads study measure beside the contenders.
pub const ANCHORS: [Contender; 1] = [NGINX];

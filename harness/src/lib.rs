//! What every measurement in this workspace shares, for `cargo bench` (the `benches`
//! crate) and the studies (the `lab` crate) alike: the [`servers::CONTENDERS`] and how
//! they are started pinned (nginx among them, as the outside anchor), a [`load::Load`]
//! measured into a [`load::Point`], CPU accounting ([`cpu`], [`usage`]), the platform's
//! noise beside a point ([`noise`]: [`steal`] and the [`hiccup`] meter), the [`machine`]
//! record (with what a [`wake_up`] costs) and how often a server slept ([`switches`]), the file studies' [`corpus`] and what a server read from disk and how many
//! threads it ran ([`process_watch`]), the one rule that judges rounds ([`judge`]) and how rounds are ordered ([`rounds`]) and cut into slices ([`slices`]), and how results are
//! written ([`output`], [`chart`], [`format`]). Servers on another host, started by the
//! agent there: [`remote`].

pub mod affinity;
pub mod chart;
pub mod commits;
pub mod corpus;
pub mod cpu;
pub mod cpuidle;
pub mod format;
pub mod hiccup;
pub mod io_workers;
pub mod judge;
pub mod links;
pub mod load;
pub mod machine;
pub mod machine_cpu;
pub mod memory_group;
pub mod noise;
pub mod output;
pub mod perf;
pub mod ping_pong;
pub mod process_watch;
pub mod progress;
pub mod remote;
pub mod rounds;
pub mod servers;
pub mod settings;
pub mod slices;
pub mod stale;
pub mod steal;
pub mod switches;
pub mod tool;
pub mod usage;
pub mod wake_up;
pub mod workload;

//! `scripts/files.sh`: the file study. Writes the corpus (once) under `target/`, then
//! every contender, the io-uring-fs contenders when in the lineup, nginx (sendfile, when
//! installed) and an A/A control serve random files of each set, hot and cold, at 16 and
//! 256 connections, over rounds of freshly started servers in a balanced order, each
//! point cut into slices alternated between them, the cache set up before each slice.
//! Writes `results/files.{md,json}` and the file section of BENCHMARKS.md. Where the servers
//! and the client run, and servers of yours beside ours (their command names the corpus
//! with `{files_dir}`): [`lab::placement`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use harness::corpus;
use harness::load::{self, Ask, Load, LoadKind, Point};
use harness::machine::Machine;
use harness::process_watch::{Watch, Watched};
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::{Contender, Lineup, Server, outside, workspace_root};
use harness::slices::interleave;
use lab::files::{Cache, FS_TWINS, FilesReport, Sample, Twin, Workload, lineup, only_servers, plan};
use lab::placement::Placement;

/// Serving files: server CPU per request for random files of 4 KiB, 64 KiB and 1 MiB,
/// hot and cold, at 16 and 256 connections.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh, in a balanced order (3 keep the whole
    /// report within its 100-minute budget).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Seconds per point and server.
    #[arg(long, default_value_t = 1.5)]
    seconds: f64,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go. The cache is
    /// set up (warmed or evicted) before every slice.
    #[arg(long, default_value_t = 4)]
    slices: usize,
    /// The seed of round 0's random files (round r: seed + r).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only the points whose name contains this (e.g. "cold", "hot, 256 connections").
    #[arg(long)]
    only: Option<String>,
    /// Only these corpus sets, by label, comma-separated: 4k, 64k, 1m. All by default.
    #[arg(long, value_delimiter = ',')]
    sets: Vec<String>,
    /// Only these servers, by id, comma-separated: tokio_hyper, tokio_codec, io_uring,
    /// tokio_uring, monoio, compio, nginx, aa (the A/A control); e.g. "io_uring,aa,nginx".
    /// All by default.
    #[arg(long)]
    servers: Option<String>,
    /// The corpus directory; default `target/files-corpus` of the workspace.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Measure nothing: render every view again from the committed results/files.json
    /// (after a change to how it reads, not to what was measured).
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("files", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        let workspace = workspace_root();
        let path = workspace.join("results/files.json");
        let report: FilesReport = harness::output::read_json(&path)?;
        lab::files::report::write_rendered(&workspace, &report)?;
        println!("files rendered again from {}", path.display());
        return Ok(());
    }
    cli.placement.clean_tree()?;
    let plan: Vec<Workload> = plan()
        .into_iter()
        .filter(|w| {
            cli.only
                .as_ref()
                .is_none_or(|only| w.name().contains(only.as_str()))
        })
        .filter(|w| cli.sets.is_empty() || cli.sets.iter().any(|label| label == w.set.label))
        .collect();
    let yours = cli.placement.yours()?;
    if let Some(blind) = yours.iter().find(|c| !outside::is_told_files_dir(c)) {
        return Err(format!(
            "--server {}: the file study serves its corpus; put {{files_dir}} in the command where your server takes the directory to serve /files/ from",
            blind.id
        ));
    }
    let contenders = [
        only_servers(with_anchors(&lineup()), cli.servers.as_deref()),
        yours,
    ]
    .concat();
    if plan.is_empty() || contenders.is_empty() {
        return Err("--only, --sets or --servers left nothing to measure".into());
    }
    let dir = cli
        .corpus
        .clone()
        .unwrap_or_else(|| corpus::default_dir(&workspace_root()));
    if corpus::ensure(&dir)? {
        eprintln!("files: corpus written to {}", dir.display());
    }
    let mut lineup = Lineup::prepare(&contenders, cli.placement.pinning(), None)?;
    lineup.files_dir = Some(dir.clone());
    // A smoke run took ~0.75 s per point and server beyond its seconds with 4 slices:
    // each slice's cache set-up (a read or an eviction of the whole set) and connects.
    let step = Duration::from_secs_f64(cli.seconds + 0.2 * cli.slices as f64);
    let progress = Progress::start("files", cli.rounds * plan.len() * contenders.len(), step);
    let samples = measure_rounds((&mut lineup, &contenders), &plan, &cli, progress)?;
    drop(std::mem::take(&mut lineup.servers));
    let measured = |id: &str| contenders.iter().any(|c| c.id == id);
    let report = FilesReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: cli.rounds,
        slices: cli.slices,
        seconds_per_point: cli.seconds,
        seed: cli.seed,
        twins: FS_TWINS
            .iter()
            .filter(|(fs, epoll)| measured(fs.id) && measured(epoll.id))
            .map(|(fs, epoll)| Twin {
                io_uring_fs: fs.id.into(),
                epoll: epoll.id.into(),
            })
            .collect(),
        samples,
    };
    let root = cli.placement.root(&lineup.workspace, "files")?;
    lab::files::report::write_all(&root, &report)?;
    println!(
        "files written under {}: results/files.md, results/files.json, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

/// Every point of `plan` on every server, round after round, every server started afresh
/// for each round, their order balanced over the rounds.
fn measure_rounds(
    (lineup, contenders): (&mut Lineup, &[Contender]),
    plan: &[Workload],
    cli: &Cli,
    mut progress: Progress,
) -> Result<Vec<Sample>, String> {
    let dir = lineup.files_dir.clone().ok_or("no corpus directory")?;
    let mut samples = Vec::new();
    for round in 0..cli.rounds {
        // Every server of the last round stops before this round's start afresh.
        drop(std::mem::take(&mut lineup.servers));
        lineup.servers = contenders
            .iter()
            .map(|&c| lineup.start_fresh(c))
            .collect::<Result<_, _>>()?;
        let servers = &lineup.servers;
        let order: Vec<usize> = balanced(servers.len(), round).collect();
        for workload in plan {
            let load = Load {
                ask: Ask::File {
                    set: workload.set.label,
                    seed: cli.seed + round as u64,
                },
                ..Load::new(
                    LoadKind::Closed,
                    (workload.connections, 1),
                    None,
                    Duration::from_secs_f64(cli.seconds) / cli.slices.max(1) as u32,
                    &lineup.pinning,
                )
            };
            let mut watched: Vec<Option<Watched>> = vec![Some(Watched::default()); servers.len()];
            let merged = interleave(&order, cli.slices, |turn, number| {
                let server = &servers[turn];
                if number == 0 {
                    progress.step(&format!(
                        "round {}/{} {}: {}",
                        round + 1,
                        cli.rounds,
                        workload.name(),
                        server.contender.label
                    ));
                }
                let (point, seen) = slice(server, (workload, load), &dir)?;
                watched[turn] = watched[turn].zip(seen).map(|(a, b)| a.plus(b));
                Ok(point)
            })?;
            for &turn in &order {
                samples.push(Sample::of(workload, round, &merged[turn], watched[turn]));
            }
        }
    }
    progress.finish();
    Ok(samples)
}

/// One slice: the set's cache state set up, then the load, with the server's disk reads
/// and threads watched over it (`None` for a server not started here).
fn slice(
    server: &Server,
    (workload, load): (&Workload, Load),
    dir: &Path,
) -> Result<(Point, Option<Watched>), String> {
    match workload.cache {
        Cache::Hot => corpus::warm(dir, &workload.set).map(drop)?,
        Cache::Cold => corpus::evict(dir, &workload.set)?,
    }
    let watch = server.pid().map(Watch::start).transpose()?;
    let point = load::run_point(server, load)?;
    let seen = watch.map(Watch::stop).transpose()?;
    Ok((point, seen))
}

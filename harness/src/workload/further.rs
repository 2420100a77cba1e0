//! Rows beyond the verdict's, measured by the same run after its rows and judged by the
//! same rule: what chunked framing and 1 MiB bodies cost (the echo), files of 64 KiB, and
//! files read from storage rather than the page cache (cold). Each is offered, like a
//! verdict row, at [`VERDICT_PERCENT`]% of a capacity calibrated on its closed loop
//! ([`LOADS`], calibrated only, never a row of its own); BENCHMARKS.md shows them in
//! their own tables, so the verdict stays the verdict.

use super::{Shape, VERDICT_PERCENT, Workload};

/// Bytes per chunk of the chunked echoes.
pub const CHUNK: usize = 512;

/// Connections of the 64 KiB echoes (as the verdict's *64 KiB echo*) and of the 1 MiB
/// ones (few: each window of the open loop ends with one 1 MiB round trip per connection
/// in flight, [`super::offered::owed`]).
const ECHO_CONNECTIONS: usize = 16;
const LARGE_ECHO_CONNECTIONS: usize = 4;

/// The file rows' connections: as the verdict's file rows, 16 and 256.
const FEW: usize = 16;
const MANY: usize = 256;

const fn echo(name: &'static str, bytes: usize, connections: usize, chunk: Option<usize>) -> Workload {
    Workload {
        name,
        shape: Shape::Echo {
            bytes,
            connections,
            chunk,
        },
    }
}

const fn files(name: &'static str, set: &'static str, connections: usize, cold: bool) -> Workload {
    Workload {
        name,
        shape: Shape::Files {
            set,
            connections,
            cold,
        },
    }
}

const fn at_a_fixed_rate(name: &'static str, of: &'static str) -> Workload {
    Workload {
        name,
        shape: Shape::Offered {
            of,
            percent: VERDICT_PERCENT,
        },
    }
}

/// The closed loops the rows are offered a share of (each calibrated flat out, not a row).
pub const LOADS: &[Workload] = &[
    echo("64 KiB echo, chunked", 64 << 10, ECHO_CONNECTIONS, Some(CHUNK)),
    echo("1 MiB echo", 1 << 20, LARGE_ECHO_CONNECTIONS, None),
    echo(
        "1 MiB echo, chunked",
        1 << 20,
        LARGE_ECHO_CONNECTIONS,
        Some(CHUNK),
    ),
    files("64 KiB files, 16 connections", "64k", FEW, false),
    files("64 KiB files, 256 connections", "64k", MANY, false),
    files("4 KiB files, cold, 16 connections", "4k", FEW, true),
    files("4 KiB files, cold, 256 connections", "4k", MANY, true),
    files("64 KiB files, cold, 16 connections", "64k", FEW, true),
    files("64 KiB files, cold, 256 connections", "64k", MANY, true),
    files("1 MiB files, cold, 16 connections", "1m", FEW, true),
    files("1 MiB files, cold, 256 connections", "1m", MANY, true),
];

/// The rows, in the order their tables show them: the echoes, then the files.
pub const ROWS: &[Workload] = &[
    at_a_fixed_rate("64 KiB echo, chunked at a fixed rate", "64 KiB echo, chunked"),
    at_a_fixed_rate("1 MiB echo at a fixed rate", "1 MiB echo"),
    at_a_fixed_rate("1 MiB echo, chunked at a fixed rate", "1 MiB echo, chunked"),
    at_a_fixed_rate(
        "64 KiB files, 16 connections at a fixed rate",
        "64 KiB files, 16 connections",
    ),
    at_a_fixed_rate(
        "64 KiB files, 256 connections at a fixed rate",
        "64 KiB files, 256 connections",
    ),
    at_a_fixed_rate(
        "4 KiB files, cold, 16 connections at a fixed rate",
        "4 KiB files, cold, 16 connections",
    ),
    at_a_fixed_rate(
        "4 KiB files, cold, 256 connections at a fixed rate",
        "4 KiB files, cold, 256 connections",
    ),
    at_a_fixed_rate(
        "64 KiB files, cold, 16 connections at a fixed rate",
        "64 KiB files, cold, 16 connections",
    ),
    at_a_fixed_rate(
        "64 KiB files, cold, 256 connections at a fixed rate",
        "64 KiB files, cold, 256 connections",
    ),
    at_a_fixed_rate(
        "1 MiB files, cold, 16 connections at a fixed rate",
        "1 MiB files, cold, 16 connections",
    ),
    at_a_fixed_rate(
        "1 MiB files, cold, 256 connections at a fixed rate",
        "1 MiB files, cold, 256 connections",
    ),
];

/// Whether `workload` is one of these rows.
pub fn is_further(workload: &Workload) -> bool {
    ROWS.iter().any(|row| row.name == workload.name)
}

/// The echo rows.
pub fn echo_rows() -> Vec<Workload> {
    ROWS.iter().filter(|w| !w.serves_files()).copied().collect()
}

/// The file rows.
pub fn file_rows() -> Vec<Workload> {
    ROWS.iter().filter(|w| w.serves_files()).copied().collect()
}

#[cfg(test)]
#[path = "further_tests.rs"]
mod tests;

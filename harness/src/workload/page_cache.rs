//! The page cache a file workload asks for. The corpus is served hot ([`crate::corpus::hot`]);
//! a cold workload (`Shape::Files { cold: true }`, or an offered load of one) has its
//! set's pages dropped right before each slice of each server ([`before_slice`]), outside
//! the measured window, and read back once its points are done ([`after`]), so the hot
//! rows that follow find them cached again.

use super::{Shape, Workload, offered};
use crate::corpus;
use http_core::files::{CORPUS, CorpusSet};

/// The corpus set `workload` asks for cold, if it does.
pub fn cold_set(workload: &Workload) -> Option<&'static CorpusSet> {
    let shape = match workload.shape {
        Shape::Offered { of, .. } => offered::base(of).shape,
        shape => shape,
    };
    match shape {
        Shape::Files { set, cold: true, .. } => CORPUS.iter().find(|s| s.label == set),
        _ => None,
    }
}

/// Drops the pages of a cold workload's set (nothing for any other workload).
pub fn before_slice(workload: &Workload) -> Result<(), String> {
    match cold_set(workload) {
        Some(set) => corpus::evict(&corpus_dir(), set),
        None => Ok(()),
    }
}

/// Reads a cold workload's set back into the cache (nothing for any other workload).
pub fn after(workload: &Workload) -> Result<(), String> {
    match cold_set(workload) {
        Some(set) => corpus::warm(&corpus_dir(), set).map(drop),
        None => Ok(()),
    }
}

/// Where the servers serve the corpus from: the directory [`corpus::hot`] prepares.
fn corpus_dir() -> std::path::PathBuf {
    corpus::default_dir(&crate::servers::workspace_root())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::catalogue::by_name;

    #[test]
    fn only_a_cold_file_workload_has_its_pages_dropped() {
        let cold = by_name("1 MiB files, cold, 16 connections at a fixed rate").unwrap();
        assert_eq!(cold_set(&cold).map(|s| s.label), Some("1m"));
        for hot in [
            "1 MiB files, 16 connections",
            "64 KiB files, 16 connections at a fixed rate",
            "64 KiB echo",
        ] {
            assert!(cold_set(&by_name(hot).unwrap()).is_none(), "{hot}");
        }
    }
}

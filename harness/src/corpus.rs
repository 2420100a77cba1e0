//! The file studies' corpus on disk: every set of `http_core::files::CORPUS` written into
//! one directory (the servers' `--files-dir`, nginx's `/files/`), each file's bytes
//! `CorpusSet::contents(index)`, and the page cache put into a known state before a
//! measurement: [`warm`] reads a set once, [`evict`] asks the kernel to drop its pages
//! (`posix_fadvise(POSIX_FADV_DONTNEED)`, which drops clean pages no process maps; the
//! corpus is synced to disk when written, so its pages are clean).
//!
//! Writing is idempotent: a manifest (`.corpus`, a name no server serves) records the sets
//! written, and a directory whose manifest matches and whose files all have their sizes is
//! left as it is.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use http_core::files::{CORPUS, CorpusSet};

/// The manifest's name inside the corpus directory.
const MANIFEST: &str = ".corpus";

/// Where the studies keep the corpus: `target/files-corpus` of the workspace (about
/// 200 MB, rebuilt by `cargo clean` only when asked for again).
pub fn default_dir(workspace: &Path) -> PathBuf {
    workspace.join("target").join("files-corpus")
}

/// The layout of the files' bytes; a corpus written with another is written again.
const LAYOUT: &str = "stamped name, then the shifted pattern";

/// What the manifest says of `sets`: the layout, then one line per set.
fn manifest(sets: &[CorpusSet]) -> String {
    let sets: String = sets
        .iter()
        .map(|set| format!("{} {} {}\n", set.label, set.size, set.count))
        .collect();
    format!("{LAYOUT}\n{sets}")
}

/// Writes `sets` into `dir` unless it already holds them (manifest and sizes); returns
/// whether it wrote. The files are synced to disk before the manifest is written.
pub fn write(dir: &Path, sets: &[CorpusSet]) -> Result<bool, String> {
    let error = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    if is_complete(dir, sets) {
        return Ok(false);
    }
    std::fs::create_dir_all(dir).map_err(|e| error(dir, e))?;
    let manifest_path = dir.join(MANIFEST);
    let _ = std::fs::remove_file(&manifest_path);
    for set in sets {
        for index in 0..set.count {
            let path = dir.join(set.name(index));
            let bytes = set.contents(index);
            File::create(&path)
                .and_then(|mut file| file.write_all(&bytes))
                .map_err(|e| error(&path, e))?;
        }
    }
    let root = File::open(dir).map_err(|e| error(dir, e))?;
    // SAFETY: syncfs takes a descriptor we own and touches no memory of ours.
    if unsafe { libc::syncfs(root.as_raw_fd()) } != 0 {
        return Err(error(dir, std::io::Error::last_os_error()));
    }
    std::fs::write(&manifest_path, manifest(sets)).map_err(|e| error(&manifest_path, e))?;
    Ok(true)
}

/// Writes the whole [`CORPUS`] into `dir` as [`write`] does.
pub fn ensure(dir: &Path) -> Result<bool, String> {
    write(dir, &CORPUS)
}

/// Whether `dir`'s manifest names exactly `sets` and every file has its size.
fn is_complete(dir: &Path, sets: &[CorpusSet]) -> bool {
    let written = std::fs::read_to_string(dir.join(MANIFEST)).unwrap_or_default();
    written == manifest(sets)
        && sets.iter().all(|set| {
            (0..set.count).all(|index| {
                std::fs::metadata(dir.join(set.name(index)))
                    .is_ok_and(|m| m.is_file() && m.len() == set.size as u64)
            })
        })
}

/// Asks the kernel to drop `set`'s cached pages: `posix_fadvise(POSIX_FADV_DONTNEED)` on
/// each file. Pages some process maps or is writing stay; the corpus's are clean and no
/// server maps them.
pub fn evict(dir: &Path, set: &CorpusSet) -> Result<(), String> {
    for index in 0..set.count {
        let path = dir.join(set.name(index));
        let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: posix_fadvise takes a descriptor we own and touches no memory of ours.
        let failed = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if failed != 0 {
            let e = std::io::Error::from_raw_os_error(failed);
            return Err(format!("posix_fadvise {}: {e}", path.display()));
        }
    }
    Ok(())
}

/// Reads every file of `set` once, so its pages are cached; returns the bytes read.
pub fn warm(dir: &Path, set: &CorpusSet) -> Result<u64, String> {
    let mut buffer = vec![0; 256 << 10];
    let mut total = 0;
    for index in 0..set.count {
        let path = dir.join(set.name(index));
        let mut file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        loop {
            let n = file
                .read(&mut buffer)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if n == 0 {
                break;
            }
            total += n as u64;
        }
    }
    Ok(total)
}

/// The corpus in the workspace's default directory ([`default_dir`], written once), with
/// the sets the file workloads serve read once so that their pages are cached (should a
/// page be evicted, io_uring_server reads that file instead of sending it by sendfile, and
/// the figures show it): the directory servers then serve `/files/` from. `who` names the
/// program in the line saying the corpus was written.
pub fn hot(who: &str) -> Result<PathBuf, String> {
    let dir = default_dir(&crate::servers::workspace_root());
    if ensure(&dir)? {
        eprintln!("{who}: file corpus written to {}", dir.display());
    }
    for label in file_sets() {
        let set = CORPUS
            .iter()
            .find(|set| set.label == label)
            .ok_or_else(|| format!("no corpus set {label}"))?;
        warm(&dir, set)?;
    }
    Ok(dir)
}

/// The corpus sets the file workloads serve (the verdict's and the further rows'), each
/// once, for the study to write and warm.
pub fn file_sets() -> Vec<&'static str> {
    let every = crate::workload::catalogue::WORKLOADS
        .iter()
        .chain(crate::workload::further::LOADS);
    crate::rounds::first_seen(every.filter_map(|w| match w.shape {
        crate::workload::Shape::Files { set, .. } => Some(set),
        _ => None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: CorpusSet = CorpusSet {
        label: "t",
        size: 5000,
        count: 3,
    };

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("corpus-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn writes_each_byte_once_and_then_leaves_it() {
        let dir = scratch("write");
        assert_eq!(write(&dir, &[SMALL]), Ok(true));
        for index in 0..SMALL.count {
            let bytes = std::fs::read(dir.join(SMALL.name(index))).unwrap();
            assert_eq!(bytes.len(), SMALL.size);
            assert_eq!(bytes, SMALL.contents(index));
        }
        assert_eq!(write(&dir, &[SMALL]), Ok(false), "complete: left as it is");
        std::fs::write(dir.join("t-00001"), b"short").unwrap();
        assert_eq!(write(&dir, &[SMALL]), Ok(true), "a wrong size: rewritten");
        assert_eq!(std::fs::read(dir.join("t-00001")).unwrap().len(), SMALL.size);
        let bigger = CorpusSet { count: 4, ..SMALL };
        assert_eq!(write(&dir, &[bigger]), Ok(true), "another manifest: rewritten");
        assert_eq!(warm(&dir, &bigger), Ok(4 * 5000));
        assert_eq!(evict(&dir, &bigger), Ok(()));
        assert!(
            evict(&dir, &CorpusSet { count: 5, ..SMALL }).is_err(),
            "a missing file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

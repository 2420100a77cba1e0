//! A flame graph (SVG, drawn by inferno) of one server's samples: one tower per thread
//! name, the kernel's frames above the user-space ones they were called from.

use std::path::Path;

use crate::profiles::record::{PERIOD_NS, Stack};

/// The folded lines of the server `pid`'s stacks, rooted at the thread name, in samples.
pub fn lines(stacks: &[Stack], pid: u32) -> Vec<String> {
    stacks
        .iter()
        .filter(|s| s.pid == pid && s.weight >= PERIOD_NS)
        .map(|s| {
            let mut frames = vec![s.comm.as_str()];
            frames.extend(s.frames.iter().map(String::as_str));
            format!("{} {}", frames.join(";"), s.weight / PERIOD_NS)
        })
        .collect()
}

/// Draws the server `pid`'s stacks into `path`, titled `title`.
pub fn write(title: &str, stacks: &[Stack], pid: u32, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "samples".into();
    options.hash = true;
    let lines = lines(stacks, pid);
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg)
        .map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    std::fs::write(path, svg).map_err(|e| format!("{}: {e}", path.display()))
}

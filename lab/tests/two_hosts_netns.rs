//! Two hosts on one machine, end to end: `scripts/two_hosts.sh --smoke` runs the smallest
//! plan (one row, two short rounds) with the agent in one network namespace and the
//! workloads study in another, and writes its page beside loopback's rows. Skipped, and
//! saying so, where network namespaces cannot be made (not root, no `ip`).

use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Whether this process may make a network namespace (it makes one and removes it).
fn can_make_namespaces() -> bool {
    let ip = |args: &[&str]| {
        Command::new("ip")
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let made = ip(&["netns", "add", "uvt-probe-test"]);
    if made {
        ip(&["netns", "del", "uvt-probe-test"]);
    }
    made
}

#[test]
fn the_smallest_plan_runs_across_two_namespaces_and_leaves_no_server() {
    if !can_make_namespaces() {
        eprintln!("skipped: cannot make network namespaces here (needs root and ip)");
        return;
    }
    let root = workspace();
    let page = root.join("target/two_hosts_smoke/two_hosts.md");
    let _ = std::fs::remove_file(&page);
    let status = Command::new(root.join("scripts/two_hosts.sh"))
        .arg("--smoke")
        .status()
        .expect("scripts/two_hosts.sh runs");
    assert!(status.success(), "scripts/two_hosts.sh --smoke: {status}");
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.contains("host of the agent at 10.77.0.1:7070"), "{page}");
    assert!(
        page.contains("| one connection (round trip) | median round trip, µs |"),
        "{page}"
    );
    let namespaces = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let namespaces = String::from_utf8_lossy(&namespaces.stdout);
    assert!(
        !namespaces.contains("uvt-server"),
        "the namespaces are removed: {namespaces}"
    );
    let left = Command::new("pgrep").args(["-f", "10.77.0.1"]).output().unwrap();
    assert!(
        left.stdout.is_empty(),
        "a server outlived the study: {:?}",
        String::from_utf8_lossy(&left.stdout)
    );
}

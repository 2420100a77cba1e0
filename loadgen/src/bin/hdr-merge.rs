//! `hdr-merge`: adds up loadgen's HdrHistogram interval logs (`--hdr-log`), e.g. from
//! several client hosts loading one server together, and prints the merged percentiles
//! per tag as JSON (`latency_us` for the untagged intervals, then one entry per tag such
//! as `uncorrected`), with each one's count.
//!
//! ```text
//! hdr-merge run-a.hlog run-b.hlog
//! ```

use std::collections::BTreeMap;

use loadgen::hdr_log::merge;
use loadgen::run::Percentiles;
use serde::Serialize;

#[derive(Serialize)]
struct Merged {
    requests: u64,
    percentiles_us: Percentiles,
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: hdr-merge LOG...  (interval logs written by loadgen --hdr-log)");
        std::process::exit(2);
    }
    let merged = merge(&paths).unwrap_or_else(|e| {
        eprintln!("hdr-merge: error: {e}");
        std::process::exit(1)
    });
    let by_tag: BTreeMap<String, Merged> = merged
        .iter()
        .map(|(tag, histogram)| {
            let name = tag.clone().unwrap_or_else(|| "latency_us".into());
            let merged = Merged {
                requests: histogram.len(),
                percentiles_us: Percentiles::of(histogram),
            };
            (name, merged)
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&by_tag).expect("serializes"));
}

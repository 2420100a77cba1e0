//! HdrHistogram interval logs (`--hdr-log PATH`): one interval per second of the
//! measured window, in the V2 log format HdrHistogram's own tools read
//! (`HistogramLogProcessor`, `HistogramLogAnalyzer`), histograms deflate-compressed as
//! the Java writer does. Values are µs. Untagged intervals hold the latency as
//! `latency_us` reports it (open loop: from the intended send time); in the open loop,
//! intervals tagged [`UNCORRECTED_TAG`] hold it from the actual send. An answer belongs to
//! the second it arrived in. StartTime and BaseTime are the measured window's start in
//! wall-clock time, so logs written by loadgen on several hosts line up and [`merge`]
//! adds them exactly.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag,
};
use hdrhistogram::serialization::{Deserializer, V2DeflateSerializer};

use crate::summary::new_histogram;

/// The tag of the open loop's uncorrected intervals.
pub const UNCORRECTED_TAG: &str = "uncorrected";

/// Per-second histograms of one measured window.
#[derive(Default)]
pub(crate) struct IntervalLog {
    corrected: Vec<Histogram<u64>>,
    uncorrected: Vec<Histogram<u64>>,
}

impl IntervalLog {
    /// One answer that arrived in `second` of the measured window.
    pub fn record(&mut self, second: usize, corrected_us: u64, uncorrected_us: Option<u64>) {
        record_at(&mut self.corrected, second, corrected_us);
        if let Some(value) = uncorrected_us {
            record_at(&mut self.uncorrected, second, value);
        }
    }

    pub fn add(&mut self, other: &IntervalLog) -> Result<(), String> {
        add_each(&mut self.corrected, &other.corrected)?;
        add_each(&mut self.uncorrected, &other.uncorrected)
    }

    /// Writes the log to `path`: the window started at `start` (wall clock) and lasted
    /// `window`, so the last interval may be shorter than a second.
    pub fn write(&self, path: &Path, start: SystemTime, window: Duration) -> Result<(), String> {
        let fail = |e: &dyn std::fmt::Debug| format!("{}: {e:?}", path.display());
        let mut out = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let mut log = IntervalLogWriterBuilder::new()
            .add_comment("loadgen interval log: values in microseconds; untagged: latency as")
            .add_comment("latency_us reports it, Tag=uncorrected: from the actual send (open loop)")
            .with_start_time(start)
            .with_base_time(start)
            .begin_log_with(&mut out, &mut serializer)
            .map_err(|e| fail(&e))?;
        let seconds = self.corrected.len().max(self.uncorrected.len());
        let uncorrected_tag = Tag::new(UNCORRECTED_TAG);
        for second in 0..seconds {
            let begins = Duration::from_secs(second as u64);
            let length = window.saturating_sub(begins).min(Duration::from_secs(1));
            let empty = new_histogram();
            let corrected = self.corrected.get(second).unwrap_or(&empty);
            log.write_histogram(corrected, begins, length, None)
                .map_err(|e| fail(&e))?;
            if !self.uncorrected.is_empty() {
                let uncorrected = self.uncorrected.get(second).unwrap_or(&empty);
                log.write_histogram(uncorrected, begins, length, uncorrected_tag)
                    .map_err(|e| fail(&e))?;
            }
        }
        std::fs::write(path, out).map_err(|e| fail(&e))
    }
}

fn record_at(intervals: &mut Vec<Histogram<u64>>, second: usize, value: u64) {
    if intervals.len() <= second {
        intervals.resize_with(second + 1, new_histogram);
    }
    intervals[second].saturating_record(value);
}

fn add_each(into: &mut Vec<Histogram<u64>>, from: &[Histogram<u64>]) -> Result<(), String> {
    if into.len() < from.len() {
        into.resize_with(from.len(), new_histogram);
    }
    for (sum, interval) in into.iter_mut().zip(from) {
        sum.add(interval).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// One interval of a log.
pub struct Interval {
    /// `None`: untagged.
    pub tag: Option<String>,
    /// Since the log's BaseTime.
    pub start: Duration,
    pub histogram: Histogram<u64>,
}

/// Every interval of the log at `path`.
pub fn read(path: &Path) -> Result<Vec<Interval>, String> {
    let fail = |e: &dyn std::fmt::Debug| format!("{}: {e:?}", path.display());
    let text = std::fs::read(path).map_err(|e| fail(&e))?;
    let mut deserializer = Deserializer::new();
    let mut intervals = Vec::new();
    for entry in IntervalLogIterator::new(&text) {
        let LogEntry::Interval(interval) = entry.map_err(|e| fail(&e))? else {
            continue;
        };
        let encoded = base64::engine::general_purpose::STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| fail(&e))?;
        let histogram = deserializer
            .deserialize(&mut encoded.as_slice())
            .map_err(|e| fail(&e))?;
        intervals.push(Interval {
            tag: interval.tag().map(|t| t.as_str().to_string()),
            start: interval.start_timestamp(),
            histogram,
        });
    }
    Ok(intervals)
}

/// The logs at `paths` (e.g. from loadgen on several hosts, run together) added up: one
/// histogram per tag (`None`: untagged).
pub fn merge(paths: &[impl AsRef<Path>]) -> Result<BTreeMap<Option<String>, Histogram<u64>>, String> {
    let mut merged: BTreeMap<Option<String>, Histogram<u64>> = BTreeMap::new();
    for path in paths {
        for interval in read(path.as_ref())? {
            merged
                .entry(interval.tag)
                .or_insert_with(new_histogram)
                .add(&interval.histogram)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(merged)
}

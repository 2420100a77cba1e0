//! Reads criterion's `estimates.json` for one benchmark: mean (with its confidence
//! interval) and median, in nanoseconds per iteration.

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimates {
    pub mean_ns: f64,
    pub mean_low_ns: f64,
    pub mean_high_ns: f64,
    pub median_ns: f64,
}

#[derive(Deserialize)]
struct Raw {
    mean: Estimate,
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
    confidence_interval: Interval,
}

#[derive(Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}

/// `criterion_dir/<group>/<function>/new/estimates.json`.
pub fn read(criterion_dir: &Path, group: &str, function: &str) -> Result<Estimates, String> {
    let path = criterion_dir
        .join(group)
        .join(function)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> Result<Estimates, String> {
    let raw: Raw = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(Estimates {
        mean_ns: raw.mean.point_estimate,
        mean_low_ns: raw.mean.confidence_interval.lower_bound,
        mean_high_ns: raw.mean.confidence_interval.upper_bound,
        median_ns: raw.median.point_estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_criterion_estimates() {
        let text = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":90.0,"upper_bound":110.0},"point_estimate":100.0,"standard_error":5.0},
            "median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":94.0,"upper_bound":99.0},"point_estimate":97.0,"standard_error":1.0},
            "median_abs_dev":null,"slope":null,"std_dev":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1}}"#;
        let estimates = parse(text).unwrap();
        assert_eq!(
            estimates,
            Estimates {
                mean_ns: 100.0,
                mean_low_ns: 90.0,
                mean_high_ns: 110.0,
                median_ns: 97.0
            }
        );
        assert!(parse("{}").is_err());
    }
}

//! The further rows' catalogue: every row offered once, every name once.
use super::*;
use crate::workload::catalogue::{WORKLOADS, by_name};
use crate::workload::scope::in_verdict;

#[test]
fn every_row_is_offered_a_share_of_one_load_and_every_name_is_once() {
    for row in ROWS {
        let Shape::Offered { of, .. } = row.shape else {
            panic!("{}: not offered", row.name);
        };
        assert!(LOADS.iter().any(|l| l.name == of), "{}", row.name);
        assert_eq!(by_name(row.name).map(|w| w.name), Some(row.name));
        assert!(in_verdict(row) && is_further(row), "{} is judged", row.name);
    }
    let mut names: Vec<&str> = WORKLOADS
        .iter()
        .chain(LOADS)
        .chain(ROWS)
        .map(|w| w.name)
        .collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a name names one workload");
    assert_eq!(echo_rows().len() + file_rows().len(), ROWS.len());
    assert!(!is_further(&WORKLOADS[0]));
}

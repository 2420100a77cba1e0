//! Where a workloads report's figures come from, for the head of its tables: the machine,
//! the pinning, the rounds planned and run on, the detail-only contenders' rounds.

use super::samples::WorkloadsReport;
use crate::rounds;

impl WorkloadsReport {
    /// Where the figures come from, for the head of a table ([`rounds::provenance`]).
    pub fn provenance(&self, tool: &str) -> String {
        let first = match self.detail_rounds {
            1 => "the first round".to_string(),
            n => format!("the first {n} rounds"),
        };
        let detail = match self.detail_rounds {
            0 => String::new(),
            _ => format!(
                " nginx, shown in the details only, ran in {first}, and so did every server at \
                 the loads shown in the details only (the saturated closed loops of the loads \
                 judged at a fixed rate, and their 25% and 75% rates, except the feature rows \
                 meant for them); the shared-buffer codec ran every round at the idle \
                 workloads."
            ),
        };
        let (planned, extended) = match self.base_rounds {
            Some(base) if base < self.rounds => (
                base,
                format!(
                    " A workload with a cell still *inconclusive* after them ran more rounds, \
                     up to {} in all, until the rule decided every cell of it (the A/A \
                     control's included); each cell says how many rounds it took. Looking \
                     again after each round gives noise more chances to pass for a \
                     difference: the A/A column shows how often that happened here.",
                    self.rounds
                ),
            ),
            _ => (self.rounds, String::new()),
        };
        format!(
            "{} Every server is started afresh for every point, so rounds also sample \
             process start (memory layout, ASLR).{}{extended}{detail}",
            rounds::provenance(
                tool,
                &self.machine,
                &self.pinning,
                (planned, self.seconds_per_point),
            ),
            crate::slices::describe(self.slices),
        )
    }
}

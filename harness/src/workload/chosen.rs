//! How a verdict table says why a p99 row's baseline is the one it is: the cheapest tokio
//! configuration by p99 ([`super::best`]), which need not be the one its CPU row divides
//! by; beside the cell in a full table ([`chosen_by`]), in one sentence under a brief one
//! ([`p99_sentence`]), naming the full verdict's choice where a short run's differs.

use super::Unit;

/// Why a row's cheapest tokio configuration may differ from the one its CPU row divides by:
/// a p99 row picks the lowest by p99 ([`super::best`]), said beside the name it gives.
pub(crate) fn chosen_by(unit: Unit) -> &'static str {
    match unit {
        Unit::LatencyP99 => " (the cheapest by p99, not by CPU)",
        _ => "",
    }
}

/// " A p99 row's first column is the tokio configuration with the lowest p99, which need
/// not be its CPU row's: tokio_server (codec) on *keep-alive ...* (tokio_server (hyper)
/// in the full verdict)." under a brief table, whose cells leave [`chosen_by`] out: per
/// p99 row (its label, the run's choice, the full verdict's), the full verdict's named
/// where it differs; empty without a p99 row.
pub(crate) fn p99_sentence(rows: &[(String, &str, Option<&str>)]) -> String {
    let said: Vec<String> = rows
        .iter()
        .map(|(row, chosen, theirs)| match theirs.filter(|t| t != chosen) {
            Some(theirs) => format!("{chosen} on *{row}* ({theirs} in the full verdict)"),
            None => format!("{chosen} on *{row}*"),
        })
        .collect();
    match said.is_empty() {
        true => String::new(),
        false => format!(
            " A p99 row's first column is the tokio configuration with the lowest p99, which \
             need not be its CPU row's: {}.",
            said.join("; ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_p99_rows_baseline_is_said_to_be_the_cheapest_by_p99() {
        // In full, beside the cell; under a brief table, in one sentence naming the full
        // verdict's choice where it differs.
        assert_eq!(chosen_by(Unit::LatencyP99), " (the cheapest by p99, not by CPU)");
        assert_eq!(chosen_by(Unit::CpuPerRequest), "");
        let row = "keep-alive, small requests".to_string();
        assert_eq!(
            p99_sentence(&[(row.clone(), "tokio_server (codec)", Some("tokio_server (hyper)"))]),
            " A p99 row's first column is the tokio configuration with the lowest p99, which need \
             not be its CPU row's: tokio_server (codec) on *keep-alive, small requests* \
             (tokio_server (hyper) in the full verdict)."
        );
        assert_eq!(
            p99_sentence(&[(row, "tokio_server (hyper)", Some("tokio_server (hyper)"))]),
            " A p99 row's first column is the tokio configuration with the lowest p99, which need \
             not be its CPU row's: tokio_server (hyper) on *keep-alive, small requests*."
        );
        assert_eq!(p99_sentence(&[]), "");
    }
}

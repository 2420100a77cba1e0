//! What TLS does to io_uring_server's saving, the answer block's sentence on it: against
//! the codec engine, its server CPU on each TLS row (kept-alive small requests, one
//! connection, churn with full handshakes, churn with resumed sessions), the kept-alive
//! and one-connection ones beside the same load in plain HTTP. Every figure is the row's own ([`super::worth::amount`]).

use crate::workloads::judged::{Row, Source};
use crate::workloads::runtimes::BASELINE;
use crate::workloads::worth::amount;
use crate::workloads::{Shape, WorkloadsReport};
use harness::workload::Unit;
use harness::workload::offered::base;

/// "Over TLS 1.3 (...), against tokio's codec engine io_uring_server's server CPU on
/// *keep-alive over TLS* is −0.9 of 12.0 µs (−7%, *wins*), against −1.1 of 4.9 µs (−22%,
/// *wins* by ≥10%) on kept-alive small requests in plain HTTP; on *TLS churn, full handshakes* ..."; `None` when the
/// run has no TLS row.
pub fn sentence(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let mut counts = None;
    let clauses: Vec<String> = rows
        .iter()
        .filter(|row| is_tls(row))
        .filter_map(|row| {
            let over_tls = amount(report, row, &BASELINE, &row.against[0])?;
            let twin = plain_twin(row, rows);
            if let (Some(tls), Some(plain)) = (connections(row), twin.and_then(connections)) {
                counts = Some((tls, plain));
            }
            let plain = twin
                .and_then(|twin| amount(report, twin, &BASELINE, &twin.against[0]))
                .map(|plain| format!(", against {plain} in plain HTTP"))
                .unwrap_or_default();
            Some(format!("on *{}* {over_tls}{plain}", row.plain_name()))
        })
        .collect();
    let caution = counts.map_or(String::new(), |(tls, plain)| {
        let connections = match tls == plain {
            true => format!("Both kept-alive rows run {tls} connections"),
            false => format!("The kept-alive TLS row runs {tls} connections, the plain one {plain}"),
        };
        format!(
            " {connections}, each at its own rate, and each TLS point's handshakes count in \
             its CPU: so neither the difference of the two baselines nor the two percentages \
             measure what TLS costs; read each row against its own baseline."
        )
    });
    (!clauses.is_empty()).then(|| {
        format!(
            "Over TLS 1.3 (rustls with aws-lc-rs and one cipher suite in every server, each \
             through its runtime's adapter), what io_uring_server saves (−) or costs (+) of the \
             codec engine's server CPU is: {}.{caution}",
            clauses.join("; ")
        )
    })
}

/// The kept-alive connections of an offered keep-alive row's load, plain or over TLS.
fn connections(row: &Row) -> Option<usize> {
    match base(match row.shape()? {
        Shape::Offered { of, .. } => of,
        _ => return None,
    })
    .shape
    {
        Shape::TlsKeepAlive { connections } | Shape::KeepAlive { connections } => Some(connections),
        _ => None,
    }
}

/// Whether `row` is a TLS workload's server CPU (not a one-connection row's round trip).
fn is_tls(row: &Row) -> bool {
    matches!(row.source, Source::Values(workload) | Source::Also(workload) if workload.tls().is_some())
        && matches!(row.unit, Unit::CpuPerRequest | Unit::CpuPerConnection)
}

/// The row measuring `row`'s load in plain HTTP, in the same unit ([`twins`]).
fn plain_twin<'a>(row: &Row, rows: &'a [Row]) -> Option<&'a Row> {
    let shape = row.shape()?;
    rows.iter()
        .find(|twin| twin.unit == row.unit && twin.shape().is_some_and(|plain| twins(shape, plain)))
}

/// Whether `plain` is the TLS load `tls` in plain HTTP: one connection, or kept-alive
/// small requests at the same share of capacity.
fn twins(tls: Shape, plain: Shape) -> bool {
    match (tls, plain) {
        (
            Shape::OneConnection { tls: true, busy_poll },
            Shape::OneConnection {
                tls: false,
                busy_poll: b,
            },
        ) => busy_poll == b,
        (Shape::Offered { of, percent }, Shape::Offered { of: o, percent: p }) => {
            p == percent
                && matches!(base(of).shape, Shape::TlsKeepAlive { .. })
                && matches!(base(o).shape, Shape::KeepAlive { .. })
        }
        _ => false,
    }
}

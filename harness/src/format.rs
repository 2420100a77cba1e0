//! Numbers as the reports show them.

/// `850 ns`, `45.2 µs`, `12.3 ms`, `1.23 s`.
pub fn duration(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.1} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

/// `123456.7` -> `123,457`.
pub fn group_thousands(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A rate, requests/s, as the reports show it: one decimal below 100 (an offered 37.5
/// beside a served 37.3 must not read 38 beside 37), else [`group_thousands`].
pub fn rate(value: f64) -> String {
    if value.abs() < 100.0 {
        format!("{value:.1}")
    } else {
        group_thousands(value)
    }
}

/// `12.34 µs`, or `n/a` when not measured.
pub fn micros(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |v| format!("{v:.2} µs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_reports_show_them() {
        assert_eq!(duration(850.0), "850 ns");
        assert_eq!(duration(45_210.0), "45.2 µs");
        assert_eq!(duration(12_345_678.0), "12.35 ms");
        assert_eq!(duration(1.5e9), "1.50 s");
        assert_eq!(group_thousands(123_456.7), "123,457");
        assert_eq!(group_thousands(999.0), "999");
        assert_eq!(micros(None), "n/a");
        assert_eq!(rate(37.5), "37.5");
        assert_eq!(rate(43.0), "43.0");
        assert_eq!(rate(29_193.4), "29,193");
    }
}

//! Median and p99 of repeated measurements.

/// Median and p99 of a set of times, in µs.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub median: f64,
    pub p99: f64,
}

/// The median and p99 (nearest rank) of `ns`, nanoseconds, in µs.
pub fn stats(mut ns: Vec<f64>) -> Stats {
    assert!(!ns.is_empty(), "no measurements");
    ns.sort_by(f64::total_cmp);
    let at = |q: f64| ns[((q * ns.len() as f64).ceil() as usize).clamp(1, ns.len()) - 1] / 1e3;
    Stats {
        median: at(0.5),
        p99: at(0.99),
    }
}

#[cfg(test)]
mod tests {
    use super::stats;

    #[test]
    fn nearest_rank_median_and_p99() {
        let s = stats((1..=100).rev().map(|v| v as f64 * 1e3).collect());
        assert_eq!((s.median, s.p99), (50.0, 99.0));
        let one = stats(vec![2500.0]);
        assert_eq!((one.median, one.p99), (2.5, 2.5));
    }
}

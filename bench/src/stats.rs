//! Median and p99 of repeated measurements: exact nearest-rank
//! percentiles over the samples (a few thousand at most, so no histogram).

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

/// What a measurement's samples say: median, p99 (nearest rank), the
/// extremes and how many there were, in the samples' unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub p99: f64,
    pub min: f64,
    pub max: f64,
    pub samples: usize,
}

/// The [`Summary`] of `samples` (any unit; at least one).
pub fn summary(mut samples: Vec<f64>) -> Summary {
    assert!(!samples.is_empty(), "no measurements");
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let at = |q: f64| samples[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    Summary {
        median: at(0.5),
        p99: at(0.99),
        min: samples[0],
        max: samples[n - 1],
        samples: n,
    }
}

#[cfg(test)]
mod tests {
    use super::{stats, summary};

    #[test]
    fn summary_of_samples() {
        let s = summary(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!(
            (s.median, s.p99, s.min, s.max, s.samples),
            (2.0, 10.0, 1.0, 10.0, 4)
        );
    }

    #[test]
    fn nearest_rank_median_and_p99() {
        let s = stats((1..=100).rev().map(|v| v as f64 * 1e3).collect());
        assert_eq!((s.median, s.p99), (50.0, 99.0));
        let one = stats(vec![2500.0]);
        assert_eq!((one.median, one.p99), (2.5, 2.5));
    }
}

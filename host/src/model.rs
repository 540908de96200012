//! The latency-bandwidth performance model of a route (seed 001, digest
//! 001): `t(s) = alpha + beta * s` for `s` bytes, fitted to measured
//! latencies by least squares on the relative error, so that small and
//! large messages count alike. `bench` and `bench_world` fit it to the
//! notified put of each route and write it as a [`RouteModels`] CSV;
//! `DCUDA_MODEL` names such files, and a traced run then predicts its
//! communication from them ([`predict`](fn@crate::trace::predict)).

mod routes;

pub use routes::{Hop, RouteModels};

/// A fitted model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// Latency of an empty message, µs.
    pub alpha_us: f64,
    /// µs per byte.
    pub beta_us_per_byte: f64,
    /// The largest |predicted - measured| / measured over the points.
    pub max_error: f64,
}

impl Model {
    /// Predicted µs for `bytes`.
    pub fn predict(&self, bytes: f64) -> f64 {
        self.alpha_us + self.beta_us_per_byte * bytes
    }

    /// The asymptotic bandwidth 1/beta, GB/s.
    pub fn bandwidth_gbs(&self) -> f64 {
        1e-3 / self.beta_us_per_byte
    }
}

/// Fits `(bytes, µs)` points; `None` for fewer than two distinct sizes.
pub fn fit(points: &[(f64, f64)]) -> Option<Model> {
    // Weighted least squares with weights 1/t^2: minimises the sum of
    // squared relative errors.
    let (mut s, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, t) in points {
        let w = 1.0 / (t * t);
        s += w;
        sx += w * x;
        sy += w * t;
        sxx += w * x * x;
        sxy += w * x * t;
    }
    let det = s * sxx - sx * sx;
    if points.len() < 2 || det.abs() <= f64::EPSILON * s * sxx {
        return None;
    }
    let beta = (s * sxy - sx * sy) / det;
    let alpha = (sy - beta * sx) / s;
    let max_error = points
        .iter()
        .map(|&(x, t)| ((alpha + beta * x - t) / t).abs())
        .fold(0.0, f64::max);
    Some(Model {
        alpha_us: alpha,
        beta_us_per_byte: beta,
        max_error,
    })
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn recovers_an_exact_line() {
        // 1.5 µs plus 10 GB/s (1e-4 µs per byte).
        let pts: Vec<(f64, f64)> = [4.0, 1024.0, 65536.0, 1048576.0]
            .iter()
            .map(|&s| (s, 1.5 + 1e-4 * s))
            .collect();
        let m = fit(&pts).unwrap();
        assert!((m.alpha_us - 1.5).abs() < 1e-9, "{m:?}");
        assert!((m.bandwidth_gbs() - 10.0).abs() < 1e-6, "{m:?}");
        assert!(m.max_error < 1e-9);
        assert!((m.predict(2048.0) - 1.7048).abs() < 1e-9);
    }

    #[test]
    fn reports_its_error_and_refuses_one_size() {
        let m = fit(&[(4.0, 1.0), (1024.0, 5.0), (65536.0, 6.0)]).unwrap();
        assert!(m.max_error > 0.05, "{m:?}");
        assert!(fit(&[(4.0, 1.0), (4.0, 1.1)]).is_none());
        assert!(fit(&[(4.0, 1.0)]).is_none());
    }
}

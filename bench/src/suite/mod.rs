//! The single-device benchmark suite behind `bench`: each function runs
//! one measurement on the device and returns its samples' [`Summary`].
//! Latencies are batches of round trips timed on the device clock, pooled
//! over [`Suite::REPETITIONS`] launches; bandwidths are trials timed on the
//! device clock per sender. dcuda and its raw baselines are timed the same
//! way in the same process.

mod bandwidth;
mod latency;
mod outputs;

pub use latency::Ping;
pub use outputs::write_outputs;

use crate::stats::{summary, Summary};
use dcuda::{Module, Runtime};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Every payload slice starts at a multiple of this many bytes, whatever
/// the sender count, so that every size takes the same copy path.
pub const ALIGN: u64 = 256;

/// A device, the benchmark module and the run's settings.
pub struct Suite {
    pub rt: Runtime,
    pub module: Module,
    /// Fewer batches, trials and sizes.
    pub quick: bool,
    /// Threads per rank (and per raw block) unless a measurement says.
    pub threads: u32,
}

impl Suite {
    /// Launches of each latency measurement, pooled.
    pub const REPETITIONS: u32 = 5;

    /// Timed batches per launch, and round trips per batch.
    fn batches(&self) -> (u32, u32) {
        if self.quick {
            (8, 50)
        } else {
            (40, 100)
        }
    }

    /// Bandwidth trials per launch.
    fn trials(&self) -> u32 {
        5
    }

    /// Runs `launch(batches, iters)` [`Self::REPETITIONS`] times; each
    /// returns one nanosecond count per batch. The summary is of
    /// `ns / iters / per`, in µs (`per`: 2 for half round trips).
    fn pooled(
        &self,
        per: f64,
        mut launch: impl FnMut(u32, u32) -> Result<Vec<u64>>,
    ) -> Result<Summary> {
        let (batches, iters) = self.batches();
        let mut samples = Vec::new();
        for _ in 0..Self::REPETITIONS {
            let ns = launch(batches, iters)?;
            samples.extend(ns.iter().map(|&t| t as f64 / 1e3 / iters as f64 / per));
        }
        Ok(summary(samples))
    }
}

/// GB/s of each trial from per-sender `[start, end]` pairs laid out
/// `[trial][sender][2]`: `bytes` moved per trial over the span from the
/// first start to the last end.
pub fn trial_bandwidths(stamps: &[u64], senders: usize, bytes: f64) -> Vec<f64> {
    stamps
        .chunks(2 * senders)
        .map(|trial| {
            let start = trial.iter().step_by(2).min().copied().unwrap_or(0);
            let end = trial.iter().skip(1).step_by(2).max().copied().unwrap_or(0);
            bytes / end.saturating_sub(start).max(1) as f64
        })
        .collect()
}

/// `bytes` rounded up to [`ALIGN`].
pub fn aligned(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGN).max(1) * ALIGN
}

#[cfg(test)]
mod tests {
    use super::{aligned, trial_bandwidths};

    #[test]
    fn spans_and_alignment() {
        // Two trials of two senders: spans 100 and 50 ns for 1000 bytes.
        let stamps = [0, 80, 20, 100, 200, 240, 210, 250];
        assert_eq!(trial_bandwidths(&stamps, 2, 1000.0), vec![10.0, 20.0]);
        assert_eq!((aligned(1), aligned(256), aligned(257)), (256, 256, 512));
    }
}

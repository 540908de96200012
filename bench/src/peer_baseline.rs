//! The raw baselines of `bench_world` between two GPUs, measured by
//! `bench/baselines/nvshmem_peer.cu` in the same job (device clock, batches
//! of round trips, as dcuda's rows): NVSHMEM put-with-signal, the raw
//! NVLink flag, NVSHMEM and `cudaMemcpyPeer` bandwidth. The program prints
//! `group,measure,bytes,value` lines; [`PeerBaseline::read`] turns them
//! into [`Summary`]s by measure and size.

use crate::stats::{summary, Summary};
use std::collections::BTreeMap;
use std::path::Path;

/// NVSHMEM's block put-with-signal ping-pong (dcuda's ranks are blocks).
pub const NVSHMEM_BLOCK: &str = "nvshmem put-with-signal (128-thread block)";
/// NVSHMEM's one-thread put-with-signal ping-pong at 4 bytes.
pub const NVSHMEM_THREAD: &str = "nvshmem put-with-signal (one thread)";
/// The raw NVLink flag (one thread): the latency floor.
pub const RAW_FLAG: &str = "raw NVLink flag (one thread)";
/// The raw NVLink flag between 128-thread blocks, a barrier around each step.
pub const RAW_FLAG_BLOCK: &str = "raw NVLink flag (128-thread block with barriers)";

/// The baseline's measurements: `(group, measure, bytes)` to the values
/// of its batches (µs) or its one bandwidth (GB/s).
#[derive(Debug, Default)]
pub struct PeerBaseline(BTreeMap<(String, String, u64), Vec<f64>>);

impl PeerBaseline {
    /// Parses the program's output; other lines (NVSHMEM's banner) are
    /// skipped, and a file without one measurement is an error.
    pub fn parse(text: &str) -> Result<PeerBaseline, String> {
        let mut m = BTreeMap::<_, Vec<f64>>::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if let [group @ ("latency" | "bandwidth"), measure, bytes, value] = f[..] {
                if let (Ok(b), Ok(v)) = (bytes.parse(), value.parse()) {
                    let key = (group.to_string(), measure.to_string(), b);
                    m.entry(key).or_default().push(v);
                }
            }
        }
        if m.is_empty() {
            return Err("no `group,measure,bytes,value` line in the baseline".into());
        }
        Ok(PeerBaseline(m))
    }

    /// Reads the baseline's output file.
    pub fn read(path: &Path) -> Result<PeerBaseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        PeerBaseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The latency of `measure` at `bytes`, µs.
    pub fn latency(&self, measure: &str, bytes: u64) -> Option<Summary> {
        let key = ("latency".to_string(), measure.to_string(), bytes);
        self.0.get(&key).map(|v| summary(v.clone()))
    }

    /// The bandwidths at `bytes` of every measure starting with `prefix`,
    /// with their measure names (GB/s).
    pub fn bandwidth(&self, prefix: &str, bytes: u64) -> Option<(String, Summary)> {
        self.0
            .iter()
            .find(|((g, m, b), _)| g == "bandwidth" && m.starts_with(prefix) && *b == bytes)
            .map(|((_, m, _), v)| (m.clone(), summary(v.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_of_one_measure_are_pooled_and_other_lines_skipped() {
        let text = "NVSHMEM banner, v3\n\
             latency,raw NVLink flag (one thread),4,1.2\n\
             latency,raw NVLink flag (one thread),4,1.4\n\
             latency,raw NVLink flag (one thread),4,1.3\n\
             latency,raw NVLink flag (one thread),4,oops\n\
             bandwidth,nvshmem put 16 blocks,4194304,300.5\n\
             bandwidth,cudaMemcpyPeer,4194304,350\n";
        let b = PeerBaseline::parse(text).unwrap();
        let flag = b.latency(RAW_FLAG, 4).unwrap();
        assert_eq!((flag.samples, flag.median, flag.max), (3, 1.3, 1.4));
        assert!(b.latency(RAW_FLAG, 8).is_none());
        let (name, gbs) = b.bandwidth("nvshmem put", 4194304).unwrap();
        assert_eq!(
            (name.as_str(), gbs.median),
            ("nvshmem put 16 blocks", 300.5)
        );
        assert_eq!(
            b.bandwidth("cudaMemcpyPeer", 4194304).unwrap().1.median,
            350.0
        );
        assert!(b.bandwidth("nvshmem put", 1024).is_none());
    }

    #[test]
    fn a_file_without_measurements_is_an_error() {
        assert!(PeerBaseline::parse("hello\n").is_err());
    }
}

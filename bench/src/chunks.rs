//! The dcuda side of `bench_chunks`: one run of the `chunk_latency` kernel,
//! its results checked.

use crate::collectives::THREADS;
use dcuda::{Module, RunConfig, Runtime};
use dcuda_bench_kernels::{ChunkLatencyArgs, CHUNK_LATENCY};

/// The collectives measured, by the kernel's `mode`.
pub const CHUNK_MODES: [&str; 2] = ["allgather_into", "alltoall_into"];

/// Word `x` of rank `r`'s source, `per` words per rank.
fn source(r: usize, x: usize, per: usize) -> u64 {
    ((r * per + x) as u64).wrapping_mul(2_654_435_761)
}

/// Runs `batches` batches of `iters` collectives `mode` with chunks of
/// `len` words over the `ranks` ranks of this device; returns each batch's
/// nanoseconds per collective, as rank 0 timed them with the device clock.
/// Fails if a destination word is wrong.
pub fn chunk_latency(
    rt: &Runtime,
    module: &Module,
    (mode, len): (u32, u32),
    ranks: u32,
    (batches, iters): (u32, u32),
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let per = (ranks * len) as usize;
    let words: Vec<u64> = (0..ranks as usize * per)
        .map(|i| source(i / per, i % per, per))
        .collect();
    let src = rt.upload(&words)?;
    let dst = rt.alloc::<u64>(words.len())?;
    let out = rt.alloc::<u64>(batches as usize)?;
    let args = ChunkLatencyArgs {
        mode,
        len,
        batches,
        iters,
        src: src.slice(),
        dst: dst.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks);
    // SAFETY: ranks * len words per rank in both buffers, one output per batch.
    unsafe { module.run(&CHUNK_LATENCY, &config, &args)? };
    let got = dst.download()?;
    let len = len as usize;
    for (i, &g) in got.iter().enumerate() {
        let (r, x) = (i / per, i % per);
        let (j, e) = (x / len, x % len);
        let want = source(j, if mode == 0 { e } else { r * len + e }, per);
        if g != want {
            let name = CHUNK_MODES[mode as usize];
            return Err(format!("{name}: rank {r}, word {x}: got {g}, want {want}").into());
        }
    }
    let ns = out.download()?;
    Ok(ns.into_iter().map(|t| t as f64 / iters as f64).collect())
}

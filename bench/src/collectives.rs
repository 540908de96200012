//! The dcuda side of the collective benchmarks (`bench_collectives` on one
//! GPU, `bench_world_collectives` across processes): one run of the
//! `collective_latency` kernel, or of `barrier_latency` for the device
//! barrier.

use dcuda::{Module, RankKernel, RunConfig, Runtime};
use dcuda_bench_kernels::{CollectiveLatencyArgs, BARRIER_LATENCY, COLLECTIVE_LATENCY};

/// Threads per rank in the collective benchmarks (and their baselines).
pub const THREADS: u32 = 128;

/// The collectives measured, by the kernel's `mode`.
pub const MODES: [&str; 2] = ["barrier", "allreduce"];

/// Runs `batches` batches of `iters` collectives `mode` over every rank,
/// `ranks` on this device, on the world (`world`) or the device
/// communicator; returns each batch's nanoseconds per collective, as rank
/// 0 timed them with the device clock. Fails if an allreduce's result is
/// wrong.
pub fn collective_latency(
    rt: &Runtime,
    module: &Module,
    (mode, world): (u32, bool),
    ranks: u32,
    shape: (u32, u32),
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    latency_of(
        rt,
        module,
        kernel_of(mode, world),
        (mode, world),
        ranks,
        shape,
    )
}

/// [`collective_latency`] with any kernel that takes its arguments (the
/// result starts zeroed: the raw barrier of `bench_probes` uses it as its
/// word).
pub fn latency_of(
    rt: &Runtime,
    module: &Module,
    kernel: &RankKernel<CollectiveLatencyArgs>,
    (mode, world): (u32, bool),
    ranks: u32,
    (batches, iters): (u32, u32),
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let out = rt.alloc::<u64>(batches as usize)?;
    let result = rt.upload(&[0f64])?;
    let args = CollectiveLatencyArgs {
        mode,
        world: world as u32,
        batches,
        iters,
        out: out.slice(),
        result: result.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks);
    // SAFETY: one output per batch and one result.
    unsafe { module.run(kernel, &config, &args)? };
    let size = if world {
        module.rank_info(kernel, &config)?.rank_count
    } else {
        ranks
    } as f64;
    let got = result.download()?[0];
    if mode == 1 && got != size * (size + 1.0) / 2.0 {
        return Err(format!("allreduce over {size} ranks gave {got}").into());
    }
    let ns = out.download()?;
    Ok(ns.into_iter().map(|t| t as f64 / iters as f64).collect())
}

/// The kernel that measures collective `mode` on the device (`world`
/// false) or world communicator: the barrier on the device communicator
/// alone in its kernel, as `grid.sync()` is in the baseline's, the others
/// in `collective_latency`.
pub fn kernel_of(mode: u32, world: bool) -> &'static RankKernel<CollectiveLatencyArgs> {
    if mode == 0 && !world {
        &BARRIER_LATENCY
    } else {
        &COLLECTIVE_LATENCY
    }
}

//! The dcuda version: one persistent kernel, a rank per block, each rank
//! summing its share of the intervals.

use crate::compute::{midpoint_sum_apart, split};
use dcuda_device::{rank, DeviceSlice, Max, Rank, Sum};

/// Arguments of [`pi`](PI).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PiArgs {
    /// Intervals of the whole integration.
    pub intervals: u64,
    /// Integrations (each the same; for timing).
    pub iters: u32,
    /// Written by world rank 0: π from the last integration.
    pub result: DeviceSlice<f64>,
    /// Written by world rank 0: the nanoseconds of the integrations, the
    /// longest of any rank's device clock from the barrier before them to
    /// the barrier after them.
    pub elapsed: DeviceSlice<u64>,
}

// ANCHOR: pi
#[rank]
pub fn pi(rank: &mut Rank, args: &PiArgs) {
    let world = rank.world();
    let (me, size) = (world.rank(), world.size());
    let n = args.intervals;
    let mine = split(n, size, me);
    let threads = rank.threads_per_rank() as u64;
    rank.barrier(world);
    let started = rank.timestamp();
    let mut pi = 0.0f64;
    for _ in 0..args.iters {
        let local = rank.trace("compute", |rank| {
            rank.reduce(
                |t| midpoint_sum_apart(mine, n, (t.index() as u64, threads)),
                Sum,
            )
        });
        if let Some(total) = rank.reduce_to(world, 0, local, Sum) {
            pi = total / n as f64;
        }
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: world rank 0 alone writes the results, uniformly.
        unsafe {
            args.result.write(0, pi);
            args.elapsed.write(0, longest);
        }
    }
}
// ANCHOR_END: pi
